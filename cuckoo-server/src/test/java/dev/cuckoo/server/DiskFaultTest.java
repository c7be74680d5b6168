package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Simple;
import dev.cuckoo.server.config.Fsync;
import dev.cuckoo.server.persist.Persistence;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Failed log and snapshot writes (ENOSPC, EIO, short writes, failed fsync) injected through {@link
 * FaultyChannels}: the failed write is undone and answered with MISCONF, further writes are refused
 * while reads go on, the server recovers by itself once the disk accepts writes, and a restart
 * finds exactly the acknowledged writes.
 */
@ExtendWith(LeakCheck.class)
class DiskFaultTest {
  private static final Simple OK = new Simple("OK");

  @TempDir Path dir;

  private ServerConfig.Builder config(Fsync fsync) {
    return ServerConfig.builder().port(TestServers.freePort()).threads(2).dir(dir).fsync(fsync);
  }

  private static long items(RespClient client, String key) throws IOException {
    Object info = client.call("CF.INFO", key);
    return info instanceof List ? (Long) ((List<?>) info).get(7) : 0;
  }

  private static boolean isMisconf(Object reply) {
    return reply instanceof RespClient.Err
        && ((RespClient.Err) reply).text().startsWith("MISCONF Errors writing to the AOF");
  }

  /** Adds until the server accepts writes again; returns how many were acknowledged. */
  private static long addUntilAccepted(RespClient client, String key, String prefix)
      throws Exception {
    long deadline = System.nanoTime() + 15_000_000_000L;
    for (int i = 0; System.nanoTime() < deadline; i++) {
      Object reply = client.call("CF.ADD", key, prefix + i);
      if (Long.valueOf(1).equals(reply)) {
        return 1;
      }
      assertTrue(isMisconf(reply), String.valueOf(reply));
      Thread.sleep(50);
    }
    throw new AssertionError("writes were not accepted again within 15 s");
  }

  private void restartAndExpect(String key, long expected) throws Exception {
    try (CuckooServer server = CuckooServer.start(config(Fsync.ALWAYS).build());
        RespClient client = new RespClient(server.port())) {
      assertEquals(expected, items(client, key), "acknowledged items after restart");
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
    }
  }

  @ParameterizedTest
  @EnumSource(FaultyChannels.Fault.class)
  void logWriteFails_always_undoneRefusedThenRecovered(FaultyChannels.Fault fault)
      throws Exception {
    FaultyChannels faults = new FaultyChannels();
    long acked = 0;
    CuckooServer server = CuckooServer.start(config(Fsync.ALWAYS).build(), faults);
    try (RespClient client = new RespClient(server.port())) {
      for (int i = 0; i < 100; i++) {
        assertEquals(1L, client.call("CF.ADD", "k", "a" + i));
        acked++;
      }
      faults.failWrite(0, fault);
      faults.diskFull(false);
      Object failed = client.call("CF.ADD", "k", "lost");
      assertTrue(isMisconf(failed), "the failed write is answered with MISCONF: " + failed);
      assertEquals(acked, items(client, "k"), "the failed write is undone");
      assertTrue(isMisconf(client.call("CF.ADD", "k", "refused")), "writes refused");
      assertTrue(isMisconf(client.call("CF.RESERVE", "other", 100)), "writes refused");
      assertEquals(1L, client.call("CF.EXISTS", "k", "a7"), "reads go on");
      assertTrue(
          RespClient.text(client.call("INFO", "persistence"))
              .contains("aof_last_write_status:err"));
      faults.heal();
      acked += addUntilAccepted(client, "k", "after");
      for (int i = 0; i < 50; i++) {
        assertEquals(1L, client.call("CF.ADD", "k", "b" + i));
        acked++;
      }
      assertEquals(acked, items(client, "k"));
      assertTrue(faults.injected() > 0);
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
    }
    restartAndExpect("k", acked);
  }

