package dev.cuckoo.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.FilterFormatException;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.Scheme;
import dev.cuckoo.cli.CuckooCli;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A RedisBloom-scheme filter built by Spark goes through {@code cuckoo export --format redisbloom}
 * and loads, chunk by chunk, the way cuckoo-server and Redis load it (CF.LOADCHUNK).
 */
class RedisBloomExportTest {
  private final SparkSession spark = SparkTestSession.get();
  @TempDir Path dir;

  @Test
  void sparkBuiltFilter_exportedByCli_loadsWithEveryItem() throws Exception {
    List<String> items = FilterAggregateTest.strings("user:", 3_000);
    FilterAggregateTest.column(spark, DataTypes.StringType, items).createOrReplaceTempView("users");
    byte[] bytes = spark.sql("SELECT cuckoo_redisbloom_agg(v, 4000) FROM users").first().getAs(0);

    // the same filter as CF.RESERVE seen 4000 and CF.ADDNX of every item: bucket size 2, 20 kicks
    RedisCuckooFilter<CharSequence> filter =
        CuckooFunctions.readRedisBloomFilter(bytes, ItemHashers.redisUtf8());
    assertEquals(Scheme.REDISBLOOM, filter.scheme());
    assertEquals(2, filter.bucketSize());
    assertEquals(2048, filter.baseBucketCount());
    assertEquals(RedisCuckooFilter.DEFAULT_MAX_ITERATIONS, filter.maxKicks());
    assertEquals(1, filter.linkCount());
    assertEquals(0, filter.expansion(), "a filter that never grows, as the aggregate built it");
    // the aggregate's value is a single filter, which CuckooFilter no longer reads
    assertThrows(
        FilterFormatException.class,
        () -> CuckooFunctions.readFilter(bytes, ItemHashers.redisUtf8()));

    Path file = dir.resolve("users.cuckoo");
    Files.write(file, bytes);
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    int exit =
        CuckooCli.commandLine(new CuckooCli(new ByteArrayInputStream(new byte[0]), stdout))
            .execute("export", "--format", "redisbloom", "--key", "seen", file.toString());
    assertEquals(0, exit);

    RedisCuckooFilter<byte[]> loaded = null;
    for (List<byte[]> command : parseResp(stdout.toByteArray())) {
      assertEquals("CF.LOADCHUNK", text(command.get(0)));
      assertEquals("seen", text(command.get(1)));
      long iterator = Long.parseLong(text(command.get(2)));
      if (loaded == null) {
        assertEquals(1, iterator);
        loaded = RedisCuckooFilter.loadDumpHeader(command.get(3));
      } else {
        loaded.loadDumpChunk(iterator, command.get(3));
      }
    }
    assertTrue(loaded != null);
    assertEquals(filter.size(), loaded.size());
    for (String item : items) {
      assertTrue(loaded.mightContain(item.getBytes(StandardCharsets.UTF_8)), item);
    }
  }

  @Test
  void partialRedisBloomFilters_mergeWithAddAll() {
    spark.conf().set(HashBuffering.CONF, "filter");
    try {
      byte[] bytes =
          spark
              .sql("SELECT cuckoo_redisbloom_agg(id, 8000) FROM range(0, 4000, 1, 4)")
              .first()
              .getAs(0);
      RedisCuckooFilter<CharSequence> filter =
          CuckooFunctions.readRedisBloomFilter(bytes, ItemHashers.redisUtf8());
      for (int i = 0; i < 4000; i++) {
        assertTrue(filter.mightContain(Integer.toString(i)), Integer.toString(i));
      }
    } finally {
      spark.conf().unset(HashBuffering.CONF);
    }
  }

  @Test
  void redisBloomFilterTooSmall_failsNamingTheFunction() {
    // RedisBloom's 20 kicks at bucket size 2 do not fill a table to 97%; Redis would expand
    Throwable thrown =
        org.junit.jupiter.api.Assertions.assertThrows(
            Exception.class,
            () -> spark.sql("SELECT cuckoo_redisbloom_agg(id, 1000) FROM range(1000)").first());
    assertTrue(
        String.valueOf(thrown.getMessage()).contains("cuckoo_redisbloom_agg: "),
        thrown.getMessage());
  }

  @Test
  void integralColumn_hashedAsDecimalText_likeARedisClientSendsIt() {
    byte[] bytes =
        spark
            .sql("SELECT cuckoo_redisbloom_agg(CAST(id AS INT), 2000) FROM range(-500, 500)")
            .first()
            .getAs(0);
    RedisCuckooFilter<CharSequence> filter =
        CuckooFunctions.readRedisBloomFilter(bytes, ItemHashers.redisUtf8());
    for (int i = -500; i < 500; i++) {
      assertTrue(filter.mightContain(Integer.toString(i)), Integer.toString(i));
    }
    // and cuckoo_might_contain answers the same for the integers
    long found =
        spark
            .sql(
                "SELECT count(*) FROM range(-500, 500) WHERE cuckoo_might_contain("
                    + "(SELECT cuckoo_redisbloom_agg(id, 2000) FROM range(-500, 500)), id)")
            .first()
            .getLong(0);
    assertEquals(1000, found);
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** Parses a RESP stream of arrays of bulk strings, strictly. */
  private static List<List<byte[]>> parseResp(byte[] bytes) {
    List<List<byte[]>> commands = new ArrayList<>();
    int at = 0;
    while (at < bytes.length) {
      assertEquals('*', bytes[at++]);
      int end = indexOfCr(bytes, at);
      int count = Integer.parseInt(new String(bytes, at, end - at, StandardCharsets.US_ASCII));
      at = end + 2;
      List<byte[]> command = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        assertEquals('$', bytes[at++]);
        end = indexOfCr(bytes, at);
        int length = Integer.parseInt(new String(bytes, at, end - at, StandardCharsets.US_ASCII));
        at = end + 2;
        command.add(Arrays.copyOfRange(bytes, at, at + length));
        at += length;
        assertArrayEquals(new byte[] {'\r', '\n'}, Arrays.copyOfRange(bytes, at, at + 2));
        at += 2;
      }
      commands.add(command);
    }
    return commands;
  }

  private static int indexOfCr(byte[] bytes, int from) {
    int at = from;
    while (bytes[at] != '\r') {
      at++;
    }
    return at;
  }
}
