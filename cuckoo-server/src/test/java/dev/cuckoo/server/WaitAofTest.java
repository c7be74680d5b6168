package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.config.Fsync;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * WAITAOF numlocal numreplicas timeout as Redis 7.2 answers it: the local fsync of the client's
 * last write, the replicas that report (REPLCONF ACK … FACK) having forced it to their own logs,
 * Redis's errors, and a log whose fsync hangs.
 */
class WaitAofTest {
  private static final String APPENDONLY_DISABLED =
      "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.";

  @TempDir Path dir;

  private ServerConfig.Builder logged(String name, Fsync fsync) {
    return ServerConfig.builder()
        .port(TestServers.freePort())
        .threads(2)
        .dir(dir.resolve(name))
        .fsync(fsync);
  }

  private static ServerConfig.Builder replicaOf(CuckooServer master, ServerConfig.Builder builder)
      throws IOException {
    return builder.set("replicaof", "127.0.0.1 " + master.port());
  }

  /** Starts a replica of {@code master} logging with everysec through {@code disk}. */
  private CuckooServer heldReplicaOf(CuckooServer master, String name, HeldForceChannels disk)
      throws IOException {
    return CuckooServer.start(replicaOf(master, logged(name, Fsync.EVERYSEC)).build(), disk);
  }

