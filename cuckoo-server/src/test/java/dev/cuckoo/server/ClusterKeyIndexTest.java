package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.cluster.HashSlots;
import dev.cuckoo.server.command.Commands;
import dev.cuckoo.server.command.WritePath;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The slot index of a cluster node over TCP: CLUSTER COUNTKEYSINSLOT and GETKEYSINSLOT answer
 * exactly the keys a model holds, whatever added or removed them (writes, DEL, UNLINK, RENAME,
 * RESTORE, expiry, FLUSHALL/FLUSHDB, the log's replay at a restart), and a master that loses a slot
 * it still holds keys in deletes them.
 */
class ClusterKeyIndexTest {
  @TempDir Path dir;

  private static final int TAGS = 6;

  private static String name(int tag, int key) {
    return "{t" + tag + "}k" + key;
  }

  private static int slot(String key) {
    return HashSlots.slot(key.getBytes(StandardCharsets.UTF_8));
  }

  private static String text(Object reply) {
    return reply instanceof RespClient.Simple simple ? simple.text() : RespClient.text(reply);
  }

  private static void awaitOk(RespClient client) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!text(client.call("CLUSTER", "INFO")).contains("cluster_state:ok")) {
      assertTrue(System.nanoTime() < deadline, "cluster_state:ok not within 20 s");
      Thread.sleep(20);
    }
  }

  /** The slot's keys as CLUSTER GETKEYSINSLOT lists them. */
  private static Set<String> keysInSlot(RespClient client, int slot) throws IOException {
    Set<String> keys = new HashSet<>();
    for (Object key : (List<?>) client.call("CLUSTER", "GETKEYSINSLOT", slot, 1000)) {
      keys.add(RespClient.text(key));
    }
    return keys;
  }

  /**
   * Checks every tag's slot against the model, by GETKEYSINSLOT and COUNTKEYSINSLOT; keys whose
   * expiry passed may still be there until the active expiry deletes them, so this waits up to 5 s
   * for those.
   */
  private static void assertIndexMatches(RespClient client, Set<String> model, String at)
      throws Exception {
    Map<Integer, Set<String>> expected = new TreeMap<>();
    for (int tag = 0; tag < TAGS; tag++) {
      expected.put(slot(name(tag, 0)), new HashSet<>());
    }
    for (String key : model) {
      expected.get(slot(key)).add(key);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    for (Map.Entry<Integer, Set<String>> slot : expected.entrySet()) {
      Set<String> listed = keysInSlot(client, slot.getKey());
      Object counted = client.call("CLUSTER", "COUNTKEYSINSLOT", slot.getKey());
      while (!(listed.equals(slot.getValue()) && Long.valueOf(listed.size()).equals(counted))
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
        listed = keysInSlot(client, slot.getKey());
        counted = client.call("CLUSTER", "COUNTKEYSINSLOT", slot.getKey());
      }
      assertEquals(slot.getValue(), listed, at + ": GETKEYSINSLOT " + slot.getKey());
      assertEquals(
          (long) slot.getValue().size(), counted, at + ": COUNTKEYSINSLOT " + slot.getKey());
    }
  }

  @Test
  void keyIndex_randomWritesDeletesRenamesRestoresExpiriesAndFlushes_matchModel() throws Exception {
    long seed = System.nanoTime();
    System.out.println("ClusterKeyIndexTest seed " + seed);
    Random random = new Random(seed);
    ServerConfig config =
        TestServers.memoryOnly()
            .dir(Files.createDirectories(dir.resolve("node")))
            .appendOnly(true)
            .clusterEnabled(true)
            .clusterPort(SentinelCluster.freePort())
            .build();
    Set<String> model = new HashSet<>();
    try (CuckooServer server = CuckooServer.start(config);
        RespClient client = new RespClient(server.port())) {
      assertEquals("OK", text(client.call("CLUSTER", "ADDSLOTSRANGE", 0, 16383)));
      awaitOk(client);
      Map<String, byte[]> dumps = new HashMap<>();
      for (int step = 0; step < 1500; step++) {
        int tag = random.nextInt(TAGS);
        String key = name(tag, random.nextInt(12));
        String other = name(tag, random.nextInt(12));
        String at = "seed " + seed + ", step " + step;
        int op = random.nextInt(100);
        if (op < 35) {
          client.call("CF.ADD", key, "item" + step);
          model.add(key);
        } else if (op < 50) {
          assertEquals(
              model.remove(key) ? 1L : 0L,
              client.call(random.nextBoolean() ? "DEL" : "UNLINK", key),
              at + ": DEL " + key);
        } else if (op < 60) {
          Object reply = client.call("RENAME", key, other);
          if (model.remove(key)) {
            assertEquals("OK", text(reply), at + ": RENAME " + key + " " + other);
            model.add(other);
          }
        } else if (op < 67) {
          // two keys of one slot at once
          long expected = (model.remove(key) ? 1 : 0) + (model.remove(other) ? 1 : 0);
          assertEquals(expected, client.call("DEL", key, other), at + ": DEL " + key + " " + other);
        } else if (op < 75) {
          if (model.contains(key)) {
            dumps.put(key, (byte[]) client.call("DUMP", key));
          } else if (!dumps.isEmpty()) {
            List<byte[]> payloads = new ArrayList<>(dumps.values());
            Object reply =
                client.call(
                    "RESTORE", key, 0, payloads.get(random.nextInt(payloads.size())), "REPLACE");
            assertEquals("OK", text(reply), at + ": RESTORE " + key);
            model.add(key);
          }
        } else if (op < 85) {
          if (model.remove(key)) {
            // gone for every command at once; the active expiry deletes it soon
            assertEquals(1L, client.call("PEXPIRE", key, 1), at + ": PEXPIRE " + key);
            Thread.sleep(2);
          }
        } else if (op < 87) {
          String flush = random.nextBoolean() ? "FLUSHALL" : "FLUSHDB";
          assertEquals("OK", text(client.call(flush)), at + ": " + flush);
          model.clear();
        } else if (op < 90) {
          assertIndexMatches(client, model, at);
        } else {
          client.call("CF.RESERVE", key, 100);
          model.add(key);
        }
      }
      assertIndexMatches(client, model, "seed " + seed + ", at the end");
      assertEquals((long) model.size(), client.call("DBSIZE"));
    }
    // the log's replay at a restart builds the same index
    try (CuckooServer server = CuckooServer.start(config);
        RespClient client = new RespClient(server.port())) {
      assertIndexMatches(client, model, "seed " + seed + ", after a restart");
    }
  }

  @Test
  void lostSlot_stillHoldingKeys_itsKeysDeletedAndTheOthersKept() throws Exception {
    try (CuckooServer first = ClusterReplicaCommandsTest.startNode(dir.resolve("a"));
        CuckooServer second = ClusterReplicaCommandsTest.startNode(dir.resolve("b"));
        RespClient a = new RespClient(first.port());
        RespClient b = new RespClient(second.port())) {
      String idA = text(a.call("CLUSTER", "MYID"));
      String idB = text(b.call("CLUSTER", "MYID"));
      halves(a, b, first.port());
      List<Integer> tags = tagsOfA(2);
      int lost = slot(name(tags.get(0), 0));
      int kept = slot(name(tags.get(1), 0));
      for (int key = 0; key < 50; key++) {
        assertEquals(1L, a.call("CF.ADD", name(tags.get(0), key), "x"));
        assertEquals(1L, a.call("CF.ADD", name(tags.get(1), key), "x"));
      }
      assertEquals(50L, a.call("CLUSTER", "COUNTKEYSINSLOT", lost));
      // b takes the slot without its keys (a reshard that moved none): a newer configEpoch
      assertEquals("OK", text(b.call("CLUSTER", "SETSLOT", lost, "IMPORTING", idA)));
      assertEquals("OK", text(b.call("CLUSTER", "SETSLOT", lost, "NODE", idB)));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!Long.valueOf(0).equals(a.call("CLUSTER", "COUNTKEYSINSLOT", lost))) {
        assertTrue(System.nanoTime() < deadline, "a kept the keys of the slot it lost");
        Thread.sleep(20);
      }
      assertEquals(50L, a.call("DBSIZE"));
      assertEquals(50L, a.call("CLUSTER", "COUNTKEYSINSLOT", kept));
      Object moved = a.call("CF.EXISTS", name(tags.get(0), 1), "x");
      assertTrue(
          moved instanceof RespClient.Err err && err.text().startsWith("MOVED " + lost + " "),
          "the lost slot is redirected: " + moved);
    }
  }

  /**
   * A write that passed the slot check just before its slot was lost, and reaches the key's lock
   * only while the lost slot's keys are being deleted, is redirected rather than left as a key of a
   * slot this node no longer serves.
   */
  @Test
  void lostSlot_writeInFlightAtTheLoss_redirectedAndLeavesNoKey() throws Exception {
    try (CuckooServer first = ClusterReplicaCommandsTest.startNode(dir.resolve("a"));
        CuckooServer second = ClusterReplicaCommandsTest.startNode(dir.resolve("b"));
        RespClient a = new RespClient(first.port());
        RespClient b = new RespClient(second.port());
        RespClient writer = new RespClient(first.port())) {
      String idA = text(a.call("CLUSTER", "MYID"));
      String idB = text(b.call("CLUSTER", "MYID"));
      halves(a, b, first.port());
      int tag = tagsOfA(1).get(0);
      int lost = slot(name(tag, 0));
      Set<Integer> stripes = new HashSet<>();
      for (int key = 0; key < 10; key++) {
        assertEquals(1L, a.call("CF.ADD", name(tag, key), "x"));
        stripes.add(Keyspace.stripeOf(new Key(bytes(name(tag, key)))));
      }
      // a new key of the slot in a lock stripe of its own: deleting the others never waits for it
      int late = 10;
      while (stripes.contains(Keyspace.stripeOf(new Key(bytes(name(tag, late)))))) {
        late++;
      }
      Keyspace keyspace = first.context().keyspace();
      Lock lock = keyspace.lockFor(new Key(bytes(name(tag, late))));
      lock.lock();
      try {
        writer.send("CF.ADD", name(tag, late), "x");
        // past the slot check, it waits for the key's lock
        awaitTrue("the write waits for its key's lock", () -> parkedIn(WritePath.class, "run"));
        // b takes the slot without its keys: a newer configEpoch
        assertEquals("OK", text(b.call("CLUSTER", "SETSLOT", lost, "IMPORTING", idA)));
        assertEquals("OK", text(b.call("CLUSTER", "SETSLOT", lost, "NODE", idB)));
        awaitTrue(
            "a routes the slot to b",
            () -> !first.context().cluster().slotTable().owner(lost).myself());
        // the deletion of the slot's keys is over, or waits for the write in flight
        awaitTrue(
            "the lost slot's keys deleted, or their deletion waiting",
            () ->
                keyspace.countKeysInSlot(lost) == 0
                    || parkedIn(ClusterKeys.class, "deleteKeysInSlot"));
      } finally {
        lock.unlock();
      }
      Object reply = writer.read();
      assertTrue(
          reply instanceof RespClient.Err err && err.text().startsWith("MOVED " + lost + " "),
          "the write in flight is redirected: " + reply);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!Long.valueOf(0).equals(a.call("CLUSTER", "COUNTKEYSINSLOT", lost))) {
        assertTrue(System.nanoTime() < deadline, "a kept keys of the slot it lost");
        Thread.sleep(20);
      }
      assertEquals(0L, a.call("DBSIZE"));
    }
  }

  /**
   * A write and a read that found their key in a migrating slot, and reach the key's lock only
   * after MIGRATE deleted the key it moved (as its DEL does, under that lock), are sent to the
   * target with ASK, as Redis (one command at a time) would have sent them: the write does not
   * create the key again here (a copy the target never gets), the read does not answer that the
   * item is missing.
   */
  @Test
  void migratingSlot_keyMovedWhileRequestsWaitForItsLock_askedForOnTheTarget() throws Exception {
    try (CuckooServer first = ClusterReplicaCommandsTest.startNode(dir.resolve("a"));
        CuckooServer second = ClusterReplicaCommandsTest.startNode(dir.resolve("b"));
        RespClient a = new RespClient(first.port());
        RespClient b = new RespClient(second.port());
        RespClient writer = new RespClient(first.port());
        RespClient reader = new RespClient(first.port())) {
      String idB = text(b.call("CLUSTER", "MYID"));
      halves(a, b, first.port());
      int tag = tagsOfA(1).get(0);
      String key = name(tag, 0);
      int slot = slot(key);
      assertEquals(1L, a.call("CF.ADD", key, "x"));
      assertEquals("OK", text(a.call("CLUSTER", "SETSLOT", slot, "MIGRATING", idB)));
      String ask = "ASK " + slot + " 127.0.0.1:" + second.port();
      Keyspace keyspace = first.context().keyspace();
      // the write: past the slot check (the key is here), it waits for the key's lock
      Object written =
          keyMovedWhileWaiting(keyspace, writer, WritePath.class, "run", "CF.ADD", key, "y");
      assertTrue(
          written instanceof RespClient.Err err && err.text().equals(ask),
          "the write is asked for on the target: " + written);
      assertEquals(
          0L,
          a.call("CLUSTER", "COUNTKEYSINSLOT", slot),
          "no copy of the moved key made again here");
      // the read: the same, through the read path
      assertEquals("OK", text(a.call("CLUSTER", "SETSLOT", slot, "STABLE")));
      assertEquals(1L, a.call("CF.ADD", key, "x"));
      assertEquals("OK", text(a.call("CLUSTER", "SETSLOT", slot, "MIGRATING", idB)));
      Object read =
          keyMovedWhileWaiting(keyspace, reader, Commands.class, "runRead", "CF.EXISTS", key, "x");
      assertTrue(
          read instanceof RespClient.Err err && err.text().equals(ask),
          "the read is asked for on the target, not answered 0: " + read);
    }
  }

  /**
   * Holds the lock of the key {@code command} names (its second argument), sends the command on
   * {@code client}, waits until a thread parks in {@code type}'s {@code method} (past the slot
   * check, at the lock), deletes the key as MIGRATE's DEL does under that lock, releases it, and
   * returns the command's reply.
   */
  private static Object keyMovedWhileWaiting(
      Keyspace keyspace, RespClient client, Class<?> type, String method, String... command)
      throws Exception {
    Key key = new Key(bytes(command[1]));
    Lock lock = keyspace.lockFor(key);
    lock.lock();
    try {
      client.send((Object[]) command);
      awaitTrue(command[0] + " waits for its key's lock", () -> parkedIn(type, method));
      keyspace.remove(key);
    } finally {
      lock.unlock();
    }
    return client.read();
  }

  /**
   * Gives the first half of the slots to {@code a}'s node and the second to {@code b}'s, makes
   * {@code b}'s node meet {@code a}'s (listening on {@code portA}) and waits until both are ok.
   */
  /** Returns the first {@code count} tags whose keys' slots are a's after {@link #halves}. */
  private static List<Integer> tagsOfA(int count) {
    List<Integer> tags = new ArrayList<>();
    for (int tag = 0; tags.size() < count; tag++) {
      if (slot(name(tag, 0)) < 8192) {
        tags.add(tag);
      }
    }
    return tags;
  }

  private static void halves(RespClient a, RespClient b, int portA) throws Exception {
    assertEquals("OK", text(a.call("CLUSTER", "ADDSLOTSRANGE", 0, 8191)));
    assertEquals("OK", text(b.call("CLUSTER", "ADDSLOTSRANGE", 8192, 16383)));
    assertEquals(
        "OK",
        text(b.call("CLUSTER", "MEET", "127.0.0.1", portA, ClusterReplicaCommandsTest.busPort(a))));
    awaitOk(a);
    awaitOk(b);
  }

  private static byte[] bytes(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  /** Returns true if a thread of this process is parked inside {@code type}'s {@code method}. */
  private static boolean parkedIn(Class<?> type, String method) {
    for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
      Thread.State state = thread.getKey().getState();
      if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
        continue;
      }
      for (StackTraceElement frame : thread.getValue()) {
        if (frame.getClassName().equals(type.getName()) && frame.getMethodName().equals(method)) {
          return true;
        }
      }
    }
    return false;
  }

  private static void awaitTrue(String what, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "not within 20 s: " + what);
      Thread.sleep(10);
    }
  }
}
