package dev.cuckoo.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The parameters every benchmark shares — filter, key type, number of keys, target rate — and the
 * filter built from them, with its measured bits per key and false-positive rate.
 *
 * <p>The measured rate comes from {@value #FPR_PROBES} keys that were never inserted, probed once
 * at setup; it is printed and, if the system property {@value #STATS_PROPERTY} names a file,
 * appended to it as a CSV line, so every result row can carry it.
 */
@State(Scope.Benchmark)
public abstract class FilterState {
  /** System property naming the CSV file the filter statistics are appended to. */
  public static final String STATS_PROPERTY = "cuckoo.bench.stats";

  /** Number of never-inserted keys the false-positive rate is measured with. */
  public static final int FPR_PROBES = 1_000_000;

  /** Index of the first miss key that probes use; FPR keys come after the probes. */
  static final long MISS_BASE = 1L << 40;

  /** The key type. */
  @Param({"LONG", "URL"})
  public KeyType keys;

  /** Number of keys inserted (the filter is sized for exactly this many). */
  @Param({"10000", "1000000", "10000000"})
  public int size;

  /** Target false-positive rate. */
  @Param({"0.01", "0.001"})
  public double fpr;

  /** Number of never-inserted keys probed to measure the rate (tests use fewer). */
  public int fprProbes = FPR_PROBES;

  /** Bits of table per inserted key, set by {@link #buildFilter}. */
  public double bitsPerKey;

  /** False-positive rate measured after {@link #buildFilter}. */
  public double measuredFpr;

  /**
   * Returns the filter under test (each benchmark declares its own list as parameter {@code
   * filter}).
   */
  protected abstract FilterKind kind();

  /** Returns the inserted long keys (LONG key type). */
  protected final long[] insertedLongs() {
    return Keys.longKeys(0, size);
  }

  /** Returns the inserted URL keys (URL key type). */
  protected final String[] insertedUrls() {
    return Keys.urlKeys(0, size);
  }

  /** Rejects parameter combinations that do not exist (the memory floor with string keys). */
  protected final void checkParameters() {
    if (keys == KeyType.URL && !kind().acceptsStrings()) {
      throw new UnsupportedOperationException(kind() + " takes long keys only; skip keys=URL");
    }
  }

  /** Builds the filter with keys {@code 0 .. size−1}, measures and records its statistics. */
  protected final Subject buildFilter() {
    checkParameters();
    Subject subject =
        keys == KeyType.LONG
            ? kind().build(insertedLongs(), null, fpr)
            : kind().build(null, insertedUrls(), fpr);
    bitsPerKey = (double) subject.bitCount() / size;
    if (kind() != FilterKind.MEMORY_FLOOR) {
      measuredFpr = measureFalsePositiveRate(subject);
    }
    record();
    return subject;
  }

  private double measureFalsePositiveRate(Subject subject) {
    long first = MISS_BASE + (1L << 32);
    int positives = 0;
    for (int i = 0; i < fprProbes; i++) {
      boolean positive =
          keys == KeyType.LONG
              ? subject.mightContain(Keys.longKey(first + i))
              : subject.mightContain(Keys.urlKey(first + i));
      positives += positive ? 1 : 0;
    }
    return (double) positives / fprProbes;
  }

  private void record() {
    String line =
        String.format(
            Locale.ROOT,
            "%s,%s,%d,%s,%.4f,%.6f%n",
            kind(),
            keys,
            size,
            fpr,
            bitsPerKey,
            measuredFpr);
    System.out.print("filter-stats: " + line);
    String file = System.getProperty(STATS_PROPERTY);
    if (file != null && !file.isEmpty()) {
      try {
        Files.writeString(
            Path.of(file),
            line,
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
