package dev.cuckoo.bench;

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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Lookups of pre-generated keys, {@code hitRatio} of them inserted, in random order. Throughput,
 * not latency: which key is probed next never depends on an answer, so the CPU may overlap the
 * lookups of consecutive keys (as a real loop over independent queries does).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx8g", "-XX:+UseTransparentHugePages"})
public class LookupBenchmark {
  /** Keys looked up per benchmark invocation. */
  public static final int BATCH = 1024;

  /** Number of distinct probe keys cycled through. */
  static final int PROBES = 1 << 20;

  /** The filter and the probe keys. */
  @State(Scope.Benchmark)
  public static class Lookups extends FilterState {
    /** The filter under test. */
    @Param({
      "CUCKOO",
      "GUAVA",
      "CUCKOOFILTER4J",
      "FF_CUCKOO16",
      "FF_CUCKOO8",
      "FF_CUCKOOPLUS16",
      "FF_BLOCKED_BLOOM",
      "FF_XOR8",
      "MEMORY_FLOOR"
    })
    public FilterKind filter;

    /** Fraction of probes that were inserted. */
    @Param({"0.5", "1.0", "0.0"})
    public double hitRatio;

    Subject subject;
    long[] longProbes;
    String[] urlProbes;

    /** Whether probe j is a key that was inserted. */
    boolean[] hit;

    long[] resultBits = new long[BATCH / 64];
    int cursor;

    @Override
    protected FilterKind kind() {
      return filter;
    }

    /** Builds the filter and the probes. */
    @Setup(Level.Trial)
    public void setUp() {
      subject = buildFilter();
      int probes = Math.min(PROBES, Math.max(BATCH, Integer.highestOneBit(2 * size)));
      hit = new boolean[probes];
      long[] indexes = new long[probes];
      for (int j = 0; j < probes; j++) {
        long r = Keys.mix(j ^ 0x3C6EF372FE94F82BL);
        hit[j] = (r >>> 11) * 0x1.0p-53 < hitRatio;
        indexes[j] = hit[j] ? Long.remainderUnsigned(Keys.mix(r), size) : FilterState.MISS_BASE + j;
      }
      if (keys == KeyType.LONG) {
        longProbes = Keys.longKeys(indexes);
      } else {
        urlProbes = Keys.urlKeys(indexes);
      }
    }

    /** Returns the first probe of the next block and advances. */
    int nextBlock() {
      int start = cursor;
      cursor = (start + BATCH) & (hit.length - 1);
      return start;
    }
  }

  /**
   * Single lookups of BATCH keys, each answer handed to the blackhole.
   *
   * <p>Not counted: a loop that adds up the answers was compiled with a conditional branch on each
   * answer, and with 50% hits that branch is mispredicted half the time; a mispredicted branch that
   * waits for a cache miss discards the lookups issued after it, so the lookups of a mixed batch
   * were no longer independent. CUCKOO, 10^6 keys, ε = 0.1%: 14.3 ns (no hits), 13.9 ns (all hits),
   * 23.0 ns (50% hits); 10^7 keys: 25.0 / 28.3 ns vs 60.8 ns mixed, and fastfilter Cuckoo16 alike.
   * A compiler blackhole takes each answer without a branch.
   */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void lookup(Lookups s, Blackhole blackhole) {
    int start = s.nextBlock();
    Subject subject = s.subject;
    if (s.longProbes != null) {
      long[] probes = s.longProbes;
      for (int i = start; i < start + BATCH; i++) {
        blackhole.consume(subject.mightContain(probes[i]));
      }
    } else {
      String[] probes = s.urlProbes;
      for (int i = start; i < start + BATCH; i++) {
        blackhole.consume(subject.mightContain(probes[i]));
      }
    }
  }

  /** Counts the keys of the block at {@code start} that {@link #lookup} reports present (tests). */
  static int countFound(Lookups s, int start) {
    int found = 0;
    for (int i = start; i < start + BATCH; i++) {
      boolean answer =
          s.longProbes != null
              ? s.subject.mightContain(s.longProbes[i])
              : s.subject.mightContain(s.urlProbes[i]);
      found += answer ? 1 : 0;
    }
    return found;
  }

  /**
   * One batch lookup of BATCH keys (this project's {@code mightContainAll}; filters without a batch
   * API answer key by key); returns how many were reported present.
   */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int batchLookup(Lookups s) {
    int start = s.nextBlock();
    long[] bits = s.resultBits;
    if (s.longProbes != null) {
      s.subject.mightContainAll(s.longProbes, start, start + BATCH, bits);
    } else {
      s.subject.mightContainAll(s.urlProbes, start, start + BATCH, bits);
    }
    int found = 0;
    for (long word : bits) {
      found += Long.bitCount(word);
    }
    return found;
  }
}
