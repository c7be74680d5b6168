package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SIGTERM and SIGINT stop a cuckoo-server process (a child JVM) as SHUTDOWN does. */
class ShutdownSignalsTest {
  private static final int PIPELINED = 5_000;

  @TempDir Path dir;

  @Test
  void sigtermThenSigint_duringPipelinedWrites_repliesSentExitZeroAcknowledgedWritesKept()
      throws Exception {
    Path data = dir.resolve("data");
    int acknowledged = 0;
    long stopMillis;
    try (ChildServer child =
        ChildServer.start("256m", dir.resolve("server.out"), "--dir", data.toString())) {
      try (RespClient client = new RespClient(child.port())) {
        assertEquals("PONG", ((RespClient.Simple) client.call("PING")).text());
        ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
        for (int i = 0; i < PIPELINED; i++) {
          pipeline.writeBytes(RespClient.encode("CF.ADD", "k", "item-" + i));
        }
        client.sendRaw(pipeline.toByteArray());
        assertEquals(1L, client.read());
        acknowledged = 1;
        long signalNanos = System.nanoTime();
        // a second signal during the shutdown must change nothing
        child.signals("TERM", "INT");
        try {
          while (true) {
            assertEquals(1L, client.read(), "reply " + acknowledged);
            acknowledged++;
          }
        } catch (EOFException | SocketException closed) {
          // the server closed the connection after the replies of what it had read
        }
        assertTrue(child.awaitExit(30_000), "still running 30 s after SIGTERM: " + child.output());
        stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalNanos);
      }
      String output = child.output();
      assertEquals(0, child.exitCode(), output);
      assertEquals(1, count(output, "SIG(TERM|INT): shutting down"), output);
      assertEquals(1, count(output, "SIG(TERM|INT) while shutting down"), output);
      assertTrue(output.contains("stopped in "), output);
    }
    System.out.printf(
        "SIGTERM: %d of %d pipelined writes acknowledged, process gone after %d ms%n",
        acknowledged, PIPELINED, stopMillis);
    try (CuckooServer server =
            CuckooServer.start(
                ServerConfig.builder().port(TestServers.freePort()).dir(data).build());
        RespClient client = new RespClient(server.port())) {
      for (int i = 0; i < acknowledged; i++) {
        assertEquals(1L, client.call("CF.EXISTS", "k", "item-" + i), "item-" + i);
      }
    }
  }

  private static int count(String text, String regex) {
    Matcher matcher = Pattern.compile(regex).matcher(text);
    int found = 0;
    while (matcher.find()) {
      found++;
    }
    return found;
  }
}
