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

/**
 * Deletes on a full filter: each operation removes an inserted key and adds it back, so the filter
 * stays full and the benchmark can run indefinitely. The score is per remove-and-add pair. Only
 * filters that can delete take part (fastfilter 1.0.2's cuckoo filters cannot).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx8g", "-XX:+UseTransparentHugePages"})
public class DeleteBenchmark {
  /** Keys per benchmark invocation. */
  public static final int BATCH = 1024;

  /** A full filter and the keys to delete, in random order. */
  @State(Scope.Benchmark)
  public static class Deletes extends FilterState {
    /** The filter under test. */
    @Param({"CUCKOO", "CUCKOOFILTER4J"})
    public FilterKind filter;

    Subject subject;
    long[] longKeys;
    String[] urlKeys;
    int cursor;

    @Override
    protected FilterKind kind() {
      return filter;
    }

    /** Builds the full filter and the delete order. */
    @Setup(Level.Trial)
    public void setUp() {
      subject = buildFilter();
      int count = Math.max(BATCH, Math.min(LookupBenchmark.PROBES, Integer.highestOneBit(size)));
      long[] indexes = new long[count];
      for (int j = 0; j < count; j++) {
        indexes[j] = Long.remainderUnsigned(Keys.mix(j ^ 0x7F4A7C15L), size);
      }
      if (keys == KeyType.LONG) {
        longKeys = Keys.longKeys(indexes);
      } else {
        urlKeys = Keys.urlKeys(indexes);
      }
    }

    int nextBlock(int length) {
      int start = cursor;
      cursor = (start + BATCH) & (length - 1);
      return start;
    }
  }

  /** Removes and re-adds BATCH keys; returns the number of successful removes plus adds. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int deleteAndReinsert(Deletes s) {
    Subject subject = s.subject;
    int done = 0;
    if (s.longKeys != null) {
      int start = s.nextBlock(s.longKeys.length);
      for (int i = start; i < start + BATCH; i++) {
        long key = s.longKeys[i];
        done += (subject.remove(key) ? 1 : 0) + (subject.add(key) ? 1 : 0);
      }
    } else {
      int start = s.nextBlock(s.urlKeys.length);
      for (int i = start; i < start + BATCH; i++) {
        String key = s.urlKeys[i];
        done += (subject.remove(key) ? 1 : 0) + (subject.add(key) ? 1 : 0);
      }
    }
    return done;
  }
}
