package dev.cuckoo.bench;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.ShardedCuckooFilter;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The bulk build of a {@link ShardedCuckooFilter} from precomputed 64-bit hashes on 1 and 2 threads
 * ({@code addAllHashes}), next to filling one plain {@link CuckooFilter} of the same size with
 * {@code addHash}: the speed-up of building shards in parallel on one machine. A fresh empty filter
 * per invocation, allocated outside the timed region; the time includes grouping the hashes by
 * shard.
 *
 * <pre>
 * java -jar cuckoo-bench/target/benchmarks.jar ShardedBuildBenchmark
 * </pre>
 *
 * <p>Results and the machine: docs/spark.md.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 8)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xmx3g"})
public class ShardedBuildBenchmark {
  /** The hashes and an empty filter for each invocation. */
  @State(Scope.Thread)
  public static class Build {
    /** Items added. */
    @Param({"10000000"})
    public int items;

    /** Top hash bits choosing the shard: 2^shardBits shards. */
    @Param({"6"})
    public int shardBits;

    /** Threads of {@code addAllHashes}. */
    @Param({"1", "2"})
    public int threads;

    long[] hashes;
    ShardedCuckooFilter<CharSequence> sharded;
    CuckooFilter<CharSequence> plain;

    /** Draws the hashes once per trial (fixed seed). */
    @Setup(Level.Trial)
    public void hashes() {
      SplittableRandom random = new SplittableRandom(20261124L);
      hashes = new long[items];
      for (int i = 0; i < items; i++) {
        hashes[i] = random.nextLong();
      }
    }

    /** A fresh, empty filter before every build. */
    @Setup(Level.Invocation)
    public void emptyFilters() {
      sharded = null;
      plain = null;
      sharded =
          ShardedCuckooFilter.builder(ItemHashers.utf8())
              .expectedItems(items)
              .falsePositiveRate(0.001)
              .shardBits(shardBits)
              .build();
      plain =
          CuckooFilter.builder(ItemHashers.utf8())
              .expectedItems(items)
              .falsePositiveRate(0.001)
              .build();
    }
  }

  /**
   * Adds every hash to the sharded filter on {@code threads} threads.
   *
   * @param build the state
   * @return the hashes that did not fit (0)
   */
  @Benchmark
  public long sharded(Build build) {
    return build.sharded.addAllHashes(build.hashes, 0, build.hashes.length, build.threads);
  }

  /**
   * Adds every hash to one plain filter, one by one (the baseline; {@code threads} is ignored).
   *
   * @param build the state
   * @return the hashes that did not fit (0)
   */
  @Benchmark
  public long plain(Build build) {
    long failed = 0;
    for (long hash : build.hashes) {
      if (!build.plain.addHash(hash)) {
        failed++;
      }
    }
    return failed;
  }
}
