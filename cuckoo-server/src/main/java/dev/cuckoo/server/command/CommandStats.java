package dev.cuckoo.server.command;

import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.AtomicHistogram;
import org.HdrHistogram.Histogram;

/**
 * The counters of one command or subcommand that INFO commandstats and latencystats and LATENCY
 * HISTOGRAM report, as Redis keeps them per {@code redisCommand}: calls that ran, the microseconds
 * they took, calls refused before running (rejected) and calls that ran and answered an error
 * (failed), and a histogram of call durations in nanoseconds.
 *
 * <p>Recording is lock-free (adders and an atomic histogram) so that every connection's thread
 * counts without waiting for the others. The histogram follows Redis's: values from 1 ns to 1 s
 * (clamped), two significant digits, and it is allocated at a command's first tracked call (about
 * 25 KiB; most of the table is never called).
 */
final class CommandStats {
  /** The smallest duration the histogram keeps, in nanoseconds (Redis's limit). */
  static final long HISTOGRAM_MIN_NANOS = 1;

  /** The largest duration the histogram keeps, in nanoseconds: longer calls count as 1 s. */
  static final long HISTOGRAM_MAX_NANOS = 1_000_000_000L;

  private static final int HISTOGRAM_DIGITS = 2;

  private final LongAdder calls = new LongAdder();
  private final LongAdder micros = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private volatile AtomicHistogram histogram;

  /**
   * Counts one call that ran.
   *
   * @param durationMicros how long it ran, in whole microseconds
   * @param failedCall whether it answered an error
   * @param trackLatency whether to add the duration to the histogram (latency-tracking)
   */
  void called(long durationMicros, boolean failedCall, boolean trackLatency) {
    calls.increment();
    micros.add(durationMicros);
    if (failedCall) {
      failed.increment();
    }
    if (trackLatency) {
      // Redis measures in microseconds and records nanoseconds: durationMicros * 1000
      long nanos = durationMicros * 1000;
      histogram().recordValue(Math.max(HISTOGRAM_MIN_NANOS, Math.min(HISTOGRAM_MAX_NANOS, nanos)));
    }
  }

  /** Counts one call refused before it ran (arity, authentication, OOM, a read-only replica...). */
  void rejected() {
    rejected.increment();
  }

  private AtomicHistogram histogram() {
    AtomicHistogram current = histogram;
    if (current == null) {
      synchronized (this) {
        current = histogram;
        if (current == null) {
          current = new AtomicHistogram(HISTOGRAM_MIN_NANOS, HISTOGRAM_MAX_NANOS, HISTOGRAM_DIGITS);
          histogram = current;
        }
      }
    }
    return current;
  }

  /** Returns the number of calls that ran. */
  long calls() {
    return calls.sum();
  }

  /** Returns the microseconds the calls took together. */
  long micros() {
    return micros.sum();
  }

  /** Returns the number of calls refused before running. */
  long rejectedCalls() {
    return rejected.sum();
  }

  /** Returns the number of calls that ran and answered an error. */
  long failedCalls() {
    return failed.sum();
  }

  /** Returns true if INFO commandstats lists the command: any call counted at all. */
  boolean used() {
    return calls() != 0 || rejectedCalls() != 0 || failedCalls() != 0;
  }

  /**
   * Returns a copy of the duration histogram (nanoseconds), or null if no call was tracked since
   * the last reset.
   */
  Histogram latencies() {
    AtomicHistogram current = histogram;
    if (current == null) {
      return null;
    }
    Histogram copy = new Histogram(HISTOGRAM_MIN_NANOS, HISTOGRAM_MAX_NANOS, HISTOGRAM_DIGITS);
    copy.add(current);
    return copy;
  }

  /** Clears every counter and drops the histogram (CONFIG RESETSTAT). */
  void reset() {
    calls.reset();
    micros.reset();
    rejected.reset();
    failed.reset();
    histogram = null;
  }
}
