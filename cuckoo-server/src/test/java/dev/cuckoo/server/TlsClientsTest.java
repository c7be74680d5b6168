package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.File;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * Clients over TLS against a server that listens for TLS only ({@code port 0}, {@code tls-port},
 * {@code tls-auth-clients yes}): redis-cli, Jedis, Lettuce and redis-py run CF commands; a client
 * without a certificate, with an untrusted one, limited to TLSv1.2 against {@code tls-protocols
 * TLSv1.3}, or speaking plaintext is refused.
 */
@ExtendWith(LeakCheck.class)
class TlsClientsTest {
  private static TestCertificates certificates;
  private static CuckooServer server;

  @BeforeAll
  static void start() throws Exception {
    certificates = TestCertificates.get();
    server = CuckooServer.start(certificates.tlsOnly().set("tls-protocols", "TLSv1.3").build());
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static String cli(String certificate, String... args) throws Exception {
    return certificates.redisCli(server.tlsPort(), certificate, args);
  }

  @Test
  void redisCli_clientCertificate_roundTripsCfCommands() throws Exception {
    assertEquals("1", cli("client", "CF.ADD", "cli", "a"));
    assertEquals("1", cli("client", "CF.EXISTS", "cli", "a"));
    assertEquals("0", cli("client", "CF.EXISTS", "cli", "b"));
    String info = cli("client", "INFO", "server");
    assertTrue(info.contains("listener2:name=tls,bind=127.0.0.1,port=" + server.tlsPort()), info);
    assertFalse(info.contains("listener0:"), info);
    assertTrue(info.contains("tcp_port:" + server.tlsPort()), info);
  }

  @Test
  void portZero_noPlaintextListener() throws Exception {
    assertEquals(0, server.port());
    try (RespClient client = new RespClient(tlsSocket("client"))) {
      assertEquals(List.of("port", "0"), texts(client.call("CONFIG", "GET", "port")));
      assertEquals(
          List.of("tls-port", Integer.toString(server.tlsPort())),
          texts(client.call("CONFIG", "GET", "tls-port")));
      String info = RespClient.text(client.call("INFO", "server"));
      assertFalse(info.contains("listener0:"), info);
    }
  }

  private static List<String> texts(Object reply) {
    return ((List<?>) reply).stream().map(RespClient::text).toList();
  }

  @Test
  void redisCli_withoutClientCertificate_refused() throws Exception {
    String output = cli(null, "PING");
    assertFalse(output.contains("PONG"), output);
  }

  @Test
  void redisCli_untrustedClientCertificate_refused() throws Exception {
    String output = cli("stranger", "PING");
    assertFalse(output.contains("PONG"), output);
  }

  @Test
  void javaClient_tls12OnlyAgainstTls13Server_handshakeRefused() throws Exception {
    try (SSLSocket socket = tlsSocket("client")) {
      socket.setEnabledProtocols(new String[] {"TLSv1.2"});
      assertThrows(SSLException.class, socket::startHandshake);
    }
  }

  @Test
  void javaClient_tls13_roundTrips() throws Exception {
    try (RespClient client = new RespClient(tlsSocket("client"))) {
      assertEquals(new RespClient.Simple("PONG"), client.call("PING"));
    }
  }

  @Test
  void plaintextClient_onTlsPort_getsNothingAndIsClosed() throws Exception {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.tlsPort())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      InputStream in = socket.getInputStream();
      // not a TLS record: the server closes without answering a byte
      assertEquals(-1, in.read());
    }
  }

  @Test
  // Jedis 8's SslOptions wants key stores on disk; an SSLContext's socket factory is the older way
  @SuppressWarnings("deprecation")
  void jedis_rediss_runsCfCommandsAndA10kPipeline() throws Exception {
    DefaultJedisClientConfig config =
        DefaultJedisClientConfig.builder()
            .timeoutMillis(10_000)
            .ssl(true)
            .sslSocketFactory(certificates.clientContext("client").getSocketFactory())
            .build();
    try (RedisClient jedis =
        RedisClient.builder()
            .hostAndPort(new HostAndPort("127.0.0.1", server.tlsPort()))
            .clientConfig(config)
            .build()) {
      assertEquals("OK", jedis.cfReserve("jedis", 100_000));
      assertTrue(jedis.cfAdd("jedis", "a"));
      assertTrue(jedis.cfExists("jedis", "a"));
      assertFalse(jedis.cfExists("jedis", "never"));
      assertEquals(1L, jedis.cfCount("jedis", "a"));
      try (redis.clients.jedis.AbstractPipeline pipeline = jedis.pipelined()) {
        List<redis.clients.jedis.Response<Boolean>> added = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
          added.add(pipeline.cfAdd("pipelined", "item" + i));
        }
        pipeline.sync();
        for (redis.clients.jedis.Response<Boolean> response : added) {
          assertTrue(response.get());
        }
      }
      assertEquals(10_000L, jedis.cfInfo("pipelined").get("Number of items inserted"));
    }
  }

  @Test
  void lettuce_rediss_runsCfCommands() {
    io.lettuce.core.RedisClient client =
        io.lettuce.core.RedisClient.create(
            RedisURI.create("rediss://127.0.0.1:" + server.tlsPort()));
    try {
      client.setOptions(
          ClientOptions.builder()
              .sslOptions(
                  SslOptions.builder()
                      .jdkSslProvider()
                      .trustManager(new File(certificates.file("ca.crt")))
                      .keyManager(
                          new File(certificates.file("client.crt")),
                          new File(certificates.file("client.key")),
                          null)
                      .build())
              .build());
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        RedisCommands<String, String> redis = connection.sync();
        assertTrue(redis.cfAdd("lettuce", "x"));
        assertTrue(redis.cfExists("lettuce", "x"));
        assertFalse(redis.cfExists("lettuce", "y"));
        assertTrue(redis.cfDel("lettuce", "x"));
        assertEquals("PONG", redis.ping());
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void redisPy_sslTrue_runsCfCommands() throws Exception {
    File python = new File("/usr/bin/python3");
    boolean available =
        python.canExecute()
            && new ProcessBuilder(python.getPath(), "-c", "import redis.commands.bf")
                    .redirectErrorStream(true)
                    .start()
                    .waitFor()
                == 0;
    if (!available && "true".equals(System.getenv("CI"))) {
      fail("python3-redis is not installed, and CI must run this test (.ci/run installs it)");
    }
    assumeTrue(available, "python3-redis not installed");
    String script =
        String.join(
            "\n",
            "import redis, sys",
            "r = redis.Redis(host='127.0.0.1', port=int(sys.argv[1]), ssl=True,",
            "    ssl_ca_certs=sys.argv[2], ssl_certfile=sys.argv[3], ssl_keyfile=sys.argv[4])",
            "cf = r.cf()",
            "assert cf.create('py', 1000)",
            "assert cf.add('py', 'a') == 1",
            "assert cf.exists('py', 'a') == 1",
            "assert cf.exists('py', 'b') == 0",
            "assert cf.mexists('py', 'a', 'b') == [1, 0]",
            "print('PASS')",
            "");
    Process process =
        new ProcessBuilder(
                python.getPath(),
                "-c",
                script,
                Integer.toString(server.tlsPort()),
                certificates.file("ca.crt"),
                certificates.file("client.crt"),
                certificates.file("client.key"))
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(process.waitFor(60, TimeUnit.SECONDS));
    assertEquals("PASS\n", output);
  }

  /** Returns a connected, not yet handshaken, TLS socket presenting {@code certificate}. */
  private static SSLSocket tlsSocket(String certificate) throws Exception {
    SSLSocket socket =
        (SSLSocket)
            certificates
                .clientContext(certificate)
                .getSocketFactory()
                .createSocket(InetAddress.getLoopbackAddress(), server.tlsPort());
    socket.setSoTimeout(10_000);
    return socket;
  }
}
