package dev.cuckoo.examples.logstore;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class BinomialBoundsTest {
  @Test
  void upper_tenFairCoins_matchesExactTail() {
    // P(X >= 9) = 11/1024 = 0.01074, P(X >= 8) = 56/1024 = 0.0547.
    assertEquals(9, BinomialBounds.upper(10, 0.5, 0.011));
    assertEquals(10, BinomialBounds.upper(10, 0.5, 0.0107));
  }

  @Test
  void lower_tenFairCoins_matchesExactTail() {
    // P(X <= 1) = 11/1024 = 0.01074, P(X <= 0) = 1/1024.
    assertEquals(1, BinomialBounds.lower(10, 0.5, 0.011));
    assertEquals(0, BinomialBounds.lower(10, 0.5, 0.0107));
    assertEquals(-1, BinomialBounds.lower(10, 0.5, 0.0009));
  }

  @Test
  void logPmf_largeTrials_sumsToOne() {
    double total = 0;
    for (long k = 0; k <= 200; k++) {
      total += Math.exp(BinomialBounds.logPmf(800_000, 1e-4, k));
    }
    assertEquals(1.0, total, 1e-9);
  }
}
