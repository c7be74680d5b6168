package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import dev.cuckoo.server.persist.Persistence;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What deployments use beside CF.*: databases, transactions, WATCH, key expiry and the commands
 * that move keys, with Redis 8's replies, and their durability across restarts.
 */
class DeploymentCommandsTest {
  private static final Simple OK = new Simple("OK");
  private static final Simple QUEUED = new Simple("QUEUED");

  @TempDir Path dir;

  private ServerConfig.Builder persistent() {
    return ServerConfig.builder().port(TestServers.freePort()).threads(2).dir(dir);
  }

  @Test
  void databases_areSeparateKeyspaces() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(List.of("databases", "16"), texts(client.call("CONFIG", "GET", "databases")));
      assertEquals(1L, client.call("CF.ADD", "k", "a"));
      assertEquals(OK, client.call("SELECT", "3"));
      assertEquals(0L, client.call("EXISTS", "k"));
      assertEquals(0L, client.call("DBSIZE"));
      assertEquals(1L, client.call("CF.ADD", "k", "b"));
      assertEquals(1L, client.call("CF.ADD", "other", "b"));
      assertEquals(2L, client.call("DBSIZE"));
      assertEquals(0L, client.call("CF.EXISTS", "k", "a"));
      assertEquals(OK, client.call("FLUSHDB"));
      assertEquals(0L, client.call("DBSIZE"));
      assertEquals(OK, client.call("SELECT", "0"));
      assertEquals(1L, client.call("CF.EXISTS", "k", "a"), "FLUSHDB of db 3 kept db 0");
      assertEquals(1L, client.call("DBSIZE"));
      assertEquals(OK, client.call("SELECT", "15"));
      assertEquals(1L, client.call("CF.ADD", "k", "c"));
      assertEquals(OK, client.call("FLUSHALL"));
      assertEquals(0L, client.call("DBSIZE"));
      assertEquals(OK, client.call("SELECT", "0"));
      assertEquals(0L, client.call("DBSIZE"), "FLUSHALL empties every database");
      assertEquals(new Err("ERR DB index is out of range"), client.call("SELECT", "16"));
    }
    try (CuckooServer server = CuckooServer.start(TestServers.memoryOnly().databases(2).build());
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("SELECT", "1"));
      assertEquals(new Err("ERR DB index is out of range"), client.call("SELECT", "2"));
    }
  }

  @Test
  void multiExec_queuesRunsAndAbortsAsRedisDoes() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(new Err("ERR EXEC without MULTI"), client.call("EXEC"));
      assertEquals(new Err("ERR DISCARD without MULTI"), client.call("DISCARD"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(new Err("ERR MULTI calls can not be nested"), client.call("MULTI"));
      assertEquals(new Err("ERR WATCH inside MULTI is not allowed"), client.call("WATCH", "x"));
      assertEquals(QUEUED, client.call("CF.ADD", "t", "a"));
      assertEquals(QUEUED, client.call("SELECT", "2"));
      assertEquals(QUEUED, client.call("CF.ADD", "t", "b"));
      assertEquals(QUEUED, client.call("CF.EXISTS", "t", "a"));
      assertEquals(QUEUED, client.call("CF.RESERVE", "t", "10"));
      List<?> results = (List<?>) client.call("EXEC");
      assertEquals(5, results.size());
      assertEquals(1L, results.get(0));
      assertEquals(OK, results.get(1));
      assertEquals(1L, results.get(2));
      assertEquals(0L, results.get(3), "the SELECT inside the transaction applies to what follows");
      assertEquals(new Err("ERR item exists"), results.get(4), "a runtime error is one element");
      assertEquals(1L, client.call("CF.EXISTS", "t", "b"), "SELECT 2 stays after EXEC");

      // errors while queueing doom the transaction
      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("CF.ADD", "doomed", "a"));
      assertTrue(((Err) client.call("NOSUCHCOMMAND")).text().startsWith("ERR unknown command"));
      assertEquals(
          new Err("EXECABORT Transaction discarded because of previous errors."),
          client.call("EXEC"));
      assertEquals(0L, client.call("EXISTS", "doomed"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(new Err("ERR Command not allowed inside a transaction"), client.call("SAVE"));
      assertEquals(
          new Err("EXECABORT Transaction discarded because of previous errors."),
          client.call("EXEC"));

      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("CF.ADD", "discarded", "a"));
      assertEquals(OK, client.call("DISCARD"));
      assertEquals(0L, client.call("EXISTS", "discarded"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(List.of(), client.call("EXEC"), "an empty transaction answers []");
    }
  }

  @Test
  void resetAndClientList_insideTransactions() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      // served once, so it is listed: a connection only accepted may not be yet (under load)
      assertEquals(new Simple("PONG"), other.call("PING"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("CLIENT", "LIST"));
      assertEquals(QUEUED, client.call("PING"));
      List<?> results = (List<?>) client.call("EXEC");
      String list = RespClient.text(results.get(0));
      assertEquals(2, list.split("\n").length, list);
      assertTrue(list.contains("multi="), list);
      assertEquals(new Simple("PONG"), results.get(1));

      assertEquals(OK, client.call("WATCH", "w"));
      assertEquals(OK, client.call("SELECT", "4"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("CF.ADD", "r", "a"));
      assertEquals(new Simple("RESET"), client.call("RESET"));
      assertEquals(new Err("ERR EXEC without MULTI"), client.call("EXEC"));
      assertEquals(0L, client.call("EXISTS", "r"), "database 0 again, nothing ran");
      assertEquals(1L, other.call("CF.ADD", "w", "b"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(List.of(), client.call("EXEC"), "RESET forgot the watched key");
    }
  }

  @Test
  void watch_anyChangeFromAnyClientOrExpiry_makesExecAnswerNull() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      assertEquals(1L, client.call("CF.ADD", "w", "a"));
      assertEquals(OK, client.call("WATCH", "w"));
      assertEquals(1L, other.call("CF.ADD", "w", "b"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("CF.ADD", "w", "c"));
      assertNull(client.call("EXEC"), "a watched key written by another client");
      assertEquals(0L, client.call("CF.EXISTS", "w", "c"));

      // unchanged: EXEC runs; and EXEC unwatches, so a later change does not matter
      assertEquals(OK, client.call("WATCH", "w"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("CF.ADD", "w", "c"));
      assertEquals(List.of(1L), client.call("EXEC"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(List.of(), client.call("EXEC"));

      // UNWATCH forgets
      assertEquals(OK, client.call("WATCH", "w"));
      assertEquals(1L, other.call("CF.ADD", "w", "d"));
      assertEquals(OK, client.call("UNWATCH"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(List.of(), client.call("EXEC"));

      // a flush of a watched key that does not exist touches nothing; of one that exists does
      assertEquals(OK, client.call("WATCH", "missing"));
      assertEquals(OK, other.call("SELECT", "1"));
      assertEquals(OK, other.call("FLUSHALL"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(List.of(), client.call("EXEC"));

      // expiry of a watched key
      assertEquals(1L, client.call("CF.ADD", "e", "a"));
      assertEquals(1L, client.call("PEXPIRE", "e", "50"));
      assertEquals(OK, client.call("WATCH", "e"));
      Thread.sleep(120);
      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("CF.ADD", "e", "x"));
      assertNull(client.call("EXEC"), "a watched key that expired");

      // RESP3 null
      client.call("HELLO", "3");
      assertEquals(true, client.call("CF.ADD", "r3", "a"));
      assertEquals(OK, client.call("WATCH", "r3"));
      assertEquals(OK, other.call("SELECT", "0"));
      assertEquals(1L, other.call("CF.ADD", "r3", "b"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("PING"));
      assertNull(client.call("EXEC"));
    }
  }

  @Test
  void expiry_commandsAnswerAsRedisAndKeysDisappear() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(0L, client.call("EXPIRE", "nokey", "10"));
      assertEquals(-2L, client.call("TTL", "nokey"));
      assertEquals(1L, client.call("CF.ADD", "k", "a"));
      assertEquals(-1L, client.call("TTL", "k"));
      assertEquals(-1L, client.call("PEXPIRETIME", "k"));
      assertEquals(0L, client.call("EXPIRE", "k", "100", "XX"));
      assertEquals(0L, client.call("EXPIRE", "k", "100", "GT"), "GT never beats no expiry");
      assertEquals(1L, client.call("EXPIRE", "k", "100", "NX"));
      assertEquals(0L, client.call("EXPIRE", "k", "200", "NX"));
      assertEquals(1L, client.call("EXPIRE", "k", "200", "GT"));
      assertEquals(0L, client.call("EXPIRE", "k", "150", "GT"));
      assertEquals(1L, client.call("EXPIRE", "k", "150", "LT"));
      long ttl = (Long) client.call("TTL", "k");
      assertTrue(ttl >= 149 && ttl <= 150, "TTL " + ttl);
      long pttl = (Long) client.call("PTTL", "k");
      assertTrue(pttl > 148_000 && pttl <= 150_000, "PTTL " + pttl);
      long at = System.currentTimeMillis() / 1000 + 1000;
      assertEquals(1L, client.call("EXPIREAT", "k", at));
      assertEquals(at, client.call("EXPIRETIME", "k"));
      assertEquals(at * 1000, client.call("PEXPIRETIME", "k"));
      assertEquals(1L, client.call("PERSIST", "k"));
      assertEquals(0L, client.call("PERSIST", "k"));
      assertEquals(-1L, client.call("TTL", "k"));
      assertEquals(new Err("ERR Unsupported option foo"), client.call("EXPIRE", "k", "1", "foo"));
      assertEquals(
          new Err("ERR NX and XX, GT or LT options at the same time are not compatible"),
          client.call("EXPIRE", "k", "1", "NX", "XX"));
      assertEquals(
          new Err("ERR GT and LT options at the same time are not compatible"),
          client.call("EXPIRE", "k", "1", "GT", "LT"));
      assertEquals(
          new Err("ERR value is not an integer or out of range"), client.call("EXPIRE", "k", "x"));
      assertEquals(
          new Err("ERR invalid expire time in 'expire' command"),
          client.call("EXPIRE", "k", "9223372036854775807"));
      assertEquals(
          new Err("ERR invalid expire time in 'pexpire' command"),
          client.call("PEXPIRE", "k", "9223372036854775807"));

      // a time in the past deletes at once
      assertEquals(1L, client.call("EXPIRE", "k", "-1"));
      assertEquals(0L, client.call("EXISTS", "k"));

      // lazy: invisible as soon as it expires; active: deleted without being touched
      assertEquals(1L, client.call("CF.ADD", "lazy", "a"));
      assertEquals(1L, client.call("CF.ADD", "active", "a"));
      assertEquals(1L, client.call("PEXPIRE", "lazy", "40"));
      assertEquals(1L, client.call("PEXPIRE", "active", "40"));
      Thread.sleep(80);
      assertEquals(0L, client.call("CF.EXISTS", "lazy", "a"));
      assertEquals(-2L, client.call("TTL", "lazy"));
      long deadline = System.currentTimeMillis() + 5000;
      while ((Long) client.call("DBSIZE") != 0 && System.currentTimeMillis() < deadline) {
        Thread.sleep(20);
      }
      assertEquals(0L, client.call("DBSIZE"), "the active cycle deleted both");
      // a write to an expired key starts from nothing (and keeps no expiry)
      assertEquals(1L, client.call("CF.ADD", "again", "old"));
      assertEquals(1L, client.call("PEXPIRE", "again", "30"));
      Thread.sleep(60);
      assertEquals(1L, client.call("CF.ADD", "again", "new"));
      assertEquals(0L, client.call("CF.EXISTS", "again", "old"));
      assertEquals(-1L, client.call("TTL", "again"));
    }
  }

  @Test
  void movers_answerAsRedisAndCarryExpiry() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(new Err("ERR no such key"), client.call("RENAME", "a", "b"));
      assertEquals(1L, client.call("CF.ADD", "a", "x"));
      assertEquals(1L, client.call("EXPIRE", "a", "1000"));
      assertEquals(OK, client.call("RENAME", "a", "a"));
      assertEquals(OK, client.call("RENAME", "a", "b"));
      assertEquals(0L, client.call("EXISTS", "a"));
      assertEquals(1L, client.call("CF.EXISTS", "b", "x"));
      assertTrue((Long) client.call("TTL", "b") > 990, "the expiry moved with the key");
      assertEquals(1L, client.call("CF.ADD", "c", "y"));
      assertEquals(0L, client.call("RENAMENX", "b", "c"));
      assertEquals(1L, client.call("RENAMENX", "b", "d"));
      assertEquals(OK, client.call("RENAME", "d", "c"), "RENAME replaces the target");
      assertEquals(0L, client.call("CF.EXISTS", "c", "y"));
      assertEquals(1L, client.call("CF.EXISTS", "c", "x"));

      assertEquals(
          new Err("ERR source and destination objects are the same"),
          client.call("MOVE", "c", "0"));
      assertEquals(new Err("ERR DB index is out of range"), client.call("MOVE", "c", "16"));
      assertEquals(
          new Err("ERR value is not an integer or out of range"), client.call("MOVE", "c", "x"));
      assertEquals(1L, client.call("MOVE", "c", "5"));
      assertEquals(0L, client.call("MOVE", "c", "5"));
      assertEquals(OK, client.call("SELECT", "5"));
      assertEquals(1L, client.call("CF.EXISTS", "c", "x"));
      assertEquals(OK, client.call("SWAPDB", "5", "0"));
      assertEquals(0L, client.call("EXISTS", "c"), "db 5 now holds what db 0 held");
      assertEquals(OK, client.call("SELECT", "0"));
      assertEquals(1L, client.call("CF.EXISTS", "c", "x"));
      assertEquals(new Err("ERR invalid first DB index"), client.call("SWAPDB", "x", "0"));
      assertEquals(new Err("ERR invalid second DB index"), client.call("SWAPDB", "0", "x"));
      assertEquals(new Err("ERR DB index is out of range"), client.call("SWAPDB", "0", "99"));

      assertEquals(
          new Err("ERR not supported for this module key"), client.call("COPY", "c", "copy"));
      assertEquals(0L, client.call("COPY", "missing", "copy"));
      assertEquals(
          new Err("ERR source and destination objects are the same"),
          client.call("COPY", "c", "c"));
      assertEquals(new Err("ERR syntax error"), client.call("COPY", "c", "e", "bogus"));
      assertEquals(1L, client.call("CF.ADD", "u1", "x"));
      assertEquals(1L, client.call("UNLINK", "u1", "u2"));
    }
  }

  @Test
  void objectIdleTime_countsSecondsSinceTheLastLookup() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertNull(client.call("OBJECT", "IDLETIME", "missing"));
      assertEquals(1L, client.call("CF.ADD", "idle", "a"));
      assertEquals(0L, client.call("OBJECT", "IDLETIME", "idle"));
      Thread.sleep(2300);
      long idle = (Long) client.call("OBJECT", "IDLETIME", "idle");
      assertTrue(idle >= 1 && idle <= 3, "idle " + idle);
      assertEquals(idle, client.call("OBJECT", "IDLETIME", "idle"), "OBJECT is no lookup");
      assertEquals(1L, client.call("CF.EXISTS", "idle", "a"));
      assertEquals(0L, client.call("OBJECT", "IDLETIME", "idle"), "a lookup resets it");
    }
  }

  @Test
  void restart_keepsDatabasesExpiriesTransactionsAndMoves() throws Exception {
    long longExpiry;
    try (CuckooServer server = CuckooServer.start(persistent().build());
        RespClient client = new RespClient(server.port())) {
      assertEquals(1L, client.call("CF.ADD", "zero", "a"));
      assertEquals(OK, client.call("SELECT", "7"));
      assertEquals(1L, client.call("CF.ADD", "seven", "a"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("CF.ADD", "tx1", "a"));
      assertEquals(QUEUED, client.call("SELECT", "8"));
      assertEquals(QUEUED, client.call("CF.ADD", "tx2", "a"));
      assertEquals(3, ((List<?>) client.call("EXEC")).size());
      assertEquals(1L, client.call("CF.ADD", "short", "a"));
      assertEquals(1L, client.call("PEXPIRE", "short", "400"));
      assertEquals(1L, client.call("CF.ADD", "long", "a"));
      assertEquals(1L, client.call("EXPIRE", "long", "10000"));
      longExpiry = (Long) client.call("PEXPIRETIME", "long");
      assertEquals(OK, client.call("RENAME", "tx2", "renamed"));
      assertEquals(1L, client.call("MOVE", "renamed", "9"));
      stopWithoutSnapshot(server, client);
    }
    try (CuckooServer server = CuckooServer.start(persistent().build());
        RespClient client = new RespClient(server.port())) {
      assertEquals(1L, client.call("CF.EXISTS", "zero", "a"));
      assertEquals(OK, client.call("SELECT", "7"));
      assertEquals(1L, client.call("CF.EXISTS", "seven", "a"));
      assertEquals(1L, client.call("CF.EXISTS", "tx1", "a"));
      assertEquals(OK, client.call("SELECT", "9"));
      assertEquals(1L, client.call("CF.EXISTS", "renamed", "a"));
      assertEquals(OK, client.call("SELECT", "8"));
      assertEquals(0L, client.call("EXISTS", "tx2", "renamed"));
      assertEquals(longExpiry, client.call("PEXPIRETIME", "long"), "the absolute time is kept");
      Thread.sleep(500);
      assertEquals(0L, client.call("EXISTS", "short"));
      stopWithoutSnapshot(server, client);
    }
    try (CuckooServer server = CuckooServer.start(persistent().build());
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("SELECT", "8"));
      assertEquals(0L, client.call("EXISTS", "short"), "stays expired after a restart");
      assertEquals(longExpiry, client.call("PEXPIRETIME", "long"), "the snapshot keeps it");
    }
  }

  @Test
  void fewerDatabasesThanTheFilesHold_refusesToStartNamingTheOption() throws Exception {
    try (CuckooServer server = CuckooServer.start(persistent().build());
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("SELECT", "5"));
      assertEquals(1L, client.call("CF.ADD", "in5", "a"));
      stopWithoutSnapshot(server, client);
    }
    java.io.IOException fromLog =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.io.IOException.class, () -> CuckooServer.start(persistent().databases(4).build()));
    assertTrue(fromLog.getMessage().contains("--databases 6"), fromLog.getMessage());
    try (CuckooServer server = CuckooServer.start(persistent().build());
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("SAVE"));
    }
    java.io.IOException fromSnapshot =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.io.IOException.class, () -> CuckooServer.start(persistent().databases(4).build()));
    assertTrue(fromSnapshot.getMessage().contains("--databases 6"), fromSnapshot.getMessage());
    assertTrue(fromSnapshot.getMessage().contains(Persistence.SNAPSHOT), fromSnapshot.getMessage());
  }

  /**
   * Random operations over several databases (transactions, renames, moves, swaps, flushes,
   * expiries far in the future or past) with snapshots taken in between; after a restart every
   * database holds exactly what it held before.
   */
  @Test
  void randomOperations_restartRecoversEveryDatabase() throws Exception {
    long seed = Long.getLong("cuckoo.test.seed", 20261124L);
    Random random = new Random(seed);
    for (int round = 0; round < 3; round++) {
      Map<String, String> before;
      try (CuckooServer server = CuckooServer.start(persistent().build());
          RespClient client = new RespClient(server.port())) {
        for (int i = 0; i < 400; i++) {
          randomOperation(client, random);
          if (random.nextInt(100) == 0) {
            client.call("BGSAVE");
          }
        }
        before = state(client);
        if (round != 1) {
          // the log alone (and any snapshot taken on the way) must give the same state
          stopWithoutSnapshot(server, client);
        }
      }
      try (CuckooServer server = CuckooServer.start(persistent().build());
          RespClient client = new RespClient(server.port())) {
        assertEquals(before, state(client), "seed " + seed + " round " + round);
      }
    }
  }

  private static void randomOperation(RespClient client, Random random) throws IOException {
    String key = "k" + random.nextInt(6);
    String other = "k" + random.nextInt(6);
    switch (random.nextInt(12)) {
      case 0:
        client.call("SELECT", random.nextInt(4));
        break;
      case 1:
      case 2:
        client.call("CF.ADD", key, "i" + random.nextInt(50));
        break;
      case 3:
        client.call("RENAME", key, other);
        break;
      case 4:
        client.call("MOVE", key, random.nextInt(4));
        break;
      case 5:
        client.call("EXPIRE", key, random.nextBoolean() ? 100_000 + random.nextInt(1000) : -1);
        break;
      case 6:
        client.call("MULTI");
        client.call("CF.ADD", key, "t" + random.nextInt(50));
        client.call("RENAMENX", key, other);
        client.call("SELECT", random.nextInt(4));
        client.call("CF.INSERT", other, "ITEMS", "u" + random.nextInt(50));
        client.call("EXEC");
        break;
      case 7:
        if (random.nextInt(4) == 0) {
          client.call("SWAPDB", random.nextInt(4), random.nextInt(4));
        }
        break;
      case 8:
        if (random.nextInt(8) == 0) {
          client.call("FLUSHDB");
        }
        break;
      case 9:
        client.call("PERSIST", key);
        break;
      case 10:
        client.call("DEL", key);
        break;
      default:
        client.call("CF.DEL", key, "i" + random.nextInt(50));
        break;
    }
  }

  /** Stops the server as a crash would leave its files, but with the log written: no snapshot. */
  private static void stopWithoutSnapshot(CuckooServer server, RespClient client) throws Exception {
    client.send("SHUTDOWN", "NOSAVE");
    server.awaitTermination();
  }

  /** Every database's keys with their CF.DEBUG line, SCANDUMP bytes and expiry time. */
  private static Map<String, String> state(RespClient client) throws IOException {
    Map<String, String> state = new TreeMap<>();
    for (int db = 0; db < 4; db++) {
      client.call("SELECT", db);
      for (Object key : (List<?>) client.call("KEYS", "*")) {
        String name = RespClient.text(key);
        ByteArrayOutputStream dump = new ByteArrayOutputStream();
        long iterator = 0;
        do {
          List<?> chunk = (List<?>) client.call("CF.SCANDUMP", name, iterator);
          iterator = (Long) chunk.get(0);
          if (chunk.get(1) != null) {
            dump.writeBytes((byte[]) chunk.get(1));
          }
        } while (iterator != 0);
        state.put(
            db + "/" + name,
            RespClient.text(client.call("CF.DEBUG", name))
                + " expires "
                + client.call("PEXPIRETIME", name)
                + " dump "
                + java.util.Arrays.hashCode(dump.toByteArray()));
      }
    }
    client.call("SELECT", 0);
    return state;
  }

  private static List<String> texts(Object reply) {
    List<String> texts = new java.util.ArrayList<>();
    for (Object element : (List<?>) reply) {
      texts.add(RespClient.text(element));
    }
    return texts;
  }
}
