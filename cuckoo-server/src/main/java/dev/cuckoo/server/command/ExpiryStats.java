package dev.cuckoo.server.command;

/**
 * What INFO stats says about the active expiry cycle, kept as Redis's activeExpireCycle keeps it:
 * the share of looked-at keys that had expired (a running average, 5% weight per cycle), how many
 * cycles stopped at their time budget, and the time spent in cycles. Written by the one thread that
 * runs the cycle, read by any.
 */
final class ExpiryStats {
  private volatile double staleShare;
  private volatile long timeCapReached;
  private volatile long cycleNanos;

  /**
   * Folds one cycle in.
   *
   * @param sampled the keys with an expiry it looked at
   * @param expired those of them it deleted
   * @param nanos how long it ran
   * @param capped whether it stopped at its time budget
   */
  void cycle(long sampled, long expired, long nanos, boolean capped) {
    double share = sampled == 0 ? 0 : (double) expired / sampled;
    staleShare = share * 0.05 + staleShare * 0.95;
    cycleNanos += nanos;
    if (capped) {
      timeCapReached++;
    }
  }

  /** Sets every figure to 0 (CONFIG RESETSTAT). */
  void reset() {
    staleShare = 0;
    timeCapReached = 0;
    cycleNanos = 0;
  }

  /** Returns expired_stale_perc: the running share of expired keys, in percent, as "%.2f". */
  String stalePercent() {
    return String.format(java.util.Locale.ROOT, "%.2f", staleShare * 100);
  }

  /** Returns expired_time_cap_reached_count. */
  long timeCapReached() {
    return timeCapReached;
  }

  /** Returns expire_cycle_cpu_milliseconds: the time spent in cycles. */
  long cycleMillis() {
    return cycleNanos / 1_000_000;
  }
}
