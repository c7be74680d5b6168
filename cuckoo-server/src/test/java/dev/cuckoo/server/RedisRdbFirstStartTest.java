package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.rdb.Crc64;
import dev.cuckoo.server.rdb.RecordedDumps;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A Redis dump.rdb left in the data directory is loaded at the first start (the recorded Redis 8 +
 * RedisBloom file), reported in INFO persistence, saved as this server's own snapshot at once, and
 * not read again.
 */
class RedisRdbFirstStartTest {
  private static String persistence(int port, String field) throws IOException {
    try (RespClient client = new RespClient(port)) {
      for (String line : RespClient.text(client.call("INFO", "persistence")).split("\r\n")) {
        if (line.startsWith(field + ":")) {
          return line.substring(field.length() + 1);
        }
      }
    }
    return null;
  }

  @Test
  void start_dumpRdbInTheDataDirectory_loadsItOnce() throws IOException {
    Path dir = Files.createDirectories(TestServers.freshDataDir());
    Files.write(dir.resolve("dump.rdb"), RecordedDumps.recordedRdb());
    java.util.Map<String, String> loaded;
    try (CuckooServer server = CuckooServer.start(TestServers.memoryOnly().dir(dir).build());
        RespClient client = new RespClient(server.port())) {
      assertEquals("dump.rdb", persistence(server.port(), "redis_rdb_imported"));
      assertEquals("4", persistence(server.port(), "redis_rdb_imported_filters"));
      assertEquals("string=1", persistence(server.port(), "redis_rdb_foreign_keys_by_type"));
      assertEquals(3L, client.call("DBSIZE"));
      assertEquals(4102444800000L, client.call("PEXPIRETIME", "withttl"));
      assertEquals(1L, client.call("CF.EXISTS", "small", "item7"));
      client.call("SELECT", "1");
      assertEquals(1L, client.call("CF.EXISTS", "indb1", "y"));
      loaded = ReplicaState.of(server.port(), 2);
      assertTrue(Files.exists(dir.resolve("dump.cuckoo")), "the snapshot saved at once");
      client.call("SELECT", "0");
      client.call("DEL", "small");
      client.call("SAVE");
    }
    try (CuckooServer again = CuckooServer.start(TestServers.memoryOnly().dir(dir).build())) {
      // the server's own snapshot now: the RDB is not read again
      assertEquals(null, persistence(again.port(), "redis_rdb_imported"));
      loaded.remove("0/small");
      assertEquals(loaded, ReplicaState.of(again.port(), 2));
    }
  }

  @Test
  void start_dbfilenameNamesTheRdb_renamesItAsideAndSavesUnderTheName() throws IOException {
    Path dir = Files.createDirectories(TestServers.freshDataDir());
    Files.write(dir.resolve("dump.rdb"), RecordedDumps.recordedRdb());
    ServerConfig.Builder config =
        TestServers.memoryOnly().dir(dir).appendOnly(true).set("dbfilename", "dump.rdb");
    java.util.Map<String, String> loaded;
    try (CuckooServer server = CuckooServer.start(config.build())) {
      assertEquals("dump.rdb", persistence(server.port(), "redis_rdb_imported"));
      loaded = ReplicaState.of(server.port(), 2);
      assertEquals(4, loaded.size());
    }
    assertTrue(Files.exists(dir.resolve("dump.rdb.imported")));
    byte[] snapshot = Files.readAllBytes(dir.resolve("dump.rdb"));
    assertFalse(
        new String(snapshot, 0, 5, java.nio.charset.StandardCharsets.US_ASCII).equals("REDIS"));
    try (CuckooServer again = CuckooServer.start(config.build())) {
      assertEquals(null, persistence(again.port(), "redis_rdb_imported"));
      assertEquals(loaded, ReplicaState.of(again.port(), 2));
    }
  }

  @Test
  void start_expiredFilterInTheRdb_isDropped() throws IOException {
    byte[] rdb = RecordedDumps.recordedRdb();
    // the expiry of 'withttl' (4102444800000 ms) set to 1000 ms, the CRC64 recomputed
    byte[] expiry =
        ByteBuffer.allocate(9)
            .order(ByteOrder.LITTLE_ENDIAN)
            .put((byte) 0xfc)
            .putLong(4102444800000L)
            .array();
    int at = indexOf(rdb, expiry);
    ByteBuffer.wrap(rdb).order(ByteOrder.LITTLE_ENDIAN).putLong(at + 1, 1000);
    ByteBuffer.wrap(rdb)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putLong(rdb.length - 8, Crc64.of(rdb, 0, rdb.length - 8));
    Path dir = Files.createDirectories(TestServers.freshDataDir());
    Files.write(dir.resolve("dump.rdb"), rdb);
    try (CuckooServer server = CuckooServer.start(TestServers.memoryOnly().dir(dir).build());
        RespClient client = new RespClient(server.port())) {
      assertEquals("3", persistence(server.port(), "redis_rdb_imported_filters"));
      assertEquals("1", persistence(server.port(), "redis_rdb_imported_expired"));
      assertEquals(0L, client.call("EXISTS", "withttl"));
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("not found");
  }
}