  @Test
  void logWriteFails_pipeline_writesAnsweredMisconfReadsAnswered() throws Exception {
    FaultyChannels faults = new FaultyChannels();
    CuckooServer server = CuckooServer.start(config(Fsync.ALWAYS).build(), faults);
    try (RespClient client = new RespClient(server.port())) {
      assertEquals(1L, client.call("CF.ADD", "k", "present"));
      faults.diskFull(false);
      java.io.ByteArrayOutputStream pipeline = new java.io.ByteArrayOutputStream();
      pipeline.writeBytes(RespClient.encode("CF.ADD", "k", "w1"));
      pipeline.writeBytes(RespClient.encode("CF.EXISTS", "k", "present"));
      pipeline.writeBytes(RespClient.encode("PING"));
      pipeline.writeBytes(RespClient.encode("CF.ADD", "k", "w2"));
      client.sendRaw(pipeline.toByteArray());
      assertTrue(isMisconf(client.read()), "first write undone");
      assertEquals(1L, client.read(), "the read's own answer");
      assertEquals(new Simple("PONG"), client.read());
      assertTrue(isMisconf(client.read()), "second write refused");
      assertEquals(1L, items(client, "k"));
      faults.heal();
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
    }
    restartAndExpect("k", 1);
  }

  @Test
  void fsyncFails_always_batchUndoneAndRecovered() throws Exception {
    FaultyChannels faults = new FaultyChannels();
    long acked = 0;
    CuckooServer server = CuckooServer.start(config(Fsync.ALWAYS).build(), faults);
    try (RespClient client = new RespClient(server.port())) {
      for (int i = 0; i < 20; i++) {
        assertEquals(1L, client.call("CF.ADD", "k", "a" + i));
        acked++;
      }
      faults.failForce(0);
      assertTrue(isMisconf(client.call("CF.ADD", "k", "lost")));
      assertEquals(acked, items(client, "k"), "written but not forced: undone");
      acked += addUntilAccepted(client, "k", "after");
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
    }
    restartAndExpect("k", acked);
  }

  @Test
  void backgroundFsyncFails_everysec_acknowledgedKeptAndRecovered() throws Exception {
    FaultyChannels faults = new FaultyChannels();
    long acked = 0;
    CuckooServer server = CuckooServer.start(config(Fsync.EVERYSEC).build(), faults);
    try (RespClient client = new RespClient(server.port())) {
      faults.failForce(0);
      long deadline = System.nanoTime() + 10_000_000_000L;
      boolean refused = false;
      for (int i = 0; System.nanoTime() < deadline && !(refused && acked > 40); i++) {
        Object reply = client.call("CF.ADD", "k", "a" + i);
        if (Long.valueOf(1).equals(reply)) {
          acked++;
        } else {
          assertTrue(isMisconf(reply), String.valueOf(reply));
          refused = true;
          Thread.sleep(20);
        }
      }
      assertTrue(refused, "the failed background fsync refused writes for a while");
      assertEquals(acked, items(client, "k"));
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
    }
    restartAndExpect("k", acked);
  }

  @Test
  void snapshotWriteFails_saveErrorsLogKeepsEverything() throws Exception {
    FaultyChannels faults = new FaultyChannels();
    long acked = 0;
    CuckooServer server = CuckooServer.start(config(Fsync.ALWAYS).build(), faults);
    try (RespClient client = new RespClient(server.port())) {
      for (int i = 0; i < 300; i++) {
        assertEquals(1L, client.call("CF.ADD", "k", "a" + i));
        acked++;
      }
      // write 0 is the new log's header; then the snapshot's entries (one buffered write, as they
      // fit in the writer's buffer): fail that
      faults.failWrite(1, FaultyChannels.Fault.ENOSPC);
      Object save = client.call("SAVE");
      assertTrue(save instanceof RespClient.Err, String.valueOf(save));
      assertFalse(Files.exists(dir.resolve(Persistence.SNAPSHOT + ".tmp")), "temp removed");
      String failed = RespClient.text(client.call("INFO", "persistence"));
      // as Redis: a failed SAVE answers its error; only a failed background save sets err
      assertTrue(failed.contains("\r\nrdb_last_bgsave_status:ok\r\n"), failed);
      assertTrue(failed.contains("\r\naof_last_bgrewrite_status:err\r\n"), failed);
      assertTrue(failed.contains("\r\naof_rewrites_consecutive_failures:1\r\n"), failed);
      acked += addUntilAccepted(client, "k", "after");
      assertEquals(acked, items(client, "k"));
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
    }
    restartAndExpect("k", acked);
  }

