package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Request size limits over TCP: Redis's pre-AUTH limits, and big bulks once they are allowed. */
@ExtendWith(LeakCheck.class)
class RequestLimitsTest {
  private static CuckooServer startWithPassword() throws IOException {
    return CuckooServer.start(TestServers.memoryOnly().requirePass("pw").build());
  }

  @Test
  void request_unauthenticatedElevenArguments_protocolErrorAndClose() throws IOException {
    try (CuckooServer server = startWithPassword();
        RespClient client = new RespClient(server.port())) {
      client.sendRaw("*11\r\n".getBytes(StandardCharsets.US_ASCII));
      assertEquals(new Err("ERR Protocol error: unauthenticated multibulk length"), client.read());
      assertTrue(client.closedByServer());
    }
  }

  @Test
  void request_unauthenticatedBulkOver16384_protocolErrorAndClose() throws IOException {
    try (CuckooServer server = startWithPassword();
        RespClient client = new RespClient(server.port())) {
      client.sendRaw("*2\r\n$4\r\nAUTH\r\n$16385\r\n".getBytes(StandardCharsets.US_ASCII));
      assertEquals(new Err("ERR Protocol error: unauthenticated bulk length"), client.read());
      assertTrue(client.closedByServer());
    }
  }

  @Test
  void request_unauthenticatedAtTheLimits_answeredWithNoauth() throws IOException {
    try (CuckooServer server = startWithPassword();
        RespClient client = new RespClient(server.port())) {
      Object[] ten = {"DEL", "a", "b", "c", "d", "e", "f", "g", "h", new byte[16384]};
      assertEquals(new Err("NOAUTH Authentication required."), client.call(ten));
      assertEquals(new Simple("OK"), client.call("AUTH", "pw"));
    }
  }

  @Test
  void request_afterAuth_bigBulksAccepted() throws IOException {
    byte[] value = new byte[1 << 20];
    new Random(3).nextBytes(value);
    try (CuckooServer server = startWithPassword();
        RespClient client = new RespClient(server.port())) {
      assertEquals(new Simple("OK"), client.call("AUTH", "pw"));
      assertArrayEquals(value, (byte[]) client.call("ECHO", value));
    }
    try (CuckooServer server = startWithPassword();
        RespClient client = new RespClient(server.port())) {
      byte[] auth = RespClient.encode("AUTH", "pw");
      byte[] echo = RespClient.encode("ECHO", value);
      byte[] both = java.util.Arrays.copyOf(auth, auth.length + echo.length);
      System.arraycopy(echo, 0, both, auth.length, echo.length);
      client.sendRaw(both);
      assertEquals(new Simple("OK"), client.read());
      assertArrayEquals(value, (byte[]) client.read());
    }
  }

  @Test
  void request_bulkOf48MiBOverLoopback_arrivesIntact() throws IOException {
    byte[] value = new byte[48 * 1024 * 1024 + 7];
    new Random(5).nextBytes(value);
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertArrayEquals(value, (byte[]) client.call("ECHO", value));
      assertEquals(new Simple("PONG"), client.call("PING"));
    }
  }
}
