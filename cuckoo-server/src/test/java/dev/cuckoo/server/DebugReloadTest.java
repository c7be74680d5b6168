package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE] as Redis's debugCommand: the data are the same after the
 * reload and after a restart (the snapshot and the log still restore exactly them), in both
 * persistence modes; NOSAVE loads the snapshot on disk, NOFLUSH MERGE loads it over the keys.
 */
class DebugReloadTest {
  private static final Simple OK = new Simple("OK");

  private static ServerConfig config(Path dir, boolean appendOnly) {
    return TestServers.memoryOnly()
        .enableDebugCommand(true)
        .appendOnly(appendOnly)
        .dir(dir)
        .build();
  }

  /** Fills a few filters, one with an expiry, in two databases; returns DEBUG DIGEST. */
  private static Object fill(RespClient client) throws IOException {
    for (int i = 0; i < 20; i++) {
      assertEquals(1L, client.call("CF.ADD", "k" + (i % 4), "item" + i));
    }
    assertEquals(1L, client.call("EXPIRE", "k1", "1000"));
    assertEquals(OK, client.call("SELECT", "3"));
    assertEquals(OK, client.call("CF.RESERVE", "other", "100"));
    assertEquals(1L, client.call("CF.ADD", "other", "x"));
    assertEquals(OK, client.call("SELECT", "0"));
    return client.call("DEBUG", "DIGEST");
  }

  private static void reloadKeepsData(boolean appendOnly) throws IOException {
    Path dir = TestServers.freshDataDir();
    Object digest;
    try (CuckooServer server = CuckooServer.start(config(dir, appendOnly));
        RespClient client = new RespClient(server.port())) {
      digest = fill(client);
      assertEquals(OK, client.call("DEBUG", "RELOAD"));
      assertEquals(digest, client.call("DEBUG", "DIGEST"));
      assertEquals(1L, client.call("CF.EXISTS", "k3", "item7"));
      assertEquals(Boolean.TRUE, (Long) client.call("TTL", "k1") > 990);
      // writes after the reload are kept as well
      assertEquals(1L, client.call("CF.ADD", "k0", "after"));
      digest = client.call("DEBUG", "DIGEST");
      if (!appendOnly) {
        assertEquals(OK, client.call("SAVE"));
      }
    }
    try (CuckooServer server = CuckooServer.start(config(dir, appendOnly));
        RespClient client = new RespClient(server.port())) {
      assertEquals(digest, client.call("DEBUG", "DIGEST"));
      assertEquals(1L, client.call("CF.EXISTS", "k0", "after"));
    }
  }

  @Test
  void reload_withTheLog_sameDataAfterReloadAndRestart() throws IOException {
    reloadKeepsData(true);
  }

  @Test
  void reload_snapshotsOnly_sameDataAfterReloadAndRestart() throws IOException {
    reloadKeepsData(false);
  }

  @Test
  void nosave_loadsTheSnapshotOnDisk_noflushMerge_addsItsKeys() throws IOException {
    try (CuckooServer server = CuckooServer.start(config(TestServers.freshDataDir(), false));
        RespClient client = new RespClient(server.port())) {
      assertEquals(1L, client.call("CF.ADD", "saved", "a"));
      assertEquals(OK, client.call("SAVE"));
      assertEquals(1L, client.call("CF.ADD", "unsaved", "b"));
      Object both = client.call("DEBUG", "DIGEST");
      // NOFLUSH without MERGE: "saved" is in both, so nothing is loaded (Redis stops the server)
      assertEquals(
          new Err("ERR Error trying to load the snapshot, check server logs."),
          client.call("DEBUG", "RELOAD", "NOSAVE", "NOFLUSH"));
      assertEquals(both, client.call("DEBUG", "DIGEST"));
      assertEquals(OK, client.call("DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE"));
      assertEquals(both, client.call("DEBUG", "DIGEST"));
      assertEquals(OK, client.call("DEBUG", "RELOAD", "NOSAVE"));
      assertEquals(0L, client.call("EXISTS", "unsaved"));
      assertEquals(1L, client.call("CF.EXISTS", "saved", "a"));
    }
  }

  @Test
  void badOption_redisError() throws IOException {
    try (CuckooServer server = CuckooServer.start(config(TestServers.freshDataDir(), false));
        RespClient client = new RespClient(server.port())) {
      assertEquals(
          new Err("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options."),
          client.call("DEBUG", "RELOAD", "FOO"));
    }
  }

  @Test
  void reload_marksTheWatchersOfKeysItFlushes_notOfAbsentKeys_norWithNoflush() throws IOException {
    // as Redis's emptyData: a flush marks the watchers of every key it removes, even if the reload
    // brings the same value back; a watched key that did not exist is not marked
    try (CuckooServer server = CuckooServer.start(config(TestServers.freshDataDir(), false));
        RespClient watcher = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      assertEquals(1L, other.call("CF.ADD", "present", "x"));
      assertEquals(OK, watcher.call("WATCH", "present"));
      assertEquals(OK, other.call("DEBUG", "RELOAD"));
      assertEquals(OK, watcher.call("MULTI"));
      assertEquals(new Simple("QUEUED"), watcher.call("CF.ADD", "present", "y"));
      assertEquals(null, watcher.call("EXEC"));

      assertEquals(OK, watcher.call("WATCH", "absent"));
      assertEquals(OK, other.call("DEBUG", "RELOAD"));
      assertEquals(OK, watcher.call("MULTI"));
      assertEquals(new Simple("QUEUED"), watcher.call("CF.ADD", "absent", "y"));
      assertEquals(java.util.List.of(1L), watcher.call("EXEC"));

      assertEquals(OK, watcher.call("WATCH", "present"));
      assertEquals(OK, other.call("DEBUG", "RELOAD", "NOFLUSH", "MERGE"));
      assertEquals(OK, watcher.call("MULTI"));
      assertEquals(new Simple("QUEUED"), watcher.call("CF.ADD", "present", "z"));
      assertEquals(java.util.List.of(1L), watcher.call("EXEC"));
    }
  }
}
