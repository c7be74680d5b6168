package dev.cuckoo;

/** Sizing rules and small arithmetic shared by the filters. */
final class Sizing {
  /** Largest {@code expectedItems} the builder accepts before checking the bucket count. */
  static final long MAX_EXPECTED_ITEMS = 1L << 36;
  /** Largest STANDARD bucket count: even and at most 2^32 for the multiply-shift reduction. */
  static final long MAX_STANDARD_BUCKETS = (1L << 32) - 2;

  private Sizing() {}

  /**
   * Returns the load a table of this bucket size is sized for. Below the measured load at the
   * first failed insert (LoadFactorTest, 500 kicks): b=2 ~84-85%, b=4 ~95.5%, b=8 ~98.2%.
   */
  static double designLoad(int bucketSize) {
    switch (bucketSize) {
      case 2:
        return 0.82;
      case 4:
        return 0.945;
      case 8:
        return 0.975;
      default:
        throw new IllegalArgumentException("bucketSize: " + bucketSize + " (expected: 2, 4 or 8)");
    }
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

  /** Returns ceil(n / (b·α)) rounded up to even, at least 2. */
  static long bucketCount(long expectedItems, int bucketSize, double load) {
    long buckets = (long) Math.ceil(expectedItems / (bucketSize * load));
    buckets = Math.max(2, (buckets + 1) & ~1L);
    if (buckets > MAX_STANDARD_BUCKETS) {
      long max = (long) Math.floor(MAX_STANDARD_BUCKETS * bucketSize * load);
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
