package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.handler.ssl.OpenSsl;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * tls-ciphers as an OpenSSL cipher string ({@code ECDHE+AESGCM}, {@code HIGH:!aNULL}) with both
 * engines, a string OpenSSL refuses named at CONFIG SET, and tls-ciphersuites restricting TLSv1.3
 * (BoringSSL cannot: auto picks the JDK engine, openssl is refused).
 */
@ExtendWith(LeakCheck.class)
class TlsCiphersTest {
  private static final String GCM = "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384";
  private static final String CHACHA = "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256";
  private static TestCertificates certificates;

  @BeforeAll
  static void certificates() throws Exception {
    certificates = TestCertificates.get();
    // the cipher strings are read by OpenSSL, which netty-tcnative brings on Linux x86-64/aarch64
    if (!OpenSsl.isAvailable() && "true".equals(System.getenv("CI"))) {
      fail("OpenSSL (netty-tcnative) does not load, and CI must run these tests");
    }
  }

  /** Returns the suite a client offering only {@code suite} over {@code protocol} negotiates. */
  private static String handshake(int port, String protocol, String suite) throws Exception {
    try (SSLSocket socket =
        (SSLSocket)
            certificates
                .clientContext("client")
                .getSocketFactory()
                .createSocket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(10_000);
      socket.setEnabledProtocols(new String[] {protocol});
      socket.setEnabledCipherSuites(new String[] {suite});
      socket.startHandshake();
      return socket.getSession().getCipherSuite();
    }
  }

  @Test
  void cipherString_bothEngines_onlyMatchingSuitesNegotiated() throws Exception {
    assumeTrue(OpenSsl.isAvailable(), "OpenSSL not available");
    for (String engine : List.of("openssl", "jdk")) {
      try (CuckooServer server =
          CuckooServer.start(
              certificates
                  .tlsOnly()
                  .set("tls-provider", engine)
                  .set("tls-ciphers", "ECDHE+AESGCM")
                  .build())) {
        int port = server.tlsPort();
        assertEquals(GCM, handshake(port, "TLSv1.2", GCM), engine);
        assertThrows(IOException.class, () -> handshake(port, "TLSv1.2", CHACHA), engine);
        try (RespClient client = new RespClient(certificates.connect(port, "client"))) {
          assertEquals(
              new RespClient.Simple("OK"),
              client.call("CONFIG", "SET", "tls-ciphers", "HIGH:!aNULL:!AESGCM"));
          assertEquals(CHACHA, handshake(port, "TLSv1.2", CHACHA), engine);
          assertThrows(IOException.class, () -> handshake(port, "TLSv1.2", GCM), engine);
          Object refused = client.call("CONFIG", "SET", "tls-ciphers", "NOSUCHCIPHER");
          assertTrue(
              ((RespClient.Err) refused)
                  .text()
                  .startsWith(
                      "ERR CONFIG SET failed (possibly related to argument 'tls-ciphers') - Unable"
                          + " to update TLS configuration. tls-ciphers 'NOSUCHCIPHER': Failed to"
                          + " configure ciphers"),
              engine + ": " + refused);
          // the refused string left the previous one in place
          assertEquals(CHACHA, handshake(port, "TLSv1.2", CHACHA), engine);
        }
      }
    }
  }

  @Test
  void ciphersuites_restrictTls13_autoUsesAnEngineThatCan_opensslRefused() throws Exception {
    assumeTrue(OpenSsl.isAvailable(), "OpenSSL not available");
    try (CuckooServer server =
        CuckooServer.start(
            certificates.tlsOnly().set("tls-ciphersuites", "TLS_AES_256_GCM_SHA384").build())) {
      int port = server.tlsPort();
      assertEquals("TLS_AES_256_GCM_SHA384", handshake(port, "TLSv1.3", "TLS_AES_256_GCM_SHA384"));
      assertThrows(IOException.class, () -> handshake(port, "TLSv1.3", "TLS_AES_128_GCM_SHA256"));
    }
    IOException refused =
        assertThrows(
            IOException.class,
            () ->
                CuckooServer.start(
                    certificates
                        .tlsOnly()
                        .set("tls-provider", "openssl")
                        .set("tls-ciphersuites", "TLS_AES_256_GCM_SHA384")
                        .build()));
    assertTrue(
        refused.getMessage().contains("cannot restrict TLSv1.3 cipher suites"),
        refused.getMessage());
  }
}
