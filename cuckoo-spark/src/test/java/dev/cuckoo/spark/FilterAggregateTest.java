package dev.cuckoo.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHashers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** {@code cuckoo_filter_agg} against the core: the same items, the same answers. */
class FilterAggregateTest {
  private static final long SEED = 0x5EED_C0C0L;
  private final SparkSession spark = SparkTestSession.get();

  /** Returns a one-column data set of {@code values} (nulls allowed) in 4 partitions. */
  static Dataset<Row> column(SparkSession spark, DataType type, List<?> values) {
    List<Row> rows = new ArrayList<>(values.size());
    for (Object value : values) {
      rows.add(RowFactory.create(value));
    }
    StructType schema = new StructType().add("v", type, true);
    return spark.createDataFrame(rows, schema).repartition(4);
  }

  static List<String> strings(String prefix, int count) {
    List<String> values = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      values.add(prefix + i);
    }
    return values;
  }

  /** Asserts the false positives of {@code absent} probes stay within a binomial bound. */
  static void assertFalsePositivesBounded(CuckooFilter<?> filter, long falsePositives, int probes) {
    double rate = filter.expectedFalsePositiveRate();
    double mean = probes * rate;
    // mean + 5 standard deviations + 1: exceeded by chance with probability < 1e-6
    double bound = mean + 5 * Math.sqrt(mean * (1 - rate)) + 1;
    System.out.printf(
        "seed %x: %d false positives in %d probes (expected %.1f, bound %.1f)%n",
        SEED, falsePositives, probes, mean, bound);
    assertTrue(
        falsePositives <= bound,
        falsePositives
            + " false positives > bound "
            + bound
            + " (seed "
            + Long.toHexString(SEED)
            + ")");
  }

  @Test
  void strings_everyItemFound_falsePositivesBounded() {
    Random random = new Random(SEED);
    List<String> items = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      items.add("item-" + random.nextLong());
    }
    List<String> values = new ArrayList<>(items);
    values.addAll(items.subList(0, 5_000)); // duplicates, most of them in other partitions
    values.add(null);
    values.add(null);
    column(spark, DataTypes.StringType, values).createOrReplaceTempView("strings");

    // DISTINCT: each value reaches one task, so the partial filters are disjoint
    byte[] bytes =
        spark
            .sql("SELECT cuckoo_filter_agg(DISTINCT v, 20000, 0.01) FROM strings")
            .first()
            .getAs(0);
    CuckooFilter<CharSequence> filter = CuckooFunctions.readFilter(bytes, ItemHashers.utf8());

    CuckooFilter<CharSequence> core =
        CuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(20_000)
            .falsePositiveRate(0.01)
            .build();
    assertEquals(core.bucketCount(), filter.bucketCount());
    assertEquals(core.fingerprintBits(), filter.fingerprintBits());
    for (String item : items) {
      assertTrue(filter.mightContain(item), item);
      core.add(item);
    }
    long falsePositives = 0;
    int probes = 100_000;
    for (int i = 0; i < probes; i++) {
      String absent = "absent-" + random.nextLong();
      if (filter.mightContain(absent)) {
        falsePositives++;
        // a false positive of one filter of the same fingerprints is one of the other
        assertTrue(core.mightContain(absent), absent);
      }
    }
    assertFalsePositivesBounded(filter, falsePositives, probes);
  }

  @Test
  void unicodeStrings_hashedAsTheirUtf8Bytes_likeTheCore() {
    List<String> values =
        List.of("é", "naïve", "日本語", "\uD83E\uDD86 duck", "Ω≈ç√", "", "plain ascii");
    column(spark, DataTypes.StringType, values).createOrReplaceTempView("unicode");
    byte[] bytes = spark.sql("SELECT cuckoo_filter_agg(v, 100) FROM unicode").first().getAs(0);
    CuckooFilter<CharSequence> filter = CuckooFunctions.readFilter(bytes, ItemHashers.utf8());
    CuckooFilter<CharSequence> core =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(100).build();
    for (String value : values) {
      core.add(value);
    }
    // the same fingerprints in the same bucket pairs as the core's filter (slot order may differ)
    assertEquals(core.size(), filter.size());
    for (String value : values) {
      assertTrue(filter.mightContain(value), value);
      assertEquals(core.count(value), filter.count(value), value);
    }
    long found =
        spark
            .sql(
                "SELECT count(*) FROM unicode WHERE cuckoo_might_contain("
                    + "(SELECT cuckoo_filter_agg(v, 100) FROM unicode), v)")
            .first()
            .getLong(0);
    assertEquals(values.size(), found);
  }

  @Test
  void integralColumns_widenedToLong_readWithLongs() {
    List<Object> bytes = new ArrayList<>();
    List<Object> shorts = new ArrayList<>();
    List<Object> ints = new ArrayList<>();
    List<Object> longs = new ArrayList<>();
    for (int i = -100; i < 100; i++) {
      bytes.add((byte) i);
      shorts.add((short) (i * 300));
      ints.add(i * 100_000);
      longs.add(i * 10_000_000_000L);
    }
    assertLongs(DataTypes.ByteType, bytes);
    assertLongs(DataTypes.ShortType, shorts);
    assertLongs(DataTypes.IntegerType, ints);
    assertLongs(DataTypes.LongType, longs);
  }

  private void assertLongs(DataType type, List<Object> values) {
    List<Object> withNull = new ArrayList<>(values);
    withNull.add(null);
    Dataset<Row> data = column(spark, type, withNull);
    CuckooFilter<Long> filter =
        CuckooFunctions.buildFilter(data, data.col("v"), 1_000, 0.001, ItemHashers.longs());
    assertTrue(filter.size() <= values.size(), type.simpleString());
    for (Object value : values) {
      long widened = ((Number) value).longValue();
      assertTrue(filter.mightContain(widened), type.simpleString() + " " + value);
      assertTrue(filter.mightContainHash(ItemHashers.hashLong(widened)));
    }
  }

  @Test
  void binaryColumn_readWithBytes() {
    List<Object> values = new ArrayList<>();
    for (String s : strings("bin-", 500)) {
      values.add(s.getBytes(StandardCharsets.UTF_8));
    }
    values.add(null);
    column(spark, DataTypes.BinaryType, values).createOrReplaceTempView("binaries");
    byte[] bytes = spark.sql("SELECT cuckoo_filter_agg(v, 500) FROM binaries").first().getAs(0);
    CuckooFilter<byte[]> filter = CuckooFunctions.readFilter(bytes, ItemHashers.bytes());
    assertTrue(filter.size() <= 500);
    for (Object value : values.subList(0, 500)) {
      assertTrue(filter.mightContain((byte[]) value));
    }
    // the default rate is 1%
    CuckooFilter<byte[]> core =
        CuckooFilter.builder(ItemHashers.bytes()).expectedItems(500).build();
    assertEquals(core.fingerprintBits(), filter.fingerprintBits());
  }

  @Test
  void emptyInput_and_onlyNulls_giveAnEmptyFilterOfTheGeometry() {
    CuckooFilter<CharSequence> core =
        CuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(1000)
            .falsePositiveRate(0.001)
            .build();
    List<String> nulls = new ArrayList<>();
    nulls.add(null);
    nulls.add(null);
    for (List<String> values : List.of(List.<String>of(), nulls)) {
      column(spark, DataTypes.StringType, values).createOrReplaceTempView("few");
      byte[] bytes =
          spark.sql("SELECT cuckoo_filter_agg(v, 1000, 0.001) FROM few").first().getAs(0);
      CuckooFilter<CharSequence> filter = CuckooFunctions.readFilter(bytes, ItemHashers.utf8());
      assertEquals(0, filter.size());
      assertEquals(core.bucketCount(), filter.bucketCount());
      assertEquals(core.fingerprintBits(), filter.fingerprintBits());
    }
  }

  @Test
  void groupBy_oneFilterPerGroup() {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      rows.add(RowFactory.create("g" + (i % 3), (long) i));
    }
    StructType schema =
        new StructType().add("g", DataTypes.StringType).add("v", DataTypes.LongType);
    spark.createDataFrame(rows, schema).repartition(4).createOrReplaceTempView("groups");
    List<Row> filters =
        spark
            .sql("SELECT g, cuckoo_filter_agg(v, 1000) AS f FROM groups GROUP BY g ORDER BY g")
            .collectAsList();
    assertEquals(3, filters.size());
    for (int g = 0; g < 3; g++) {
      CuckooFilter<Long> filter =
          CuckooFunctions.readFilter(filters.get(g).getAs("f"), ItemHashers.longs());
      assertTrue(filter.size() <= 1000);
      for (long i = g; i < 3000; i += 3) {
        assertTrue(filter.mightContain(i));
      }
    }
  }

  @Test
  void everyBuffering_givesAFilterOfEveryItem() {
    List<String> items = strings("buffered-", 8_000);
    column(spark, DataTypes.StringType, items).createOrReplaceTempView("buffered");
    for (String mode : List.of("auto", "filter", "hashes")) {
      spark.conf().set(HashBuffering.CONF, mode);
      try {
        byte[] bytes =
            spark.sql("SELECT cuckoo_filter_agg(v, 8000, 0.001) FROM buffered").first().getAs(0);
        CuckooFilter<CharSequence> filter = CuckooFunctions.readFilter(bytes, ItemHashers.utf8());
        // a value whose fingerprint is already present (a false positive) is not added again
        assertTrue(filter.size() <= 8_000 && filter.size() >= 7_950, mode + " " + filter.size());
        for (String item : items) {
          assertTrue(filter.mightContain(item), mode + " " + item);
        }
      } finally {
        spark.conf().unset(HashBuffering.CONF);
      }
    }
  }

  @Test
  void mightContain_sameAnswersAsCore_nullForNull() {
    List<String> items = strings("probe-", 2_000);
    Dataset<Row> data = column(spark, DataTypes.StringType, items);
    CuckooFilter<CharSequence> filter =
        CuckooFunctions.buildFilter(data, data.col("v"), 2_000, 0.05, ItemHashers.utf8());
    byte[] bytes = PartialFilter.serialize(filter);

    List<String> probes = new ArrayList<>(strings("probe-", 4_000));
    probes.add(null);
    Dataset<Row> probeData = column(spark, DataTypes.StringType, probes);
    List<Row> answers =
        probeData
            .select(
                probeData.col("v"),
                CuckooFunctions.mightContain(
                    org.apache.spark.sql.functions.lit(bytes), probeData.col("v")))
            .collectAsList();
    assertEquals(probes.size(), answers.size());
    for (Row row : answers) {
      String value = row.getString(0);
      if (value == null) {
        assertNull(row.get(1));
      } else {
        assertEquals(filter.mightContain(value), row.getBoolean(1), value);
      }
    }
    Row nullFilter = spark.sql("SELECT cuckoo_might_contain(CAST(NULL AS BINARY), 'x')").first();
    assertNull(nullFilter.get(0));
  }

  @Test
  void mightContain_sqlWithScalarSubquery_integralColumn() {
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      values.add(i);
    }
    column(spark, DataTypes.IntegerType, values).createOrReplaceTempView("small");
    List<Object> big = new ArrayList<>();
    for (long i = 0; i < 5000; i++) {
      big.add(i);
    }
    column(spark, DataTypes.LongType, big).createOrReplaceTempView("big");
    long found =
        spark
            .sql(
                "SELECT count(*) FROM big WHERE cuckoo_might_contain("
                    + "(SELECT cuckoo_filter_agg(DISTINCT v, 1000, 0.0001) FROM small), v)")
            .first()
            .getLong(0);
    // 1000 members; 4000 non-members pass with probability about 1e-4 each
    assertTrue(found >= 1000 && found <= 1003, "found " + found);
  }
}
