package dev.cuckoo.spark;

import org.apache.spark.sql.SparkSession;

/** The one local SparkSession all tests of the module share (starting one takes seconds). */
final class SparkTestSession {
  private static SparkSession spark;

  private SparkTestSession() {}

  /** Returns the shared session, creating it (and registering the functions) on first use. */
  static synchronized SparkSession get() {
    if (spark == null) {
      spark =
          builder("cuckoo-spark-tests", 4)
              .config("spark.sql.extensions", CuckooSparkExtensions.class.getName())
              .getOrCreate();
      CuckooFunctions.register(spark);
    }
    return spark;
  }

  /** Creates a local[2] session on loopback only, without UI. */
  static SparkSession create(String name, int shufflePartitions) {
    return builder(name, shufflePartitions).getOrCreate();
  }

  private static SparkSession.Builder builder(String name, int shufflePartitions) {
    return SparkSession.builder()
        .appName(name)
        .master("local[2]")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", shufflePartitions)
        .config("spark.sql.adaptive.enabled", "false");
  }
}
