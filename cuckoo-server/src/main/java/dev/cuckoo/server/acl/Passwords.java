package dev.cuckoo.server.acl;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * Passwords as Redis keeps them: the SHA-256 digest of the password's bytes in lower-case hex,
 * compared in constant time, and ACL GENPASS's random hex.
 */
public final class Passwords {
  private static final char[] HEX = "0123456789abcdef".toCharArray();
  private static final SecureRandom RANDOM = new SecureRandom();

  /** The length of a hashed password: 64 hex digits. */
  static final int HASH_LENGTH = 64;

  /** The most bits ACL GENPASS makes. */
  public static final int GENPASS_MAX_BITS = 4096;

  private Passwords() {}

  /** Returns the SHA-256 of the bytes in lower-case hex (Redis's ACLHashPassword). */
  public static String hash(byte[] password) {
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
    return hex(sha256.digest(password));
  }

  private static String hex(byte[] bytes) {
    char[] text = new char[bytes.length * 2];
    for (int i = 0; i < bytes.length; i++) {
      text[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
      text[2 * i + 1] = HEX[bytes[i] & 0xf];
    }
    return new String(text);
  }

  /** Returns true if the text is a hash Redis accepts after {@code #} or {@code !}. */
  static boolean validHash(String hash) {
    if (hash.length() != HASH_LENGTH) {
      return false;
    }
    for (int i = 0; i < hash.length(); i++) {
      char c = hash.charAt(i);
      if ((c < 'a' || c > 'f') && (c < '0' || c > '9')) {
        return false;
      }
    }
    return true;
  }

  /**
   * Compares two hashes in time that depends only on their length, never on where they differ
   * (Redis's time_independent_strcmp); {@link MessageDigest#isEqual} is constant-time since Java
   * 6u17.
   */
  static boolean sameHash(String a, String b) {
    return MessageDigest.isEqual(Latin1.bytes(a), Latin1.bytes(b));
  }

  /**
   * Returns {@code bits} random bits as hex, rounded up to whole hex digits (ACL GENPASS).
   *
   * @param bits 1 to {@value #GENPASS_MAX_BITS}
   */
  public static String generate(int bits) {
    if (bits <= 0 || bits > GENPASS_MAX_BITS) {
      throw new IllegalArgumentException(
          "bits: " + bits + " (expected: 1.." + GENPASS_MAX_BITS + ")");
    }
    int chars = (bits + 3) / 4;
    byte[] random = new byte[(chars + 1) / 2];
    RANDOM.nextBytes(random);
    return hex(random).substring(0, chars);
  }
}