  /** Runs the call and returns how long it took, in milliseconds. */
  private static long millis(ThrowingRunnable call) throws Exception {
    long start = System.nanoTime();
    call.run();
    return (System.nanoTime() - start) / 1_000_000;
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  @ParameterizedTest
  @EnumSource(
      value = Fsync.class,
      names = {"ALWAYS", "EVERYSEC"})
  void waitAof_afterWrite_reportsTheLocalFsync(Fsync fsync) throws Exception {
    try (CuckooServer server = CuckooServer.start(logged("one", fsync).build());
        RespClient client = new RespClient(server.port())) {
      // nothing written yet: the connection's last write (none) is on disk
      assertEquals(List.of(1L, 0L), client.call("WAITAOF", 0, 0, 100));
      assertEquals(1L, client.call("CF.ADD", "k", "v"));
      long took = millis(() -> assertEquals(List.of(1L, 0L), client.call("WAITAOF", 1, 0, 0)));
      // everysec: the fsync thread's next turn, within a second
      assertTrue(took < 2500, "WAITAOF answered after " + took + " ms");
      // the write and WAITAOF in one pipeline: WAITAOF runs before the write's batch is committed
      client.sendRaw(
          concat(RespClient.encode("CF.ADD", "k", "w"), RespClient.encode("WAITAOF", 1, 0, 0)));
      assertEquals(1L, client.read());
      assertEquals(List.of(1L, 0L), client.readWithin(Duration.ofSeconds(5)));
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void waitAof_appendonlyNo_numlocalRefusedAndNothingLocalReported() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.call("CF.ADD", "k", "v");
      assertEquals(new Err(APPENDONLY_DISABLED), client.call("WAITAOF", 1, 0, 0));
      assertEquals(List.of(0L, 0L), client.call("WAITAOF", 0, 0, 100));
    }
  }

  @Test
  void waitAof_badArgumentsReplicaAndMulti_answerAsRedis() throws Exception {
    try (CuckooServer master = CuckooServer.start(logged("master", Fsync.ALWAYS).build());
        RespClient client = new RespClient(master.port())) {
      assertEquals(
          new Err("ERR value is out of range, value must between 0 and 1"),
          client.call("WAITAOF", 2, 0, 0));
      assertEquals(
          new Err("ERR value is out of range, value must between 0 and 1"),
          client.call("WAITAOF", -1, 0, 0));
      assertEquals(
          new Err("ERR value is not an integer or out of range"),
          client.call("WAITAOF", "x", 0, 0));
      assertEquals(
          new Err("ERR value is out of range, must be positive"), client.call("WAITAOF", 0, -1, 0));
      assertEquals(
          new Err("ERR value is not an integer or out of range"),
          client.call("WAITAOF", 0, "y", 0));
      assertEquals(new Err("ERR timeout is negative"), client.call("WAITAOF", 0, 0, -1));
      assertEquals(
          new Err("ERR timeout is not an integer or out of range"),
          client.call("WAITAOF", 0, 0, "z"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'waitaof' command"),
          client.call("WAITAOF", 0, 0));
      List<?> docs = (List<?>) client.call("COMMAND", "DOCS", "waitaof");
      assertEquals("waitaof", RespClient.text(docs.get(0)));
      List<String> fields = flatten(docs.get(1));
      assertEquals("7.2.0", fields.get(fields.indexOf("since") + 1));
      assertEquals("generic", fields.get(fields.indexOf("group") + 1));
      assertTrue(
          fields.containsAll(List.of("numlocal", "numreplicas", "timeout")), fields.toString());
      // inside MULTI it never blocks: no replica exists, the answer comes at once
      client.call("CF.ADD", "k", "v");
      client.call("MULTI");
      assertEquals(new RespClient.Simple("QUEUED"), client.call("WAITAOF", 1, 1, 0));
      assertEquals(List.of(List.of(1L, 0L)), client.call("EXEC"));
      try (CuckooServer replica =
              CuckooServer.start(replicaOf(master, TestServers.memoryOnly()).build());
          RespClient onReplica = new RespClient(replica.port())) {
        ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
        assertEquals(
            new Err(
                "ERR WAITAOF cannot be used with replica instances. Please also note that writes"
                    + " to replicas are just local and are not propagated."),
            onReplica.call("WAITAOF", 0, 0, 0));
      }
    }
  }

  /** Returns every string of a nested reply, in order. */
  private static List<String> flatten(Object reply) {
    List<String> out = new java.util.ArrayList<>();
    if (reply instanceof List<?> list) {
      list.forEach(element -> out.addAll(flatten(element)));
    } else if (reply instanceof byte[] || reply instanceof RespClient.Simple) {
      out.add(reply instanceof RespClient.Simple simple ? simple.text() : RespClient.text(reply));
    }
    return out;
  }

  @Test
  void waitAof_fsyncHeld_timesOutWithNothingLocalThenAnswersOnceForced() throws Exception {
    HeldForceChannels disk = new HeldForceChannels();
    try (CuckooServer server = CuckooServer.start(logged("held", Fsync.EVERYSEC).build(), disk);
        RespClient client = new RespClient(server.port())) {
      try {
        disk.hold();
        assertEquals(1L, client.call("CF.ADD", "k", "v"));
        long took = millis(() -> assertEquals(List.of(0L, 0L), client.call("WAITAOF", 1, 0, 200)));
        assertTrue(took >= 190, "WAITAOF waited for its timeout, not " + took + " ms");
        // blocked without a timeout, it is woken by the fsync once the disk lets it through; the
        // connection's next command waits behind it
        client.send("WAITAOF", 1, 0, 0);
        client.send("PING", "after");
        assertThrows(
            java.net.SocketTimeoutException.class,
            () -> client.readWithin(Duration.ofMillis(1500)));
        disk.release();
        assertEquals(List.of(1L, 0L), client.readWithin(Duration.ofSeconds(5)));
        assertEquals("after", RespClient.text(client.readWithin(Duration.ofSeconds(5))));
      } finally {
        // a held force would keep the server from closing
        disk.release();
      }
    }
  }

  /*
   * replication.c processClientsWaitingReplicas: a WAITAOF with numlocal still waiting once
   * appendonly is off gets the error, although stopAppendOnly forced the file before closing it
   * (it sets fsynced_reploff to -1 rather than to what that force covered).
   */
  @Test
  void waitAof_appendonlyTurnedOffWhileWaiting_answersTheError() throws Exception {
    HeldForceChannels disk = new HeldForceChannels();
    try (CuckooServer server = CuckooServer.start(logged("off", Fsync.EVERYSEC).build(), disk);
        RespClient client = new RespClient(server.port());
        RespClient admin = new RespClient(server.port())) {
      try {
        disk.hold();
        assertEquals(1L, client.call("CF.ADD", "k", "v"));
        client.send("WAITAOF", 1, 0, 0);
        assertThrows(
            java.net.SocketTimeoutException.class, () -> client.readWithin(Duration.ofMillis(300)));
        // the log's last force, on closing it, is held too: CONFIG SET waits for it
        admin.send("CONFIG", "SET", "appendonly", "no");
        disk.awaitHeldForce(5000);
        disk.release();
        assertEquals(new RespClient.Simple("OK"), admin.readWithin(Duration.ofSeconds(5)));
        assertEquals(new Err(APPENDONLY_DISABLED), client.readWithin(Duration.ofSeconds(5)));
        // numlocal 0 still answers, with no local fsync
        assertEquals(List.of(0L, 0L), client.call("WAITAOF", 0, 0, 100));
      } finally {
        disk.release();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Fsync.class,
      names = {"ALWAYS", "EVERYSEC"})
  void waitAof_replicaWithLog_countedOnceItsLogForcedTheWrite(Fsync fsync) throws Exception {
    try (CuckooServer master = CuckooServer.start(logged("master", fsync).build());
        CuckooServer replica =
            CuckooServer.start(replicaOf(master, logged("replica", fsync)).build());
        RespClient client = new RespClient(master.port())) {
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      assertEquals(1L, client.call("CF.ADD", "k", "v"));
      long took = millis(() -> assertEquals(List.of(1L, 1L), client.call("WAITAOF", 1, 1, 5000)));
      // the replica reports its fsync as it happens, not at its next once-a-second ACK
      assertTrue(took < 1800, "WAITAOF answered after " + took + " ms");
      assertEquals(1L, client.call("CF.ADD", "k", "w"));
      // numlocal 0: the replica is waited for, the local fsync only reported (everysec: maybe not
      // yet)
      assertEquals(1L, ((List<?>) client.call("WAITAOF", 0, 1, 5000)).get(1));
    }
  }

  @Test
  void waitAof_replicaAskedBeforeItsFsync_acknowledgesAsTheFsyncEnds() throws Exception {
    HeldForceChannels replicaDisk = new HeldForceChannels();
    try (CuckooServer master = TestServers.start();
        CuckooServer replica = heldReplicaOf(master, "replica", replicaDisk);
        RespClient client = new RespClient(master.port())) {
      try {
        ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
        assertEquals(List.of(0L, 1L), client.call("WAITAOF", 0, 1, 5000));
        // three times: the replica's once-a-second ACK could come soon after by chance
        for (int round = 0; round < 3; round++) {
          replicaDisk.hold();
          assertEquals(1L, client.call("CF.ADD", "k", "v" + round));
          // its GETACK is answered before the replica's fsync thread forces the write
          client.send("WAITAOF", 0, 1, 0);
          replicaDisk.awaitHeldForce(5000);
          Thread.sleep(100);
          long released = System.nanoTime();
          replicaDisk.release();
          assertEquals(List.of(0L, 1L), client.readWithin(Duration.ofSeconds(5)));
          long took = (System.nanoTime() - released) / 1_000_000;
          assertTrue(took < 250, "round " + round + ": WAITAOF answered " + took + " ms after");
        }
      } finally {
        replicaDisk.release();
      }
    }
  }

  @Test
  void waitAof_replicaWithoutLog_neverCountedAsRedisSendsNoFack() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer logging =
            CuckooServer.start(replicaOf(master, logged("replica", Fsync.ALWAYS)).build());
        CuckooServer memoryOnly =
            CuckooServer.start(replicaOf(master, TestServers.memoryOnly()).build());
        RespClient client = new RespClient(master.port())) {
      ReplicaState.awaitInSync(master.port(), logging.port(), 10_000);
      ReplicaState.awaitInSync(master.port(), memoryOnly.port(), 10_000);
      assertEquals(1L, client.call("CF.ADD", "k", "v"));
      assertEquals(2L, client.call("WAIT", 2, 5000));
      long took = millis(() -> assertEquals(List.of(0L, 1L), client.call("WAITAOF", 0, 2, 300)));
      assertTrue(took >= 290, "WAITAOF waited for its timeout, not " + took + " ms");
      assertEquals(List.of(0L, 1L), client.call("WAITAOF", 0, 1, 5000));
    }
  }

  @Test
  void waitAof_replicaFsyncHeldOrStopped_timesOutWithTheCountReached() throws Exception {
    HeldForceChannels replicaDisk = new HeldForceChannels();
    try (CuckooServer master = TestServers.start();
        CuckooServer held = heldReplicaOf(master, "held", replicaDisk);
        RespClient client = new RespClient(master.port())) {
      CuckooServer other =
          CuckooServer.start(replicaOf(master, logged("other", Fsync.ALWAYS)).build());
      try {
        ReplicaState.awaitInSync(master.port(), held.port(), 10_000);
        ReplicaState.awaitInSync(master.port(), other.port(), 10_000);
        replicaDisk.hold();
        assertEquals(1L, client.call("CF.ADD", "k", "v"));
        // both replicas have the write (WAIT), only one has forced it (WAITAOF)
        assertEquals(2L, client.call("WAIT", 2, 5000));
        long took = millis(() -> assertEquals(List.of(0L, 1L), client.call("WAITAOF", 0, 2, 1500)));
        assertTrue(took >= 1490, "WAITAOF waited for its timeout, not " + took + " ms");
        replicaDisk.release();
        assertEquals(List.of(0L, 2L), client.call("WAITAOF", 0, 2, 5000));
        // a replica that stops is no longer counted
        other.close();
        assertEquals(1L, client.call("CF.ADD", "k", "w"));
        // (the replica left forces once a second: the timeout leaves it time to)
        took = millis(() -> assertEquals(List.of(0L, 1L), client.call("WAITAOF", 0, 2, 2500)));
        assertTrue(took >= 2490, "WAITAOF waited for its timeout, not " + took + " ms");
      } finally {
        // a held force would keep the replica from closing
        replicaDisk.release();
        other.close();
      }
    }
  }
}
