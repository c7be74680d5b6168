package dev.cuckoo.spark;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHashers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.util.sketch.BloomFilter;

/**
 * A main-class benchmark (not a test): {@code cuckoo_filter_agg} against Spark's {@code
 * df.stat().bloomFilter} on the same cached column of distinct strings, local[2], at fpp 0.1%:
 * build time, bytes, measured false-positive rate; and {@code cuckoo_might_contain} rows per
 * second. Prints a Markdown table of medians. The command is in docs/spark.md.
 *
 * <p>Arguments: {@code [items (10000000)] [repetitions (5)] [partitions (4)] [Spark's bloom filter
 * bit cap (1073741824)]}.
 */
public final class SparkFilterBenchmark {
  private static final double FPP = 0.001;
  private static final int PROBES = 1_000_000;
  private static final String BLOOM_MAX_BITS = "spark.sql.optimizer.runtime.bloomFilter.maxNumBits";

  private SparkFilterBenchmark() {}

  /**
   * Runs the benchmark.
   *
   * @param args items, repetitions, partitions
   * @throws IOException never (in-memory streams)
   */
  public static void main(String[] args) throws IOException {
    long items = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
    int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    SparkSession spark = SparkTestSession.create("cuckoo-spark-benchmark", partitions);
    spark.sparkContext().setLogLevel("WARN");
    // Spark 4 caps df.stat().bloomFilter at this many bits (default 67108864 = 8 MiB, about 6.7
    // bits an item at 10^7 items, far above the asked rate); raised so it gets the bits it asks for
    spark.conf().set(BLOOM_MAX_BITS, args.length > 3 ? args[3] : "1073741824");
    System.out.println(BLOOM_MAX_BITS + " = " + spark.conf().get(BLOOM_MAX_BITS));
    CuckooFunctions.register(spark);

    // 32-character hex strings, distinct; the same cached column for every build
    Dataset<Row> data =
        spark.range(0, items, 1, partitions).selectExpr("md5(CAST(id AS STRING)) AS v").cache();
    System.out.printf("rows: %d in %d partitions%n", data.count(), partitions);

    List<String> rows = new ArrayList<>();
    byte[] cuckooBytes = null;
    BloomFilter bloom = null;
    for (String buffering : new String[] {"auto", "filter", "hashes"}) {
      spark.conf().set(HashBuffering.CONF, buffering);
      long[] cuckooNanos = new long[repetitions];
      long[] bloomNanos = new long[repetitions];
      for (int r = 0; r < repetitions; r++) {
        byte[][] result = new byte[1][];
        cuckooNanos[r] =
            time(
                () -> {
                  result[0] =
                      data.agg(CuckooFunctions.cuckooFilterAgg(data.col("v"), items, FPP))
                          .first()
                          .getAs(0);
                  return result[0].length;
                });
        cuckooBytes = result[0];
        if (buffering.equals("auto")) {
          BloomFilter[] built = new BloomFilter[1];
          bloomNanos[r] =
              time(
                  () -> {
                    built[0] = data.stat().bloomFilter("v", items, FPP);
                    return built[0].bitSize();
                  });
          bloom = built[0];
        }
      }
      rows.add(
          String.format(
              Locale.ROOT,
              "| cuckoo_filter_agg (buffer %s) | %s |",
              buffering,
              seconds(cuckooNanos)));
      if (buffering.equals("auto")) {
        rows.add(String.format(Locale.ROOT, "| df.stat().bloomFilter | %s |", seconds(bloomNanos)));
        rows.add(
            String.format(
                Locale.ROOT,
                "| build time ratio cuckoo/bloom (medians) | %.3f |",
                (double) median(cuckooNanos) / median(bloomNanos)));
      }
    }
    spark.conf().unset(HashBuffering.CONF);

    // the partitioned build: hashes shuffled by shard, 16 shards built by the tasks
    long[] shardedNanos = new long[repetitions];
    for (int r = 0; r < repetitions; r++) {
      shardedNanos[r] =
          time(
              () ->
                  CuckooFunctions.buildShardedFilter(
                          data, data.col("v"), items, FPP, 4, ItemHashers.utf8())
                      .size());
    }
    rows.add(
        String.format(
            Locale.ROOT,
            "| buildShardedFilter (16 shards, collected to the driver) | %s |",
            seconds(shardedNanos)));

    CuckooFilter<CharSequence> cuckoo = CuckooFunctions.readFilter(cuckooBytes, ItemHashers.utf8());
    ByteArrayOutputStream bloomOut = new ByteArrayOutputStream();
    bloom.writeTo(bloomOut);
    List<Row> absent =
        spark
            .range(items, items + PROBES, 1, partitions)
            .selectExpr("md5(CAST(id AS STRING)) AS v")
            .collectAsList();
    long cuckooFalse = 0;
    long bloomFalse = 0;
    for (Row row : absent) {
      String value = row.getString(0);
      cuckooFalse += cuckoo.mightContain(value) ? 1 : 0;
      bloomFalse += bloom.mightContainString(value) ? 1 : 0;
    }
    rows.add(
        String.format(
            Locale.ROOT,
            "| bytes: cuckoo %d (%.2f bits/item), bloom %d (%.2f bits/item) | ratio %.3f |",
            cuckooBytes.length,
            cuckooBytes.length * 8.0 / items,
            bloomOut.size(),
            bloomOut.size() * 8.0 / items,
            (double) cuckooBytes.length / bloomOut.size()));
    rows.add(
        String.format(
            Locale.ROOT,
            "| measured fpp (%d absent): cuckoo %.5f, bloom %.5f | target %.3f |",
            PROBES,
            (double) cuckooFalse / PROBES,
            (double) bloomFalse / PROBES,
            FPP));

    byte[] filterBytes = cuckooBytes;
    long[] probeNanos = new long[repetitions];
    long[] found = new long[1];
    for (int r = 0; r < repetitions; r++) {
      probeNanos[r] =
          time(
              () -> {
                found[0] =
                    data.where(
                            CuckooFunctions.mightContain(functions.lit(filterBytes), data.col("v")))
                        .count();
                return found[0];
              });
    }
    rows.add(
        String.format(
            Locale.ROOT,
            "| cuckoo_might_contain over %d rows (%d true) | %s; %.2f M rows/s |",
            items,
            found[0],
            seconds(probeNanos),
            items / (median(probeNanos) / 1e9) / 1e6));
    System.out.println("| measurement | median of " + repetitions + " (min-max) |");
    System.out.println("|---|---|");
    rows.forEach(System.out::println);
    spark.stop();
  }

  private static long time(LongSupplier work) {
    long start = System.nanoTime();
    long sink = work.getAsLong();
    long elapsed = System.nanoTime() - start;
    if (sink == Long.MIN_VALUE) {
      System.out.println("unexpected");
    }
    return elapsed;
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static String seconds(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return String.format(
        Locale.ROOT,
        "%.2f s (%.2f-%.2f)",
        median(nanos) / 1e9,
        sorted[0] / 1e9,
        sorted[sorted.length - 1] / 1e9);
  }
}
