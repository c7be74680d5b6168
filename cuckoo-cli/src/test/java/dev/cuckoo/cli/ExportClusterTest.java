package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.CuckooServer;
import dev.cuckoo.server.cluster.HashSlots;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cuckoo export --cluster}: a filter file loaded into a cluster of three cuckoo-servers (in
 * this JVM, slots given out by ADDSLOTSRANGE, joined by MEET) lands on the master of its key's slot
 * whichever node is named, answers there as the file does, and the report names that node.
 */
class ExportClusterTest {
  @TempDir Path dir;
  private final List<CuckooServer> nodes = new ArrayList<>();
  private final List<Integer> busPorts = new ArrayList<>();

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @BeforeEach
  void startCluster() throws Exception {
    int[][] ranges = {{0, 5460}, {5461, 10922}, {10923, 16383}};
    for (int i = 0; i < 3; i++) {
      busPorts.add(freePort());
      nodes.add(
          CuckooServer.start(
              ImportCommandTest.memoryOnly(dir.resolve("node" + i))
                  .clusterEnabled(true)
                  .clusterPort(busPorts.get(i))
                  .build()));
    }
    for (int i = 0; i < 3; i++) {
      try (RespClient client = client(i)) {
        assertEquals(
            "OK",
            client.call(
                "CLUSTER",
                "ADDSLOTSRANGE",
                Integer.toString(ranges[i][0]),
                Integer.toString(ranges[i][1])));
      }
    }
    try (RespClient first = client(0)) {
      for (int i = 1; i < 3; i++) {
        assertEquals(
            "OK",
            first.call(
                "CLUSTER",
                "MEET",
                "127.0.0.1",
                Integer.toString(port(i)),
                Integer.toString(busPorts.get(i))));
      }
    }
    long deadline = System.currentTimeMillis() + 20_000;
    for (int i = 0; i < 3; i++) {
      while (true) {
        String info;
        try (RespClient client = client(i)) {
          info = new String((byte[]) client.call("CLUSTER", "INFO"), StandardCharsets.UTF_8);
        }
        if (info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:3")) {
          break;
        }
        assertTrue(System.currentTimeMillis() < deadline, "node " + i + ": " + info);
        Thread.sleep(50);
      }
    }
  }

  @AfterEach
  void stopCluster() throws IOException {
    for (CuckooServer node : nodes) {
      node.close();
    }
  }

  private int port(int node) {
    return nodes.get(node).port();
  }

  private RespClient client(int node) throws IOException {
    return new RespClient("127.0.0.1", port(node), 10_000);
  }

  private static String text(Object reply) {
    return reply instanceof byte[] bytes
        ? new String(bytes, StandardCharsets.UTF_8)
        : (String) reply;
  }

  /** Returns the node serving {@code key}'s slot. */
  private int owner(String key) {
    int slot = HashSlots.slot(key.getBytes(StandardCharsets.UTF_8));
    return slot <= 5460 ? 0 : slot <= 10922 ? 1 : 2;
  }

  @Test
  void exportCluster_keysOfEverySlotRange_landOnTheirMastersFromAnySeed() throws Exception {
    List<String> items = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      items.add("url-" + i);
    }
    List<String> options = List.of("--scheme", "redisbloom", "--expected", "4000");
    Path file = TestFilters.build(dir, "urls", items, options.toArray(new String[0]));
    // keys chosen so that each master gets one, each sent through a node that does not serve it
    String[] keys = new String[3];
    for (int n = 0, found = 0; found < 3; n++) {
      String key = "seen:" + n;
      if (keys[owner(key)] == null) {
        keys[owner(key)] = key;
        found++;
      }
    }
    for (int master = 0; master < 3; master++) {
      int seed = (master + 1) % 3;
      CliRun run =
          CliRun.run(
              "export",
              "--key",
              keys[master],
              "--cluster",
              "127.0.0.1:" + port(seed),
              "--replace",
              file.toString());
      assertEquals(0, run.exitCode, run.toString());
      assertTrue(run.out.contains("127.0.0.1:" + port(master) + ": "), run.out);
      assertTrue(!run.out.contains("127.0.0.1:" + port(seed) + ": "), run.out);
      assertTrue(run.out.contains("masters in the slot map: 3"), run.out);
      try (RespClient onMaster = client(master)) {
        for (int i = 0; i < 2000; i += 97) {
          assertEquals(1L, onMaster.call("CF.EXISTS", keys[master], "url-" + i), "url-" + i);
        }
        List<?> info = (List<?>) onMaster.call("CF.INFO", keys[master]);
        int at = 0;
        while (!"Number of items inserted".equals(text(info.get(at)))) {
          at += 2;
        }
        assertEquals(2000L, info.get(at + 1));
      }
      try (RespClient onSeed = client(seed)) {
        // the node named was only asked for the slot map
        int slot = HashSlots.slot(keys[master].getBytes(StandardCharsets.UTF_8));
        assertEquals(0L, onSeed.call("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)));
      }
    }
  }

  @Test
  void exportCluster_slotBeingMigrated_followsAskToTheImportingNode() throws Exception {
    Path file =
        TestFilters.build(
            dir, "moving", List.of("a", "b", "c"), "--scheme", "redisbloom", "--expected", "64");
    String key = "moving";
    int from = owner(key);
    int to = (from + 1) % 3;
    int slot = HashSlots.slot(key.getBytes(StandardCharsets.UTF_8));
    String toId;
    String fromId;
    try (RespClient source = client(from);
        RespClient target = client(to)) {
      fromId = text(source.call("CLUSTER", "MYID"));
      toId = text(target.call("CLUSTER", "MYID"));
      assertEquals(
          "OK", target.call("CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", fromId));
      assertEquals(
          "OK", source.call("CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", toId));
    }
    // the key is not on its slot's owner, which is migrating the slot: every command is ASKed over
    CliRun run =
        CliRun.run("export", "--key", key, "--cluster", "127.0.0.1:" + port(from), file.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains("127.0.0.1:" + port(to) + ": "), run.out);
    assertTrue(run.out.contains(" 0 MOVED, ") && !run.out.contains(" 0 ASK"), run.out);
    try (RespClient target = client(to);
        RespClient source = client(from)) {
      assertEquals(0L, source.call("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)));
      assertEquals(1L, target.call("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)));
      target.call("ASKING");
      assertEquals(1L, target.call("CF.EXISTS", key, "b"));
    }
  }

  @Test
  void exportCluster_badArguments_namedWithTheRule() throws Exception {
    Path file =
        TestFilters.build(
            dir, "few", List.of("a", "b"), "--scheme", "redisbloom", "--expected", "8");
    CliRun noKey = CliRun.run("export", "--cluster", "127.0.0.1:" + port(0), file.toString());
    assertEquals(2, noKey.exitCode, noKey.toString());
    assertTrue(noKey.err.contains("--key is required"), noKey.err);
    CliRun badAddress =
        CliRun.run("export", "--key", "k", "--cluster", "localhost", file.toString());
    assertEquals(2, badAddress.exitCode, badAddress.toString());
    assertTrue(
        badAddress.err.contains("--cluster: 'localhost' (expected: HOST:PORT"), badAddress.err);
    CliRun both =
        CliRun.run(
            "export",
            "--key",
            "k",
            "--cluster",
            "127.0.0.1:" + port(0),
            "-o",
            dir.resolve("x").toString(),
            file.toString());
    assertEquals(2, both.exitCode, both.toString());
    assertTrue(both.err.contains("exclude each other"), both.err);
  }
}
