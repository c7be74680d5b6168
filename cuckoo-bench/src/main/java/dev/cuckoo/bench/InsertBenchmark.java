package dev.cuckoo.bench;

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
 * Fills an empty filter, sized for {@code size} keys, with exactly {@code size} keys: inserts up to
 * the rated capacity. The score is the time of one whole fill (divide by {@code size} for the time
 * per insert; the report script does). The empty filter is allocated outside the timed region;
 * static filters (Xor8, the blocked Bloom filter, which has no public empty constructor) are timed
 * constructing from all keys, allocation included.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx8g", "-XX:+UseTransparentHugePages"})
public class InsertBenchmark {
  /** The keys and a fresh empty filter per invocation. */
  @State(Scope.Benchmark)
  public static class Inserts extends FilterState {
    /** The filter under test (the memory floor has nothing to insert into). */
    @Param({
      "CUCKOO",
      "GUAVA",
      "CUCKOOFILTER4J",
      "FF_CUCKOO16",
      "FF_CUCKOO8",
      "FF_CUCKOOPLUS16",
      "FF_BLOCKED_BLOOM",
      "FF_XOR8"
    })
    public FilterKind filter;

    long[] longKeys;
    String[] urlKeys;
    Subject empty;

    @Override
    protected FilterKind kind() {
      return filter;
    }

    /** Generates the keys. */
    @Setup(Level.Trial)
    public void setUp() {
      checkParameters();
      if (keys == KeyType.LONG) {
        longKeys = insertedLongs();
      } else {
        urlKeys = insertedUrls();
      }
    }

    /** Allocates the empty filter the next invocation fills. */
    @Setup(Level.Invocation)
    public void allocate() {
      empty = filter.incremental() ? filter.createEmpty(keys, size, fpr) : null;
    }
  }

  /** Inserts all keys; returns the number inserted (must be {@code size}). */
  @Benchmark
  public long insert(Inserts s) {
    if (s.empty == null) {
      Subject built = s.filter.build(s.longKeys, s.urlKeys, s.fpr);
      return built.bitCount() > 0 ? s.size : 0;
    }
    Subject subject = s.empty;
    long added = 0;
    if (s.longKeys != null) {
      for (long key : s.longKeys) {
        added += subject.add(key) ? 1 : 0;
      }
    } else {
      for (String key : s.urlKeys) {
        added += subject.add(key) ? 1 : 0;
      }
    }
    return added;
  }
}
