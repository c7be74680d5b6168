package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.keyspace.HeapGuard;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The heap's edge: with {@code --maxmemory 0} writes are refused with Redis's OOM error before the
 * heap is exhausted and other clients are still served; an OutOfMemoryError ends the process with
 * one line and exit code 3; a log that does not fit in the heap at start-up is refused with one
 * line naming the heap to use. Servers run in child JVMs with small heaps. The guard's own
 * arithmetic is tested beside it ({@code keyspace.HeapGuardTest}).
 */
@ExtendWith(LeakCheck.class)
class HeapGuardTest {
  @TempDir Path dir;

  /**
   * The collectors the server runs with: the JVM's default (G1) and the launchers' serial collector
   * (conf/jvm.options), whose young collections report an old generation still holding garbage.
   */
  static List<List<String>> collectors() {
    return List.of(
        List.of("-Xmx96m"),
        List.of(
            "-Xmx96m",
            "-XX:+UseSerialGC",
            "-XX:NewRatio=6",
            "-XX:MinHeapFreeRatio=60",
            "-XX:MaxHeapFreeRatio=80",
            "-XX:+UseTransparentHugePages"));
  }

  @ParameterizedTest
  @MethodSource("collectors")
  void maxmemoryZero_heapFills_writesRefusedWithOomOthersServedNothingLost(List<String> jvm)
      throws Exception {
    Path data = dir.resolve("data");
    String[] options = {"--dir", data.toString(), "--maxmemory", "0", "--threads", "2"};
    List<String> acknowledged = new ArrayList<>();
    Object refusal = null;
    long started = System.nanoTime();
    try (ChildServer child = ChildServer.start(jvm, dir.resolve("fill.out"), options);
        RespClient client = new RespClient(child.port())) {
      // batches of 100 pipelined CF.RESERVE of 1 KiB filters until one is refused
      for (int batch = 0; refusal == null && batch < 2_000; batch++) {
        for (int i = 0; i < 100; i++) {
          client.send("CF.RESERVE", "key" + (batch * 100 + i), 1024);
        }
        for (int i = 0; i < 100; i++) {
          Object reply = client.readWithin(Duration.ofSeconds(30));
          if (reply instanceof RespClient.Err) {
            refusal = refusal == null ? reply : refusal;
          } else {
            assertEquals(new RespClient.Simple("OK"), reply, "key" + (batch * 100 + i));
            acknowledged.add("key" + (batch * 100 + i));
          }
        }
      }
      assertEquals(
          new RespClient.Err("OOM command not allowed when used memory > 'maxmemory'."),
          refusal,
          "after " + acknowledged.size() + " keys; child output:\n" + child.output());
      try (RespClient other = new RespClient(child.port())) {
        assertEquals(new RespClient.Simple("PONG"), other.call("PING"));
        assertEquals(0L, other.call("CF.EXISTS", acknowledged.get(0), "absent"));
        assertEquals((long) acknowledged.size(), other.call("DBSIZE"));
      }
      System.out.printf(
          "HeapGuardTest: %s, maxmemory 0: %d keys acknowledged before '%s' in %d ms%n",
          jvm,
          acknowledged.size(),
          ((RespClient.Err) refusal).text(),
          (System.nanoTime() - started) / 1_000_000);
      child.kill();
    }
    try (ChildServer child = ChildServer.start(jvm, dir.resolve("restart.out"), options);
        RespClient client = new RespClient(child.port())) {
      assertEquals((long) acknowledged.size(), client.call("DBSIZE"), "keys after kill -9");
      assertEquals(1L, client.call("EXISTS", acknowledged.get(acknowledged.size() - 1)));
    }
  }

  @Test
  void debugOom_enabled_exitsWithOneLineAndCode3_dataKept() throws Exception {
    Path data = dir.resolve("data");
    Path output = dir.resolve("oom.out");
    String[] options = {"--dir", data.toString(), "--enable-debug-command", "yes"};
    ChildServer child = ChildServer.start("128m", output, options);
    try (RespClient client = new RespClient(child.port())) {
      assertEquals(1L, client.call("CF.ADD", "kept", "item"));
      client.send("DEBUG", "OOM");
      assertTrue(child.awaitExit(10, TimeUnit.SECONDS), "the server did not exit");
      assertEquals(HeapGuard.EXIT_OUT_OF_MEMORY, child.exitCode());
      String text = child.output();
      assertTrue(text.contains("out of memory in command debug"), text);
      assertFalse(text.contains("\tat "), "a stack trace instead of one line:\n" + text);
    } finally {
      child.close();
    }
    try (ChildServer restarted = ChildServer.start("128m", dir.resolve("after.out"), options);
        RespClient client = new RespClient(restarted.port())) {
      assertEquals(1L, client.call("CF.EXISTS", "kept", "item"));
    }
  }

  @Test
  void debug_notEnabled_refusedWithRedisText() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(
          new RespClient.Err(
              "ERR DEBUG command not allowed. If the enable-debug-command option is set to"
                  + " \"local\", you can run it from a local connection, otherwise you need to set"
                  + " this option in the configuration file, and then restart the server."),
          client.call("DEBUG", "OOM"));
    }
  }

  @Test
  void restart_logLargerThanHeap_exitsNonZeroNamingTheHeap() throws Exception {
    Path data = dir.resolve("data");
    String[] options = {"--dir", data.toString(), "--appendfsync", "always"};
    int keys = 30_000;
    try (ChildServer child = ChildServer.start("256m", dir.resolve("write.out"), options);
        RespClient client = new RespClient(child.port())) {
      for (int batch = 0; batch < keys / 500; batch++) {
        for (int i = 0; i < 500; i++) {
          client.send("CF.RESERVE", "key" + (batch * 500 + i), 1024);
        }
        for (int i = 0; i < 500; i++) {
          assertEquals(new RespClient.Simple("OK"), client.read());
        }
      }
      child.kill();
    }
    ChildServer small = ChildServer.launch("40m", dir.resolve("small.out"), options);
    try {
      assertFalse(small.awaitListening(120_000), "started in a heap too small for its data");
      String text = small.output();
      assertTrue(small.exitCode() != 0, text);
      assertTrue(text.contains("refusing to start") && text.contains("-Xmx"), text);
      assertFalse(text.contains("\tat "), "a stack trace instead of one line:\n" + text);
      System.out.printf(
          "HeapGuardTest: %d keys replayed into -Xmx40m: %s%n",
          keys,
          text.lines().filter(line -> line.contains("refusing to start")).findFirst().orElse(""));
    } finally {
      small.close();
    }
  }
}
