package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.models.command.CommandDetail;
import io.lettuce.core.models.command.CommandDetailParser;
import io.lettuce.core.probabilistic.CfInfoValue;
import io.lettuce.core.probabilistic.ScanDumpValue;
import io.lettuce.core.probabilistic.arguments.CfInsertArgs;
import io.lettuce.core.probabilistic.arguments.CfReserveArgs;
import io.lettuce.core.protocol.ProtocolVersion;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lettuce 7.7 (RedisCuckooFilterCommands) against the server in RESP3 (its default, via HELLO 3)
 * and RESP2, following the cases of Lettuce's cuckoo integration tests.
 */
@ExtendWith(LeakCheck.class)
class LettuceCuckooTest {
  private static CuckooServer server;
  private static RedisClient client;

  @BeforeAll
  static void startServer() throws IOException {
    server = TestServers.start();
    client =
        RedisClient.create(
            RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(server.port())
                .withTimeout(Duration.ofSeconds(10))
                .build());
  }

  @AfterAll
  static void stopServer() {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    server.close();
  }

  static Stream<Arguments> protocols() {
    return Stream.of(Arguments.of(ProtocolVersion.RESP3), Arguments.of(ProtocolVersion.RESP2));
  }

  private static StatefulRedisConnection<String, String> connect(ProtocolVersion version) {
    client.setOptions(ClientOptions.builder().protocolVersion(version).build());
    StatefulRedisConnection<String, String> connection = client.connect();
    connection.sync().flushall();
    return connection;
  }

  @ParameterizedTest
  @MethodSource("protocols")
  void commandListing_containsCfAdd_soEnabledOnCommandPasses(ProtocolVersion version) {
    try (StatefulRedisConnection<String, String> connection = connect(version)) {
      RedisCommands<String, String> redis = connection.sync();
      List<CommandDetail> details = CommandDetailParser.parse(redis.command());
      assertTrue(details.stream().anyMatch(d -> d.getName().equalsIgnoreCase("CF.ADD")));
      assertTrue(redis.info("server").contains("redis_version:"));
    }
  }

  @ParameterizedTest
  @MethodSource("protocols")
  void everyCfCommand_matchesLettuceExpectations(ProtocolVersion version) {
    try (StatefulRedisConnection<String, String> connection = connect(version)) {
      RedisCommands<String, String> redis = connection.sync();
      assertEquals("OK", redis.cfReserve("r", 1000));
      assertEquals(
          "OK",
          redis.cfReserve(
              "r2", 1000, new CfReserveArgs().bucketSize(4).maxIterations(30).expansion(2)));
      CfInfoValue info = redis.cfInfo("r2");
      assertEquals(4L, info.getBucketSize());
      assertEquals(30L, info.getMaxIterations());
      assertEquals(2L, info.getExpansionRate());
      assertEquals(256L, info.getNumberOfBuckets());
      assertEquals(1L, info.getNumberOfFilters());
      assertEquals(40L + 16 + 1024, info.getSize());
      assertTrue(redis.cfAdd("a", "x"));
      assertTrue(redis.cfAddNx("a", "y"));
      assertFalse(redis.cfAddNx("a", "y"));
      assertEquals(List.of(true, true), redis.cfInsert("i", "p", "q"));
      assertEquals(List.of(true), redis.cfInsert("i", "single"));
      assertEquals(List.of(true), redis.cfInsert("i2", new CfInsertArgs().capacity(500), "p"));
      assertEquals(List.of(false, true), redis.cfInsertNx("i", "p", "new"));
      assertEquals(List.of(true), redis.cfInsertNx("i", "another"));
      RedisCommandExecutionException e =
          assertThrows(
              RedisCommandExecutionException.class,
              () -> redis.cfInsert("nope", new CfInsertArgs().noCreate(), "x"));
      assertEquals("ERR not found", e.getMessage());
      assertTrue(redis.cfExists("i", "p"));
      assertFalse(redis.cfExists("i", "zz"));
      assertEquals(List.of(true, false), redis.cfMExists("i", "p", "zz"));
      assertEquals(1L, redis.cfCount("i", "p"));
      assertTrue(redis.cfDel("i", "p"));
      assertFalse(redis.cfDel("i", "p"));
      assertEquals(0L, redis.cfCount("i", "p"));
      assertEquals(4L, redis.cfInfo("i").getNumberOfItemsInserted());
      assertEquals(1L, redis.cfInfo("i").getNumberOfItemsDeleted());
    }
  }

