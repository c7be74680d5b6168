package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.config.Fsync;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes to a big filter while a snapshot is writing that very filter: they are answered at once
 * (the snapshot writes an image of the filter captured when it reached it, copy on write), and a
 * restart from that snapshot plus the log holds exactly the acknowledged writes, those before the
 * snapshot and those during it, each once.
 *
 * <p>{@link HeldSnapshotChannels} stops the snapshot after 2 MiB of its 8 MiB filter.
 */
@ExtendWith(LeakCheck.class)
class SnapshotCopyOnWriteTest {
  private static final int BEFORE = 3000;
  private static final int DURING = 3000;
  private static final int DELETED = 500;

  /** Longest acceptable wait of a CF.ADD to the filter being written. */
  private static final Duration ANSWER_WITHIN = Duration.ofSeconds(5);

  @TempDir Path dir;

  private CuckooServer start(HeldSnapshotChannels files) throws Exception {
    return CuckooServer.start(
        ServerConfig.builder()
            .port(TestServers.freePort())
            .threads(1)
            .dir(dir)
            .fsync(Fsync.ALWAYS)
            .build(),
        files);
  }

  /** Returns CF.COUNT of every item, and CF.INFO, as one list to compare. */
  private static List<Object> state(RespClient client, List<String> items) throws Exception {
    List<Object> state = new ArrayList<>();
    state.add(client.call("CF.INFO", "big"));
    for (String item : items) {
      state.add(client.call("CF.COUNT", "big", item));
    }
    return state;
  }

  @Test
  void addDuringSnapshotOfSameFilter_answeredAndRestoredExactly() throws Exception {
    HeldSnapshotChannels files = new HeldSnapshotChannels(2 << 20);
    List<String> kept = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    List<Object> acknowledged;
    try (CuckooServer server = start(files);
        RespClient admin = new RespClient(server.port());
        RespClient writer = new RespClient(server.port())) {
      assertEquals(
          new RespClient.Simple("OK"), admin.call("CF.RESERVE", "big", 1 << 23, "BUCKETSIZE", 1));
      for (int i = 0; i < BEFORE; i++) {
        assertEquals(1L, writer.call("CF.ADD", "big", "before" + i));
        (i < DELETED ? deleted : kept).add("before" + i);
      }
      try {
        assertEquals(new RespClient.Simple("Background saving started"), admin.call("BGSAVE"));
        files.awaitHeld(10_000);
        for (int i = 0; i < DURING; i++) {
          writer.send("CF.ADD", "big", "during" + i);
          assertEquals(1L, writer.readWithin(ANSWER_WITHIN), "CF.ADD during the snapshot");
          kept.add("during" + i);
        }
        for (String item : deleted) {
          writer.send("CF.DEL", "big", item);
          assertEquals(1L, writer.readWithin(ANSWER_WITHIN), "CF.DEL during the snapshot");
        }
        assertTrue(
            RespClient.text(admin.call("INFO", "persistence")).contains("rdb_bgsave_in_progress:1"),
            "the snapshot is still held in the middle of the filter");
      } finally {
        files.release();
      }
      while (!RespClient.text(admin.call("INFO", "persistence"))
          .contains("rdb_bgsave_in_progress:0")) {
        Thread.sleep(10);
      }
      assertEquals("ok", admin.infoField("rdb_last_bgsave_status"));
      for (String item : kept) {
        assertEquals(1L, writer.call("CF.EXISTS", "big", item), item);
      }
      acknowledged = state(writer, kept);
      admin.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
    }
    try (CuckooServer server = start(new HeldSnapshotChannels(Long.MAX_VALUE));
        RespClient client = new RespClient(server.port())) {
      List<Object> restored = state(client, kept);
      assertEquals(acknowledged.get(0), restored.get(0), "CF.INFO after the restart");
      assertEquals(acknowledged, restored, "CF.COUNT of every item after the restart");
      for (String item : kept) {
        assertEquals(1L, client.call("CF.EXISTS", "big", item), item);
      }
      List<?> info = (List<?>) restored.get(0);
      int at = info.indexOf(new RespClient.Simple("Number of items inserted"));
      assertEquals((long) (BEFORE - DELETED + DURING), info.get(at + 1), "items: " + info);
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
    }
  }
}
