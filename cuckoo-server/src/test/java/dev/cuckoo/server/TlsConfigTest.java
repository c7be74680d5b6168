package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tls-* parameters: Redis's defaults in CONFIG GET, CONFIG SET reloading certificates for new
 * connections while open ones continue (a bad file refused by name, the old context kept), the key
 * passphrase, tls-auth-clients no and optional, tls-port opened and closed at run time, the JDK
 * engine, CONFIG REWRITE, and a server told to listen nowhere.
 */
@ExtendWith(LeakCheck.class)
class TlsConfigTest {
  private static TestCertificates certificates;

  @BeforeAll
  static void certificates() throws Exception {
    certificates = TestCertificates.get();
  }

  private static SSLSocket connect(int port, String certificate) throws Exception {
    return certificates.connect(port, certificate);
  }

  private static X509Certificate certificate(String name) throws Exception {
    try (InputStream in = Files.newInputStream(Path.of(certificates.file(name)))) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  private static Object config(RespClient client, String... args) throws IOException {
    Object[] command = new Object[args.length + 2];
    command[0] = "CONFIG";
    command[1] = "SET";
    System.arraycopy(args, 0, command, 2, args.length);
    return client.call(command);
  }

  private static Map<String, String> configGet(RespClient client, String pattern)
      throws IOException {
    List<?> pairs = (List<?>) client.call("CONFIG", "GET", pattern);
    Map<String, String> values = new TreeMap<>();
    for (int i = 0; i < pairs.size(); i += 2) {
      values.put(RespClient.text(pairs.get(i)), RespClient.text(pairs.get(i + 1)));
    }
    return values;
  }

  private static final RespClient.Simple OK = new RespClient.Simple("OK");

  @Test
  void configGet_tlsParameters_redisDefaults() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      Map<String, String> values = configGet(client, "tls-*");
      assertEquals("0", values.get("tls-port"));
      assertEquals("yes", values.get("tls-auth-clients"));
      assertEquals("", values.get("tls-cert-file"));
      assertEquals("", values.get("tls-protocols"));
      assertEquals("no", values.get("tls-prefer-server-ciphers"));
      assertEquals("yes", values.get("tls-session-caching"));
      assertEquals("20480", values.get("tls-session-cache-size"));
      assertEquals("300", values.get("tls-session-cache-timeout"));
      assertEquals("no", values.get("tls-replication"));
      assertEquals("no", values.get("tls-cluster"));
      assertEquals(
          new RespClient.Err(
              "ERR CONFIG SET failed (possibly related to argument 'tls-protocols') -"
                  + " tls-protocols: 'TLSv9' is not a TLS version (expected a combination of"
                  + " TLSv1, TLSv1.1, TLSv1.2 and TLSv1.3)"),
          config(client, "tls-protocols", "TLSv1.3 TLSv9"));
      // without a TLS port the files are only recorded, as Redis does
      assertEquals(OK, config(client, "tls-cert-file", "/nowhere/cert.pem"));
      assertEquals(
          new RespClient.Err(
              "ERR CONFIG SET failed (possibly related to argument 'tls-port') - Unable to update"
                  + " TLS configuration. tls-cert-file /nowhere/cert.pem: not a readable file (no"
                  + " such file, or no access)"),
          config(client, "tls-port", Integer.toString(TestServers.freePort())));
      assertEquals("0", configGet(client, "tls-port").get("tls-port"));
    }
  }

  @Test
  void configSetCertificate_newConnectionsGetIt_openConnectionContinues() throws Exception {
    try (CuckooServer server = CuckooServer.start(certificates.tlsOnly().build());
        SSLSocket first = connect(server.tlsPort(), "client");
        RespClient open = new RespClient(first)) {
      assertEquals(certificate("server.crt"), first.getSession().getPeerCertificates()[0]);
      assertEquals(
          OK,
          config(
              open,
              "tls-cert-file",
              certificates.file("server2.crt"),
              "tls-key-file",
              certificates.file("server2.key")));
      try (SSLSocket second = connect(server.tlsPort(), "client")) {
        assertEquals(certificate("server2.crt"), second.getSession().getPeerCertificates()[0]);
      }
      assertEquals(1L, open.call("CF.ADD", "still", "open"));
      // a file that is not there: refused by name, the context in use stays
      String missing = certificates.file("missing.crt");
      Object refused = config(open, "tls-cert-file", missing);
      assertTrue(
          refused instanceof RespClient.Err err
              && err.text().contains("tls-cert-file " + missing + ": not a readable file"),
          String.valueOf(refused));
      assertEquals(
          certificates.file("server2.crt"), configGet(open, "tls-cert-file").get("tls-cert-file"));
      // a key that does not belong to the certificate
      Object mismatched = config(open, "tls-key-file", certificates.file("client.key"));
      assertTrue(mismatched instanceof RespClient.Err, String.valueOf(mismatched));
      try (SSLSocket third = connect(server.tlsPort(), "client");
          RespClient client = new RespClient(third)) {
        assertEquals(certificate("server2.crt"), third.getSession().getPeerCertificates()[0]);
        assertEquals(1L, client.call("CF.EXISTS", "still", "open"));
      }
      // the same file name again reads the file again (Redis's volatile file parameters)
      assertEquals(OK, config(open, "tls-cert-file", certificates.file("server2.crt")));
    }
  }

  @Test
  void encryptedKey_withPassphrase_serves_wrongPassphraseRefusedAtStart() throws Exception {
    ServerConfig.Builder builder =
        certificates
            .tlsOnly()
            .set("tls-key-file", certificates.file("server-encrypted.key"))
            .set("tls-key-file-pass", "key secret");
    try (CuckooServer server = CuckooServer.start(builder.build());
        RespClient client = new RespClient(connect(server.tlsPort(), "client"))) {
      assertEquals(new RespClient.Simple("PONG"), client.call("PING"));
    }
    IOException refused =
        assertThrows(
            IOException.class,
            () ->
                CuckooServer.start(
                    certificates
                        .tlsOnly()
                        .set("tls-key-file", certificates.file("server-encrypted.key"))
                        .set("tls-key-file-pass", "wrong")
                        .build()));
    assertTrue(
        refused.getMessage().contains(certificates.file("server-encrypted.key")),
        refused.getMessage());
  }

  @Test
  void authClientsNoAndOptional_clientsWithoutCertificateServed() throws Exception {
    try (CuckooServer server = CuckooServer.start(certificates.tlsOnly().build());
        RespClient admin = new RespClient(connect(server.tlsPort(), "client"))) {
      assertThrows(IOException.class, () -> pingWithout(server.tlsPort()));
      assertEquals(OK, config(admin, "tls-auth-clients", "optional"));
      assertEquals(new RespClient.Simple("PONG"), pingWithout(server.tlsPort()));
      // optional still checks a certificate that is given (redis-cli sends it; Java's client
      // sends none that the server's CA list does not name)
      String stranger = certificates.redisCli(server.tlsPort(), "stranger", "PING");
      assertTrue(!stranger.contains("PONG"), stranger);
      assertEquals(OK, config(admin, "tls-auth-clients", "no"));
      assertEquals(new RespClient.Simple("PONG"), pingWithout(server.tlsPort()));
    }
  }

  private static Object pingWithout(int port) throws Exception {
    try (RespClient client = new RespClient(connect(port, null))) {
      return client.call("PING");
    }
  }

  @Test
  void tlsPort_setAndClearedAtRunTime_listenerFollows() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      int tlsPort = TestServers.freePort();
      assertEquals(
          OK,
          config(
              client,
              "tls-cert-file",
              certificates.file("server.crt"),
              "tls-key-file",
              certificates.file("server.key"),
              "tls-ca-cert-file",
              certificates.file("ca.crt"),
              "tls-port",
              Integer.toString(tlsPort)));
      assertEquals(tlsPort, server.tlsPort());
      try (RespClient secure = new RespClient(connect(tlsPort, "client"))) {
        assertEquals(new RespClient.Simple("PONG"), secure.call("PING"));
        assertEquals(OK, config(client, "tls-port", "0"));
        assertEquals(0, server.tlsPort());
        // the connection made before stays
        assertEquals(new RespClient.Simple("PONG"), secure.call("PING"));
      }
      assertEquals(
          new RespClient.Err(
              "ERR CONFIG SET failed (possibly related to argument 'port') - port and tls-port"
                  + " 0: the server would listen nowhere"),
          config(client, "port", "0"));
    }
  }

  @Test
  void portAndTlsPortZero_startRefused() {
    IOException refused =
        assertThrows(
            IOException.class, () -> CuckooServer.start(TestServers.memoryOnly().port(0).build()));
    assertTrue(refused.getMessage().contains("not listen anywhere"), refused.getMessage());
  }

  @Test
  void jdkProvider_servesTls() throws Exception {
    try (CuckooServer server =
            CuckooServer.start(certificates.tlsOnly().set("tls-provider", "jdk").build());
        RespClient client = new RespClient(connect(server.tlsPort(), "client"))) {
      assertEquals(1L, client.call("CF.ADD", "jdk", "x"));
      assertEquals("jdk", configGet(client, "tls-provider").get("tls-provider"));
    }
  }

  @Test
  void configRewrite_tlsParameters_writtenAndLoadedAgain(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("cuckoo.conf");
    int tlsPort = TestServers.freePort();
    try (CuckooServer server =
            TestServers.startFromConfigFile(
                file,
                "tls-port " + tlsPort,
                "tls-cert-file " + certificates.file("server.crt"),
                "tls-key-file " + certificates.file("server.key"),
                "tls-ca-cert-file " + certificates.file("ca.crt"));
        RespClient client = new RespClient(server.port())) {
      assertEquals(
          OK, config(client, "tls-auth-clients", "optional", "tls-protocols", "TLSv1.2 TLSv1.3"));
      assertEquals(OK, client.call("CONFIG", "REWRITE"));
    }
    String written = Files.readString(file);
    assertTrue(written.contains("tls-auth-clients optional"), written);
    assertTrue(written.contains("tls-protocols \"TLSv1.2 TLSv1.3\""), written);
    ServerConfig reloaded = ServerConfig.parse(file.toString());
    assertEquals(
        "optional",
        reloaded.parameters().text(dev.cuckoo.server.config.Parameters.TLS_AUTH_CLIENTS));
    assertEquals(
        (long) tlsPort, reloaded.parameters().get(dev.cuckoo.server.config.Parameters.TLS_PORT));
  }
}
