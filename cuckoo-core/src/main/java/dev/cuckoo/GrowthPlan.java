package dev.cuckoo;

/**
 * The fingerprint widths of the links of a {@link StandardChain} that a hint of the final size
 * ({@link ScalableCuckooFilter.Builder#expectedFinalItems}) covers: the false-positive budget split
 * by the links' shares of the items, with a reserve left for links beyond the hint.
 */
final class GrowthPlan {
  /*
   * The split. Let the hint be covered by links 0 … K−1 (K the fewest links whose rated
   * capacities c_k sum to at least the hint, C = Σ c_k), with s_k slots each. A link's rate at
   * capacity is e_k ≈ 2bα_k / 2^f_k, and the chain's bound is Σ e_k ≤ ε, which must hold whenever
   * every link is full, the last hinted one included. The table costs Σ s_k·f_k bits. With real
   * widths f_k = log2(2bα_k / ε_k) this is, for allowances ε_k summing to a budget B,
   *
   *   minimise Σ s_k·log2(1/ε_k) + const   subject to   Σ ε_k = B,
   *
   * and the Lagrange condition s_k / (ε_k·ln 2) = λ gives ε_k = B·s_k / Σ s_j: each link's share of
   * the budget is its share of the slots, which (the design load being the same for all but tiny
   * tables) is its share of the items when the hinted links are full, c_k / C. The mean width is
   * then the single filter's log2(2bα/B) plus the entropy of the shares, the lower bound that
   * StandardChain's design note derives; the hint is what lets the chain reach it, because without
   * it the shares of the last links (the largest) are unknown when the first ones are made.
   *
   * Widths are integers. Starting from the narrowest width within each allowance (feasible: each
   * e_k ≤ ε_k), rounding up leaves on average 1 − 1/(2 ln 2) ≈ 28% of each allowance unused. That
   * slack is spent by marginal allocation (Fox 1966 [1]): while some link can lose one bit and the
   * total still fit in B, narrow the link that saves the most bits per unit of rate added,
   * s_k / (e_k(f_k − 1) − e_k(f_k)). The rates are convex in f, so each step is the cheapest one
   * available; it stops when no narrowing fits.
   *
   * Beyond the hint. The bound must hold for any number of items, so B < ε: the rest, the reserve,
   * is handed out by StandardChain's convergent series (link K+j gets (1 − r)·r^j of it, with
   * r = StandardChain.TIGHTENING). The reserve enters the split as one more share, of weight c_0
   * (the first link's capacity, the unit of growth the caller stated with expectedItems):
   * B = ε·C / (C + c_0), reserve = ε·c_0 / (C + c_0). It costs the hinted links
   * log2(1 + c_0/C) bits per item (0.0014 bits at a 1000-fold hint with growth 2). The price is
   * paid past the hint: link K's allowance is (1 − r)·c_0/(C + c_0)·ε, about that of link 0, so
   * links past the hint are as wide as the first link (plus log2(1/(1 − r)) = 2.3 bits) and widen
   * by log2(1/r) = 0.32 bits per link; a hint much below the final size costs more bits than no
   * hint. The bound itself holds for any number of links, and links that would need more than 32
   * bits are refused (AddOutcome.NO_MEMORY), as without a hint.
   *
   * The plan depends only on K and the chain's parameters, so files store K (docs/FORMAT.md,
   * "hintedLinks") and a reader replays the same widths.
   *
   * [1] B. Fox, "Discrete optimization via marginal analysis", Management Science 13(3), 1966.
   */

  /** Narrowest fingerprint the builders accept. */
  private static final int MIN_BITS = 4;

  /** Widest fingerprint a table holds. */
  private static final int MAX_BITS = 32;

  private GrowthPlan() {}

  /**
   * Returns the fingerprint widths of links {@code 0 … K−1} (K = {@code capacities.length}), or
   * null if some link would need more than 32 bits.
   *
   * @param capacities the rated capacity of each hinted link
   * @param slots the slot count (buckets × bucket size) of each hinted link
   * @param bucketSize slots per bucket
   * @param falsePositiveRate the chain's target ε
   */
  static int[] widths(long[] capacities, long[] slots, int bucketSize, double falsePositiveRate) {
    int links = capacities.length;
    double total = total(capacities);
    double budget = hintedBudget(capacities, falsePositiveRate);
    int[] bits = new int[links];
    double[] rates = new double[links];
    for (int k = 0; k < links; k++) {
      double allowance = budget * capacities[k] / total;
      int f = MIN_BITS;
      while (f <= MAX_BITS && rate(f, capacities[k], slots[k], bucketSize) > allowance) {
        f++;
      }
      if (f > MAX_BITS) {
        return null;
      }
      bits[k] = f;
      rates[k] = rate(f, capacities[k], slots[k], bucketSize);
    }
    double used = sum(rates);
    while (true) {
      int best = -1;
      double bestScore = 0;
      double bestRate = 0;
      for (int k = 0; k < links; k++) {
        if (bits[k] == MIN_BITS) {
          continue;
        }
        double narrower = rate(bits[k] - 1, capacities[k], slots[k], bucketSize);
        double added = narrower - rates[k];
        if (used + added > budget) {
          continue;
        }
        double score = slots[k] / added;
        if (best < 0 || score > bestScore) {
          best = k;
          bestScore = score;
          bestRate = narrower;
        }
      }
      if (best < 0) {
        return bits;
      }
      bits[best]--;
      rates[best] = bestRate;
      used = sum(rates);
    }
  }

  /** Returns the budget of the hinted links, ε·C / (C + c_0); the rest is the reserve. */
  static double hintedBudget(long[] capacities, double falsePositiveRate) {
    double total = total(capacities);
    return falsePositiveRate * total / (total + capacities[0]);
  }

  /** Returns a link's false-positive rate at capacity, as {@link CuckooFilter} computes it. */
  static double rate(int bits, long capacity, long slots, int bucketSize) {
    return Sizing.falsePositiveRate(
        (1L << bits) - 1, bucketSize, Math.min(1.0, (double) capacity / slots));
  }

  private static double total(long[] capacities) {
    double total = 0;
    for (long capacity : capacities) {
      total += capacity;
    }
    return total;
  }

  private static double sum(double[] values) {
    double sum = 0;
    for (double value : values) {
      sum += value;
    }
    return sum;
  }
}
