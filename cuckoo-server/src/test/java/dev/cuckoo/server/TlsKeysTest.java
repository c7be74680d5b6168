package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The key and DH parameter files OpenSSL writes, read as Redis reads them: PKCS#1 ({@code BEGIN RSA
 * PRIVATE KEY}, what {@code openssl genrsa} writes with OpenSSL 1.x) and SEC1 EC keys ({@code BEGIN
 * EC PRIVATE KEY}, after an {@code EC PARAMETERS} block), plain and encrypted with
 * tls-key-file-pass, with both engines; and tls-dh-params-file checked with Redis's errors.
 */
@ExtendWith(LeakCheck.class)
class TlsKeysTest {
  private static final String PASSPHRASE = "key secret";
  private static TestCertificates certificates;

  @BeforeAll
  static void makeKeys() throws Exception {
    certificates = TestCertificates.get();
    certificates.openssl("genrsa", "-traditional", "-out", certificates.file("pkcs1.key"), "2048");
    certificates.openssl(
        "rsa",
        "-traditional",
        "-aes256",
        "-in",
        certificates.file("pkcs1.key"),
        "-passout",
        "pass:" + PASSPHRASE,
        "-out",
        certificates.file("pkcs1-encrypted.key"));
    certificates.signServerKey("pkcs1", "pkcs1.key", null);
    certificates.openssl(
        "ecparam", "-genkey", "-name", "prime256v1", "-out", certificates.file("ec.key"));
    certificates.openssl(
        "ec",
        "-aes128",
        "-in",
        certificates.file("ec.key"),
        "-passout",
        "pass:" + PASSPHRASE,
        "-out",
        certificates.file("ec-encrypted.key"));
    certificates.signServerKey("ec", "ec.key", null);
    certificates.openssl(
        "genpkey",
        "-genparam",
        "-algorithm",
        "DH",
        "-pkeyopt",
        "group:ffdhe2048",
        "-out",
        certificates.file("dh2048.pem"));
    certificates.openssl("dhparam", "-out", certificates.file("dh512.pem"), "512");
  }

  private static ServerConfig.Builder serverWith(String cert, String key, String passphrase)
      throws IOException {
    ServerConfig.Builder builder =
        certificates
            .tlsOnly()
            .set("tls-cert-file", certificates.file(cert))
            .set("tls-key-file", certificates.file(key));
    return passphrase == null ? builder : builder.set("tls-key-file-pass", passphrase);
  }

  @Test
  void traditionalKeys_plainAndEncrypted_serveWithBothEngines() throws Exception {
    List<String[]> pairs =
        List.of(
            new String[] {"pkcs1.crt", "pkcs1.key", null},
            new String[] {"pkcs1.crt", "pkcs1-encrypted.key", PASSPHRASE},
            new String[] {"ec.crt", "ec.key", null},
            new String[] {"ec.crt", "ec-encrypted.key", PASSPHRASE});
    for (String engine : List.of("auto", "jdk")) {
      // the key is read before the engine sees it: the JDK engine with two of the forms is enough
      for (String[] pair : engine.equals("auto") ? pairs : List.of(pairs.get(1), pairs.get(2))) {
        try (CuckooServer server =
                CuckooServer.start(
                    serverWith(pair[0], pair[1], pair[2]).set("tls-provider", engine).build());
            RespClient client = new RespClient(certificates.connect(server.tlsPort(), "client"))) {
          assertEquals(new RespClient.Simple("PONG"), client.call("PING"), engine + " " + pair[1]);
        }
      }
    }
  }

  @Test
  void traditionalKey_wrongOrMissingPassphrase_startRefusedNamingTheFile() {
    for (String key : List.of("pkcs1-encrypted.key", "ec-encrypted.key")) {
      String cert = key.startsWith("ec") ? "ec.crt" : "pkcs1.crt";
      IOException wrong =
          assertThrows(
              IOException.class, () -> CuckooServer.start(serverWith(cert, key, "wrong").build()));
      assertTrue(
          wrong.getMessage().startsWith("TLS: tls-key-file " + certificates.file(key)),
          wrong.getMessage());
      assertTrue(wrong.getMessage().contains("is its passphrase right?"), wrong.getMessage());
      IOException missing =
          assertThrows(
              IOException.class, () -> CuckooServer.start(serverWith(cert, key, null).build()));
      assertTrue(
          missing.getMessage().contains("the key is encrypted and no passphrase is set"),
          missing.getMessage());
    }
  }

  @Test
  void dhParamsFile_checkedAsRedis_badFilesRefusedByName() throws Exception {
    String good = certificates.file("dh2048.pem");
    String small = certificates.file("dh512.pem");
    try (CuckooServer server =
            CuckooServer.start(certificates.tlsOnly().set("tls-dh-params-file", good).build());
        RespClient client = new RespClient(certificates.connect(server.tlsPort(), "client"))) {
      assertEquals(
          List.of("tls-dh-params-file", good),
          AclCommandsTest.texts(client.call("CONFIG", "GET", "tls-dh-params-file")));
      String prefix =
          "ERR CONFIG SET failed (possibly related to argument 'tls-dh-params-file') - Unable to"
              + " update TLS configuration. ";
      assertEquals(
          new RespClient.Err(
              prefix
                  + "Failed to load DH params file: "
                  + small
                  + ": dh key too small (a 512-bit prime; expected: >= 1024)"),
          client.call("CONFIG", "SET", "tls-dh-params-file", small));
      String notDh = certificates.file("ca.crt");
      assertEquals(
          new RespClient.Err(
              prefix
                  + notDh
                  + ": failed to read DH params. (expected a PEM block DH PARAMETERS, as openssl"
                  + " dhparam writes)"),
          client.call("CONFIG", "SET", "tls-dh-params-file", notDh));
      assertEquals(
          new RespClient.Err(
              prefix
                  + "tls-dh-params-file /nowhere/dh.pem: not a readable file (no such file, or"
                  + " no access)"),
          client.call("CONFIG", "SET", "tls-dh-params-file", "/nowhere/dh.pem"));
      assertEquals(
          List.of("tls-dh-params-file", good),
          AclCommandsTest.texts(client.call("CONFIG", "GET", "tls-dh-params-file")));
      assertEquals(new RespClient.Simple("PONG"), client.call("PING"));
    }
    IOException refused =
        assertThrows(
            IOException.class,
            () ->
                CuckooServer.start(
                    certificates.tlsOnly().set("tls-dh-params-file", small).build()));
    assertTrue(refused.getMessage().contains("dh key too small"), refused.getMessage());
  }
}
