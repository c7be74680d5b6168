package dev.cuckoo.examples.logstore;

/** Tail quantiles of the binomial distribution, for statistical assertions with exact bounds. */
final class BinomialBounds {
  private BinomialBounds() {}

  /** Returns the smallest k with P(X ≥ k) ≤ alpha for X ~ Binomial(trials, p). */
  static long upper(long trials, double p, double alpha) {
    double tail = 0;
    for (long k = lastUsefulK(trials, p); k >= 0; k--) {
      tail += Math.exp(logPmf(trials, p, k));
      if (tail > alpha) {
        return k + 1;
      }
    }
    return 0;
  }

  /** Returns the largest k with P(X ≤ k) ≤ alpha for X ~ Binomial(trials, p), or -1. */
  static long lower(long trials, double p, double alpha) {
    double tail = 0;
    for (long k = 0; k <= trials; k++) {
      tail += Math.exp(logPmf(trials, p, k));
      if (tail > alpha) {
        return k - 1;
      }
    }
    return trials;
  }

  /** Beyond mean + 40 standard deviations + 50 the probability mass is far below any alpha. */
  private static long lastUsefulK(long trials, double p) {
    double mean = trials * p;
    return Math.min(trials, (long) Math.ceil(mean + 40 * Math.sqrt(mean) + 50));
  }

  /** log P(X = k), summing logs of the binomial coefficient's factors. */
  static double logPmf(long trials, double p, long k) {
    double logCoefficient = 0;
    for (long i = 0; i < k; i++) {
      logCoefficient += Math.log((double) (trials - i) / (i + 1));
    }
    return logCoefficient + k * Math.log(p) + (trials - k) * Math.log1p(-p);
  }
}
