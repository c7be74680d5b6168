package dev.cuckoo.server.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Reads a PEM private key as OpenSSL's {@code SSL_CTX_use_PrivateKey_file} does, whatever OpenSSL
 * wrote: PKCS#8 ({@code PRIVATE KEY}, {@code ENCRYPTED PRIVATE KEY}), and the traditional forms
 * that {@code openssl genrsa} (OpenSSL 1.x, or 3.x with {@code -traditional}) and {@code openssl
 * ecparam -genkey} write: PKCS#1 {@code RSA PRIVATE KEY} and SEC1 {@code EC PRIVATE KEY}, plain or
 * encrypted with OpenSSL's {@code Proc-Type}/{@code DEK-Info} headers. The traditional forms are
 * turned into PKCS#8 in memory, which is what the JDK and Netty read.
 */
final class PemKeys {
  /** OID 1.2.840.113549.1.1.1, rsaEncryption (RFC 8017). */
  private static final byte[] RSA_ENCRYPTION = HexFormat.of().parseHex("2a864886f70d010101");

  /** OID 1.2.840.10045.2.1, id-ecPublicKey (RFC 5480). */
  private static final byte[] EC_PUBLIC_KEY = HexFormat.of().parseHex("2a8648ce3d0201");

  /** The JDK key algorithms a PKCS#8 key is tried with, most common first. */
  private static final List<String> ALGORITHMS =
      List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS", "DSA");

  private PemKeys() {}

  /**
   * Reads the first private key of a PEM file.
   *
   * @param file the key file
   * @param password the passphrase of an encrypted key (null: none given)
   * @throws GeneralSecurityException if the key cannot be decrypted or read (a wrong passphrase
   *     usually shows as a bad padding)
   * @throws IOException if the file cannot be read or holds no private key
   */
  static PrivateKey read(Path file, String password) throws IOException, GeneralSecurityException {
    String text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
    for (Pem.Block block : Pem.blocks(text)) {
      switch (block.label()) {
        case "PRIVATE KEY":
          return pkcs8(block.body());
        case "ENCRYPTED PRIVATE KEY":
          return KeyCheck.encryptedPkcs8(block.body(), required(password));
        case "RSA PRIVATE KEY":
          return pkcs8(rsaToPkcs8(decrypted(block, password)));
        case "EC PRIVATE KEY":
          return pkcs8(ecToPkcs8(decrypted(block, password)));
        default:
          // EC PARAMETERS before the key, certificates in the same file: skipped as OpenSSL does
      }
    }
    throw new IOException(
        "no private key in it (expected a PEM block PRIVATE KEY, ENCRYPTED PRIVATE KEY, RSA PRIVATE"
            + " KEY or EC PRIVATE KEY)");
  }

  private static String required(String password) throws GeneralSecurityException {
    if (password == null) {
      throw new GeneralSecurityException("the key is encrypted and no passphrase is set");
    }
    return password;
  }