  @ParameterizedTest
  @MethodSource("protocols")
  void insertNx_distinguishesExistsFromFull(ProtocolVersion version) {
    try (StatefulRedisConnection<String, String> connection = connect(version)) {
      RedisCommands<String, String> redis = connection.sync();
      redis.cfReserve("f", 1000, new CfReserveArgs().bucketSize(1).expansion(0));
      assertEquals(
          List.of(true, true, false, false, false, false),
          redis.cfInsert("f", "W", "W", "W", "W", "W", "W"));
      assertEquals(List.of(false), redis.cfInsertNx("f", "W"));
      redis.cfReserve("g", 2, new CfReserveArgs().bucketSize(1).expansion(0));
      redis.cfReserve("twin", 2, new CfReserveArgs().bucketSize(1).expansion(0));
      String[] items = {"a", "b", "c", "d", "e", "f", "g", "h"};
      List<Boolean> lettuce = redis.cfInsertNx("g", items);
      List<?> raw;
      try (RespClient resp = new RespClient(server.port())) {
        Object[] args = new Object[3 + items.length];
        args[0] = "CF.INSERTNX";
        args[1] = "twin";
        args[2] = "ITEMS";
        System.arraycopy(items, 0, args, 3, items.length);
        raw = (List<?>) resp.call(args);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      assertTrue(raw.contains(-1L), raw.toString());
      List<Boolean> expected = new java.util.ArrayList<>();
      for (Object code : raw) {
        expected.add(code.equals(1L) ? Boolean.TRUE : code.equals(0L) ? Boolean.FALSE : null);
      }
      assertEquals(expected, lettuce);
    }
  }

  @ParameterizedTest
  @MethodSource("protocols")
  void scanDumpLoadChunk_roundTrip(ProtocolVersion version) {
    try (StatefulRedisConnection<String, String> connection = connect(version)) {
      RedisCommands<String, String> redis = connection.sync();
      redis.cfReserve("src", 200);
      for (int i = 0; i < 300; i++) {
        redis.cfAdd("src", "item" + i);
      }
      long iterator = 0;
      while (true) {
        ScanDumpValue value = redis.cfScanDump("src", iterator);
        iterator = value.getIterator();
        if (iterator == 0) {
          // Lettuce turns the null bulk string of a finished dump into an empty array
          assertTrue(value.getData() == null || value.getData().length == 0);
          break;
        }
        assertEquals("OK", redis.cfLoadChunk("dst", iterator, value.getData()));
      }
      assertEquals(redis.cfInfo("src").getRawInfo(), redis.cfInfo("dst").getRawInfo());
      for (int i = 0; i < 300; i++) {
        assertTrue(redis.cfExists("dst", "item" + i));
      }
      assertArrayEquals(redis.cfScanDump("src", 0).getData(), redis.cfScanDump("dst", 0).getData());
    }
  }

  @ParameterizedTest
  @MethodSource("protocols")
  void multi_transactionRunsAndWatchDiscards(ProtocolVersion version) {
    try (StatefulRedisConnection<String, String> connection = connect(version);
        StatefulRedisConnection<String, String> other = client.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      // commands whose replies are not RESP3 booleans: Lettuce's transaction output cannot take
      // a boolean element (CF.ADD in RESP3), whichever server sends it
      assertEquals("OK", redis.multi());
      redis.cfReserve("tx", 100);
      redis.cfCount("tx", "a");
      redis.pexpire("tx", 100_000);
      io.lettuce.core.TransactionResult result = redis.exec();
      assertFalse(result.wasDiscarded());
      assertEquals(List.of("OK", 0L, true), List.of(result.get(0), result.get(1), result.get(2)));
      assertTrue(redis.pttl("tx") > 90_000);

      assertEquals("OK", redis.watch("tx"));
      other.sync().cfAdd("tx", "b");
      redis.multi();
      redis.cfAdd("tx", "c");
      assertTrue(redis.exec().wasDiscarded(), "a watched key changed by another connection");
      assertFalse(redis.cfExists("tx", "c"));
    }
  }

  @ParameterizedTest
  @MethodSource("protocols")
  void databaseInUri_selectsThatDatabase(ProtocolVersion version) {
    RedisClient dbClient =
        RedisClient.create(RedisURI.create("redis://127.0.0.1:" + server.port() + "/1"));
    dbClient.setOptions(ClientOptions.builder().protocolVersion(version).build());
    try (StatefulRedisConnection<String, String> one = dbClient.connect();
        StatefulRedisConnection<String, String> zero = connect(version)) {
      assertTrue(one.sync().cfAdd("in-db-1", "a"));
      assertEquals(1L, one.sync().exists("in-db-1"));
      assertEquals(0L, zero.sync().exists("in-db-1"));
      one.sync().flushdb();
    } finally {
      dbClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
