package dev.cuckoo.bench;

import dev.cuckoo.RedisCuckooFilter;
import java.util.ArrayList;
import java.util.List;
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
 * Creation of an empty RedisBloom-compatible filter, as {@code CF.RESERVE key 1073741824} does in
 * the server: a {@code RedisCuckooFilter} of that capacity and bucket size, 1 GiB of slots for the
 * default capacity and any bucket size that is a power of two. One fresh filter per invocation; the
 * previous one is dropped before it, outside the timed region.
 *
 * <p>Heap: {@code -Xmx8g} (the JVM's default is a quarter of the RAM), enough for {@code
 * FIVE_DROPPED}'s five garbage filters and the new one. The time is mostly the JVM zeroing the new
 * arrays, and it depends on whether the heap memory they land in was touched before: the first
 * iteration of a fork (no warmup) allocates into memory fresh from the operating system and pays a
 * page fault per 4 KiB page, later ones mostly reuse pages. Quote them separately. Heap flags
 * change that part a lot: compare with {@code -jvmArgsAppend -XX:+UseTransparentHugePages} or
 * {@code -jvmArgsAppend -XX:+AlwaysPreTouch} (replacing the {@code -Xmx8g} unless repeated).
 *
 * <p>Measured on a 2-vCPU VM shared with other builds, 3 forks × 8 iterations, bucket sizes 1, 2
 * and 4 alike: the first iteration of a fork 0.41-0.48 s, the others median 21-23 ms; with {@code
 * FIVE_DROPPED}, 0.2-1.1 s while the heap grows into memory not touched yet (the first one to three
 * iterations), then median 23 ms. With {@code -Xms8g -Xmx8g -XX:+AlwaysPreTouch} (which touches the
 * whole heap at startup, 6-7 s here) every creation took at most 85 ms, median 21.
 *
 * <pre>
 * java -jar cuckoo-bench/target/benchmarks.jar CreateBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 8)
@Fork(
    value = 3,
    jvmArgsAppend = {"-Xmx8g"})
public class CreateBenchmark {
  /** What the heap held before the creation. */
  public enum Before {
    /** Only the filter of the previous invocation, dropped. */
    NONE,
    /** Five more filters of the same size, created and dropped right before (DEL / FLUSHALL). */
    FIVE_DROPPED
  }

  /** The filter's parameters and the garbage left before each creation. */
  @State(Scope.Thread)
  public static class Creation {
    /** Items of the filter; 2^30 makes 1 GiB of slots for bucket sizes 1, 2 and 4. */
    @Param({"1073741824"})
    public long capacity;

    /** Slots per bucket. */
    @Param({"1", "2", "4"})
    public int bucketSize;

    /** The garbage in the heap when the filter is created. */
    @Param({"NONE", "FIVE_DROPPED"})
    public Before before;

    RedisCuckooFilter<byte[]> created;

    /** Drops the previous filter and, for {@link Before#FIVE_DROPPED}, makes five more garbage. */
    @Setup(Level.Invocation)
    public void dropPrevious() {
      created = null;
      if (before == Before.FIVE_DROPPED) {
        List<RedisCuckooFilter<byte[]>> dropped = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          dropped.add(reserve(capacity, bucketSize));
        }
        dropped.clear();
      }
    }
  }

  /** Creates the filter; returns its size in bytes. */
  @Benchmark
  public long create(Creation s) {
    s.created = reserve(s.capacity, s.bucketSize);
    return s.created.sizeInBytes();
  }

  /**
   * CF.RESERVE key capacity BUCKETSIZE bucketSize (MAXITERATIONS 20, EXPANSION 1: the defaults).
   */
  static RedisCuckooFilter<byte[]> reserve(long capacity, int bucketSize) {
    return RedisCuckooFilter.reserve(
        capacity,
        bucketSize,
        RedisCuckooFilter.DEFAULT_MAX_ITERATIONS,
        RedisCuckooFilter.DEFAULT_EXPANSION);
  }
}
