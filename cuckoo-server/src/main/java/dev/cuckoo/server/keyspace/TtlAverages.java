package dev.cuckoo.server.keyspace;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Per database, the estimate of the milliseconds left of the keys with an expiry that INFO keyspace
 * shows as {@code avg_ttl}: as Redis's, a running average of the keys the active expiry cycle looks
 * at, so that INFO costs nothing per key. Each pass of the cycle over a database that looked at
 * unexpired keys moves the estimate 2% towards their average per loop of that pass; the first pass
 * sets it outright; a database without expiring keys has 0.
 */
public final class TtlAverages {
  // the weight the previous estimate keeps after one loop of 20 keys
  private static final double KEPT_PER_LOOP = 0.98;
  private final AtomicLongArray averages;

  /** Creates the estimates of {@code databases} databases, all 0. */
  public TtlAverages(int databases) {
    averages = new AtomicLongArray(databases);
  }

  /** Returns the database's estimate in milliseconds (0 when none). */
  public long get(int db) {
    return averages.get(db);
  }

  /**
   * Folds one pass of the expiry cycle over the database into its estimate: {@code millisLeft} the
   * sum of the milliseconds left of the {@code unexpired} keys it looked at, over {@code loops}
   * loops that each found some. Does nothing when it found none.
   */
  public void record(int db, long millisLeft, long unexpired, int loops) {
    if (unexpired <= 0) {
      return;
    }
    long sampled = millisLeft / unexpired;
    long previous = averages.get(db);
    averages.set(
        db,
        previous == 0
            ? sampled
            : sampled
                + (long) ((previous - sampled) * Math.pow(KEPT_PER_LOOP, Math.max(1, loops))));
  }

  /** Sets the database's estimate to 0 (it has no expiring keys left). */
  public void clear(int db) {
    averages.set(db, 0);
  }

  /** Exchanges the estimates of two databases (SWAPDB). */
  public void swap(int a, int b) {
    long held = averages.get(a);
    averages.set(a, averages.get(b));
    averages.set(b, held);
  }
}
