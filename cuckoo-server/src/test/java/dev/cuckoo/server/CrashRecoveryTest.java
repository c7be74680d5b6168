package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.command.Commands;
import dev.cuckoo.server.persist.AppendLog;
import dev.cuckoo.server.persist.FileChannels;
import dev.cuckoo.server.persist.LogReader;
import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.persist.SnapshotFile;
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
 * recovery is checked in-process ({@link CuckooServer#start}) against a model of what clients were
 * told ({@link AckModel}). Each scenario prints its counts of acknowledged and lost writes. Random
 * choices come from a seed printed in every message and overridable with {@code
 * -Dcuckoo.crash.seed=N}; the moment of each kill still depends on thread scheduling, so a seed
 * replays the workload, not the exact crash point. {@code -Dcuckoo.crash.rounds=N} sets the number
 * of kill rounds of the default-build test; the {@code slow} tag runs 50.
 *
 * <p>SIGKILL loses no page cache, so these tests check the server's own ordering (acknowledge only
 * after the log write, snapshot and rotation protocol, recovery rules), not what a power loss does
 * to data the kernel had not yet written.
 */
@ExtendWith(LeakCheck.class)
class CrashRecoveryTest {
  private static final long DEFAULT_SEED = 20_260_101L;
  private static final int WRITERS = 4;
  private static final int BASE_KEYS = 4;

  /** 2^20 buckets of 2 slots: 2 MiB, big enough to be written by a snapshot from an image. */
  private static final int BASE_CAPACITY = 1 << 21;

  private static final String CHILD_HEAP = "256m";

  /** Acknowledged writes in the bit-flip directory: reserves, adds and deletes. */
  private static final int FLIP_ACKNOWLEDGED = 2 + 100 + 50 + 10 + 10 + 50;

  /** Acknowledged writes made after the snapshot began, held only by the log. */
  private static final int FLIP_LOGGED = 50 + 10 + 10 + 50;

  private static final int LOG_HEADER_BITS = AppendLog.HEADER_BYTES * 8;
  private static final int SNAPSHOT_HEADER_BITS = 36 * 8;
  private static final int MAGIC_BITS = 64;
  private static final String RETIRED_LOG = Persistence.LOG + ".1";

  /** Capacity of a big filter: 2^24 buckets of 2 one-byte slots, 32 MiB. */
  private static final int BIG_CAPACITY = 1 << 25;

  /** Items added to key small1 after the SAVE of a full heap. */
  private static final int LATE_ITEMS = 100;

  /** Small filters between two big ones. */
  private static final int SMALL_PER_BIG = 25;

  @TempDir Path dir;

  private static long seed() {
    return Long.getLong("cuckoo.crash.seed", DEFAULT_SEED);
  }

  private static ServerConfig.Builder inProcess(Path data) {
    return ServerConfig.builder().port(TestServers.freePort()).threads(2).dir(data);
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
   * Runs kill rounds on one data directory: a child server with {@code appendfsync always} takes
   * writes from {@link #WRITERS} clients while snapshots run (BGSAVE in a loop, or an automatic
   * rewrite whenever the log passes 1% of the snapshot, or both), is killed after a random delay
   * (with the BGSAVE loop, at the next moment a snapshot file is being written), and is recovered
   * in-process and checked against the model.
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
      List<String> options =
          new ArrayList<>(
              List.of("--dir", data.toString(), "--appendfsync", "always", "--threads", "2"));
      if (mode != 0) {
        options.addAll(
            List.of("--auto-aof-rewrite-min-size", "4096", "--auto-aof-rewrite-percentage", "1"));
      }
      boolean bgsaveLoop = mode != 1;
      List<CrashWriter> writers = new ArrayList<>();
      boolean killedInSnapshot;
      Path output = dir.resolve("child-" + round + ".out");
      try (ChildServer child =
          ChildServer.start(CHILD_HEAP, output, options.toArray(new String[0]))) {
        if (round == 0) {
          try (RespClient client = new RespClient(child.port())) {
            for (int k = 0; k < BASE_KEYS; k++) {
              assertEquals(
                  new RespClient.Simple("OK"),
                  client.call("CF.RESERVE", "k" + k, BASE_CAPACITY, "BUCKETSIZE", 2),
                  where);
              model.reserved("k" + k, BASE_CAPACITY);
            }
          }
        }
        List<Map<String, List<String>>> owned = model.distribute(WRITERS);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
          CrashWriter writer =
              new CrashWriter(
                  child.port(),
                  random.nextLong(),
                  "r" + round + "w" + w + ".",
                  model.keys(),
                  owned.get(w));
          writers.add(writer);
          threads.add(new Thread(writer, "crash-writer-" + w));
        }
        if (bgsaveLoop) {
          long bgsaveSeed = random.nextLong();
          threads.add(new Thread(() -> bgsaveLoop(child.port(), bgsaveSeed), "crash-bgsave"));
        }
        threads.forEach(Thread::start);
        // the delay counts from the first acknowledged write, so a slow start still writes
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (writers.stream().mapToLong(CrashWriter::acknowledged).sum() == 0
            && System.nanoTime() < deadline) {
          Thread.sleep(2);
        }
        Thread.sleep(100 + random.nextInt(400));
        if (bgsaveLoop) {
          // aim at a snapshot in progress: kill as soon as its temporary file exists
          Path temp = SnapshotFile.tempOf(data.resolve(Persistence.SNAPSHOT));
          long aim = System.nanoTime() + 2_000_000_000L;
          while (!Files.exists(temp) && System.nanoTime() < aim) {
            Thread.onSpinWait();
          }
        }
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
        throw new AssertionError(
            where
                + ": recovery refused to start after kill -9: "
                + e.getMessage()
                + "\nchild output:\n"
                + Files.readString(output),
            e);
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
      System.out.printf(
          "CrashRecoveryTest kill round %d (seed %d, %s): %d writes acknowledged,"
              + " %d in flight at the kill, %d live items checked, %d lost%s%n",
          round,
          seed,
          mode == 0 ? "BGSAVE loop" : mode == 1 ? "automatic rewrites" : "both",
          acknowledged,
          inFlight,
          check.liveItems(),
          check.lostItems(),
          killedInSnapshot ? ", killed during a snapshot" : "");
      assertEquals(List.of(), check.violations(), where);
      assertEquals(0, check.lostItems(), where);
    }
    System.out.printf(
        "CrashRecoveryTest kill -9 (seed %d): %d rounds in %d ms, %d writes"
            + " acknowledged, %d in flight, %d lost, %d kills during a snapshot%n",
        seed,
        rounds,
        (System.nanoTime() - started) / 1_000_000,
        totalAcknowledged,
        totalInFlight,
        totalLost,
        duringSnapshot);
    assertTrue(totalAcknowledged > 0, "seed " + seed + ": no write was acknowledged");
  }

  /** The acknowledged state of the bit-flip directory: per key, its items in order. */
  private static final Map<String, List<String>> FLIP_STATE = flipState();

  private static Map<String, List<String>> flipState() {
    Map<String, List<String>> state = new java.util.LinkedHashMap<>();
    List<String> a = new ArrayList<>();
    List<String> b = new ArrayList<>();
    List<String> c = new ArrayList<>();
    for (int i = 10; i < 100; i++) {
      a.add("a" + i);
    }
    for (int i = 0; i < 60; i++) {
      b.add("b" + i);
    }
    for (int i = 0; i < 50; i++) {
      c.add("c" + i);
    }
    state.put("a", a);
    state.put("b", b);
    state.put("c", c);
    return state;
  }

  /**
   * Writes a directory whose snapshot and log both hold acknowledged writes: keys a and b and 50
   * items of a, 50 of b in the snapshot; then in the log 50 more items of a, deletes of a0..a9, 10
   * more items of b and a new key c with 50 items (see {@link #FLIP_STATE}).
   */
  private static void writeFlipDirectory(Path data) throws Exception {
    CuckooServer server = CuckooServer.start(inProcess(data).build());
    try (RespClient client = new RespClient(server.port())) {
      client.call("CF.RESERVE", "a", 1000);
      client.call("CF.RESERVE", "b", 1000);
      for (int i = 0; i < 50; i++) {
        assertEquals(1L, client.call("CF.ADD", "a", "a" + i));
        assertEquals(1L, client.call("CF.ADD", "b", "b" + i));
      }
      assertEquals(new RespClient.Simple("OK"), client.call("SAVE"));
      for (int i = 50; i < 100; i++) {
        assertEquals(1L, client.call("CF.ADD", "a", "a" + i));
      }
      for (int i = 0; i < 10; i++) {
        assertEquals(1L, client.call("CF.DEL", "a", "a" + i));
      }
      for (int i = 50; i < 60; i++) {
        assertEquals(1L, client.call("CF.ADD", "b", "b" + i));
      }
      for (int i = 0; i < 50; i++) {
        assertEquals(1L, client.call("CF.ADD", "c", "c" + i));
      }
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
    } finally {
      server.close();
    }
  }

  /** Returns how many acknowledged writes of {@link #FLIP_STATE} the server lost. */
  private static long lostFlipWrites(RespClient client, List<String> problems) throws IOException {
    long lost = 0;
    for (Map.Entry<String, List<String>> entry : FLIP_STATE.entrySet()) {
      String key = entry.getKey();
      List<String> items = entry.getValue();
      Object info = client.call("CF.INFO", key);
      if (!(info instanceof List)) {
        problems.add("key " + key + " is gone: " + info);
        lost += items.size();
        continue;
      }
      long count = (Long) ((List<?>) info).get(7);
      if (count != items.size()) {
        problems.add(
            "key " + key + " holds " + count + " items, " + items.size() + " acknowledged");
      }
      Object[] command = new Object[items.size() + 2];
      command[0] = "CF.MEXISTS";
      command[1] = key;
      for (int i = 0; i < items.size(); i++) {
        command[i + 2] = items.get(i);
      }
      List<?> reply = (List<?>) client.call(command);
      for (int i = 0; i < items.size(); i++) {
        if (!Long.valueOf(1).equals(reply.get(i))) {
          lost++;
          problems.add("item " + items.get(i) + " of " + key + " is missing");
        }
      }
    }
    return lost;
  }

  /** What starting on a damaged directory did. */
  private enum Outcome {
    /** Refused with a message naming the file and giving the hint (e.g. the repair option). */
    REFUSED,
    /** Refused with a message naming the file but without the hint. */
    REFUSED_NAMING_FILE,
    /** Refused without naming the file. */
    REFUSED_SILENTLY,
    /** Started with every acknowledged write. */
    STARTED_INTACT,
    /** Started with less than was acknowledged. */
    STARTED_WITH_LOSS
  }

  private static final java.util.Set<Outcome> REFUSED_WITH_HINT_OR_INTACT =
      java.util.EnumSet.of(Outcome.REFUSED, Outcome.STARTED_INTACT);
  private static final java.util.Set<Outcome> INTACT = java.util.EnumSet.of(Outcome.STARTED_INTACT);

  /**
   * Starts an in-process server on {@code data}; returns whether it refused (with a message naming
   * {@code file} and containing {@code hint}, or less), or started with or without every
   * acknowledged write. The refusal message or the losses are described in {@code problems}.
   */
  private static Outcome startDamaged(
      Path data, boolean repair, Path file, String hint, List<String> problems) throws Exception {
    CuckooServer server;
    try {
      server = CuckooServer.start(inProcess(data).threads(1).repairLog(repair).build());
    } catch (IOException e) {
      String message = String.valueOf(e.getMessage());
      problems.add("refused: " + message);
      if (!message.contains(file.toString()) || !message.contains("refusing to start")) {
        return Outcome.REFUSED_SILENTLY;
      }
      return message.contains(hint) ? Outcome.REFUSED : Outcome.REFUSED_NAMING_FILE;
    }
    try (RespClient client = new RespClient(server.port())) {
      List<String> found = new ArrayList<>();
      long lost = lostFlipWrites(client, found);
      problems.addAll(found);
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
      return lost == 0 && found.isEmpty() ? Outcome.STARTED_INTACT : Outcome.STARTED_WITH_LOSS;
    } finally {
      server.close();
    }
  }

  /** Replaces the data directory's contents with the files (name to bytes). */
  private static void restore(Path data, Map<String, byte[]> contents) throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(data)) {
      for (Path file : files) {
        Files.delete(file);
      }
    }
    for (Map.Entry<String, byte[]> file : contents.entrySet()) {
      Files.write(data.resolve(file.getKey()), file.getValue());
    }
  }

  /** Returns the name and bytes of every file in the directory. */
  private static Map<String, byte[]> contents(Path data) throws IOException {
    Map<String, byte[]> contents = new java.util.TreeMap<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(data)) {
      for (Path file : files) {
        contents.put(file.getFileName().toString(), Files.readAllBytes(file));
      }
    }
    return contents;
  }

  /** Names the header field a byte belongs to, for the printed table. */
  private static String logField(int offset) {
    return offset < 8
        ? "magic"
        : offset < 16 ? "generation" : offset < 24 ? "baseLsn" : offset < 28 ? "crc" : "zero";
  }

  private static String snapshotField(int offset) {
    return offset < 8
        ? "magic"
        : offset < 16 ? "generation" : offset < 24 ? "startLsn" : offset < 32 ? "entries" : "crc";
  }

  /**
   * Flips each bit {@code fromBit..toBit-1} of one file in turn (or, unless {@code everyBit}, one
   * bit per byte, the bit position cycling with the byte offset), starts on the damaged directory
   * and tallies the outcomes per header field; returns the problems found (bit, outcome, details).
   */
  private static List<String> flipEachBit(
      Path data,
      Map<String, byte[]> contents,
      String name,
      int fromBit,
      int toBit,
      boolean everyBit,
      boolean repair,
      String hint,
      java.util.Set<Outcome> accepted,
      String label)
      throws Exception {
    Path file = data.resolve(name);
    boolean inLog = !name.equals(Persistence.SNAPSHOT);
    Map<String, int[]> table = new java.util.LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    java.util.logging.Logger logger = java.util.logging.Logger.getLogger("dev.cuckoo");
    java.util.logging.Level level = logger.getLevel();
    logger.setLevel(java.util.logging.Level.SEVERE);
    try {
      for (int bit = fromBit; bit < toBit; bit++) {
        if (!everyBit && bit % 8 != (bit / 8) % 8) {
          continue;
        }
        Map<String, byte[]> damaged = new java.util.TreeMap<>(contents);
        byte[] bytes = contents.get(name).clone();
        bytes[bit / 8] ^= (byte) (1 << (bit % 8));
        damaged.put(name, bytes);
        restore(data, damaged);
        List<String> found = new ArrayList<>();
        Outcome outcome = startDamaged(data, repair, file, hint, found);
        String field = inLog ? logField(bit / 8) : snapshotField(bit / 8);
        table.computeIfAbsent(field, f -> new int[Outcome.values().length])[outcome.ordinal()]++;
        if (!accepted.contains(outcome)) {
          problems.add(
              label + " bit " + bit + " (byte " + bit / 8 + ", " + field + "): " + outcome + " "
                  + found);
        }
      }
    } finally {
      logger.setLevel(level);
    }
    StringBuilder summary = new StringBuilder("CrashRecoveryTest " + label + ":");
    for (Map.Entry<String, int[]> row : table.entrySet()) {
      summary.append(' ').append(row.getKey()).append(" [");
      for (Outcome outcome : Outcome.values()) {
        int count = row.getValue()[outcome.ordinal()];
        if (count > 0) {
          summary
              .append(' ')
              .append(outcome.name().toLowerCase(java.util.Locale.ROOT))
              .append('=')
              .append(count);
        }
      }
      summary.append(" ]");
    }
    System.out.println(summary + "; " + problems.size() + " problems");
    return problems;
  }

  @Test
  void headerBitFlips_everyBitOfLogAndSnapshotHeader_refusedNamingFileOrIntact() throws Exception {
    Path data = dir.resolve("flips");
    writeFlipDirectory(data);
    Map<String, byte[]> contents = contents(data);
    List<String> problems = new ArrayList<>();
    problems.addAll(
        flipEachBit(
            data,
            contents,
            Persistence.LOG,
            0,
            LOG_HEADER_BITS,
            true,
            false,
            "--repair-log yes",
            REFUSED_WITH_HINT_OR_INTACT,
            "log header"));
    problems.addAll(
        flipEachBit(
            data,
            contents,
            Persistence.SNAPSHOT,
            0,
            SNAPSHOT_HEADER_BITS,
            true,
            false,
            "refusing to start",
            REFUSED_WITH_HINT_OR_INTACT,
            "snapshot header"));
    restore(data, contents);
    retireLog(data);
    problems.addAll(
        flipEachBit(
            data,
            contents(data),
            RETIRED_LOG,
            0,
            LOG_HEADER_BITS,
            true,
            false,
            "--repair-log yes",
            REFUSED_WITH_HINT_OR_INTACT,
            "retired log header"));
    System.out.printf(
        "CrashRecoveryTest header bit flips: %d acknowledged writes per directory"
            + " (%d in the log), %d flips, %d problems%n",
        FLIP_ACKNOWLEDGED,
        FLIP_LOGGED,
        2 * LOG_HEADER_BITS + SNAPSHOT_HEADER_BITS,
        problems.size());
    assertEquals(List.of(), problems);
  }

  @Test
  void headerBitFlips_bitPerByteOfLogHeadersWithRepair_everyWriteRecovered() throws Exception {
    flipLogHeadersWithRepair(false);
  }

  @Test
  @Tag("slow")
  void headerBitFlips_everyBitOfLogHeadersWithRepair_everyWriteRecovered() throws Exception {
    flipLogHeadersWithRepair(true);
  }

  /**
   * With {@code --repair-log yes}, flips bits of the active log's header and of a retired log's
   * header (the magic's version digit too, which makes "CKOOLOG4" read another version): every
   * acknowledged write must come back.
   */
  private void flipLogHeadersWithRepair(boolean everyBit) throws Exception {
    Path data = dir.resolve("flips");
    writeFlipDirectory(data);
    Map<String, byte[]> contents = contents(data);
    List<String> problems =
        new ArrayList<>(
            flipEachBit(
                data,
                contents,
                Persistence.LOG,
                0,
                LOG_HEADER_BITS,
                everyBit,
                true,
                "--repair-log yes",
                INTACT,
                "log header, --repair-log yes"));
    restore(data, contents);
    retireLog(data);
    problems.addAll(
        flipEachBit(
            data,
            contents(data),
            RETIRED_LOG,
            0,
            LOG_HEADER_BITS,
            everyBit,
            true,
            "--repair-log yes",
            INTACT,
            "retired log header, --repair-log yes"));
    assertEquals(List.of(), problems);
  }

  /**
   * Turns the flip directory into what a crash in the middle of a snapshot leaves: the log is
   * retired as {@link #RETIRED_LOG} and an empty generation-2 log follows it, while the snapshot is
   * still generation 1.
   */
  private static void retireLog(Path data) throws IOException {
    Path log = data.resolve(Persistence.LOG);
    LogReader.Result read =
        LogReader.read(
            log, LogReader.header(log), Long.MAX_VALUE, false, (lsn, db, args, offset) -> {});
    Files.move(log, data.resolve(RETIRED_LOG));
    AppendLog.create(log, FileChannels.DEFAULT, 2, read.lastLsn()).close();
  }

  @Test
  void snapshotLargerThanTheHeap_restartRefusesNamingTheHeapNotDamage() throws Exception {
    Path data = dir.resolve("big-snapshot");
    String[] args = {"--dir", data.toString(), "--maxmemory", "0"};
    try (ChildServer child = ChildServer.start("512m", dir.resolve("big-1.out"), args);
        RespClient client = new RespClient(child.port())) {
      // 2^26 buckets of 4 one-byte slots: a 256 MiB filter, more than the restart's heap
      assertEquals(new RespClient.Simple("OK"), client.call("CF.RESERVE", "big", 1L << 28));
      assertEquals(new RespClient.Simple("OK"), client.call("SAVE"));
      child.kill();
    }
    ChildServer restarted = ChildServer.launch("128m", dir.resolve("big-2.out"), args);
    try {
      assertTrue(!restarted.awaitListening(60_000), "started with a filter larger than its heap");
      String output = restarted.output();
      assertTrue(
          restarted.exitCode() != 0
              && output.contains("refusing to start")
              && output.contains("-Xmx")
              && !output.contains("corrupt"),
          "a snapshot too big for the heap is not damage:\n" + output);
    } finally {
      restarted.close();
    }
  }

  @Test
  void smallHeap_defaultMaxmemoryFilledThenKilled_everyAcknowledgedKeyReplayed() throws Exception {
    fillHeapKillAndRestart("default maxmemory (3/4 of the heap)", false);
  }

  @Test
  void smallHeap_maxmemoryZeroFilledUntilOutOfHeapThenKilled_everyKeyReplayedOrRefused()
      throws Exception {
    fillHeapKillAndRestart("maxmemory 0 (the heap is the only limit)", false, "--maxmemory", "0");
  }

  @Test
  void smallHeap_maxmemoryZeroFilledSavedThenKilled_everyKeyLoadedOrRefused() throws Exception {
    fillHeapKillAndRestart("maxmemory 0, SAVE, then adds", true, "--maxmemory", "0");
  }

  /**
   * Creates filters in a child with a 256 MiB heap, a 32 MiB one every {@link #SMALL_PER_BIG} small
   * ones, until the first refusal; kills it and restarts a child with the same heap and options.
   * The restarted server must hold exactly the acknowledged keys, or refuse to start with a message
   * naming the memory it needs; it must never start with fewer keys. With {@code save}, a SAVE
   * after the refusal puts the filters into the snapshot, and {@link #LATE_ITEMS} CF.ADDs to an
   * existing small filter go to the log (new filters are refused).
   */
  private void fillHeapKillAndRestart(String label, boolean save, String... extra)
      throws Exception {
    Path data = dir.resolve("heap");
    List<String> options =
        new ArrayList<>(
            List.of("--dir", data.toString(), "--appendfsync", "always", "--threads", "2"));
    options.addAll(List.of(extra));
    String[] args = options.toArray(new String[0]);
    List<String> lateAcknowledged = new ArrayList<>();
    java.util.Set<String> acknowledged = new java.util.TreeSet<>();
    int big = 0;
    String refusal = null;
    try (ChildServer child = ChildServer.start(CHILD_HEAP, dir.resolve("heap-1.out"), args);
        RespClient client = new RespClient(child.port())) {
      for (int n = 0; refusal == null && n < 100_000; n++) {
        boolean isBig = n % (SMALL_PER_BIG + 1) == 0;
        String key = (isBig ? "big" : "small") + n;
        Object reply = client.call("CF.RESERVE", key, isBig ? BIG_CAPACITY : 1024, "BUCKETSIZE", 2);
        if (reply instanceof RespClient.Err) {
          refusal = ((RespClient.Err) reply).text();
        } else {
          assertEquals(new RespClient.Simple("OK"), reply, key);
          acknowledged.add(key);
          big += isBig ? 1 : 0;
        }
      }
      assertTrue(refusal != null, label + ": the heap never filled");
      if (save) {
        assertEquals(new RespClient.Simple("OK"), client.call("SAVE"), label);
        for (int n = 0; n < LATE_ITEMS; n++) {
          // a heap within its reserve refuses adds too (HeapGuard): only acknowledged ones count
          Object reply = client.call("CF.ADD", "small1", "late" + n);
          if (reply instanceof RespClient.Err) {
            assertEquals(new RespClient.Err(Commands.OOM), reply, label);
          } else {
            assertEquals(1L, reply, label);
            lateAcknowledged.add("late" + n);
          }
        }
      }
      child.kill();
    }
    ChildServer restarted = ChildServer.launch(CHILD_HEAP, dir.resolve("heap-2.out"), args);
    try {
      if (!restarted.awaitListening(60_000)) {
        String output = restarted.output();
        System.out.printf(
            "CrashRecoveryTest small heap, %s: %d keys acknowledged (%d of 32 MiB)"
                + " before '%s'; the restart refused (exit %d): %s%n",
            label, acknowledged.size(), big, refusal, restarted.exitCode(), lastLine(output));
        assertTrue(
            restarted.exitCode() != 0
                && output.contains("refusing to start")
                && output.contains("-Xmx")
                && !output.contains("OutOfMemoryError"),
            label + ": refused without naming the memory needed:\n" + output);
        return;
      }
      try (RespClient client = new RespClient(restarted.port())) {
        java.util.Set<String> recovered = new java.util.TreeSet<>();
        for (Object key : (List<?>) client.call("KEYS", "*")) {
          recovered.add(RespClient.text(key));
        }
        java.util.Set<String> lost = new java.util.TreeSet<>(acknowledged);
        lost.removeAll(recovered);
        System.out.printf(
            "CrashRecoveryTest small heap, %s: %d keys acknowledged (%d of 32 MiB)"
                + " before '%s'%s; after kill -9 and restart %d keys, %d lost%n",
            label,
            acknowledged.size(),
            big,
            refusal,
            save ? ", then SAVE and " + lateAcknowledged.size() + " acknowledged CF.ADDs" : "",
            recovered.size(),
            lost.size());
        assertEquals(acknowledged, recovered, label);
        assertEquals((long) acknowledged.size(), client.call("DBSIZE"), label);
        if (save) {
          for (String item : lateAcknowledged) {
            assertEquals(1L, client.call("CF.EXISTS", "small1", item), label);
          }
        }
        String output = restarted.output();
        // the one warning allowed: a heap filled to its reserve still refuses writes after the
        // restart (HeapGuard)
        assertTrue(
            !output.contains("failed")
                && output
                    .lines()
                    .filter(line -> line.startsWith("WARNING"))
                    .allMatch(line -> line.contains("refusing writes that add data")),
            label + ": the restart warned:\n" + output);
      }
    } finally {
      restarted.close();
    }
  }

  private static String lastLine(String output) {
    String[] lines = output.strip().split("\n");
    return lines[lines.length - 1];
  }

  /** Runs a command; returns its exit code and output. */
  private static Map.Entry<Integer, String> run(String... command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output =
        new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
            .strip();
    return Map.entry(process.waitFor(), output);
  }

  /**
   * Fills a real 4 MiB tmpfs under a child server with {@code appendfsync always}: writes are
   * refused with MISCONF while reads go on; deleting a 1 MiB filler file made beforehand lets the
   * server recover within 10 s; after more writes and kill -9 the directory starts without {@code
   * --repair-log} with every acknowledged write and none of the refused ones. Needs permission to
   * mount (root on CI machines); skipped otherwise.
   */
  @Test
  void fullDisk_tmpfsFilledThenSpaceFreed_refusedThenRecoveredAndNoAcknowledgedWriteLost()
      throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        System.getProperty("os.name").startsWith("Linux"), "tmpfs needs Linux");
    Path mount = Files.createDirectories(dir.resolve("tmpfs"));
    Map.Entry<Integer, String> mounted =
        run("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mount.toString());
    org.junit.jupiter.api.Assumptions.assumeTrue(
        mounted.getKey() == 0,
        "cannot mount a 4 MiB tmpfs (needs root or CAP_SYS_ADMIN), skipping the full-disk test: "
            + mounted.getValue());
    try {
      fillRecoverKill(mount);
    } finally {
      if (run("umount", mount.toString()).getKey() != 0) {
        run("umount", "-l", mount.toString());
      }
    }
  }

  private void fillRecoverKill(Path mount) throws Exception {
    Path filler = mount.resolve("filler");
    Files.write(filler, new byte[1 << 20]);
    Path data = mount.resolve("data");
    String pad = "p".repeat(1000);
    List<String> acknowledged = new ArrayList<>();
    long refusedWrites = 0;
    long recoveryMillis;
    Path output = dir.resolve("tmpfs-child.out");
    try (ChildServer child =
            ChildServer.start(
                CHILD_HEAP,
                output,
                "--dir",
                data.toString(),
                "--appendfsync",
                "always",
                "--threads",
                "2");
        RespClient client = new RespClient(child.port())) {
      assertEquals(
          new RespClient.Simple("OK"), client.call("CF.RESERVE", "full", 1 << 16, "BUCKETSIZE", 2));
      String refusal = null;
      for (int i = 0; refusal == null; i++) {
        assertTrue(i < 20_000, "the 4 MiB tmpfs never filled; child output:\n" + child.output());
        String item = "item" + i + pad;
        Object reply = client.call("CF.ADD", "full", item);
        if (Long.valueOf(1).equals(reply)) {
          acknowledged.add(item);
        } else {
          refusal =
              reply instanceof RespClient.Err
                  ? ((RespClient.Err) reply).text()
                  : String.valueOf(reply);
          refusedWrites++;
        }
      }
      assertTrue(refusal.startsWith("MISCONF"), "first refused write: " + refusal);
      // reads go on, and the memory holds exactly the acknowledged writes
      assertEquals(new RespClient.Simple("PONG"), client.call("PING"));
      assertEquals(1L, client.call("CF.EXISTS", "full", acknowledged.get(0)));
      assertEquals(1L, client.call("CF.EXISTS", "full", acknowledged.get(acknowledged.size() - 1)));
      assertEquals(
          (long) acknowledged.size(),
          ((List<?>) client.call("CF.INFO", "full")).get(7),
          "items in memory after the refusal");
      assertTrue(
          RespClient.text(client.call("INFO", "persistence"))
              .contains("aof_last_write_status:err"));
      // every kind of write is refused, and a refused delete removes nothing
      for (Object[] write :
          new Object[][] {
            {"CF.ADD", "full", "refused"},
            {"CF.RESERVE", "other", 100},
            {"CF.DEL", "full", acknowledged.get(0)},
            {"CF.INSERT", "full", "ITEMS", "refused2"}
          }) {
        Object reply = client.call(write);
        assertTrue(
            reply instanceof RespClient.Err
                && ((RespClient.Err) reply).text().startsWith("MISCONF"),
            java.util.Arrays.toString(write) + " while the disk is full: " + reply);
        refusedWrites++;
      }
      assertEquals(1L, client.call("CF.EXISTS", "full", acknowledged.get(0)));
      Files.delete(filler);
      long freed = System.nanoTime();
      while (true) {
        String item = "recovered" + refusedWrites;
        Object reply = client.call("CF.ADD", "full", item);
        if (Long.valueOf(1).equals(reply)) {
          acknowledged.add(item);
          break;
        }
        assertTrue(
            reply instanceof RespClient.Err
                && ((RespClient.Err) reply).text().startsWith("MISCONF"),
            "while recovering: " + reply);
        refusedWrites++;
        assertTrue(
            System.nanoTime() - freed < 10_000_000_000L,
            "writes still refused 10 s after space was freed: "
                + reply
                + "; child output:\n"
                + child.output());
        Thread.sleep(100);
      }
      recoveryMillis = (System.nanoTime() - freed) / 1_000_000;
      for (int i = 0; i < 500; i++) {
        String item = "after" + i;
        assertEquals(1L, client.call("CF.ADD", "full", item), "write after recovery");
        acknowledged.add(item);
      }
      child.kill();
    }
    CuckooServer server;
    try {
      server = CuckooServer.start(inProcess(data).build());
    } catch (IOException e) {
      throw new AssertionError(
          "the log of a disk that filled up does not replay cleanly: "
              + e.getMessage()
              + "\nchild output:\n"
              + Files.readString(output),
          e);
    }
    long lost = 0;
    try (RespClient client = new RespClient(server.port())) {
      for (String item : acknowledged) {
        lost += Long.valueOf(1).equals(client.call("CF.EXISTS", "full", item)) ? 0 : 1;
      }
      long items = (Long) ((List<?>) client.call("CF.INFO", "full")).get(7);
      System.out.printf(
          "CrashRecoveryTest full disk: %d writes acknowledged, %d refused with"
              + " MISCONF, writes accepted again %d ms after space was freed; after kill -9 %d items,"
              + " %d lost%n",
          acknowledged.size() + 1, refusedWrites, recoveryMillis, items, lost);
      assertEquals(0, lost, "acknowledged writes lost");
      assertEquals(acknowledged.size(), items, "items after restart (refused writes undone)");
      assertEquals(0L, client.call("EXISTS", "other"), "a refused CF.RESERVE came back");
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
    } finally {
      server.close();
    }
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
