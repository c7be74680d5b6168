package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** MEMORY STATS, DOCTOR, MALLOC-STATS and PURGE in the shape of Redis's object.c memoryCommand. */
class MemoryCommandsTest {
  /** Redis's MEMORY STATS fields in order, without the per-database maps. */
  private static final List<String> FIELDS =
      List.of(
          "peak.allocated",
          "total.allocated",
          "startup.allocated",
          "replication.backlog",
          "clients.slaves",
          "clients.normal",
          "cluster.links",
          "aof.buffer",
          "lua.caches",
          "functions.caches",
          "overhead.db.hashtable.lut",
          "overhead.db.hashtable.rehashing",
          "overhead.total",
          "db.dict.rehashing.count",
          "keys.count",
          "keys.bytes-per-key",
          "dataset.bytes",
          "dataset.percentage",
          "peak.percentage",
          "allocator.allocated",
          "allocator.active",
          "allocator.resident",
          "allocator.muzzy",
          "allocator-fragmentation.ratio",
          "allocator-fragmentation.bytes",
          "allocator-rss.ratio",
          "allocator-rss.bytes",
          "rss-overhead.ratio",
          "rss-overhead.bytes",
          "fragmentation",
          "fragmentation.bytes");

  private static Map<?, ?> stats(RespClient client) throws IOException {
    return (Map<?, ?>) client.call("MEMORY", "STATS");
  }

  @Test
  void memoryStats_emptyServer_listsRedisFieldsInOrder() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.call("HELLO", "3");
      Map<?, ?> stats = stats(client);
      assertEquals(FIELDS, List.copyOf(stats.keySet()));
      // an empty server holds its start-up heap and its empty key tables
      long startup = (Long) stats.get("startup.allocated");
      assertTrue(startup > 0, stats.toString());
      assertEquals(Long.parseLong(client.infoField("used_memory_startup")), startup);
      assertEquals(
          startup + (Long) stats.get("overhead.db.hashtable.lut"), stats.get("total.allocated"));
      assertEquals(stats.get("total.allocated"), stats.get("overhead.total"));
      assertEquals(0L, stats.get("dataset.bytes"));
      assertEquals(0L, stats.get("keys.count"));
      assertEquals(0L, stats.get("keys.bytes-per-key"));
      assertEquals(100.0, stats.get("peak.percentage"));
      assertEquals(1.0, stats.get("fragmentation"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'memory|stats' command"),
          client.call("MEMORY", "STATS", "x"));
    }
  }

  /*
   * object.c getMemoryOverheadData: one db.<n> map per database holding keys (after
   * functions.caches), overhead.total the sum of the overheads, dataset.bytes the rest of the
   * total, keys.bytes-per-key dataset / keys; total.allocated is INFO's used_memory.
   */
  @Test
  void memoryStats_keysInTwoDatabases_accountTheirOverheadAndDataset() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.call("HELLO", "3");
      client.call("CF.RESERVE", "a", "1000");
      client.call("CF.ADD", "b", "x");
      client.call("SELECT", "3");
      client.call("CF.ADD", "c", "x");
      client.call("EXPIRE", "c", "1000");
      Map<?, ?> stats = stats(client);
      List<Object> names = List.copyOf(stats.keySet());
      assertEquals("functions.caches", names.get(9));
      assertEquals("db.0", names.get(10));
      assertEquals("db.3", names.get(11));
      assertEquals(FIELDS.size() + 2, names.size());
      long total = (Long) stats.get("total.allocated");
      assertEquals(Long.parseLong(client.infoField("used_memory")), total);
      Map<?, ?> db0 = (Map<?, ?>) stats.get("db.0");
      Map<?, ?> db3 = (Map<?, ?>) stats.get("db.3");
      assertEquals(0L, db0.get("overhead.hashtable.expires"));
      assertTrue((Long) db3.get("overhead.hashtable.expires") > 0, "c has an expiry");
      long overhead =
          (Long) stats.get("startup.allocated")
              + (Long) stats.get("overhead.db.hashtable.lut")
              + (Long) stats.get("replication.backlog")
              + (Long) db0.get("overhead.hashtable.main")
              + (Long) db3.get("overhead.hashtable.main")
              + (Long) db3.get("overhead.hashtable.expires");
      assertEquals(overhead, stats.get("overhead.total"));
      long dataset = total - overhead;
      assertEquals(dataset, stats.get("dataset.bytes"));
      assertEquals(3L, stats.get("keys.count"));
      assertEquals(dataset / 3, stats.get("keys.bytes-per-key"));
      // Redis's share: of the memory used since start-up
      long sinceStartup = total - (Long) stats.get("startup.allocated");
      assertEquals(
          (double) ((float) (dataset * 100.0 / sinceStartup)), stats.get("dataset.percentage"));
      assertEquals(total, stats.get("allocator.allocated"));
    }
  }

  /*
   * object.c getMemoryDoctorReport: below 5 MiB the empty-instance text; a peak over 1.5 times
   * the total reports the peak; otherwise the healthy text. Without jemalloc MALLOC-STATS is a
   * fixed text and PURGE answers OK.
   */
  @Test
  void memoryDoctor_emptyHealthyAndAfterAPeak_answersRedisTexts() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      String doctor = RespClient.text(client.call("MEMORY", "DOCTOR"));
      assertTrue(
          doctor.startsWith("Hi Sam, this instance is empty or is using very little memory, "),
          doctor);
      client.call("CF.RESERVE", "big", "6000000");
      assertEquals(
          "Hi Sam, I can't find any memory issue in your instance. I can only account for what"
              + " occurs on this base.\n",
          RespClient.text(client.call("MEMORY", "DOCTOR")));
      client.call("CF.RESERVE", "bigger", "12000000");
      client.call("DEL", "bigger");
      doctor = RespClient.text(client.call("MEMORY", "DOCTOR"));
      assertTrue(
          doctor.startsWith(
              "Sam, I detected a few issues in this Redis instance memory implants:\n\n"
                  + " * Peak memory: In the past this instance used more than 150% the memory"),
          doctor);
      assertTrue(doctor.endsWith("I'm here to keep you safe, Sam. I want to help you.\n"));

      assertEquals(
          "Stats not supported for the current allocator",
          RespClient.text(client.call("MEMORY", "MALLOC-STATS")));
      assertEquals(new Simple("OK"), client.call("MEMORY", "PURGE"));
    }
  }
}
