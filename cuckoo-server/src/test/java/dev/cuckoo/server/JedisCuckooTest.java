package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.bloom.CFInsertParams;
import redis.clients.jedis.bloom.CFReserveParams;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Jedis 8 (RedisClient cf* methods) against the server, with the protocol left to Jedis's
 * auto-negotiation, forced to RESP2 and forced to RESP3 — the cases of Jedis's own cuckoo tests.
 */
@ExtendWith(LeakCheck.class)
class JedisCuckooTest {
  private static CuckooServer server;

  @BeforeAll
  static void startServer() throws IOException {
    server = TestServers.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  static Stream<Arguments> protocols() {
    return Stream.of(Arguments.of("auto"), Arguments.of("RESP2"), Arguments.of("RESP3"));
  }

  private static RedisClient client(String protocol) {
    DefaultJedisClientConfig.Builder config =
        DefaultJedisClientConfig.builder().timeoutMillis(10_000);
    if (!protocol.equals("auto")) {
      config.protocol(RedisProtocol.valueOf(protocol));
    }
    RedisClient client =
        RedisClient.builder()
            .hostAndPort(new HostAndPort("127.0.0.1", server.port()))
            .clientConfig(config.build())
            .build();
    client.flushAll();
    return client;
  }

  @ParameterizedTest
  @MethodSource("protocols")
  void reserveAndInfo_variants_matchJedisExpectations(String protocol) {
    try (RedisClient jedis = client(protocol)) {
      assertEquals("OK", jedis.cfReserve("cuckoo1", 10));
      Map<String, Object> info = jedis.cfInfo("cuckoo1");
      assertEquals(8L, info.get("Number of buckets"));
      assertEquals(72L, info.get("Size"));
      assertEquals(1L, info.get("Expansion rate"));
      assertEquals(1L, info.get("Number of filters"));
      assertEquals(2L, info.get("Bucket size"));
      assertEquals(20L, info.get("Max iterations"));
      assertEquals(0L, info.get("Number of items inserted"));
      assertEquals(0L, info.get("Number of items deleted"));
      assertEquals(
          "OK",
          jedis.cfReserve(
              "cuckoo2",
              200,
              CFReserveParams.reserveParams().bucketSize(10).maxIterations(20).expansion(4)));
      Map<String, Object> info2 = jedis.cfInfo("cuckoo2");
      assertEquals(32L, info2.get("Number of buckets"));
      assertEquals(376L, info2.get("Size"));
      assertEquals(4L, info2.get("Expansion rate"));
      JedisDataException e = assertThrows(JedisDataException.class, () -> jedis.cfInfo("nope"));
      assertTrue(e.getMessage().contains("ERR not found"), e.getMessage());
    }
  }

  @ParameterizedTest
  @MethodSource("protocols")
  void addInsertExistsDelCount_allCommands_matchJedisExpectations(String protocol) {
    try (RedisClient jedis = client(protocol)) {
      assertTrue(jedis.cfAdd("add", "foo"));
      assertEquals(1L, jedis.cfInfo("add").get("Number of items inserted"));
      assertTrue(jedis.cfAddNx("addnx", "foo"));
      assertFalse(jedis.cfAddNx("addnx", "foo"));
      assertEquals(List.of(true), jedis.cfInsert("ins", "foo"));
      assertEquals(
          List.of(true),
          jedis.cfInsert("ins2", CFInsertParams.insertParams().capacity(1000), "foo"));
      JedisDataException noCreate =
          assertThrows(
              JedisDataException.class,
              () -> jedis.cfInsert("missing", CFInsertParams.insertParams().noCreate(), "a"));
      assertEquals("ERR not found", noCreate.getMessage());
      JedisDataException noCreateNx =
          assertThrows(
              JedisDataException.class,
              () -> jedis.cfInsertNx("missing", CFInsertParams.insertParams().noCreate(), "a"));
      assertEquals("ERR not found", noCreateNx.getMessage());
      assertEquals(
          List.of(true, true),
          jedis.cfInsert("ins", CFInsertParams.insertParams().noCreate(), "a", "b"));
      assertEquals(List.of(true), jedis.cfInsertNx("nx", "foo"));
      assertEquals(
          List.of(false),
          jedis.cfInsertNx("nx", CFInsertParams.insertParams().capacity(1000), "foo"));
      assertEquals(List.of(false, true, true), jedis.cfInsertNx("nx", "foo", "bar", "baz"));
      assertFalse(jedis.cfExists("none", "foo"));
      assertEquals(List.of(false), jedis.cfMExists("none", "foo"));
      assertTrue(jedis.cfExists("nx", "bar"));
      assertEquals(List.of(true, false), jedis.cfMExists("nx", "bar", "zzz"));
      assertFalse(jedis.cfDel("nx", "zzz"));
      assertTrue(jedis.cfDel("nx", "bar"));
      JedisDataException del =
          assertThrows(JedisDataException.class, () -> jedis.cfDel("none", "foo"));
      assertTrue(del.getMessage().contains("Not found"), del.getMessage());
      assertEquals(0L, jedis.cfCount("none", "foo"));
      assertEquals(0L, jedis.cfCount("nx", "qqq"));
      assertEquals(1L, jedis.cfCount("nx", "baz"));
    }
  }

  @ParameterizedTest
  @MethodSource("protocols")
  void scanDumpLoadChunk_roundTrip_sameInfoAndItems(String protocol) {
    try (RedisClient jedis = client(protocol)) {
      jedis.cfReserve("dump", 100, CFReserveParams.reserveParams().expansion(2));
      for (int i = 0; i < 500; i++) {
        jedis.cfAdd("dump", "v" + i);
      }
      long iterator = 0;
      while (true) {
        Map.Entry<Long, byte[]> chunk = jedis.cfScanDump("dump", iterator);
        iterator = chunk.getKey();
        if (iterator == 0) {
          assertEquals(null, chunk.getValue());
          break;
        }
        assertEquals("OK", jedis.cfLoadChunk("load", iterator, chunk.getValue()));
      }
      assertEquals(jedis.cfInfo("dump"), jedis.cfInfo("load"));
      for (int i = 0; i < 500; i++) {
        assertTrue(jedis.cfExists("load", "v" + i));
      }
      Map.Entry<Long, byte[]> header = jedis.cfScanDump("load", 0);
      assertArrayEquals(jedis.cfScanDump("dump", 0).getValue(), header.getValue());
    }
  }

  @ParameterizedTest
  @MethodSource("protocols")
  void fullFilter_insertReturnsFalse_addThrows(String protocol) {
    try (RedisClient jedis = client(protocol)) {
      jedis.cfReserve("full", 4, CFReserveParams.reserveParams().expansion(0));
      for (String item : new String[] {"1", "2", "3", "4"}) {
        assertTrue(jedis.cfAdd("full", item));
      }
      assertEquals(List.of(false, false), jedis.cfInsert("full", "5", "6"));
      JedisDataException e = assertThrows(JedisDataException.class, () -> jedis.cfAdd("full", "7"));
      assertEquals("Filter is full", e.getMessage());
      assertEquals("MBbloomCF", jedis.type("full"));
      assertEquals(1L, jedis.del("full"));
      assertEquals("none", jedis.type("full"));
    }
  }

  @ParameterizedTest
  @MethodSource("protocols")
  void multi_cfCommandsInATransaction_execReturnsEachReply(String protocol) {
    try (RedisClient client = client(protocol)) {
      redis.clients.jedis.AbstractTransaction tx = client.multi();
      redis.clients.jedis.Response<Boolean> added = tx.cfAdd("tx", "a");
      redis.clients.jedis.Response<Boolean> exists = tx.cfExists("tx", "a");
      redis.clients.jedis.Response<Long> expire = tx.expire("tx", 100);
      List<Object> results = tx.exec();
      assertEquals(3, results.size());
      assertTrue(added.get());
      assertTrue(exists.get());
      assertEquals(1L, expire.get());
      assertTrue(client.ttl("tx") > 90);
      tx.close();

      redis.clients.jedis.AbstractTransaction discarded = client.multi();
      discarded.cfAdd("never", "a");
      assertEquals("OK", discarded.discard());
      discarded.close();
      assertFalse(client.exists("never"));
    }
  }

  @ParameterizedTest
  @MethodSource("protocols")
  void databaseInUrl_selectsThatDatabase(String protocol) {
    try (RedisClient zero = client(protocol);
        RedisClient one = RedisClient.create("redis://127.0.0.1:" + server.port() + "/1")) {
      assertTrue(one.cfAdd("in-db-1", "a"));
      assertTrue(one.exists("in-db-1"));
      assertFalse(zero.exists("in-db-1"));
    }
  }
}
