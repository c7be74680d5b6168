package dev.cuckoo.bench;

import dev.cuckoo.ConcurrentCuckooFilter;
import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHashers;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Lookups in a {@link ConcurrentCuckooFilter} next to the same lookups in a plain {@link
 * CuckooFilter} of the same geometry, with 1 and 2 threads sharing one filter (no writers).
 * Throughput: compare {@code lookup1} of CONCURRENT with {@code lookup1} of PLAIN for the cost of
 * the seqlock validation, and {@code lookup2} with {@code lookup1} of CONCURRENT for scaling. Half
 * of the probes were inserted. Keys are longs, hashed in the loop for both filters.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g", "-XX:+UseTransparentHugePages"})
public class ConcurrentLookupBenchmark {
  /** Keys looked up per benchmark invocation. */
  public static final int BATCH = 1024;

  /** Number of distinct probe keys (a power of two). */
  static final int PROBES = 1 << 20;

  /** Which filter answers. */
  public enum Kind {
    /** {@link CuckooFilter}: not thread-safe, read-only here, so sharing it is fine. */
    PLAIN,
    /** {@link ConcurrentCuckooFilter} with its default stripes. */
    CONCURRENT
  }

  /** The shared filter and the probes. */
  @State(Scope.Benchmark)
  public static class Shared {
    /** Which filter answers. */
    @Param({"PLAIN", "CONCURRENT"})
    public Kind kind;

    /** Number of items inserted (the filter is sized for exactly this many). */
    @Param({"100000", "10000000"})
    public int size;

    CuckooFilter<Long> plain;
    ConcurrentCuckooFilter<Long> concurrent;
    long[] probes;

    /** Whether probe j was inserted. */
    boolean[] hit;

    /** Builds the filter and the probes. */
    @Setup(Level.Trial)
    public void setUp() {
      if (kind == Kind.PLAIN) {
        plain = CuckooFilter.<Long>builder(ItemHashers.longs()).expectedItems(size).build();
      } else {
        concurrent =
            ConcurrentCuckooFilter.<Long>builder(ItemHashers.longs()).expectedItems(size).build();
      }
      for (long i = 0; i < size; i++) {
        long hash = ItemHashers.hashLong(Keys.longKey(i));
        boolean added = kind == Kind.PLAIN ? plain.addHash(hash) : concurrent.addHash(hash);
        if (!added) {
          throw new IllegalStateException("insert " + i + " of " + size + " failed");
        }
      }
      int count = Math.min(PROBES, Integer.highestOneBit(Math.max(BATCH, 2 * size)));
      probes = new long[count];
      hit = new boolean[count];
      for (int j = 0; j < count; j++) {
        long r = Keys.mix(j ^ 0x6A09E667F3BCC909L);
        hit[j] = (r & 1) == 0;
        probes[j] = Keys.longKey(hit[j] ? Long.remainderUnsigned(r >>> 1, size) : size + (long) j);
      }
    }

    /**
     * Looks up BATCH probes from {@code start}, handing each answer to the blackhole (not counted:
     * see {@link LookupBenchmark#lookup}).
     */
    void lookup(int start, Blackhole blackhole) {
      long[] keys = probes;
      if (plain != null) {
        CuckooFilter<Long> filter = plain;
        for (int i = start; i < start + BATCH; i++) {
          blackhole.consume(filter.mightContainHash(ItemHashers.hashLong(keys[i])));
        }
      } else {
        ConcurrentCuckooFilter<Long> filter = concurrent;
        for (int i = start; i < start + BATCH; i++) {
          blackhole.consume(filter.mightContainHash(ItemHashers.hashLong(keys[i])));
        }
      }
    }

    /** Returns how many of the BATCH probes from {@code start} are reported present (tests). */
    int countFound(int start) {
      int found = 0;
      for (int i = start; i < start + BATCH; i++) {
        long hash = ItemHashers.hashLong(probes[i]);
        boolean answer =
            plain != null ? plain.mightContainHash(hash) : concurrent.mightContainHash(hash);
        found += answer ? 1 : 0;
      }
      return found;
    }
  }

  /** Each thread's position in the probes; threads start far apart. */
  @State(Scope.Thread)
  public static class Cursor {
    int position;

    /** Places the cursor at a random block. */
    @Setup(Level.Trial)
    public void setUp(Shared shared) {
      position =
          (int) (Keys.mix(System.identityHashCode(this)) & (shared.probes.length - 1)) & -BATCH;
    }

    int next(Shared shared) {
      int start = position;
      position = (start + BATCH) & (shared.probes.length - 1);
      return start;
    }
  }

  /** One thread looking up. */
  @Benchmark
  @Threads(1)
  @OperationsPerInvocation(BATCH)
  public void lookup1(Shared shared, Cursor cursor, Blackhole blackhole) {
    shared.lookup(cursor.next(shared), blackhole);
  }

  /** Two threads looking up in the same filter. */
  @Benchmark
  @Threads(2)
  @OperationsPerInvocation(BATCH)
  public void lookup2(Shared shared, Cursor cursor, Blackhole blackhole) {
    shared.lookup(cursor.next(shared), blackhole);
  }
}
