package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * CF.* replies, reply types and error strings on the wire, against the expectations of the
 * RedisBloom reference (sections 1 and 4) and RedisBloom's flow tests (section 7).
 */
@org.junit.jupiter.api.extension.ExtendWith(LeakCheck.class)
class CfCommandsTest {
  private static final Simple OK = new Simple("OK");
  private static CuckooServer server;
  private RespClient client;

  @BeforeAll
  static void startServer() throws IOException {
    server = TestServers.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @BeforeEach
  void connect() throws IOException {
    client = new RespClient(server.port());
    assertEquals(OK, client.call("FLUSHALL"));
  }

  @AfterEach
  void disconnect() throws IOException {
    client.close();
  }

  private Object call(Object... args) throws IOException {
    return client.call(args);
  }

  private static Err err(String text) {
    return new Err(text);
  }

  private static String arity(String name) {
    return "ERR wrong number of arguments for '" + name + "' command";
  }

  private void hello3() throws IOException {
    assertInstanceOf(Map.class, call("HELLO", "3"));
  }

  @Test
  void scanDump_knownAnswer_matchesRedisBloomBytes() throws IOException {
    assertEquals(OK, call("CF.RESERVE", "cf", "8"));
    assertEquals(1L, call("CF.ADD", "cf", "item1"));
    List<?> header = (List<?>) call("CF.SCANDUMP", "cf", "0");
    assertEquals(1L, header.get(0));
    assertArrayEquals(
        new byte[] {
          1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
          0, 0, 2, 0, 20, 0, 1, 0
        },
        (byte[]) header.get(1));
    List<?> chunk = (List<?>) call("CF.SCANDUMP", "cf", "1");
    assertEquals(9L, chunk.get(0));
    assertArrayEquals(new byte[] {0, 0, 0, 0, 7, 0, 0, 0}, (byte[]) chunk.get(1));
    assertEquals(java.util.Arrays.asList(0L, null), call("CF.SCANDUMP", "cf", "9"));
  }

  @Test
  void reserve_badArguments_errorsInRedisBloomOrder() throws IOException {
    assertEquals(err(arity("cf.reserve")), call("CF.RESERVE", "cf"));
    assertEquals(err(arity("cf.reserve")), call("CF.RESERVE", "cf", "10", "BUCKETSIZE"));
    assertEquals(err("Bad capacity"), call("CF.RESERVE", "cf", "str"));
    assertEquals(
        err("Couldn't parse MAXITERATIONS"),
        call("CF.RESERVE", "cf", "10", "MAXITERATIONS", "x", "BUCKETSIZE", "x"));
    assertEquals(
        err("MAXITERATIONS: value must be in the range [1, 65535]"),
        call("CF.RESERVE", "cf", "10", "MAXITERATIONS", "0"));
    assertEquals(
        err("MAXITERATIONS: value must be in the range [1, 65535]"),
        call("CF.RESERVE", "cf", "10", "MAXITERATIONS", "-1"));
    assertEquals(
        err("Couldn't parse BUCKETSIZE"),
        call("CF.RESERVE", "cf", "10", "BUCKETSIZE", "x", "EXPANSION", "x"));
    assertEquals(
        err("BUCKETSIZE: value must be in the range [1, 255]"),
        call("CF.RESERVE", "cf", "10", "BUCKETSIZE", "256"));
    assertEquals(
        err("BUCKETSIZE: value must be in the range [1, 255]"),
        call("CF.RESERVE", "cf", "10", "bucketsize", "0"));
    assertEquals(
        err("Couldn't parse EXPANSION"), call("CF.RESERVE", "cf", "10", "EXPANSION", "1.5"));
    assertEquals(
        err("EXPANSION: value must be in the range [0, 32768]"),
        call("CF.RESERVE", "cf", "10", "EXPANSION", "-1"));
    assertEquals(
        err("EXPANSION: value must be in the range [0, 32768]"),
        call("CF.RESERVE", "cf", "10", "EXPANSION", "32769"));
    String range = "Capacity must be in the range [2 * BUCKETSIZE, 1073741824]";
    assertEquals(err(range), call("CF.RESERVE", "cf", "1"));
    assertEquals(err(range), call("CF.RESERVE", "cf", "-5"));
    assertEquals(err(range), call("CF.RESERVE", "cf", "1073741825"));
    assertEquals(err(range), call("CF.RESERVE", "cf", "9", "BUCKETSIZE", "5"));
    assertEquals(0L, call("EXISTS", "cf"));
    assertEquals(OK, call("CF.RESERVE", "cf", "10", "FOO", "1"));
    assertEquals(err("ERR item exists"), call("CF.RESERVE", "cf", "10"));
  }

  @Test
  void reserve_optionNameAsKey_readsValueFromNextArgument() throws IOException {
    // RMUtil_ArgIndex searches all of argv: the key "MAXITERATIONS" makes "100" the value
    assertEquals(OK, call("CF.RESERVE", "MAXITERATIONS", "100"));
    assertEquals(
        "bktsize:2 buckets:64 items:0 deletes:0 filters:1 max_iterations:100" + " expansion:1",
        RespClient.text(call("CF.DEBUG", "MAXITERATIONS")));
  }

  @Test
  void reserve_limits_acceptedAndReportedByInfo() throws IOException {
    assertEquals(
        OK,
        call(
            "CF.RESERVE",
            "cf",
            "67108864",
            "BUCKETSIZE",
            "255",
            "MAXITERATIONS",
            "65535",
            "EXPANSION",
            "32768"));
    List<?> info = (List<?>) call("CF.INFO", "cf");
    assertEquals(255L, info.get(11));
    assertEquals(32768L, info.get(13));
    assertEquals(65535L, info.get(15));
  }

  @Test
  void info_afterReserve_sizesMatchRedisBloom() throws IOException {
    assertEquals(OK, call("CF.RESERVE", "a", "1000"));
    assertEquals(
        List.of(
            new Simple("Size"),
            1080L,
            new Simple("Number of buckets"),
            512L,
            new Simple("Number of filters"),
            1L,
            new Simple("Number of items inserted"),
            0L,
            new Simple("Number of items deleted"),
            0L,
            new Simple("Bucket size"),
            2L,
            new Simple("Expansion rate"),
            1L,
            new Simple("Max iterations"),
            20L),
        call("CF.INFO", "a"));
    assertEquals(OK, call("CF.RESERVE", "b", "10"));
    assertEquals(72L, ((List<?>) call("CF.INFO", "b")).get(1));
    assertEquals(OK, call("CF.RESERVE", "c", "200", "BUCKETSIZE", "10"));
    assertEquals(376L, ((List<?>) call("CF.INFO", "c")).get(1));
    assertEquals(OK, call("CF.RESERVE", "d", "9", "EXPANSION", "0"));
    assertEquals(64L, ((List<?>) call("CF.INFO", "d")).get(1));
    assertEquals(OK, call("CF.RESERVE", "e", "200", "EXPANSION", "3"));
    assertEquals(4L, ((List<?>) call("CF.INFO", "e")).get(13));
    assertEquals(err("ERR not found"), call("CF.INFO", "missing"));
    assertEquals(err(arity("cf.info")), call("CF.INFO"));
  }

  @Test
  void resp3Sequence_fromRedisBloomTests_booleansIntegersAndMap() throws IOException {
    hello3();
    assertEquals(OK, call("CF.RESERVE", "a", "9", "EXPANSION", "0"));
    assertEquals(true, call("CF.ADD", "a", "3"));
    assertEquals(true, call("CF.ADD", "a", "4"));
    assertEquals(false, call("CF.ADDNX", "a", "4"));
    assertEquals(true, call("CF.ADDNX", "a", "9"));
    assertEquals(List.of(true, true), call("CF.INSERT", "a", "ITEMS", "4", "5"));
    assertEquals(List.of(0L, 1L), call("CF.INSERTNX", "a", "ITEMS", "4", "6"));
    assertEquals(true, call("CF.DEL", "a", "3"));
    assertEquals(false, call("CF.DEL", "a", "3"));
    assertEquals(false, call("CF.EXISTS", "a", "3"));
    assertEquals(true, call("CF.EXISTS", "a", "4"));
    assertEquals(List.of(false, true), call("CF.MEXISTS", "a", "3", "4"));
    assertEquals(2L, call("CF.COUNT", "a", "4"));
    Map<Object, Object> expected = new LinkedHashMap<>();
    expected.put(new Simple("Size"), 64L);
    expected.put(new Simple("Number of buckets"), 4L);
    expected.put(new Simple("Number of filters"), 1L);
    expected.put(new Simple("Number of items inserted"), 5L);
    expected.put(new Simple("Number of items deleted"), 1L);
    expected.put(new Simple("Bucket size"), 2L);
    expected.put(new Simple("Expansion rate"), 0L);
    expected.put(new Simple("Max iterations"), 20L);
    assertEquals(expected, call("CF.INFO", "a"));
    assertEquals(OK, call("CF.RESERVE", "e", "4"));
    assertEquals(java.util.Arrays.asList(0L, null), call("CF.SCANDUMP", "e", "0"));
  }

  @Test
  void resp2Sequence_integersEverywhere() throws IOException {
    assertEquals(OK, call("CF.RESERVE", "a", "4", "EXPANSION", "0"));
    for (String item : new String[] {"1", "2", "3", "4"}) {
      assertEquals(1L, call("CF.ADD", "a", item));
    }
    assertEquals(List.of(-1L, -1L), call("CF.INSERT", "a", "ITEMS", "5", "6"));
    assertEquals(err("Filter is full"), call("CF.ADD", "a", "7"));
    assertEquals(List.of(-1L), call("CF.INSERTNX", "a", "ITEMS", "7"));
    assertEquals(List.of(0L), call("CF.INSERTNX", "a", "ITEMS", "1"));
    assertEquals(0L, call("CF.ADDNX", "a", "1"));
  }

  @Test
  void count_sameBucketTwice_countsTwiceLikeRedisBloom() throws IOException {
    assertEquals(OK, call("CF.RESERVE", "k", "4"));
    assertEquals(1L, call("CF.ADD", "k", "a"));
    assertEquals(2L, call("CF.COUNT", "k", "a"));
  }

  @Test
  void count_flowTest_matchesRedisBloom() throws IOException {
    assertEquals(OK, call("CF.RESERVE", "cf", "1000"));
    assertEquals(err("ERR item exists"), call("CF.RESERVE", "cf", "1000"));
    assertEquals(
        err("Capacity must be in the range [cf-bucket-size * 2, 1073741824]"),
        call("CF.INSERT", "cf", "CAPACITY", "-1", "ITEMS", "k0"));
    assertEquals(
        err("Capacity must be in the range [cf-bucket-size * 2, 1073741824]"),
        call("CF.INSERTNX", "cf", "CAPACITY", "3", "ITEMS", "k0"));
    assertEquals(0L, call("CF.EXISTS", "cf", "k1"));
    assertEquals(1L, call("CF.ADD", "cf", "k1"));
    assertEquals(1L, call("CF.ADD", "cf", "k1"));
    assertEquals(1L, call("CF.EXISTS", "cf", "k1"));
    assertEquals(2L, call("CF.COUNT", "cf", "k1"));
    assertEquals(1L, call("CF.DEL", "cf", "k1"));
    assertEquals(1L, call("CF.COUNT", "cf", "k1"));
    assertEquals(1L, call("CF.DEL", "cf", "k1"));
    assertEquals(0L, call("CF.COUNT", "cf", "k1"));
    assertEquals(0L, call("CF.DEL", "cf", "k1"));
    assertEquals(err(arity("cf.del")), call("CF.DEL", "cf"));
    assertEquals(err("Not found"), call("CF.DEL", "bf", "k1"));
    for (int i = 0; i < 100; i++) {
      assertEquals(1L, call("CF.ADD", "cf", "x" + i));
    }
    for (int i = 0; i < 100; i++) {
      assertEquals(1L, call("CF.EXISTS", "cf", "x" + i));
    }
  }

  @Test
  void addNx_flowTest_matchesRedisBloom() throws IOException {
    assertEquals(1L, call("CF.ADDNX", "nx", "k1"));
    assertEquals(0L, call("CF.ADDNX", "nx", "k1"));
    assertEquals(1L, call("CF.COUNT", "nx", "k1"));
    assertEquals(1L, call("CF.ADD", "nx", "k1"));
    assertEquals(2L, call("CF.COUNT", "nx", "k1"));
    assertEquals(
        "bktsize:2 buckets:512 items:2 deletes:0 filters:1 max_iterations:20" + " expansion:1",
        RespClient.text(call("CF.DEBUG", "nx")));
  }

  @Test
  void insert_optionParsing_firstCharacterAndErrors() throws IOException {
    assertEquals(1L, call("CF.ADD", "f1", "foo"));
    assertEquals(List.of(1L), call("CF.INSERT", "f2", "ITEMS", "foo"));
    assertArrayEquals((byte[]) call("CF.DEBUG", "f1"), (byte[]) call("CF.DEBUG", "f2"));
    assertEquals(List.of(0L), call("CF.INSERTNX", "f1", "items", "foo"));
    assertEquals(List.of(1L), call("CF.INSERT", "f3", "CAPACITY", "10000", "ITEMS", "foo"));
    assertEquals(
        "bktsize:2 buckets:8192 items:1 deletes:0 filters:1 max_iterations:20" + " expansion:1",
        RespClient.text(call("CF.DEBUG", "f3")));
    assertEquals(List.of(0L, 1L, 1L), call("CF.INSERTNX", "f3", "ITEMS", "foo", "bar", "baz"));
    assertEquals(err(arity("cf.insert")), call("CF.INSERT", "f1", "NOCREATE", "CAPACITY"));
    assertEquals(err("Bad capacity"), call("CF.INSERT", "f1", "CAPACITY", "str", "ITEMS", "x"));
    assertEquals(
        err("Unknown argument received"), call("CF.INSERT", "f1", "DONTEXIST", "ITEMS", "x"));
    assertEquals(err("Unknown argument received"), call("CF.INSERT", "f1", "", "ITEMS", "x"));
    assertEquals(err(arity("cf.insert")), call("CF.INSERT", "f1", "NOCREATE", "ITEMS"));
    assertEquals(err(arity("cf.insertnx")), call("CF.INSERTNX", "f1", "ITEMS"));
    assertEquals(err("ERR not found"), call("CF.INSERT", "f4", "nocreate", "items", "foo"));
    assertEquals(err("ERR not found"), call("CF.INSERTNX", "f4", "NOCREATE", "ITEMS", "foo"));
    assertEquals(OK, call("CF.RESERVE", "f4", "100"));
    assertEquals(List.of(1L), call("CF.INSERT", "f4", "nocreate", "items", "foo"));
    assertEquals(
        List.of(1L),
        call("CF.INSERT", "f5", "cap", "100", "i", "x"),
        "options are recognised by their first character");
  }

  @Test
  void exists_missingKey_zeroNotError() throws IOException {
    assertEquals(List.of(1L, 1L, 1L), call("CF.INSERT", "e", "ITEMS", "foo", "bar", "baz"));
    assertEquals(List.of(1L, 1L, 1L), call("CF.MEXISTS", "e", "foo", "bar", "baz"));
    assertEquals(0L, call("CF.EXISTS", "none", "foo"));
    assertEquals(List.of(0L), call("CF.MEXISTS", "none", "foo"));
    assertEquals(0L, call("CF.COUNT", "none", "foo"));
    assertEquals(err(arity("cf.exists")), call("CF.EXISTS", "e"));
    assertEquals(err(arity("cf.mexists")), call("CF.MEXISTS", "e"));
    assertEquals(err(arity("cf.count")), call("CF.COUNT", "e", "a", "b"));
  }

  private String fillDebug(Object... reserve) throws IOException {
    Object[] args = new Object[reserve.length + 2];
    args[0] = "CF.RESERVE";
    args[1] = "x";
    System.arraycopy(reserve, 0, args, 2, reserve.length);
    assertEquals(OK, call(args));
    for (int i = 0; i < 1000; i++) {
      client.send("CF.ADD", "x", Integer.toString(i));
    }
    for (int i = 0; i < 1000; i++) {
      assertEquals(1L, client.read());
    }
    String debug = RespClient.text(call("CF.DEBUG", "x"));
    assertEquals(1L, call("DEL", "x"));
    return debug;
  }

  @Test
  void debug_bucketSizeAndExpansionScenarios_bitExactFilterCounts() throws IOException {
    assertEquals(OK, call("CONFIG", "SET", "cf-max-expansions", "65536"));
    try {
      assertEquals(
          "bktsize:1 buckets:64 items:1000 deletes:0 filters:18 max_iterations:20" + " expansion:1",
          fillDebug("64", "BUCKETSIZE", "1"));
      assertEquals(
          "bktsize:2 buckets:32 items:1000 deletes:0 filters:17 max_iterations:20" + " expansion:1",
          fillDebug("64", "BUCKETSIZE", "2"));
      assertEquals(
          "bktsize:4 buckets:64 items:1000 deletes:0 filters:4 max_iterations:500" + " expansion:1",
          fillDebug("256", "BUCKETSIZE", "4", "MAXITERATIONS", "500"));
      assertEquals(
          "bktsize:2 buckets:32 items:1000 deletes:0 filters:5 max_iterations:20" + " expansion:2",
          fillDebug("64", "EXPANSION", "2"));
      assertEquals(
          "bktsize:2 buckets:32 items:1000 deletes:0 filters:3 max_iterations:500" + " expansion:4",
          fillDebug("64", "EXPANSION", "4", "MAXITERATIONS", "500"));
    } finally {
      assertEquals(OK, call("CONFIG", "SET", "cf-max-expansions", "32"));
    }
  }

  @Test
  void maxIterations_debugStrings_andParseError() throws IOException {
    assertEquals(OK, call("CF.RESERVE", "a", "10", "MAXITERATIONS", "10"));
    assertEquals(
        "bktsize:2 buckets:8 items:0 deletes:0 filters:1 max_iterations:10" + " expansion:1",
        RespClient.text(call("CF.DEBUG", "a")));
    assertEquals(OK, call("CF.RESERVE", "b", "10"));
    assertEquals(
        "bktsize:2 buckets:8 items:0 deletes:0 filters:1 max_iterations:20" + " expansion:1",
        RespClient.text(call("CF.DEBUG", "b")));
    assertEquals(
        err("Couldn't parse MAXITERATIONS"),
        call("CF.RESERVE", "c", "10", "MAXITERATIONS", "string"));
    assertEquals(err("ERR not found"), call("CF.DEBUG", "missing"));
    assertEquals(err(arity("cf.debug")), call("CF.DEBUG"));
  }

  @Test
  void maxExpansions_after124Adds_refusesNextWrite() throws IOException {
    assertEquals(OK, call("CF.RESERVE", "cf", "4"));
    for (int i = 0; i < 124; i++) {
      assertEquals(1L, call("CF.ADD", "cf", Integer.toString(i)), "add " + i);
    }
    assertEquals(err("Maximum expansions reached"), call("CF.ADD", "cf", "more"));
    assertEquals(err("Maximum expansions reached"), call("CF.INSERT", "cf", "ITEMS", "more"));
    assertEquals(32L, ((List<?>) call("CF.INFO", "cf")).get(5));
  }

  @Test
  void compact_afterAdds_keepsItemsAndChecksErrors() throws IOException {
    assertEquals(OK, call("CF.RESERVE", "cf", "8", "MAXITERATIONS", "50"));
    for (int i = 0; i < 100; i++) {
      assertEquals(1L, call("CF.ADD", "cf", Integer.toString(i)));
    }
    for (int i = 0; i < 100; i++) {
      assertEquals(1L, call("CF.EXISTS", "cf", Integer.toString(i)));
    }
    assertEquals(OK, call("CF.COMPACT", "cf"));
    for (int i = 0; i < 100; i++) {
      assertEquals(1L, call("CF.EXISTS", "cf", Integer.toString(i)));
    }
    assertEquals(err("Cuckoo filter was not found"), call("CF.COMPACT", "a"));
    assertEquals(err(arity("cf.compact")), call("CF.COMPACT", "a", "b"));
    assertEquals(err(arity("cf.compact")), call("CF.COMPACT"));
  }

  @Test
  void scanDumpLoadChunk_roundTrip_restoresEveryItemAndInfo() throws IOException {
    assertEquals(OK, call("CF.RESERVE", "src", "100", "EXPANSION", "2"));
    for (int i = 0; i < 1000; i++) {
      client.send("CF.ADD", "src", "item" + i);
    }
    for (int i = 0; i < 1000; i++) {
      assertEquals(1L, client.read());
    }
    Object info = call("CF.INFO", "src");
    long iterator = 0;
    int chunks = 0;
    while (true) {
      List<?> chunk = (List<?>) call("CF.SCANDUMP", "src", iterator);
      iterator = (Long) chunk.get(0);
      if (iterator == 0) {
        break;
      }
      assertEquals(OK, call("CF.LOADCHUNK", "dst", iterator, chunk.get(1)));
      chunks++;
    }
    assertTrue(chunks > 2);
    assertEquals(info, call("CF.INFO", "dst"));
    for (int i = 0; i < 1000; i++) {
      assertEquals(1L, call("CF.EXISTS", "dst", "item" + i));
    }
    assertArrayEquals((byte[]) call("CF.DEBUG", "src"), (byte[]) call("CF.DEBUG", "dst"));
  }

  @Test
  void scanDump_huge64MiCapacity_fourChunksOf16MiBRoundTrip() throws IOException {
    assertEquals(OK, call("CF.RESERVE", "big", 64L * 1024 * 1024, "BUCKETSIZE", "1"));
    for (int i = 0; i < 1000; i++) {
      client.send("CF.ADD", "big", "h" + i);
    }
    for (int i = 0; i < 1000; i++) {
      assertEquals(1L, client.read());
    }
    long iterator = 0;
    List<Integer> lengths = new java.util.ArrayList<>();
    while (true) {
      List<?> chunk = (List<?>) call("CF.SCANDUMP", "big", iterator);
      iterator = (Long) chunk.get(0);
      if (iterator == 0) {
        break;
      }
      lengths.add(((byte[]) chunk.get(1)).length);
      assertEquals(OK, call("CF.LOADCHUNK", "copy", iterator, chunk.get(1)));
    }
    int mib16 = 16 * 1024 * 1024;
    assertEquals(List.of(38, mib16, mib16, mib16, mib16), lengths);
    for (int i = 0; i < 1000; i++) {
      assertEquals(1L, call("CF.EXISTS", "copy", "h" + i));
    }
    assertEquals(call("CF.INFO", "big"), call("CF.INFO", "copy"));
  }

  @Test
  void scanDump_errors_matchRedisBloom() throws IOException {
    assertEquals(err(arity("cf.scandump")), call("CF.SCANDUMP", "cf"));
    assertEquals(err("Invalid position"), call("CF.SCANDUMP", "cf", "str"));
    assertEquals(err("Invalid position"), call("CF.SCANDUMP", "cf", "-1"));
    assertEquals(err("ERR not found"), call("CF.SCANDUMP", "cf", "0"));
    assertEquals(err(arity("cf.loadchunk")), call("CF.LOADCHUNK", "cf", "1"));
    assertEquals(err("Invalid position"), call("CF.LOADCHUNK", "cf", "0", "x"));
    assertEquals(err("Invalid position"), call("CF.LOADCHUNK", "cf", "str", "x"));
    assertEquals(err("ERR not found"), call("CF.LOADCHUNK", "cf", "9", "x"));
    assertEquals(err("Invalid header"), call("CF.LOADCHUNK", "cf", "1", "short"));
    assertEquals(OK, call("CF.RESERVE", "cf", "8"));
    assertEquals(err("ERR item exists"), call("CF.LOADCHUNK", "cf", "1", new byte[38]));
    assertEquals(err("Couldn't load chunk!"), call("CF.LOADCHUNK", "cf", "100", "x"));
    assertEquals(err("Couldn't load chunk!"), call("CF.LOADCHUNK", "cf", "2", "xyz"));
    assertEquals(err("Couldn't load chunk!"), call("CF.LOADCHUNK", "cf", "9", new byte[0]));
    assertEquals(OK, call("CF.LOADCHUNK", "cf", "9", new byte[8]));
  }

  private static byte[] header(
      long items,
      long buckets,
      long deletes,
      long filters,
      int bucketSize,
      int maxIterations,
      int expansion) {
    java.nio.ByteBuffer b =
        java.nio.ByteBuffer.allocate(38).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.putLong(items)
        .putLong(buckets)
        .putLong(deletes)
        .putLong(filters)
        .putShort((short) bucketSize)
        .putShort((short) maxIterations)
        .putShort((short) expansion);
    return b.array();
  }

  @Test
  void loadChunk_invalidHeaders_couldNotCreateFilter() throws IOException {
    byte[] valid = header(1, 4, 0, 1, 2, 20, 1);
    int[][] zeroedFields = {{8, 16}, {24, 32}, {32, 34}, {34, 36}, {0, 38}};
    for (int[] field : zeroedFields) {
      byte[] broken = valid.clone();
      java.util.Arrays.fill(broken, field[0], field[1], (byte) 0);
      assertEquals(
          err("Couldn't create filter!"),
          call("CF.LOADCHUNK", "h", "1", broken),
          "bytes " + field[0] + ".." + field[1] + " zeroed");
    }
    assertEquals(
        err("Couldn't create filter!"),
        call("CF.LOADCHUNK", "z", "1", header(1, 4, 0, 1, 0, 20, 1)));
    assertEquals(
        err("Couldn't create filter!"),
        call("CF.LOADCHUNK", "z", "1", header(1, 4, 0, 0, 2, 20, 1)));
    assertEquals(
        err("Couldn't create filter!"),
        call("CF.LOADCHUNK", "z", "1", header(1, 4, 0, 1, 2, 0, 1)));
    assertEquals(
        err("Couldn't create filter!"),
        call("CF.LOADCHUNK", "z", "1", header(1, 4, 0, 2, 2, 20, 0)));
    assertEquals(
        err("Couldn't create filter!"),
        call("CF.LOADCHUNK", "z", "1", header(1, 3, 0, 1, 2, 20, 1)));
    assertEquals(
        err("Couldn't create filter!"),
        call("CF.LOADCHUNK", "huge", "1", header(1, 1L << 48, 0, 1, 1, 1, 1)),
        "2^48 buckets must fail gracefully");
    assertEquals(0L, call("EXISTS", "z", "huge"));
    assertEquals(OK, call("CF.LOADCHUNK", "z", "1", valid));
    assertEquals(
        "bktsize:2 buckets:4 items:1 deletes:0 filters:1 max_iterations:20" + " expansion:1",
        RespClient.text(call("CF.DEBUG", "z")));
  }

  @Test
  void scanDump_randomPositionsAfterMaxExpansions_neverError() throws IOException {
    java.util.Random random = new java.util.Random(42);
    int added = 0;
    while (true) {
      Object reply = call("CF.ADD", "cf", "x" + added);
      if (reply instanceof Err) {
        assertEquals(err("Maximum expansions reached"), reply);
        break;
      }
      added++;
    }
    long size = (Long) ((List<?>) call("CF.INFO", "cf")).get(1);
    for (int i = 0; i < 300; i++) {
      long position = random.nextInt((int) size + 1024);
      Object reply = call("CF.SCANDUMP", "cf", position);
      assertInstanceOf(List.class, reply, "position " + position);
    }
  }

  /**
   * RedisBloom flow test "scandump scan big": expansion 30000 rounds to 32768, chunks of 16 MiB.
   */
  @Test
  void scanDump_expansion30000_randomPositionsChunkedAndNeverError() throws IOException {
    java.util.Random random = new java.util.Random(26);
    assertEquals(OK, call("CF.RESERVE", "cf", "1024", "EXPANSION", "30000"));
    int added = 0;
    while (((List<?>) call("CF.INFO", "cf")).get(5).equals(1L)) {
      assertEquals(1L, call("CF.ADD", "cf", "big" + added));
      added++;
    }
    List<?> info = (List<?>) call("CF.INFO", "cf");
    assertEquals(2L, info.get(5), "second sub-filter: 512 * 32768 buckets");
    assertEquals(32768L, info.get(13));
    long size = (Long) info.get(1);
    assertEquals(40 + 16 * 2 + 512 * 2 + 512L * 32768 * 2, size);
    for (int i = 0; i < 24; i++) {
      long position = (long) (random.nextDouble() * (size + 1024));
      Object reply = call("CF.SCANDUMP", "cf", position);
      List<?> pair = assertInstanceOf(List.class, reply, "position " + position);
      long next = (Long) pair.get(0);
      if (pair.get(1) == null) {
        assertEquals(0L, next, "position " + position);
      } else {
        byte[] data = (byte[]) pair.get(1);
        assertTrue(data.length <= 16 * 1024 * 1024, "chunk of " + data.length + " bytes");
        if (position > 0) {
          assertEquals(position + data.length, next, "position " + position);
        }
      }
    }
    assertEquals(1L, call("CF.EXISTS", "cf", "big0"));
  }

  /** RedisBloom flow test "scandump load big": large random blobs only fail as chunk errors. */
  @Test
  void loadChunk_bigRandomBlobs_onlyChunkErrorsAndServerKeepsServing() throws IOException {
    java.util.Random random = new java.util.Random(28);
    assertEquals(OK, call("CF.RESERVE", "cf", "1024", "EXPANSION", "2"));
    for (int i = 0; i < 3000; i++) {
      call("CF.ADD", "cf", "v" + i);
    }
    for (int i = 0; i < 12; i++) {
      byte[] blob = new byte[1024 + random.nextInt(36 * 1024 * 1024 - 1024 + 1)];
      random.nextBytes(blob);
      long position = 2 + (random.nextLong() >>> 2);
      Object reply = call("CF.LOADCHUNK", "cf", position, blob);
      assertEquals(
          err("Couldn't load chunk!"), reply, "blob of " + blob.length + " at " + position);
    }
    assertEquals(new Simple("PONG"), call("PING"));
    assertEquals(1L, call("CF.EXISTS", "cf", "v0"));
  }

  @Test
  void loadChunk_randomBlobs_onlyChunkErrors() throws IOException {
    java.util.Random random = new java.util.Random(7);
    assertEquals(OK, call("CF.RESERVE", "cf", "1024", "EXPANSION", "2"));
    for (int i = 0; i < 3000; i++) {
      call("CF.ADD", "cf", "v" + i);
    }
    for (int i = 0; i < 200; i++) {
      byte[] blob = new byte[1 + random.nextInt(4096)];
      random.nextBytes(blob);
      long position = 1 + random.nextInt(20000);
      Object reply = call("CF.LOADCHUNK", "cf", position, blob);
      if (reply instanceof Err) {
        String text = ((Err) reply).text();
        assertTrue(
            text.equals("Couldn't load chunk!")
                || text.equals("Invalid position")
                || text.equals("ERR item exists"),
            text);
      } else {
        assertEquals(OK, reply);
      }
    }
  }

  @Test
  void add_autoCreate_usesConfigDefaults() throws IOException {
    assertEquals(1L, call("CF.ADD", "auto", "x"));
    assertEquals(
        "bktsize:2 buckets:512 items:1 deletes:0 filters:1 max_iterations:20" + " expansion:1",
        RespClient.text(call("CF.DEBUG", "auto")));
    assertEquals(OK, call("CONFIG", "SET", "cf-bucket-size", "4", "cf-initial-size", "4096"));
    try {
      assertEquals(1L, call("CF.ADD", "auto2", "x"));
      assertEquals(
          "bktsize:4 buckets:1024 items:1 deletes:0 filters:1 max_iterations:20" + " expansion:1",
          RespClient.text(call("CF.DEBUG", "auto2")));
    } finally {
      assertEquals(OK, call("CONFIG", "SET", "cf-bucket-size", "2", "cf-initial-size", "1024"));
    }
    assertEquals(err(arity("cf.add")), call("CF.ADD", "auto"));
    assertEquals(err(arity("cf.addnx")), call("CF.ADDNX", "auto", "a", "b"));
  }

  @Test
  void config_getAndSet_rangesLikeRedisBloom() throws IOException {
    List<?> one = (List<?>) call("CONFIG", "GET", "cf-bucket-size");
    assertEquals(
        List.of("cf-bucket-size", "2"),
        List.of(RespClient.text(one.get(0)), RespClient.text(one.get(1))));
    List<?> all = (List<?>) call("CONFIG", "GET", "cf-*");
    assertEquals(10, all.size());
    assertEquals("2", RespClient.text(all.get(1)));
    assertEquals("1024", RespClient.text(all.get(3)));
    assertEquals("20", RespClient.text(all.get(5)));
    assertEquals("1", RespClient.text(all.get(7)));
    assertEquals("32", RespClient.text(all.get(9)));
    Object reply = call("CONFIG", "SET", "cf-max-iterations", "0");
    assertTrue(((Err) reply).text().contains("must be in the range"), reply.toString());
    assertTrue(
        ((Err) call("CONFIG", "SET", "cf-bucket-size", "256"))
            .text()
            .contains("must be in the range"));
    assertTrue(((Err) call("CONFIG", "SET", "nope", "1")).text().startsWith("ERR Unknown"));
  }

  private List<String> cfConfig() throws IOException {
    List<String> values = new java.util.ArrayList<>();
    for (Object value : (List<?>) call("CONFIG", "GET", "cf-*")) {
      values.add(RespClient.text(value));
    }
    return values;
  }

  @Test
  void configSet_laterPairInvalid_nothingChanged() throws IOException {
    List<String> before = cfConfig();
    Object reply =
        call(
            "CONFIG",
            "SET",
            "cf-max-iterations",
            "77",
            "cf-expansion-factor",
            "4",
            "cf-bucket-size",
            "0");
    assertTrue(((Err) reply).text().contains("'cf-bucket-size'"), reply.toString());
    assertEquals(before, cfConfig(), "a failed CONFIG SET changes nothing");
    // pairs are checked against the values the pairs before them set
    assertTrue(
        call(
                "CONFIG",
                "SET",
                "cf-initial-size",
                "4096",
                "cf-bucket-size",
                "1024",
                "cf-max-iterations",
                "0")
            instanceof Err);
    assertEquals(before, cfConfig());
    assertEquals(OK, call("CONFIG", "SET", "cf-initial-size", "4096", "cf-bucket-size", "255"));
    assertEquals(OK, call("CONFIG", "SET", "cf-bucket-size", "2", "cf-initial-size", "1024"));
    assertEquals(before, cfConfig());
  }

  @Test
  void resp3_infoScandumpNullAndHello() throws IOException {
    Object hello = call("HELLO", "3");
    Map<?, ?> map = (Map<?, ?>) hello;
    assertEquals(3L, map.get("proto"));
    assertEquals("redis", RespClient.text(map.get("server")));
    assertEquals(OK, call("CF.RESERVE", "r", "100"));
    List<?> done = (List<?>) call("CF.SCANDUMP", "r", "0");
    assertEquals(0L, done.get(0));
    assertNull(done.get(1));
  }
}