  /** Returns the PKCS#8 key in the first JDK algorithm that reads it. */
  private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
    GeneralSecurityException last = null;
    for (String algorithm : ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        last = e;
      }
    }
    throw new GeneralSecurityException("not a key of a known kind: " + last.getMessage(), last);
  }

  /** Wraps a PKCS#1 RSAPrivateKey in a PKCS#8 PrivateKeyInfo (RFC 5208). */
  static byte[] rsaToPkcs8(byte[] pkcs1) {
    Der.sequence(pkcs1);
    return privateKeyInfo(
        Der.element(Der.SEQUENCE, Der.element(Der.OID, RSA_ENCRYPTION), Der.element(Der.NULL)),
        pkcs1);
  }

  /**
   * Wraps a SEC1 ECPrivateKey (RFC 5915) in a PKCS#8 PrivateKeyInfo; the curve is taken from the
   * key's own parameters field, which OpenSSL always writes.
   */
  static byte[] ecToPkcs8(byte[] sec1) {
    Der key = Der.sequence(sec1);
    key.integer();
    key.read(Der.OCTET_STRING);
    if (!key.hasMore() || key.peekTag() != Der.CONTEXT_0) {
      throw new IllegalArgumentException("the EC key does not name its curve");
    }
    byte[] curve = key.enter(Der.CONTEXT_0).read(Der.OID);
    return privateKeyInfo(
        Der.element(Der.SEQUENCE, Der.element(Der.OID, EC_PUBLIC_KEY), Der.element(Der.OID, curve)),
        sec1);
  }

  private static byte[] privateKeyInfo(byte[] algorithm, byte[] key) {
    return Der.element(
        Der.SEQUENCE,
        Der.element(Der.INTEGER, new byte[] {0}),
        algorithm,
        Der.element(Der.OCTET_STRING, key));
  }

  /**
   * Returns a traditional key's DER, decrypted first if its headers say {@code Proc-Type:
   * 4,ENCRYPTED}: the key from the passphrase and the IV's first 8 bytes as OpenSSL's
   * EVP_BytesToKey makes it (MD5, one round), the cipher the {@code DEK-Info} header names.
   */
  private static byte[] decrypted(Pem.Block block, String password)
      throws GeneralSecurityException {
    String procType = block.headers().get("Proc-Type");
    if (procType == null || !procType.endsWith("ENCRYPTED")) {
      return block.body();
    }
    String dekInfo = block.headers().get("DEK-Info");
    if (dekInfo == null || dekInfo.indexOf(',') < 0) {
      throw new GeneralSecurityException("encrypted key without a DEK-Info header");
    }
    String name = dekInfo.substring(0, dekInfo.indexOf(',')).strip().toUpperCase(Locale.ROOT);
    byte[] iv = HexFormat.of().parseHex(dekInfo.substring(dekInfo.indexOf(',') + 1).strip());
    LegacyCipher cipher = LegacyCipher.named(name);
    byte[] key =
        bytesToKey(
            required(password).getBytes(StandardCharsets.UTF_8),
            Arrays.copyOf(iv, 8),
            cipher.keyBytes);
    Cipher decrypt = Cipher.getInstance(cipher.transformation);
    decrypt.init(
        Cipher.DECRYPT_MODE, new SecretKeySpec(key, cipher.algorithm), new IvParameterSpec(iv));
    return decrypt.doFinal(block.body());
  }

  /** OpenSSL's EVP_BytesToKey with MD5 and one round: D_i = MD5(D_(i-1) || password || salt). */
  private static byte[] bytesToKey(byte[] password, byte[] salt, int keyBytes)
      throws GeneralSecurityException {
    MessageDigest md5 = MessageDigest.getInstance("MD5");
    byte[] key = new byte[keyBytes];
    byte[] previous = new byte[0];
    int filled = 0;
    while (filled < keyBytes) {
      md5.update(previous);
      md5.update(password);
      md5.update(salt);
      previous = md5.digest();
      int take = Math.min(previous.length, keyBytes - filled);
      System.arraycopy(previous, 0, key, filled, take);
      filled += take;
    }
    return key;
  }

  /**
   * The ciphers OpenSSL writes traditional encrypted keys with ({@code -aes256}, {@code -des3}).
   */
  private enum LegacyCipher {
    AES_128_CBC("AES-128-CBC", "AES", 16),
    AES_192_CBC("AES-192-CBC", "AES", 24),
    AES_256_CBC("AES-256-CBC", "AES", 32),
    DES_EDE3_CBC("DES-EDE3-CBC", "DESede", 24),
    DES_CBC("DES-CBC", "DES", 8);

    final String openSslName;
    final String algorithm;
    final String transformation;
    final int keyBytes;

    LegacyCipher(String openSslName, String algorithm, int keyBytes) {
      this.openSslName = openSslName;
      this.algorithm = algorithm;
      this.transformation = algorithm + "/CBC/PKCS5Padding";
      this.keyBytes = keyBytes;
    }

    static LegacyCipher named(String name) throws GeneralSecurityException {
      for (LegacyCipher cipher : values()) {
        if (cipher.openSslName.equals(name)) {
          return cipher;
        }
      }
      throw new GeneralSecurityException(
          "key encrypted with "
              + name
              + " (expected AES-128/192/256-CBC, DES-EDE3-CBC or DES-CBC)");
    }
  }
}
