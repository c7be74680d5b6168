package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import dev.cuckoo.server.persist.SavePoints;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Redis's persistence modes, each against a child server killed with SIGKILL and restarted: with
 * snapshots only ({@code appendonly no}), the log and snapshots ({@code appendonly yes}), and
 * neither ({@code appendonly no}, {@code save ""}). Every write acknowledged before a snapshot that
 * was reported saved (SAVE's OK, BGSAVE's ok status, a save point) must be there after the restart:
 * each scenario counts the writes it lost, and that count must be 0.
 */
@ExtendWith(LeakCheck.class)
class SnapshotModesTest {
  private static final Simple OK = new Simple("OK");
  private static final int WRITES = 300;

  /** The three modes, as command-line options. */
  enum Mode {
    SNAPSHOTS("--appendonly", "no", "--save", "3600 1 300 100 60 10000"),
    LOG_AND_SNAPSHOTS("--appendonly", "yes", "--appendfsync", "no", "--save", "3600 1"),
    NEITHER("--appendonly", "no", "--save", "");

    final String[] options;

    Mode(String... options) {
      this.options = options;
    }

    /** The options with the save points replaced (none for NEITHER). */
    String[] withSave(String points) {
      String[] changed = options.clone();
      changed[changed.length - 1] = this == NEITHER ? "" : points;
      return changed;
    }
  }

  @TempDir Path dir;

  private ChildServer start(String name, String... options) throws Exception {
    return ChildServer.startNamed(dir, name, options);
  }

