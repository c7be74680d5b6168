package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Process-level crash tests of the durability invariant: every write acknowledged to a client
 * survives a crash (with {@code appendfsync always}), or the server refuses to start naming the
 * file, the offset and the repair option; it never starts silently with less.
 *
 * <p>Servers under test run in child JVMs ({@link ChildServer}) and are killed with SIGKILL;
 * recovery is checked in-process ({@link CuckooServer#start}) against a model of what clients
 * were told ({@link AckModel}). Each scenario prints its counts of acknowledged and lost writes.
 * Random choices come from a seed printed in every message and overridable with {@code
 * -Dcuckoo.crash.seed=N}; the moment of each kill still depends on thread scheduling, so a seed
 * replays the workload, not the exact crash point. {@code -Dcuckoo.crash.rounds=N} sets the
 * number of kill rounds of the default-build test; the {@code slow} tag runs 50.
 *
 * <p>SIGKILL loses no page cache, so these tests check the server's own ordering (acknowledge
 * only after the log write, snapshot and rotation protocol, recovery rules), not what a power
 * loss does to data the kernel had not yet written.
 */
@ExtendWith(LeakCheck.class)
class CrashRecoveryTest {
  private static final long DEFAULT_SEED = 20_260_101L;
  private static final int WRITERS = 4;
  private static final int BASE_KEYS = 4;
  private static final int BASE_CAPACITY = 1 << 16;
  private static final String CHILD_HEAP = "256m";

  @TempDir
  Path dir;

  private static long seed() {
    return Long.getLong("cuckoo.crash.seed", DEFAULT_SEED);
  }

  private static ServerConfig.Builder inProcess(Path data) {
    return ServerConfig.builder().port(0).threads(2).dir(data);
  }

  /** Returns true if a snapshot was being taken: a retired log or a snapshot temp file exists. */
  private static boolean snapshotInProgress(Path data) throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(data)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (name.matches("appendonly\\.log\\.[0-9]+") || name.equals("dump.cuckoo.tmp")) {
          return true;
        }
      }
    }
    return false;
  }

  @Test
  void killMinus9_concurrentWritersAndSnapshots_noAcknowledgedWriteLost() throws Exception {
    killRounds(Integer.getInteger("cuckoo.crash.rounds", 5));
  }

  @Test
  @Tag("slow")
  void killMinus9_fiftyRounds_noAcknowledgedWriteLost() throws Exception {
    killRounds(50);
  }

  /**
   * Runs kill rounds on one data directory: a child server with {@code appendfsync always}
   * takes writes from {@link #WRITERS} clients while snapshots run (BGSAVE in a loop, or an
   * automatic rewrite whenever the log passes 4 KiB, or both), is killed after a random delay,
   * and is recovered in-process and checked against the model.
   */
  private void killRounds(int rounds) throws Exception {
    long seed = seed();
    Random random = new Random(seed);
    Path data = dir.resolve("data");
    AckModel model = new AckModel();
    long totalAcknowledged = 0;
    long totalInFlight = 0;
    long totalLost = 0;
    int duringSnapshot = 0;
    long started = System.nanoTime();
    for (int round = 0; round < rounds; round++) {
      String where = "seed " + seed + " round " + round;
      int mode = random.nextInt(3);
      List<String> options = new ArrayList<>(List.of("--dir", data.toString(),
          "--appendfsync", "always", "--threads", "2"));
      if (mode != 0) {
        options.addAll(List.of("--auto-aof-rewrite-min-size", "4096",
            "--auto-aof-rewrite-percentage", "1"));
      }
      boolean bgsaveLoop = mode != 1;
      List<CrashWriter> writers = new ArrayList<>();
      boolean killedInSnapshot;
      Path output = dir.resolve("child-" + round + ".out");
      try (ChildServer child = ChildServer.start(CHILD_HEAP, output,
          options.toArray(new String[0]))) {
        if (round == 0) {
          try (RespClient client = new RespClient(child.port())) {
            for (int k = 0; k < BASE_KEYS; k++) {
              assertEquals(new RespClient.Simple("OK"),
                  client.call("CF.RESERVE", "k" + k, BASE_CAPACITY, "BUCKETSIZE", 2), where);
              model.reserved("k" + k, BASE_CAPACITY);
            }
          }
        }
        List<Map<String, List<String>>> owned = model.distribute(WRITERS);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
          CrashWriter writer = new CrashWriter(child.port(), random.nextLong(),
              "r" + round + "w" + w + ".", model.keys(), owned.get(w));
          writers.add(writer);
          threads.add(new Thread(writer, "crash-writer-" + w));
        }
        if (bgsaveLoop) {
          long bgsaveSeed = random.nextLong();
          threads.add(new Thread(() -> bgsaveLoop(child.port(), bgsaveSeed), "crash-bgsave"));
        }
        threads.forEach(Thread::start);
        Thread.sleep(150 + random.nextInt(450));
        child.kill();
        for (Thread thread : threads) {
          thread.join(10_000);
          assertTrue(!thread.isAlive(), where + ": " + thread.getName() + " did not stop");
        }
        killedInSnapshot = snapshotInProgress(data);
      }
      long acknowledged = 0;
      long inFlight = 0;
      for (CrashWriter writer : writers) {
        assertEquals(List.of(), writer.unexpected(), where + ": unexpected replies");
        acknowledged += writer.acknowledged();
        inFlight += writer.inFlight();
        model.merge(writer);
      }
      AckModel.Check check;
      CuckooServer server;
      try {
        server = CuckooServer.start(inProcess(data).build());
      } catch (IOException e) {
        throw new AssertionError(where + ": recovery refused to start after kill -9: "
            + e.getMessage() + "\nchild output:\n" + Files.readString(output), e);
      }
      try (RespClient client = new RespClient(server.port())) {
        check = model.verify(client, where);
        if (round % 2 == 0) {
          client.send("SHUTDOWN", "NOSAVE");
          server.awaitTermination();
        }
      } finally {
        server.close();
      }
      totalAcknowledged += acknowledged;
      totalInFlight += inFlight;
      totalLost += check.lostItems();
      duringSnapshot += killedInSnapshot ? 1 : 0;
      System.out.printf("CrashRecoveryTest kill round %d (seed %d, %s): %d writes acknowledged,"
          + " %d in flight at the kill, %d live items checked, %d lost%s%n", round, seed,
          mode == 0 ? "BGSAVE loop" : mode == 1 ? "rewrite at 4 KiB" : "both",
          acknowledged, inFlight, check.liveItems(), check.lostItems(),
          killedInSnapshot ? ", killed during a snapshot" : "");
      assertEquals(List.of(), check.violations(), where);
      assertEquals(0, check.lostItems(), where);
    }
    System.out.printf("CrashRecoveryTest kill -9 (seed %d): %d rounds in %d ms, %d writes"
        + " acknowledged, %d in flight, %d lost, %d kills during a snapshot%n", seed, rounds,
        (System.nanoTime() - started) / 1_000_000, totalAcknowledged, totalInFlight, totalLost,
        duringSnapshot);
    assertTrue(totalAcknowledged > 0, "seed " + seed + ": no write was acknowledged");
  }

  /** Sends BGSAVE every few milliseconds until the server dies. */
  private static void bgsaveLoop(int port, long seed) {
    Random random = new Random(seed);
    try (RespClient client = new RespClient(port)) {
      while (true) {
        client.call("BGSAVE");
        Thread.sleep(2 + random.nextInt(20));
      }
    } catch (IOException e) {
      // the server was killed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