  /**
   * Random faults while three clients write: every reply is either an acknowledgement or MISCONF,
   * and the counts after recovery and after a restart equal the acknowledged adds minus the
   * acknowledged deletes, key by key.
   */
  @Test
  void randomFaults_concurrentClients_noAcknowledgedWriteLost() throws Exception {
    long seed = Long.getLong("cuckoo.test.seed", 20261124L);
    Random random = new Random(seed);
    FaultyChannels faults = new FaultyChannels();
    Map<String, AtomicLong> model = new ConcurrentHashMap<>();
    AtomicLong acknowledged = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    CuckooServer server =
        CuckooServer.start(
            config(random.nextBoolean() ? Fsync.ALWAYS : Fsync.EVERYSEC)
                .autoAofRewriteMinSize(4096)
                .autoAofRewritePercentage(50)
                .build(),
            faults);
    List<Thread> writers = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      long threadSeed = random.nextLong();
      int thread = t;
      writers.add(
          new Thread(
              () -> {
                Random r = new Random(threadSeed);
                List<String> present = new ArrayList<>();
                try (RespClient client = new RespClient(server.port())) {
                  for (int i = 0; !stop.get(); i++) {
                    String key = "k" + r.nextInt(4);
                    boolean delete = !present.isEmpty() && r.nextInt(5) == 0;
                    String item =
                        delete ? present.get(r.nextInt(present.size())) : "t" + thread + "-" + i;
                    if (delete && !item.startsWith(key + "/")) {
                      continue;
                    }
                    Object reply =
                        delete
                            ? client.call("CF.DEL", key, item)
                            : client.call("CF.ADD", key, key + "/" + item);
                    if (Long.valueOf(1).equals(reply)) {
                      acknowledged.incrementAndGet();
                      model.computeIfAbsent(key, k -> new AtomicLong()).addAndGet(delete ? -1 : 1);
                      if (delete) {
                        present.remove(item);
                      } else {
                        present.add(key + "/" + item);
                      }
                    } else if (isMisconf(reply)) {
                      refused.incrementAndGet();
                      Thread.sleep(5);
                    } else {
                      throw new AssertionError("seed " + seed + ": unexpected reply " + reply);
                    }
                  }
                } catch (Throwable e) {
                  errors.add(e);
                }
              }));
    }
    writers.forEach(Thread::start);
    FaultyChannels.Fault[] kinds = FaultyChannels.Fault.values();
    for (int round = 0; round < 5; round++) {
      // recovery retries once a second: let it succeed between faults
      Thread.sleep(1100 + random.nextInt(300));
      if (random.nextInt(3) == 0) {
        faults.failForce(random.nextInt(5));
      } else {
        faults.failWrite(random.nextInt(20), kinds[random.nextInt(kinds.length)]);
      }
      if (random.nextInt(4) == 0) {
        faults.diskFull(random.nextBoolean());
        Thread.sleep(random.nextInt(300));
        faults.heal();
      }
    }
    faults.heal();
    Thread.sleep(1500);
    stop.set(true);
    for (Thread writer : writers) {
      writer.join(20_000);
    }
    assertTrue(errors.isEmpty(), "seed " + seed + ": " + errors);
    try (RespClient client = new RespClient(server.port())) {
      for (Map.Entry<String, AtomicLong> entry : model.entrySet()) {
        assertEquals(
            entry.getValue().get(),
            items(client, entry.getKey()),
            "seed " + seed + ", key " + entry.getKey() + ", live");
      }
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
    }
    System.out.println(
        "DiskFaultTest.randomFaults seed "
            + seed
            + ": "
            + acknowledged.get()
            + " acknowledged, "
            + refused.get()
            + " refused, "
            + faults.injected()
            + " faults injected, 0 lost");
    try (CuckooServer restarted = CuckooServer.start(config(Fsync.ALWAYS).build());
        RespClient client = new RespClient(restarted.port())) {
      for (Map.Entry<String, AtomicLong> entry : model.entrySet()) {
        assertEquals(
            entry.getValue().get(),
            items(client, entry.getKey()),
            "seed " + seed + ", key " + entry.getKey() + ", after restart");
      }
    }
    assertTrue(
        acknowledged.get() > 100 && faults.injected() > 0,
        "seed "
            + seed
            + ": "
            + acknowledged.get()
            + " acknowledged, "
            + faults.injected()
            + " faults");
    Stream.of(dir.toFile().list())
        .forEach(
            name ->
                assertFalse(name.endsWith(".tmp"), "seed " + seed + ": temp file left: " + name));
  }

  /**
   * Random faults while one client runs transactions, renames, moves between databases and
   * expiries: a write answered with its result is in the model, one answered MISCONF (or EXEC
   * answered EXECABORT because of it) is not; live state, and state after a restart from the log,
   * equal the model in every database — no acknowledged write lost, none half-applied.
   */
  @Test
  void randomFaults_transactionsMovesAndExpiry_noAcknowledgedWriteLost() throws Exception {
    long seed = Long.getLong("cuckoo.test.seed", 20261124L);
    Random random = new Random(seed);
    FaultyChannels faults = new FaultyChannels();
    // per "db/key": the items the acknowledged writes put there
    Map<String, Long> model = new java.util.TreeMap<>();
    long acknowledged = 0;
    long refused = 0;
    CuckooServer server =
        CuckooServer.start(
            config(random.nextBoolean() ? Fsync.ALWAYS : Fsync.EVERYSEC).build(), faults);
    try (RespClient client = new RespClient(server.port())) {
      long faultAt = System.nanoTime() + 300_000_000L;
      long end = System.nanoTime() + 6_000_000_000L;
      for (int i = 0; System.nanoTime() < end; i++) {
        if (System.nanoTime() > faultAt) {
          faultAt = System.nanoTime() + 1_200_000_000L;
          if (random.nextInt(3) == 0) {
            faults.failForce(random.nextInt(3));
          } else {
            faults.failWrite(
                random.nextInt(6),
                FaultyChannels.Fault.values()[
                    random.nextInt(FaultyChannels.Fault.values().length)]);
          }
        }
        int db = random.nextInt(3);
        String key = "k" + random.nextInt(4);
        String other = "k" + random.nextInt(4);
        Object reply;
        Map<String, Long> after = new java.util.TreeMap<>(model);
        assertEquals(OK, client.call("SELECT", db));
        switch (random.nextInt(4)) {
          case 0:
            client.call("MULTI");
            client.call("CF.ADD", key, "a" + i);
            client.call("CF.ADD", other, "b" + i);
            reply = client.call("EXEC");
            if (reply instanceof List) {
              after.merge(db + "/" + key, 1L, Long::sum);
              after.merge(db + "/" + other, 1L, Long::sum);
            }
            break;
          case 1:
            reply = client.call("RENAME", key, other);
            if (OK.equals(reply)) {
              Long moved = after.remove(db + "/" + key);
              if (!key.equals(other)) {
                after.put(db + "/" + other, moved);
              } else {
                after.put(db + "/" + key, moved);
              }
            }
            break;
          case 2:
            int target = (db + 1 + random.nextInt(2)) % 3;
            reply = client.call("MOVE", key, target);
            if (Long.valueOf(1).equals(reply)) {
              after.put(target + "/" + key, after.remove(db + "/" + key));
            }
            break;
          default:
            reply = client.call("EXPIRE", key, 100_000);
            break;
        }
        // EXEC aborts when a queued write was refused (MISCONF while queueing: "previous
        // errors") or when writes are refused at EXEC ("because of: MISCONF ...")
        if (isMisconf(reply)
            || reply instanceof RespClient.Err
                && ((RespClient.Err) reply).text().startsWith("EXECABORT Transaction discarded")) {
          refused++;
          Thread.sleep(5);
          continue;
        }
        if (reply instanceof RespClient.Err) {
          // RENAME of a missing key: nothing changed
          assertEquals("ERR no such key", ((RespClient.Err) reply).text(), "seed " + seed);
        } else {
          acknowledged++;
        }
        model = after;
      }
      faults.heal();
      Thread.sleep(1500);
      assertEquals(model, counts(client), "seed " + seed + ", live");
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
    }
    System.out.println(
        "DiskFaultTest.transactionsMovesAndExpiry seed "
            + seed
            + ": "
            + acknowledged
            + " acknowledged, "
            + refused
            + " refused, "
            + faults.injected()
            + " faults injected, 0 lost");
    assertTrue(faults.injected() > 0 && refused > 0, "faults were injected and refused writes");
    try (CuckooServer restarted = CuckooServer.start(config(Fsync.ALWAYS).build());
        RespClient client = new RespClient(restarted.port())) {
      assertEquals(model, counts(client), "seed " + seed + ", after restart");
      client.send("SHUTDOWN", "NOSAVE");
      restarted.awaitTermination();
    }
  }

  /** Items inserted per "db/key" of databases 0 to 2. */
  private static Map<String, Long> counts(RespClient client) throws IOException {
    Map<String, Long> counts = new java.util.TreeMap<>();
    for (int db = 0; db < 3; db++) {
      client.call("SELECT", db);
      for (Object key : (List<?>) client.call("KEYS", "*")) {
        String name = RespClient.text(key);
        counts.put(db + "/" + name, items(client, name));
      }
    }
    return counts;
  }
}
