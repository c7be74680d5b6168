package dev.cuckoo.server.tls;

import io.netty.handler.ssl.SslContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.Base64;

/**
 * Reads a PEM private key ({@link PemKeys}) and checks that it belongs to a certificate (OpenSSL's
 * {@code SSL_CTX_check_private_key}): a key that does not match would otherwise be taken and fail
 * every handshake. An abstract subclass only to reach {@link SslContext}'s reader of encrypted
 * PKCS#8 keys.
 */
abstract class KeyCheck extends SslContext {
  private KeyCheck() {}

  /**
   * Reads an encrypted PKCS#8 key (the DER of an {@code ENCRYPTED PRIVATE KEY} block) with its
   * passphrase, as Netty's contexts read one (PBES1 and PBES2).
   */
  static PrivateKey encryptedPkcs8(byte[] der, String password) throws GeneralSecurityException {
    String pem =
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
            + Base64.getMimeEncoder().encodeToString(der)
            + "\n-----END ENCRYPTED PRIVATE KEY-----\n";
    try {
      return toPrivateKey(
          new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)), password);
    } catch (IOException e) {
      throw new GeneralSecurityException(e.getMessage(), e);
    }
  }

  /**
   * Reads {@code keyFile} (decrypted with {@code password}, null if plain) and checks that it is
   * the private key of {@code certificate}.
   *
   * @return the key
   * @throws TlsConfigException naming {@code keyParameter} and the file if the key cannot be read
   *     or does not match
   */
  static PrivateKey matches(
      Path keyFile, String password, X509Certificate certificate, String keyParameter)
      throws TlsConfigException {
    PrivateKey key;
    try {
      key = PemKeys.read(keyFile, password);
    } catch (Exception e) {
      throw new TlsConfigException(
          keyParameter
              + " "
              + keyFile
              + ": cannot read the private key"
              + (password == null ? "" : " (is its passphrase right?)")
              + ": "
              + e.getMessage(),
          e);
    }
    if (!signs(key, certificate.getPublicKey())) {
      throw new TlsConfigException(
          keyParameter
              + " "
              + keyFile
              + ": the private key does not match the certificate "
              + certificate.getSubjectX500Principal());
    }
    return key;
  }

  /** Returns true if what {@code key} signs verifies with {@code publicKey}. */
  private static boolean signs(PrivateKey key, PublicKey publicKey) {
    if (!family(key.getAlgorithm()).equals(family(publicKey.getAlgorithm()))) {
      return false;
    }
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          case "DSA" -> "SHA256withDSA";
          case "Ed25519", "Ed448" -> key.getAlgorithm();
          default -> null;
        };
    if (algorithm == null) {
      // a kind of key this check does not know: the engine is left to judge it
      return true;
    }
    try {
      byte[] nonce = new byte[32];
      new SecureRandom().nextBytes(nonce);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(nonce);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(publicKey);
      verifier.update(nonce);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  /** Returns a key algorithm's family: the EdDSA curves are one. */
  private static String family(String algorithm) {
    return algorithm.startsWith("Ed") ? "EdDSA" : algorithm;
  }
}
