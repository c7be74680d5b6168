package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.config.Fsync;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What goes on while a slow snapshot is written: commands of other connections, and the everysec
 * fsync of the log. The README promises that snapshots ({@code SAVE}, {@code BGSAVE}, automatic
 * rewrites) do not stop the world, and that with {@code everysec} a crash loses at most the last
 * second of acknowledged writes.
 *
 * <p>{@link SlowSnapshotChannels} makes every write to the snapshot file {@value #DELAY_MILLIS} ms
 * slower (half that in the SAVE and BGSAVE tests), so the 8 MiB filter (128 buffered writes of 64
 * KiB) takes about 4 s (2 s), as a filter of several GiB on a slow disk would. The server has one
 * network thread, so a command that blocked it would block every connection.
 */
@ExtendWith(LeakCheck.class)
class SnapshotStallTest {
  private static final long DELAY_MILLIS = 30;

  /** Longest acceptable wait of a CF.ADD on another key during a snapshot. */
  private static final long STALL_MILLIS = 500;

  @TempDir Path dir;

  private CuckooServer start(SlowSnapshotChannels files) throws Exception {
    return CuckooServer.start(
        ServerConfig.builder()
            .port(TestServers.freePort())
            .threads(1)
            .dir(dir)
            .fsync(Fsync.EVERYSEC)
            .build(),
        files);
  }

  private static void reserve(RespClient big, RespClient small) throws Exception {
    assertEquals(
        new RespClient.Simple("OK"), big.call("CF.RESERVE", "big", 1 << 23, "BUCKETSIZE", 1));
    assertEquals(new RespClient.Simple("OK"), small.call("CF.RESERVE", "small", 100_000));
  }

  private static void awaitBackgroundSave(RespClient client) throws Exception {
    while (!RespClient.text(client.call("INFO", "persistence"))
        .contains("rdb_bgsave_in_progress:0")) {
      Thread.sleep(10);
    }
  }

  /** Returns how long one CF.ADD on key small took, in milliseconds. */
  private static long addMillis(RespClient client, String item) throws Exception {
    long start = System.nanoTime();
    assertEquals(1L, client.call("CF.ADD", "small", item));
    return (System.nanoTime() - start) / 1_000_000;
  }

  /** Stops the server without the (slow) snapshot that close() would take. */
  private static void shutdownNoSave(CuckooServer server, RespClient client) throws Exception {
    client.send("SHUTDOWN", "NOSAVE");
    server.awaitTermination();
  }

  @Test
  void bgsave_slowSnapshot_otherConnectionsAnswered() throws Exception {
    try (CuckooServer server = start(new SlowSnapshotChannels(DELAY_MILLIS / 2));
        RespClient admin = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      reserve(admin, other);
      long started = System.nanoTime();
      assertEquals(new RespClient.Simple("Background saving started"), admin.call("BGSAVE"));
      Thread.sleep(300);
      long waited = addMillis(other, "during");
      awaitBackgroundSave(admin);
      long saveMillis = (System.nanoTime() - started) / 1_000_000;
      assertTrue(saveMillis > 3 * STALL_MILLIS, "the snapshot took only " + saveMillis + " ms");
      assertTrue(
          waited < STALL_MILLIS,
          "CF.ADD on another key waited "
              + waited
              + " ms during a BGSAVE of "
              + saveMillis
              + " ms");
      shutdownNoSave(server, admin);
    }
  }

  @Test
  void save_slowSnapshot_otherConnectionsAnswered() throws Exception {
    try (CuckooServer server = start(new SlowSnapshotChannels(DELAY_MILLIS / 2));
        RespClient admin = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      reserve(admin, other);
      long started = System.nanoTime();
      admin.send("SAVE");
      Thread.sleep(300);
      long waited = addMillis(other, "during");
      assertEquals(new RespClient.Simple("OK"), admin.read());
      long saveMillis = (System.nanoTime() - started) / 1_000_000;
      assertTrue(saveMillis > 3 * STALL_MILLIS, "the snapshot took only " + saveMillis + " ms");
      assertTrue(
          waited < STALL_MILLIS,
          "CF.ADD on another key waited " + waited + " ms during a SAVE of " + saveMillis + " ms");
      shutdownNoSave(server, admin);
    }
  }

  @Test
  void everysec_writesDuringSlowBgsave_logForcedWithinTwoSeconds() throws Exception {
    SlowSnapshotChannels files = new SlowSnapshotChannels(DELAY_MILLIS);
    try (CuckooServer server = start(files);
        RespClient admin = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      reserve(admin, other);
      assertEquals(new RespClient.Simple("Background saving started"), admin.call("BGSAVE"));
      Thread.sleep(200);
      long acknowledged = System.nanoTime();
      List<Long> addMillis = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        addMillis.add(addMillis(other, "during" + i));
        Thread.sleep(100);
      }
      awaitBackgroundSave(admin);
      long saveEnded = System.nanoTime();
      long deadline = acknowledged + 2_000_000_000L;
      assertTrue(saveEnded > deadline, "the snapshot ended within 2 s; not slow enough");
      boolean forced =
          files.logForceNanos().stream().anyMatch(at -> at >= acknowledged && at <= deadline);
      assertTrue(
          forced,
          "writes acknowledged with everysec "
              + (saveEnded - acknowledged) / 1_000_000
              + " ms before the snapshot ended were not forced to disk within 2 s; log"
              + " forces after them at +"
              + files.logForceNanos().stream()
                  .filter(at -> at >= acknowledged)
                  .map(at -> (at - acknowledged) / 1_000_000)
                  .toList()
              + " ms (CF.ADD latencies "
              + addMillis
              + " ms)");
      shutdownNoSave(server, admin);
    }
  }

  /**
   * A RENAME sent while a snapshot is written waits for it (replayed whole or not at all, it must
   * not overlap a fuzzy snapshot) without stalling the event loop: another connection's CF.ADD is
   * answered meanwhile, the RENAME's own connection answers in request order afterwards, and a
   * restart from the snapshot plus the log holds the renamed filter.
   */
  @Test
  void renameDuringSnapshot_waitsForItWithoutStallingOthers() throws Exception {
    try (CuckooServer server = start(new SlowSnapshotChannels(DELAY_MILLIS / 2));
        RespClient admin = new RespClient(server.port());
        RespClient mover = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      reserve(admin, other);
      assertEquals(1L, mover.call("CF.ADD", "from", "x"));
      long savesBefore = Long.parseLong(admin.infoField("rdb_saves"));
      assertEquals(new RespClient.Simple("Background saving started"), admin.call("BGSAVE"));
      Thread.sleep(300);
      mover.send("RENAME", "from", "to");
      mover.send("CF.EXISTS", "to", "x");
      long waited = addMillis(other, "during");
      assertTrue(waited < STALL_MILLIS, "CF.ADD on another key waited " + waited + " ms");
      assertTrue(
          RespClient.text(admin.call("INFO", "persistence")).contains("rdb_bgsave_in_progress:1"),
          "the snapshot is still being written");
      assertEquals(new RespClient.Simple("OK"), mover.read());
      // the snapshot is counted before RENAME may go on (rdb_bgsave_in_progress drops a moment
      // later, when the background task returns)
      assertEquals(
          savesBefore + 1,
          Long.parseLong(admin.infoField("rdb_saves")),
          "RENAME answered after the snapshot");
      assertEquals(1L, mover.read());
      shutdownNoSave(server, admin);
    }
    try (CuckooServer server = start(new SlowSnapshotChannels(0));
        RespClient client = new RespClient(server.port())) {
      assertEquals(0L, client.call("EXISTS", "from"));
      assertEquals(1L, client.call("CF.EXISTS", "to", "x"));
      shutdownNoSave(server, client);
    }
  }
}
