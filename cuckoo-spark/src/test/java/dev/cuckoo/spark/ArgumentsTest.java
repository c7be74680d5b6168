package dev.cuckoo.spark;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Bad arguments and filters that cannot hold the data fail with messages that say why. */
class ArgumentsTest {
  private final SparkSession spark = SparkTestSession.get();

  private static void assertFails(Executable call, String... fragments) {
    Throwable thrown = assertThrows(Throwable.class, call);
    StringBuilder messages = new StringBuilder();
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    for (String fragment : fragments) {
      assertTrue(messages.toString().contains(fragment), "no '" + fragment + "' in: " + messages);
    }
  }

  private void sql(String query) {
    spark.sql(query).collectAsList();
  }

  @Test
  void sql_fppOutOfRange_namesParameterValueAndRange() {
    spark.range(10).selectExpr("CAST(id AS STRING) AS v").createOrReplaceTempView("ten");
    assertFails(
        () -> sql("SELECT cuckoo_filter_agg(v, 10, 0.0) FROM ten"),
        "fpp: 0.0",
        "1.0E-8 <= fpp < 1.0");
    assertFails(
        () -> sql("SELECT cuckoo_filter_agg(v, 10, 1.5) FROM ten"), "fpp: 1.5", "fpp < 1.0");
    assertFails(() -> sql("SELECT cuckoo_filter_agg(v, 10, 1e-12) FROM ten"), "fpp: 1.0E-12");
  }

  @Test
  void sql_expectedItemsOutOfRange_namesParameterValueAndRange() {
    spark.range(10).selectExpr("id AS v").createOrReplaceTempView("ten_longs");
    assertFails(
        () -> sql("SELECT cuckoo_filter_agg(v, 0) FROM ten_longs"),
        "expectedItems: 0",
        "1 <= expectedItems <= ");
    assertFails(
        () -> sql("SELECT cuckoo_filter_agg(v, -5, 0.01) FROM ten_longs"), "expectedItems: -5");
    assertFails(
        () -> sql("SELECT cuckoo_filter_agg(v, 100000000000, 0.01) FROM ten_longs"),
        "expectedItems: 100000000000",
        "2 GiB");
    assertFails(() -> sql("SELECT cuckoo_redisbloom_agg(v, 0) FROM ten_longs"), "capacity: 0");
    assertFails(
        () -> sql("SELECT cuckoo_filter_agg(v, v) FROM ten_longs"),
        "expectedItems",
        "expected: a constant");
    assertFails(
        () -> sql("SELECT cuckoo_filter_agg(v, 2.5) FROM ten_longs"),
        "expectedItems: 2.5",
        "an integer constant");
    assertFails(() -> sql("SELECT cuckoo_filter_agg(v) FROM ten_longs"), "1 arguments");
  }

  @Test
  void sql_unsupportedColumnType_namesTheType() {
    assertFails(
        () -> sql("SELECT cuckoo_filter_agg(CAST(id AS DOUBLE), 10) FROM range(10)"),
        "double",
        "string, tinyint, smallint, int, bigint or binary");
  }

  @Test
  void columnApi_validatesEagerly() {
    Dataset<Row> data = spark.range(10).toDF("v");
    assertFails(() -> CuckooFunctions.cuckooFilterAgg(data.col("v"), 0, 0.01), "expectedItems: 0");
    assertFails(() -> CuckooFunctions.cuckooFilterAgg(data.col("v"), 10, 1.0), "fpp: 1.0");
    assertFails(() -> CuckooFunctions.redisBloomFilterAgg(data.col("v"), -1), "capacity: -1");
  }

  @Test
  void tooManyDistinctValues_inOneTask_failsWithCounts() {
    assertFails(
        () -> sql("SELECT cuckoo_filter_agg(id, 100) FROM range(0, 5000, 1, 1)"),
        "cuckoo_filter_agg: the filter for 100 items at fpp 0.01 is full",
        "fingerprints stored, capacity");
  }

  @Test
  void partialFiltersThatDoNotFit_failTheMergeWithCounts() {
    // the same 3000 values in each of 4 partitions: 4 partial filters of 3000 fingerprints
    List<Object> values = new ArrayList<>();
    for (int copy = 0; copy < 4; copy++) {
      for (long i = 0; i < 3000; i++) {
        values.add(i);
      }
    }
    Dataset<Row> data =
        FilterAggregateTest.column(spark, DataTypes.LongType, values).repartition(4);
    data.createOrReplaceTempView("copies");
    spark.conf().set(HashBuffering.CONF, "filter");
    try {
      assertFails(
          () -> sql("SELECT cuckoo_filter_agg(v, 3000) FROM copies"),
          "cannot merge two partial filters",
          " fingerprints do not fit in 3264 slots",
          "nothing was merged");
      // the same values, each sent to one task: fits
      sql("SELECT cuckoo_filter_agg(DISTINCT v, 3000) FROM copies");
    } finally {
      spark.conf().unset(HashBuffering.CONF);
    }
  }

  @Test
  void mightContain_filterOfAnotherColumnType_isRefused() {
    assertFails(
        () ->
            sql(
                "SELECT cuckoo_might_contain((SELECT cuckoo_filter_agg(id, 10) FROM range(10)),"
                    + " CAST(id AS STRING)) FROM range(3)"),
        "cuckoo_might_contain: the filter was built from another type of column");
    assertFails(
        () ->
            sql(
                "SELECT cuckoo_might_contain((SELECT cuckoo_filter_agg(id, 10) FROM range(10)),"
                    + " CAST(id AS DOUBLE)) FROM range(3)"),
        "cuckoo_might_contain: a column of type double");
    assertFails(
        () -> sql("SELECT cuckoo_might_contain(X'00') FROM range(3)"),
        "cuckoo_might_contain: 1 arguments (expected: cuckoo_might_contain(filter, col))");
  }
}