  /** Adds {@code count} items to four keys; returns the items acknowledged (all, or it fails). */
  private static List<String> write(RespClient client, String prefix, int count)
      throws IOException {
    List<String> acked = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String item = prefix + i;
      assertEquals(1L, client.call("CF.ADD", "key" + (i % 4), item), item);
      acked.add(item);
    }
    return acked;
  }

  /** Returns how many of the items the restarted server does not hold. */
  private static int lost(RespClient client, List<String> items) throws IOException {
    int lost = 0;
    for (int i = 0; i < items.size(); i++) {
      if (!Long.valueOf(1).equals(client.call("CF.EXISTS", "key" + (i % 4), items.get(i)))) {
        lost++;
      }
    }
    return lost;
  }

  private int lostAfterRestart(String name, String[] options, List<String> items) throws Exception {
    try (ChildServer again = start(name, options);
        RespClient client = new RespClient(again.port())) {
      int lost = lost(client, items);
      System.out.println(
          name
              + ": "
              + items.size()
              + " acknowledged writes, "
              + lost
              + " missing after the restart");
      return lost;
    }
  }

  private static void awaitField(RespClient client, String field, String value, long millis)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    String seen = client.infoField(field);
    while (!seen.equals(value) && System.nanoTime() < deadline) {
      Thread.sleep(20);
      seen = client.infoField(field);
    }
    assertEquals(value, seen, field);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void save_thenKill9_noSavedWriteLost(Mode mode) throws Exception {
    String name = "save-" + mode;
    List<String> items;
    try (ChildServer child = start(name, mode.options);
        RespClient client = new RespClient(child.port())) {
      items = write(client, "s", WRITES);
      assertEquals(Long.toString(WRITES), client.infoField("rdb_changes_since_last_save"));
      assertEquals(OK, client.call("SAVE"));
      assertEquals("1", client.infoField("rdb_saves"));
      assertEquals("0", client.infoField("rdb_changes_since_last_save"));
      assertEquals("ok", client.infoField("rdb_last_bgsave_status"));
      assertEquals(mode == Mode.LOG_AND_SNAPSHOTS ? "1" : "0", client.infoField("aof_enabled"));
      long lastSave = (Long) client.call("LASTSAVE");
      assertEquals(client.infoField("rdb_last_save_time"), Long.toString(lastSave));
      assertTrue(Files.size(dir.resolve(name).resolve("dump.cuckoo")) > 0);
      child.kill();
    }
    assertEquals(0, lostAfterRestart(name, mode.options, items));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void bgsave_doneThenKill9_noSavedWriteLost(Mode mode) throws Exception {
    String name = "bgsave-" + mode;
    List<String> items;
    try (ChildServer child = start(name, mode.options);
        RespClient client = new RespClient(child.port())) {
      items = write(client, "b", WRITES);
      assertEquals(new Simple("Background saving started"), client.call("BGSAVE"));
      awaitField(client, "rdb_saves", "1", 30_000);
      assertEquals("0", client.infoField("rdb_bgsave_in_progress"));
      assertEquals("ok", client.infoField("rdb_last_bgsave_status"));
      assertEquals("-1", client.infoField("rdb_current_bgsave_time_sec"));
      assertEquals("0", client.infoField("rdb_last_bgsave_time_sec"));
      child.kill();
    }
    assertEquals(0, lostAfterRestart(name, mode.options, items));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void savePoint_firesOrNot_thenKill9(Mode mode) throws Exception {
    String name = "point-" + mode;
    String[] options = mode.withSave("1 1");
    List<String> items;
    try (ChildServer child = start(name, options);
        RespClient client = new RespClient(child.port())) {
      items = write(client, "p", WRITES);
      if (mode == Mode.NEITHER) {
        Thread.sleep(3_000);
        assertEquals("0", client.infoField("rdb_saves"), "no save point, no automatic save");
        assertEquals(Long.toString(WRITES), client.infoField("rdb_changes_since_last_save"));
      } else {
        awaitField(client, "rdb_changes_since_last_save", "0", 30_000);
        // once after the writes, or also during them when they took more than the point's second
        long saves = Long.parseLong(client.infoField("rdb_saves"));
        assertTrue(saves >= 1 && saves <= 1 + WRITES, "rdb_saves " + saves);
      }
      child.kill();
    }
    if (mode == Mode.NEITHER) {
      assertFalse(Files.exists(dir.resolve(name).resolve("dump.cuckoo")));
      assertEquals(WRITES, lostAfterRestart(name, options, items), "nothing was saved");
    } else {
      assertTrue(child(name).output().contains("1 changes in 1 seconds. Saving..."));
      assertEquals(0, lostAfterRestart(name, options, items));
    }
  }

  private ChildOutput child(String name) {
    return new ChildOutput(dir.resolve(name + ".out"));
  }

  /** What a named child printed (its output file). */
  private record ChildOutput(Path file) {
    String output() throws IOException {
      return Files.readString(file);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void sigterm_savesWhenSavePointsAreSet(Mode mode) throws Exception {
    String name = "term-" + mode;
    List<String> items;
    try (ChildServer child = start(name, mode.options);
        RespClient client = new RespClient(child.port())) {
      items = write(client, "t", WRITES);
      child.signals("TERM");
      assertTrue(child.awaitExit(30_000), "stopped");
      assertEquals(0, child.exitCode());
    }
    int lost = lostAfterRestart(name, mode.options, items);
    assertEquals(mode == Mode.NEITHER ? WRITES : 0, lost);
  }

  @Test
  void shutdown_savesByDefault_notWithNosave_alwaysWithSave() throws Exception {
    String[] snapshots = Mode.SNAPSHOTS.options;
    List<String> saved;
    try (ChildServer child = start("shutdown", snapshots);
        RespClient client = new RespClient(child.port())) {
      saved = write(client, "d", WRITES);
      client.send("SHUTDOWN");
      assertTrue(child.awaitExit(30_000));
    }
    assertEquals(0, lostAfterRestart("shutdown", snapshots, saved));
    try (ChildServer child = start("shutdown", snapshots);
        RespClient client = new RespClient(child.port())) {
      write(client, "n", 10);
      client.send("SHUTDOWN", "NOSAVE");
      assertTrue(child.awaitExit(30_000));
    }
    try (ChildServer child = start("shutdown", snapshots);
        RespClient client = new RespClient(child.port())) {
      assertEquals(0, lost(client, saved));
      assertEquals(0L, client.call("CF.EXISTS", "key0", "n0"), "NOSAVE saved nothing");
      child.kill();
    }
    String[] neither = Mode.NEITHER.options;
    List<String> explicit;
    try (ChildServer child = start("shutdown-neither", neither);
        RespClient client = new RespClient(child.port())) {
      explicit = write(client, "e", WRITES);
      client.send("SHUTDOWN", "SAVE");
      assertTrue(child.awaitExit(30_000));
    }
    assertEquals(0, lostAfterRestart("shutdown-neither", neither, explicit));
  }

  /** An append-only log left by appendonly yes is replayed, not ignored, by appendonly no. */
  @Test
  void logFromAppendOnlyRun_replayedWithSnapshotsOnly_thenFoldedIntoTheSnapshot() throws Exception {
    String name = "switch";
    List<String> items;
    try (ChildServer child = start(name, "--appendonly", "yes", "--appendfsync", "always");
        RespClient client = new RespClient(child.port())) {
      items = write(client, "l", WRITES);
      child.kill();
    }
    String[] snapshotsOnly = Mode.SNAPSHOTS.options;
    try (ChildServer child = start(name, snapshotsOnly);
        RespClient client = new RespClient(child.port())) {
      assertEquals(0, lost(client, items), "the log was replayed");
      assertTrue(child.output().contains("holds append-only logs"), child.output());
      assertEquals(OK, client.call("SAVE"));
      try (var files = Files.list(dir.resolve(name))) {
        assertEquals(
            List.of("dump.cuckoo"),
            files.map(path -> path.getFileName().toString()).sorted().toList(),
            "the snapshot holds what the logs held: they are gone");
      }
      child.kill();
    }
    assertEquals(
        0, lostAfterRestart(name, new String[] {"--appendonly", "yes"}, items), "log mode again");
  }

  /**
   * A failing disk: SAVE answers the error and leaves the old snapshot as it was; a failed BGSAVE
   * refuses writes with Redis's MISCONF while stop-writes-on-bgsave-error is yes, accepts them with
   * no, and a save that succeeds ends the refusal.
   */
  @Test
  void diskFails_saveErrorOldSnapshotIntact_bgsaveMisconfUntilASaveSucceeds() throws Exception {
    FaultyChannels faults = new FaultyChannels();
    Path data = dir.resolve("faulty");
    ServerConfig config =
        TestServers.memoryOnly().dir(data).savePoints(SavePoints.parse("3600 1")).build();
    CuckooServer server = CuckooServer.start(config, faults);
    try (RespClient client = new RespClient(server.port())) {
      List<String> saved = write(client, "f", 50);
      assertEquals(OK, client.call("SAVE"));
      byte[] before = Files.readAllBytes(data.resolve("dump.cuckoo"));
      write(client, "g", 50);
      faults.diskFull(false);
      assertEquals(new Err("ERR No space left on device"), client.call("SAVE"));
      assertArrayEquals(before, Files.readAllBytes(data.resolve("dump.cuckoo")));
      assertEquals("ok", client.infoField("rdb_last_bgsave_status"), "SAVE's failure: its reply");
      assertEquals(1L, client.call("CF.ADD", "key0", "still"), "a failed SAVE refuses nothing");
      assertEquals(new Simple("Background saving started"), client.call("BGSAVE"));
      awaitField(client, "rdb_last_bgsave_status", "err", 30_000);
      assertArrayEquals(before, Files.readAllBytes(data.resolve("dump.cuckoo")));
      Object refused = client.call("CF.ADD", "key0", "refused");
      assertTrue(
          refused instanceof Err err
              && err.text().startsWith("MISCONF Redis is configured to save RDB snapshots"),
          String.valueOf(refused));
      assertEquals(1L, client.call("CF.EXISTS", "key0", "f0"), "reads go on");
      assertEquals(OK, client.call("CONFIG", "SET", "stop-writes-on-bgsave-error", "no"));
      assertEquals(1L, client.call("CF.ADD", "key0", "accepted"));
      assertEquals(OK, client.call("CONFIG", "SET", "stop-writes-on-bgsave-error", "yes"));
      assertTrue(client.call("CF.ADD", "key0", "again") instanceof Err);
      faults.heal();
      assertEquals(OK, client.call("SAVE"));
      assertEquals("ok", client.infoField("rdb_last_bgsave_status"));
      assertEquals(1L, client.call("CF.ADD", "key0", "after"));
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
      assertTrue(faults.injected() > 0);
    }
    try (CuckooServer again = CuckooServer.start(config);
        RespClient client = new RespClient(again.port())) {
      assertEquals(1L, client.call("CF.EXISTS", "key0", "accepted"));
      assertEquals(1L, client.call("CF.EXISTS", "key0", "f0"));
    }
  }

  @Test
  void config_persistenceParameters_redisNamesAndErrors() throws Exception {
    Path file = dir.resolve("cuckoo.conf");
    Files.writeString(
        file,
        String.join(
            "\n",
            "port " + TestServers.freePort(),
            "appendonly no",
            "dir " + dir.resolve("conf-data").toAbsolutePath(),
            "save 900 1",
            "save 300 10",
            "dbfilename snap.cuckoo",
            "appendfilename journal.log",
            ""));
    try (CuckooServer server = CuckooServer.start(ServerConfig.parse(file.toString()));
        RespClient client = new RespClient(server.port())) {
      assertEquals(List.of("save", "900 1 300 10"), texts(client.call("CONFIG", "GET", "save")));
      assertEquals(
          List.of("dbfilename", "snap.cuckoo"), texts(client.call("CONFIG", "GET", "dbfilename")));
      assertEquals(
          List.of("appendfilename", "journal.log"),
          texts(client.call("CONFIG", "GET", "appendfilename")));
      assertEquals(
          List.of("rdbchecksum", "yes"), texts(client.call("CONFIG", "GET", "rdbchecksum")));
      assertEquals(
          List.of("rdbcompression", "no"), texts(client.call("CONFIG", "GET", "rdbcompression")));
      assertEquals(
          List.of("stop-writes-on-bgsave-error", "yes"),
          texts(client.call("CONFIG", "GET", "stop-writes-on-bgsave-error")));
      assertEquals(
          new Err(
              "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save"
                  + " parameters"),
          client.call("CONFIG", "SET", "save", "10"));
      assertEquals(
          new Err(
              "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save"
                  + " parameters"),
          client.call("CONFIG", "SET", "save", "0 1"));
      assertEquals(OK, client.call("CONFIG", "SET", "save", "60 5 10 1000"));
      assertEquals(List.of("save", "60 5 10 1000"), texts(client.call("CONFIG", "GET", "save")));
      assertEquals(
          new Err(
              "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set"
                  + " protected config"),
          client.call("CONFIG", "SET", "dbfilename", "x"));
      assertEquals(
          new Err(
              "ERR CONFIG SET failed (possibly related to argument 'rdbchecksum') - can't set"
                  + " immutable config"),
          client.call("CONFIG", "SET", "rdbchecksum", "no"));
      Object compress = client.call("CONFIG", "SET", "rdbcompression", "yes");
      assertTrue(
          compress instanceof Err err && err.text().contains("does not compress snapshots"),
          String.valueOf(compress));
      assertEquals(OK, client.call("CONFIG", "SET", "rdbcompression", "no"));
      assertEquals(OK, client.call("CF.ADD", "k", "a") instanceof Long ? OK : null);
      assertEquals(OK, client.call("SAVE"));
      assertTrue(Files.exists(dir.resolve("conf-data").resolve("snap.cuckoo")));
      assertEquals(OK, client.call("CONFIG", "SET", "save", ""));
      assertEquals(OK, client.call("CONFIG", "REWRITE"));
    }
    assertEquals(SavePoints.NONE, ServerConfig.parse(file.toString()).savePoints());
  }

  private static List<String> texts(Object reply) {
    return ((List<?>) reply).stream().map(RespClient::text).toList();
  }

  @Test
  void savePoints_redisRule_changesSecondsAndRetryDelay() {
    SavePoints points = SavePoints.parse("60 5 10 1000");
    assertEquals("5 changes in 60 seconds", points.due(5, 61, 100, false));
    assertEquals(null, points.due(5, 60, 100, false), "more than S seconds");
    assertEquals(null, points.due(4, 1000, 100, false));
    assertEquals("1000 changes in 10 seconds", points.due(1000, 11, 100, false));
    assertEquals(null, points.due(5, 61, 5, true), "within 5 s of a failed background save");
    assertEquals("5 changes in 60 seconds", points.due(5, 61, 6, true));
    assertEquals(null, SavePoints.NONE.due(1_000_000, 1_000_000, 100, false));
    assertEquals("3600 1 300 100 60 10000", SavePoints.DEFAULT.toString());
  }
}
