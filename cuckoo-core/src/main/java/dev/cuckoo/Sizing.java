package dev.cuckoo;

/** Sizing rules and small arithmetic shared by the filters. */
final class Sizing {
  /** Largest {@code expectedItems} the builder accepts before checking the bucket count. */
  static final long MAX_EXPECTED_ITEMS = 1L << 36;

  /** Largest STANDARD bucket count: even and at most 2^32 for the multiply-shift reduction. */
  static final long MAX_STANDARD_BUCKETS = (1L << 32) - 2;

  private Sizing() {}

  /**
   * Returns the load a table of this bucket size and slot count is sized for, below the lowest load
   * at which an insert failed in 2000 fills of random keys (LoadScan: random walk of 500 kicks,
   * then breadth-first search). Large tables fail at about 88.9% (b=2), 97.4% (b=4) and 99.2%
   * (b=8); small ones fail earlier and much more variably, because a few items can share the same
   * pair of buckets, so they are sized for less.
   */
  static double designLoad(int bucketSize, long slots) {
    switch (bucketSize) {
      case 2:
        return slots >= 4096
            ? 0.84
            : slots >= 1024 ? 0.80 : slots >= 256 ? 0.70 : slots >= 128 ? 0.60 : 0.30;
      case 4:
        return slots >= 4096
            ? 0.945
            : slots >= 1024 ? 0.92 : slots >= 256 ? 0.88 : slots >= 64 ? 0.80 : 0.60;
      case 8:
        return slots >= 4096
            ? 0.975
            : slots >= 1024 ? 0.95 : slots >= 256 ? 0.92 : slots >= 64 ? 0.85 : 0.75;
      default:
        throw new IllegalArgumentException("bucketSize: " + bucketSize + " (expected: 2, 4 or 8)");
    }
  }

  /** Returns the design load of large tables of this bucket size (used to pick the fingerprint). */
  static double designLoad(int bucketSize) {
    return designLoad(bucketSize, Long.MAX_VALUE);
  }

  /** Returns f = ceil(log2(2·b·α / ε + 1)), at least 4; fails if more than 32 bits are needed. */
  static int fingerprintBits(double falsePositiveRate, int bucketSize, double load) {
    double needed = Math.log(2.0 * bucketSize * load / falsePositiveRate + 1.0) / Math.log(2.0);
    int bits = (int) Math.ceil(needed - 1e-9);
    if (bits > 32) {
      double min = 2.0 * bucketSize * load / ((1L << 32) - 1);
      throw new IllegalArgumentException(
          "falsePositiveRate: "
              + falsePositiveRate
              + " (expected: >= "
              + min
              + ", the smallest rate 32-bit fingerprints give with bucketSize "
              + bucketSize
              + ")");
    }
    return Math.max(4, bits);
  }

  /** Returns ceil(n / (b·α(m·b))) rounded up to even, at least 2, with α the design load. */
  static long bucketCount(long expectedItems, int bucketSize) {
    double load = designLoad(bucketSize);
    long buckets = 2;
    for (int i = 0; i < 8; i++) {
      buckets = (long) Math.ceil(expectedItems / (bucketSize * load));
      buckets = Math.max(2, (buckets + 1) & ~1L);
      double smaller = designLoad(bucketSize, buckets * bucketSize);
      if (smaller >= load) {
        break;
      }
      load = smaller;
    }
    if (buckets > MAX_STANDARD_BUCKETS) {
      long max = (long) Math.floor(MAX_STANDARD_BUCKETS * bucketSize * designLoad(bucketSize));
      throw new IllegalArgumentException(
          "expectedItems: "
              + expectedItems
              + " (expected: <= "
              + max
              + " with bucketSize "
              + bucketSize
              + ")");
    }
    return buckets;
  }

  /** Returns the false-positive probability {@code 1 − (1 − 1/F)^(2·b·load)}. */
  static double falsePositiveRate(long distinctFingerprints, int bucketSize, double load) {
    double comparisons = 2.0 * bucketSize * load;
    return -Math.expm1(comparisons * Math.log1p(-1.0 / distinctFingerprints));
  }

  /** Returns the smallest power of two >= {@code value} (value >= 1, <= 2^62). */
  static long nextPowerOfTwo(long value) {
    return value <= 1 ? 1 : Long.highestOneBit(value - 1) << 1;
  }

  /** A bijective 64-bit finalizer (Stafford's variant 13 of MurmurHash3's fmix64). */
  static long mix(long x) {
    x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
    x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
    return x ^ (x >>> 31);
  }
}
