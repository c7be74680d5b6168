package dev.cuckoo.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.ShardedCuckooFilter;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * 2·10^6 distinct strings in 8 partitions through the aggregate (every buffering) and the sharded
 * build: no false negatives, false positives within a binomial bound. Tagged {@code slow}: run with
 * {@code mvn verify -Plong} or {@code -Dtest.excludedTags=}.
 */
@Tag("slow")
class LargeBuildTest {
  private static final long ITEMS = 2_000_000;
  private final SparkSession spark = SparkTestSession.get();

  private Dataset<Row> members() {
    return spark.range(0, ITEMS, 1, 8).selectExpr("md5(CAST(id AS STRING)) AS v");
  }

  private Dataset<Row> absent() {
    return spark.range(ITEMS, ITEMS + 1_000_000, 1, 8).selectExpr("md5(CAST(id AS STRING)) AS v");
  }

  private static void assertBounded(long falsePositives, long probes, double rate) {
    double mean = probes * rate;
    double bound = mean + 5 * Math.sqrt(mean) + 1;
    assertTrue(falsePositives <= bound, falsePositives + " > " + bound);
  }

  @Test
  void aggregate_everyBuffering_noFalseNegatives_boundedFalsePositives() {
    Dataset<Row> members = members();
    for (String mode : List.of("auto", "filter", "hashes")) {
      spark.conf().set(HashBuffering.CONF, mode);
      try {
        byte[] bytes =
            members
                .agg(CuckooFunctions.cuckooFilterAgg(members.col("v"), ITEMS, 0.001))
                .first()
                .getAs(0);
        CuckooFilter<CharSequence> filter = CuckooFunctions.readFilter(bytes, ItemHashers.utf8());
        Dataset<Row> probe =
            members.where(
                org.apache.spark.sql.functions.not(
                    CuckooFunctions.mightContain(
                        org.apache.spark.sql.functions.lit(bytes), members.col("v"))));
        assertEquals(0, probe.count(), mode + ": false negatives");
        Dataset<Row> absent = absent();
        long falsePositives =
            absent
                .where(
                    CuckooFunctions.mightContain(
                        org.apache.spark.sql.functions.lit(bytes), absent.col("v")))
                .count();
        assertBounded(falsePositives, 1_000_000, filter.expectedFalsePositiveRate());
      } finally {
        spark.conf().unset(HashBuffering.CONF);
      }
    }
  }

  @Test
  void shardedBuild_noFalseNegatives_boundedFalsePositives() {
    Dataset<Row> members = members();
    ShardedCuckooFilter<CharSequence> filter =
        CuckooFunctions.buildShardedFilter(
            members, members.col("v"), ITEMS, 0.001, 5, ItemHashers.utf8());
    for (Row row : members.collectAsList()) {
      assertTrue(filter.mightContain(row.getString(0)), row.getString(0));
    }
    long falsePositives = 0;
    for (Row row : absent().collectAsList()) {
      falsePositives += filter.mightContain(row.getString(0)) ? 1 : 0;
    }
    assertBounded(falsePositives, 1_000_000, filter.expectedFalsePositiveRate());
  }
}
