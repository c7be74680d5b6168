package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.config.Fsync;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writes that delete, expire, flush, swap, move or rename keys at the worst moment of a snapshot:
 * after the log was rotated and before the snapshot listed the keys. A key that existed at the
 * rotation must reach the new snapshot (as a filter or a tombstone), or the records of the new log
 * meet a key that is in neither the snapshot nor a log, and the server refuses to start.
 *
 * <p>Each case holds a BGSAVE at that moment ({@link Persistence#afterRotate}), runs its commands
 * (a record of the key first, then the change), lets the snapshot finish and then takes the files
 * as a kill -9 would leave them (every write is acknowledged with {@code appendfsync always}), both
 * during the snapshot and after it. A server started on each copy, without repair, must hold
 * exactly what the live server holds: the same keys in every database, the same filters byte for
 * byte (CF.SCANDUMP), counters and expiry times.
 */
@ExtendWith(LeakCheck.class)
class SnapshotRaceTest {
  @TempDir Path dir;

  /** A change made while the snapshot is held between rotating the log and listing the keys. */
  enum Race {
    DEL("CF.DEL k x", "DEL k"),
    UNLINK("CF.DEL k x", "UNLINK k other"),
    DEL_THEN_RECREATE("CF.DEL k x", "DEL k", "CF.ADD k z"),
    EXPIRY_ACTIVE("CF.DEL k x", "PEXPIRE k 1", "#expired"),
    EXPIRY_ON_WRITE("CF.DEL k x", "PEXPIRE k 1", "#sleep", "CF.ADD k z"),
    FLUSHDB("CF.DEL k x", "FLUSHDB"),
    FLUSHALL("CF.DEL k x", "FLUSHALL"),
    TRANSACTION("MULTI", "CF.DEL k x", "DEL k", "CF.ADD new x", "EXEC"),
    OTHER_DATABASE("SELECT 3", "CF.DEL k x", "DEL k", "SELECT 0"),
    RENAME("CF.DEL k x", "RENAME k renamed"),
    MOVE("CF.DEL k x", "MOVE k 5"),
    SWAPDB("CF.DEL k x", "SWAPDB 0 3"),
    EXPIRE_THEN_RENAME("CF.DEL k x", "PEXPIRE k 100000", "RENAME other k");

    final String[] commands;

    Race(String... commands) {
      this.commands = commands;
    }
  }

  private static ServerConfig.Builder config(Path data) {
    return ServerConfig.builder()
        .port(TestServers.freePort())
        .threads(2)
        .dir(data)
        .fsync(Fsync.ALWAYS);
  }

  @ParameterizedTest
  @EnumSource(Race.class)
  void restart_changeBetweenRotationAndListing_holdsExactlyWhatWasAcknowledged(Race race)
      throws Exception {
    Path data = dir.resolve("data");
    Path duringSnapshot = dir.resolve("during");
    Path afterSnapshot = dir.resolve("after");
    Map<Path, Map<String, String>> expected = new java.util.HashMap<>();
    CuckooServer server = CuckooServer.start(config(data).build());
    try (RespClient client = new RespClient(server.port());
        RespClient saver = new RespClient(server.port());
        RespClient observer = new RespClient(server.port())) {
      for (int db : new int[] {0, 3}) {
        call(client, "SELECT " + db);
        for (String key : new String[] {"k", "other"}) {
          call(client, "CF.RESERVE " + key + " 1000");
          call(client, "CF.ADD " + key + " x");
          call(client, "CF.ADD " + key + " y");
        }
      }
      call(client, "SELECT 0");
      CountDownLatch reached = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      server
          .persistence()
          .afterRotate(
              () -> {
                reached.countDown();
                try {
                  release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      assertEquals(new RespClient.Simple("Background saving started"), saver.call("BGSAVE"));
      assertTrue(reached.await(10, TimeUnit.SECONDS), race + ": the snapshot never rotated");
      server.persistence().afterRotate(() -> {});
      int pending = run(client, race);
      // commands that move data are waiting for the snapshot: not acknowledged yet
      expected.put(duringSnapshot, state(observer));
      copy(data, duringSnapshot);
      release.countDown();
      for (int i = 0; i < pending; i++) {
        Object reply = client.read();
        assertTrue(!(reply instanceof RespClient.Err), race + ": " + reply);
      }
      awaitBackgroundSave(saver);
      copy(data, afterSnapshot);
      expected.put(afterSnapshot, state(client));
    } finally {
      server.close();
    }
    for (Path copy : List.of(duringSnapshot, afterSnapshot)) {
      CuckooServer restarted;
      try {
        restarted = CuckooServer.start(config(copy).build());
      } catch (IOException e) {
        throw new AssertionError(race + ": restart from " + copy.getFileName() + " refused", e);
      }
      try (RespClient client = new RespClient(restarted.port())) {
        assertEquals(
            expected.get(copy), state(client), race + ": restart from " + copy.getFileName());
      } finally {
        restarted.close();
      }
    }
  }

  /**
   * Runs the race's commands; commands that move data wait for the snapshot, so they are sent
   * without reading their replies. Returns the number of replies still to read.
   */
  private static int run(RespClient client, Race race) throws Exception {
    int pending = 0;
    for (String command : race.commands) {
      if (command.equals("#sleep")) {
        Thread.sleep(20);
      } else if (command.equals("#expired")) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!RespClient.text(client.call("INFO", "stats")).contains("expired_keys:1")) {
          assertTrue(System.nanoTime() < deadline, race + ": the key never expired");
          Thread.sleep(5);
        }
      } else if (pending > 0 || command.matches("(RENAME|MOVE|SWAPDB) .*")) {
        client.send((Object[]) command.split(" "));
        pending++;
      } else {
        Object reply = call(client, command);
        assertTrue(!(reply instanceof RespClient.Err), race + ": " + command + " -> " + reply);
      }
    }
    return pending;
  }

  private static Object call(RespClient client, String command) throws IOException {
    return client.call((Object[]) command.split(" "));
  }

  private static void awaitBackgroundSave(RespClient client) throws Exception {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!RespClient.text(client.call("INFO", "persistence"))
        .contains("rdb_bgsave_in_progress:0")) {
      assertTrue(System.nanoTime() < deadline, "the snapshot never finished");
      Thread.sleep(5);
    }
  }

  /** Copies the data directory's files as they are (what a kill -9 leaves behind). */
  private static void copy(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (DirectoryStream<Path> files = Files.newDirectoryStream(from)) {
      for (Path file : files) {
        Files.copy(file, to.resolve(file.getFileName()));
      }
    }
  }

  /**
   * Returns everything the server holds: per database and key, its expiry time, CF.INFO and every
   * CF.SCANDUMP chunk.
   */
  private static Map<String, String> state(RespClient client) throws IOException {
    Map<String, String> state = new TreeMap<>();
    for (int db = 0; db < 16; db++) {
      call(client, "SELECT " + db);
      List<String> keys = new ArrayList<>();
      for (Object key : (List<?>) client.call("KEYS", "*")) {
        keys.add(RespClient.text(key));
      }
      for (String key : keys) {
        StringBuilder value = new StringBuilder();
        value.append("expiretime=").append(client.call("PEXPIRETIME", key));
        value.append(" info=").append(describe(client.call("CF.INFO", key)));
        long cursor = 0;
        do {
          List<?> chunk = (List<?>) client.call("CF.SCANDUMP", key, cursor);
          cursor = (Long) chunk.get(0);
          value.append(" chunk=").append(describe(chunk.get(1)));
        } while (cursor != 0);
        state.put(db + ":" + key, value.toString());
      }
    }
    call(client, "SELECT 0");
    return state;
  }

  private static String describe(Object reply) {
    if (reply instanceof byte[]) {
      return java.util.HexFormat.of().formatHex((byte[]) reply);
    }
    if (reply instanceof List) {
      StringBuilder text = new StringBuilder("[");
      for (Object element : (List<?>) reply) {
        text.append(describe(element)).append(',');
      }
      return text.append(']').toString();
    }
    return String.valueOf(reply);
  }
}
