package dev.cuckoo.server.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks a tls-dh-params-file as Redis's tlsConfigure reads it: a PEM {@code DH PARAMETERS} block
 * (PKCS#3, what {@code openssl dhparam} writes) whose prime and generator OpenSSL would take.
 *
 * <p>Neither engine this server uses can apply the parameters, so they are checked and not used:
 * BoringSSL (the OpenSSL engine here) has no finite-field DHE cipher suites at all, and the JDK's
 * engine sets its DHE groups for the whole JVM (the RFC 7919 groups, or the {@code
 * jdk.tls.server.defaultDHEParameters} property at start), never per context. Key exchange is ECDHE
 * (or TLSv1.3's groups) with either engine.
 */
final class DhParams {
  /**
   * OpenSSL's default security level (1) refuses DH primes under 1024 bits ("dh key too small").
   */
  static final int MIN_PRIME_BITS = 1024;

  /** OpenSSL's OPENSSL_DH_MAX_MODULUS_BITS: larger primes are refused ("modulus too large"). */
  static final int MAX_PRIME_BITS = 10_000;

  private DhParams() {}

  /**
   * Checks the file.
   *
   * @return the prime's size in bits
   * @throws TlsConfigException with Redis's words: {@code Failed to load FILE: ...} if it cannot be
   *     read, {@code FILE: failed to read DH params.} if it holds no DH parameters, {@code Failed
   *     to load DH params file: FILE: ...} if OpenSSL would refuse them
   */
  static int check(Path file) throws TlsConfigException {
    String text;
    try {
      text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new TlsConfigException(
          "Failed to load " + file + ": " + (Files.exists(file) ? e : "No such file or directory"),
          e);
    }
    BigInteger prime = null;
    BigInteger generator = null;
    try {
      for (Pem.Block block : Pem.blocks(text)) {
        if (block.label().equals("DH PARAMETERS")) {
          Der parameters = Der.sequence(block.body());
          prime = parameters.integer();
          generator = parameters.integer();
          break;
        }
      }
    } catch (IllegalArgumentException e) {
      prime = null;
    }
    if (prime == null) {
      throw new TlsConfigException(
          file
              + ": failed to read DH params. (expected a PEM block DH PARAMETERS, as openssl"
              + " dhparam writes)");
    }
    String refusal = refusal(prime, generator);
    if (refusal != null) {
      throw new TlsConfigException("Failed to load DH params file: " + file + ": " + refusal);
    }
    return prime.bitLength();
  }

  /** Returns why OpenSSL would refuse the parameters, or null. */
  private static String refusal(BigInteger prime, BigInteger generator) {
    int bits = prime.bitLength();
    if (bits < MIN_PRIME_BITS) {
      return "dh key too small (a " + bits + "-bit prime; expected: >= " + MIN_PRIME_BITS + ")";
    }
    if (bits > MAX_PRIME_BITS) {
      return "modulus too large (a " + bits + "-bit prime; expected: <= " + MAX_PRIME_BITS + ")";
    }
    if (!prime.testBit(0)) {
      return "invalid DH parameters (the prime is even)";
    }
    if (generator.compareTo(BigInteger.ONE) <= 0
        || generator.compareTo(prime.subtract(BigInteger.ONE)) >= 0) {
      return "invalid DH parameters (the generator is not in 2 .. p-2)";
    }
    return null;
  }
}
