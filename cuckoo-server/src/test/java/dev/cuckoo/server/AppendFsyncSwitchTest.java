package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.config.Fsync;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONFIG SET appendfsync at run time, as Redis allows it: under {@code always} every acknowledged
 * write has been forced to disk before its reply, under {@code everysec} writes are forced about
 * once a second. {@link SlowSnapshotChannels} (with no delay) records every force of the log.
 */
@ExtendWith(LeakCheck.class)
class AppendFsyncSwitchTest {
  private static final int WRITES = 40;

  @TempDir Path dir;

  private static int forcesDuring(SlowSnapshotChannels files, RespClient client, String key)
      throws Exception {
    int before = files.logForceNanos().size();
    for (int i = 0; i < WRITES; i++) {
      assertEquals(1L, client.call("CF.ADD", key, "item" + i));
    }
    return files.logForceNanos().size() - before;
  }

  private static String configGet(RespClient client) throws Exception {
    List<?> reply = (List<?>) client.call("CONFIG", "GET", "appendfsync");
    return RespClient.text(reply.get(0)) + "=" + RespClient.text(reply.get(1));
  }

  @Test
  void configSetAppendfsync_alwaysThenEverysec_forcesEachWriteOnlyUnderAlways() throws Exception {
    SlowSnapshotChannels files = new SlowSnapshotChannels(0);
    try (CuckooServer server =
            CuckooServer.start(
                ServerConfig.builder()
                    .port(TestServers.freePort())
                    .threads(1)
                    .dir(dir)
                    .fsync(Fsync.EVERYSEC)
                    .build(),
                files);
        RespClient client = new RespClient(server.port())) {
      long start = System.nanoTime();
      int everysec = forcesDuring(files, client, "before");
      long seconds = (System.nanoTime() - start) / 1_000_000_000L;
      assertTrue(everysec <= seconds + 2, everysec + " forces in " + seconds + " s under everysec");

      assertEquals(
          new RespClient.Simple("OK"), client.call("CONFIG", "SET", "appendfsync", "always"));
      assertEquals("appendfsync=always", configGet(client));
      int always = forcesDuring(files, client, "always");
      // one request at a time: no group commit can cover two writes with one fsync
      assertTrue(always >= WRITES, always + " forces for " + WRITES + " writes under always");

      assertEquals(
          new RespClient.Simple("OK"), client.call("CONFIG", "SET", "appendfsync", "EVERYSEC"));
      assertEquals("appendfsync=everysec", configGet(client));
      start = System.nanoTime();
      int after = forcesDuring(files, client, "after");
      seconds = (System.nanoTime() - start) / 1_000_000_000L;
      assertTrue(after <= seconds + 2, after + " forces in " + seconds + " s back under everysec");

      assertEquals(
          new RespClient.Err(
              "ERR CONFIG SET failed (possibly related to argument 'appendfsync') - argument(s)"
                  + " must be one of the following: everysec, always, no"),
          client.call("CONFIG", "SET", "appendfsync", "sometimes"));
      assertEquals(new RespClient.Simple("OK"), client.call("CONFIG", "SET", "appendfsync", "no"));
    }
  }
}
