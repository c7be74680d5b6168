package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Full and partial synchronisation: a transfer taken under concurrent writes, a dropped link, a
 * promotion, a transfer cut or damaged on the way, a server told to replicate itself.
 */
class ReplicationSyncTest {
  @TempDir Path dir;

  private static void replicaOf(int replica, int master) throws IOException {
    try (RespClient client = new RespClient(replica)) {
      assertEquals(new RespClient.Simple("OK"), client.call("REPLICAOF", "127.0.0.1", master));
    }
  }

  @Test
  void fullSync_underConcurrentWrites_replicaEndsIdentical() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer replica =
            CuckooServer.start(TestServers.memoryOnly().appendOnly(true).dir(dir).build())) {
      ReplicaState.fill(master.port(), "k", 400, 200);
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong writes = new AtomicLong();
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        Thread writer =
            new Thread(
                () -> {
                  try (RespClient client = new RespClient(master.port())) {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (!stop.get()) {
                      int key = random.nextInt(420);
                      client.call("CF.ADD", "k" + key, "w" + random.nextInt(1_000_000));
                      if (random.nextInt(50) == 0) {
                        client.call("DEL", "k" + random.nextInt(420));
                      }
                      writes.incrementAndGet();
                    }
                  } catch (IOException e) {
                    throw new RuntimeException(e);
                  }
                });
        writer.start();
        writers.add(writer);
      }
      Thread.sleep(200);
      replicaOf(replica.port(), master.port());
      // keep writing through the transfer and the catch-up
      Thread.sleep(2000);
      stop.set(true);
      for (Thread writer : writers) {
        writer.join();
      }
      ReplicaState.awaitInSync(master.port(), replica.port(), 20_000);
      Map<String, String> expected = ReplicaState.of(master.port(), 1);
      assertTrue(expected.size() > 300, "keys: " + expected.size());
      assertTrue(writes.get() > 1000, "writes during the sync: " + writes.get());
      assertEquals(expected, ReplicaState.of(replica.port(), 1));
      assertEquals("1", ReplicaState.stat(master.port(), "sync_full"));
    }
  }

  @Test
  void fullSync_withoutPersistence_writesItsTransferInDir_andLeavesTheTempDirAlone()
      throws Exception {
    // a server without persistence once wrote its transfer in the shared temp dir, and every such
    // server's start deleted the transfer-* files there: another server's transfer in flight
    Path shared = Path.of(System.getProperty("java.io.tmpdir"));
    Path other = java.nio.file.Files.createTempFile(shared, "transfer-", ".cuckoo");
    try (CuckooServer master =
            CuckooServer.start(TestServers.memoryOnly().dir(dir.resolve("master")).build());
        CuckooServer replica = CuckooServer.start(TestServers.memoryOnly().build())) {
      assertTrue(java.nio.file.Files.exists(other), "another server's transfer was deleted");
      ReplicaState.fill(master.port(), "k", 20, 50);
      replicaOf(replica.port(), master.port());
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      assertEquals(ReplicaState.of(master.port(), 1), ReplicaState.of(replica.port(), 1));
      assertTrue(java.nio.file.Files.exists(other), "another server's transfer was deleted");
      try (var left = java.nio.file.Files.list(dir.resolve("master"))) {
        assertEquals(
            List.of(),
            left.filter(f -> f.getFileName().toString().startsWith("transfer-")).toList(),
            "the transfer is removed once sent");
      }
    } finally {
      java.nio.file.Files.deleteIfExists(other);
    }
  }

  @Test
  void droppedLink_reconnects_continuesFromBacklogWithoutFullCopy() throws Exception {
    try (CuckooServer master = TestServers.start();
        LinkProxy proxy = new LinkProxy(master.port());
        CuckooServer replica = CuckooServer.start(TestServers.memoryOnly().build())) {
      ReplicaState.fill(master.port(), "a", 20, 50);
      replicaOf(replica.port(), proxy.port());
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      proxy.cut();
      ReplicaState.fill(master.port(), "b", 20, 50);
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      assertEquals(ReplicaState.of(master.port(), 1), ReplicaState.of(replica.port(), 1));
      assertEquals(2, proxy.connections.get());
      assertEquals("1", ReplicaState.stat(master.port(), "sync_full"));
      assertEquals("1", ReplicaState.stat(master.port(), "sync_partial_ok"));
    }
  }

  @Test
  void promotion_otherReplicaAndOldMaster_continueWithoutFullCopy() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer first = CuckooServer.start(TestServers.memoryOnly().build());
        CuckooServer second = CuckooServer.start(TestServers.memoryOnly().build())) {
      replicaOf(first.port(), master.port());
      replicaOf(second.port(), master.port());
      ReplicaState.fill(master.port(), "a", 10, 20);
      ReplicaState.awaitInSync(master.port(), first.port(), 10_000);
      ReplicaState.awaitInSync(master.port(), second.port(), 10_000);
      String oldId = ReplicaState.info(master.port(), "master_replid");
      try (RespClient client = new RespClient(first.port())) {
        assertEquals(new RespClient.Simple("OK"), client.call("REPLICAOF", "NO", "ONE"));
      }
      assertEquals(oldId, ReplicaState.info(first.port(), "master_replid2"));
      assertEquals(
          Long.parseLong(ReplicaState.info(master.port(), "master_repl_offset")) + 1,
          Long.parseLong(ReplicaState.info(first.port(), "second_repl_offset")));
      assertNotEquals(oldId, ReplicaState.info(first.port(), "master_replid"));
      replicaOf(second.port(), first.port());
      replicaOf(master.port(), first.port());
      ReplicaState.fill(first.port(), "b", 10, 20);
      ReplicaState.awaitInSync(first.port(), second.port(), 10_000);
      ReplicaState.awaitInSync(first.port(), master.port(), 10_000);
      Map<String, String> expected = ReplicaState.of(first.port(), 1);
      assertEquals(20, expected.size());
      assertEquals(expected, ReplicaState.of(second.port(), 1));
      assertEquals(expected, ReplicaState.of(master.port(), 1));
      assertEquals("0", ReplicaState.stat(first.port(), "sync_full"));
      assertEquals("2", ReplicaState.stat(first.port(), "sync_partial_ok"));
    }
  }

  @Test
  void transferCutMidway_replicaKeepsItsOldDataUntilACompleteOne() throws Exception {
    try (CuckooServer master = TestServers.start();
        LinkProxy proxy = new LinkProxy(master.port());
        CuckooServer replica = CuckooServer.start(TestServers.memoryOnly().build())) {
      // items differ from key to key: the transfer (compressed) stays well above 20 kB
      ReplicaState.fillDistinct(master.port(), "m", 50, 500);
      ReplicaState.fill(replica.port(), "old", 5, 10);
      Map<String, String> old = ReplicaState.of(replica.port(), 1);
      proxy.cutAfter(20_000);
      replicaOf(replica.port(), proxy.port());
      assertTrue(
          ReplicaState.await(() -> proxy.connections.get() >= 3, 10_000),
          "retried: " + proxy.connections.get());
      assertEquals(old, ReplicaState.of(replica.port(), 1));
      assertEquals("down", ReplicaState.info(replica.port(), "master_link_status"));
      proxy.cutAfter(Long.MAX_VALUE);
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      assertEquals(ReplicaState.of(master.port(), 1), ReplicaState.of(replica.port(), 1));
    }
  }

  @Test
  void corruptTransfer_detectedByChecksum_oldDataKeptThenRetried() throws Exception {
    try (CuckooServer master = TestServers.start();
        LinkProxy proxy = new LinkProxy(master.port());
        CuckooServer replica = CuckooServer.start(TestServers.memoryOnly().build())) {
      // items differ from key to key: the transfer (compressed) stays well above 2,000 bytes
      ReplicaState.fillDistinct(master.port(), "m", 20, 300);
      ReplicaState.fill(replica.port(), "old", 5, 10);
      Map<String, String> old = ReplicaState.of(replica.port(), 1);
      List<String> logged = capture("dev.cuckoo.server.replication.MasterLink");
      // past the handshake replies and the transfer's header: inside a filter
      proxy.flipAt(2000);
      replicaOf(replica.port(), proxy.port());
      assertTrue(
          ReplicaState.await(
              () -> logged.stream().anyMatch(m -> m.contains("failed its check")), 10_000),
          logged.toString());
      assertEquals(old, ReplicaState.of(replica.port(), 1));
      proxy.flipAt(-1);
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      assertEquals(ReplicaState.of(master.port(), 1), ReplicaState.of(replica.port(), 1));
    }
  }

  @Test
  void replicaOfItself_logsClearErrorAndKeepsServing() throws Exception {
    try (CuckooServer server = TestServers.start()) {
      ReplicaState.fill(server.port(), "k", 3, 3);
      List<String> logged = capture("dev.cuckoo.server.replication.MasterLink");
      replicaOf(server.port(), server.port());
      Thread.sleep(2500);
      long errors = logged.stream().filter(m -> m.contains("is this server itself")).count();
      assertTrue(errors >= 2, "retried every second with a clear error: " + logged);
      assertEquals("down", ReplicaState.info(server.port(), "master_link_status"));
      assertEquals(3, ReplicaState.of(server.port(), 1).size());
      try (RespClient client = new RespClient(server.port())) {
        client.call("REPLICAOF", "NO", "ONE");
        assertEquals(1L, client.call("CF.ADD", "k0", "new"));
      }
    }
  }

  /** Collects the formatted messages a logger receives from now on. */
  static List<String> capture(String logger) {
    List<String> messages = new java.util.concurrent.CopyOnWriteArrayList<>();
    Logger target = Logger.getLogger(logger);
    target.addHandler(
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            String text = record.getMessage();
            Object[] params = record.getParameters();
            messages.add(params == null ? text : java.text.MessageFormat.format(text, params));
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        });
    return messages;
  }

  /**
   * A full copy is reported done, and its replica online, when the replica's socket has taken the
   * whole transfer, not when it is queued: a replica that reads nothing (a stopped process, here a
   * link that passes 2 kB a second) stays in send_bulk however long the master has had the file.
   */
  @Test
  void fullSync_replicaNotReading_staysSendBulkUntilItHasTheTransfer() throws Exception {
    try (CuckooServer master = TestServers.start();
        RespClient client = new RespClient(master.port());
        LinkProxy proxy = new LinkProxy(master.port())) {
      // about 32 MB of random fingerprints (the transfer is compressed: an empty table would
      // shrink to almost nothing): more than the loopback socket buffers hold
      // (the dump of a one-item filter, loaded under another name with random chunks)
      client.call("CF.RESERVE", "seed", 32_000_000, "BUCKETSIZE", 2);
      client.call("CF.ADD", "seed", "x");
      java.util.Random random = new java.util.Random(7);
      long iterator = 0;
      while (true) {
        List<?> chunk = (List<?>) client.call("CF.SCANDUMP", "seed", iterator);
        iterator = (Long) chunk.get(0);
        if (iterator == 0) {
          break;
        }
        byte[] data = (byte[]) chunk.get(1);
        if (iterator > 1) {
          random.nextBytes(data);
        }
        assertEquals(
            new RespClient.Simple("OK"), client.call("CF.LOADCHUNK", "big", iterator, data));
      }
      client.call("DEL", "seed");
      client.call("CF.ADD", "big", "x");
      proxy.throttle(2_000);
      try (CuckooServer replica =
          CuckooServer.start(
              TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + proxy.port()).build())) {
        assertTrue(
            ReplicaState.await(() -> slaveLine(master.port()).contains("state=send_bulk"), 10_000),
            "transfer started: " + slaveLine(master.port()));
        Thread.sleep(1_000);
        assertTrue(
            slaveLine(master.port()).contains("state=send_bulk"),
            "still sending: " + slaveLine(master.port()));
        proxy.throttle(Long.MAX_VALUE);
        assertTrue(
            ReplicaState.await(() -> slaveLine(master.port()).contains("state=online"), 20_000),
            "online once sent: " + slaveLine(master.port()));
        ReplicaState.awaitInSync(master.port(), replica.port(), 20_000);
        try (RespClient onReplica = new RespClient(replica.port())) {
          assertEquals(1L, onReplica.call("CF.EXISTS", "big", "x"));
        }
      }
    }
  }

  /**
   * A replica announces {@code REPLCONF capa lz4} and its master sends the transfer compressed: a
   * 32 MB mostly empty table crosses as a small fraction of it, and loads to the same filter.
   */
  @Test
  void fullSync_mostlyEmptyTables_crossCompressed() throws Exception {
    try (CuckooServer master = TestServers.start();
        RespClient client = new RespClient(master.port())) {
      client.call("CF.RESERVE", "big", 32_000_000, "BUCKETSIZE", 2);
      for (int i = 0; i < 1000; i++) {
        client.call("CF.ADD", "big", "item" + i);
      }
      ReplicaState.fill(master.port(), "small", 100, 10);
      try (CuckooServer replica =
          CuckooServer.start(
              TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + master.port()).build())) {
        ReplicaState.awaitInSync(master.port(), replica.port(), 20_000);
        long sent = Long.parseLong(ReplicaState.stat(master.port(), "total_net_repl_output_bytes"));
        assertTrue(sent < 2_000_000, "the master sent " + sent + " bytes for a 32 MB table");
        long received =
            Long.parseLong(ReplicaState.stat(replica.port(), "total_net_repl_input_bytes"));
        // (the replica counts the handshake's replies too)
        assertTrue(
            received > 100_000 && received < 2_000_000, "the replica read " + received + " bytes");
        assertEquals(ReplicaState.of(master.port(), 1), ReplicaState.of(replica.port(), 1));
      }
    }
  }

  private static String slaveLine(int port) throws IOException {
    String line = ReplicaState.info(port, "slave0");
    return line == null ? "" : line;
  }
}
