package dev.cuckoo.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHashers;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * spark.sql.extensions=dev.cuckoo.spark.CuckooSparkExtensions gives every session the functions.
 */
class ExtensionsTest {
  @Test
  void newSession_withoutRegister_hasTheFunctions() {
    // a new session has a new function registry: only the extensions put the functions there
    SparkSession parent = SparkTestSession.get();
    parent
        .udf()
        .register(
            "cuckoo_test_only",
            org.apache.spark.sql.functions.udf(
                (org.apache.spark.sql.api.java.UDF1<Long, Long>) x -> x,
                org.apache.spark.sql.types.DataTypes.LongType));
    SparkSession session = parent.newSession();
    // temporary functions of the parent (as register() makes) are not in the new session
    assertTrue(parent.catalog().functionExists("cuckoo_test_only"));
    assertTrue(!session.catalog().functionExists("cuckoo_test_only"));
    byte[] bytes =
        session.sql("SELECT cuckoo_filter_agg(id, 100, 0.01) FROM range(100)").first().getAs(0);
    CuckooFilter<Long> filter = CuckooFunctions.readFilter(bytes, ItemHashers.longs());
    for (long i = 0; i < 100; i++) {
      assertTrue(filter.mightContain(i));
    }
    assertEquals(
        100L,
        session
            .sql(
                "SELECT count(*) FROM range(100) WHERE cuckoo_might_contain("
                    + "(SELECT cuckoo_redisbloom_agg(id, 400) FROM range(100)), id)")
            .first()
            .getLong(0));
  }
}
