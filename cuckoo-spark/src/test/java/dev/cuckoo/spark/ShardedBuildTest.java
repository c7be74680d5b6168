package dev.cuckoo.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.ItemHashers;
import dev.cuckoo.ShardedCuckooFilter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/** The partitioned build: hashes shuffled by shard, shards built by tasks, one sharded file. */
class ShardedBuildTest {
  private static final long SEED = 0x5A4D_0001L;
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void strings_shardedBuild_everyItemFound_falsePositivesBounded() throws IOException {
    Random random = new Random(SEED);
    List<String> items = new ArrayList<>();
    for (int i = 0; i < 30_000; i++) {
      items.add("sharded-" + random.nextLong());
    }
    List<String> values = new ArrayList<>(items);
    values.addAll(items.subList(0, 3_000)); // duplicates: shuffled to the same shard, stored once
    values.add(null);
    Dataset<Row> data = FilterAggregateTest.column(spark, DataTypes.StringType, values);

    ShardedCuckooFilter<CharSequence> filter =
        CuckooFunctions.buildShardedFilter(
            data, data.col("v"), 30_000, 0.001, 3, ItemHashers.utf8());
    assertEquals(8, filter.shardCount());
    assertTrue(filter.size() <= 30_000 && filter.size() >= 29_900, "size " + filter.size());
    for (String item : items) {
      assertTrue(filter.mightContain(item), item);
    }
    int probes = 200_000;
    long falsePositives = 0;
    for (int i = 0; i < probes; i++) {
      if (filter.mightContain("absent-" + random.nextLong())) {
        falsePositives++;
      }
    }
    double mean = probes * filter.expectedFalsePositiveRate();
    double bound = mean + 5 * Math.sqrt(mean) + 1;
    System.out.printf(
        "seed %x: %d false positives in %d probes (expected %.1f, bound %.1f)%n",
        SEED, falsePositives, probes, mean, bound);
    assertTrue(falsePositives <= bound, falsePositives + " > " + bound + " seed " + SEED);

    // the streamed file holds the same shards
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CuckooFunctions.writeShardedFilter(data, data.col("v"), 30_000, 0.001, 3, out);
    ShardedCuckooFilter<CharSequence> streamed =
        ShardedCuckooFilter.readFrom(
            new ByteArrayInputStream(out.toByteArray()), ItemHashers.utf8());
    for (int s = 0; s < 8; s++) {
      assertEquals(filter.shard(s).size(), streamed.shard(s).size());
    }
    for (String item : items) {
      assertTrue(streamed.mightContain(item), item);
    }
  }

  @Test
  void longs_fewValues_emptyShardsFilledIn_sameAsLocalBuild() throws IOException {
    List<Object> values = new ArrayList<>();
    for (long i = 0; i < 3; i++) {
      values.add(i * 7919);
    }
    Dataset<Row> data = FilterAggregateTest.column(spark, DataTypes.LongType, values);
    ShardedCuckooFilter<Long> filter =
        CuckooFunctions.buildShardedFilter(data, data.col("v"), 100, 0.01, 4, ItemHashers.longs());
    ShardedCuckooFilter<Long> local =
        ShardedCuckooFilter.builder(ItemHashers.longs())
            .expectedItems(100)
            .falsePositiveRate(0.01)
            .shardBits(4)
            .build();
    for (Object value : values) {
      local.add((Long) value);
    }
    // one item per shard at most here, so the bytes do not depend on insertion order
    ByteArrayOutputStream mine = new ByteArrayOutputStream();
    ByteArrayOutputStream theirs = new ByteArrayOutputStream();
    filter.writeTo(mine);
    local.writeTo(theirs);
    assertArrayEquals(theirs.toByteArray(), mine.toByteArray());
  }

  @Test
  void badArguments_nameTheParameter() {
    Dataset<Row> data = spark.range(10).toDF("v");
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    CuckooFunctions.buildShardedFilter(
                        data, data.col("v"), 10, 0.01, 17, ItemHashers.longs()))
            .getMessage()
            .contains("shardBits: 17"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    CuckooFunctions.buildShardedFilter(
                        data, data.col("v"), 10, 0.01, 2, ItemHashers.utf8()))
            .getMessage()
            .contains("hasher: "));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    CuckooFunctions.buildShardedFilter(
                        data, data.col("v"), 0, 0.01, 2, ItemHashers.longs()))
            .getMessage()
            .contains("expectedItems: 0"));
  }
}
