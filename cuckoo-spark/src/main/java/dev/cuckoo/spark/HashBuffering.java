package dev.cuckoo.spark;

import java.util.Locale;

/**
 * How a task's part of {@code cuckoo_filter_agg} is kept until the final merge: as 8-byte hashes or
 * as a filter. Chosen by the Spark configuration {@value #CONF} ({@code auto}, {@code filter} or
 * {@code hashes}); see the module's README for the measurements.
 */
enum HashBuffering {
  /**
   * Hashes while they take less room than the filter (a quarter of expectedItems), then a filter.
   */
  AUTO,
  /** A filter from the first value: Spark ships the whole table of every task. */
  FILTER,
  /** Hashes until the final merge, which builds the one filter (capped at 2^27 hashes a task). */
  HASHES;

  /** The Spark SQL configuration key. */
  static final String CONF = "spark.cuckoo.aggregate.buffer";

  /** Most hashes one buffer holds: 1 GiB of longs. */
  private static final long MAX_HASHES = 1L << 27;

  /** Returns how many hashes a buffer holds before it becomes a filter. */
  long hashLimit(long expectedItems) {
    switch (this) {
      case FILTER:
        return 0;
      case HASHES:
        return MAX_HASHES;
      default:
        // 8 bytes a hash against 10 to 17 bits an item in a filter at fpp 1% to 0.01%
        return Math.min(MAX_HASHES, Math.max(1, expectedItems / 4));
    }
  }

  /**
   * Parses a configuration value.
   *
   * @throws IllegalArgumentException naming the key, the value and the allowed values
   */
  static HashBuffering parse(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          CONF + ": " + value + " (expected: auto, filter or hashes)", e);
    }
  }
}
