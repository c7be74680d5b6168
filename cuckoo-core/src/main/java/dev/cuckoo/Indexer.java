package dev.cuckoo;

/** The index arithmetic of a {@link Scheme}: fingerprint, first bucket and alternate bucket. */
final class Indexer {
  private static final long REDIS_ALT_MULTIPLIER = 0x5bd1e995L;
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private final boolean redis;
  private final long bucketCount;
  private final long halfBucketCount;
  private final long bucketMask;
  private final long fingerprintRange;

  /**
   * Creates the arithmetic for {@code bucketCount} buckets (STANDARD: even, at most 2^32;
   * REDISBLOOM: a power of two) and {@code fingerprintBits}-bit fingerprints.
   */
  Indexer(Scheme scheme, long bucketCount, int fingerprintBits) {
    this.redis = scheme == Scheme.REDISBLOOM;
    if (redis) {
      Checks.requireArgument(
          Long.bitCount(bucketCount) == 1,
          "bucketCount: %s (expected: a power of two for the REDISBLOOM scheme)",
          bucketCount);
    } else {
      Checks.requireArgument(
          bucketCount >= 2 && bucketCount <= Sizing.MAX_STANDARD_BUCKETS + 2 && bucketCount % 2 == 0,
          "bucketCount: %s (expected: even, 2 <= bucketCount <= 2^32 for the STANDARD scheme)",
          bucketCount);
    }
    this.bucketCount = bucketCount;
    this.halfBucketCount = bucketCount >>> 1;
    this.bucketMask = bucketCount - 1;
    this.fingerprintRange = redis ? 255 : (1L << fingerprintBits) - 1;
  }

  /** Returns the number of distinct fingerprints: 2^f − 1 (STANDARD) or 255 (REDISBLOOM). */
  long fingerprintRange() {
    return fingerprintRange;
  }

  /** Returns the fingerprint of a hash, in [1, fingerprintRange]. */
  long fingerprint(long h) {
    if (redis) {
      return Long.remainderUnsigned(h, 255) + 1;
    }
    return standardFingerprint(h, fingerprintRange);
  }

  /** STANDARD {@link #fingerprint}: the high 32 bits mapped onto [1, fingerprintRange]. */
  static long standardFingerprint(long h, long fingerprintRange) {
    // multiply-shift range reduction onto [0, 2^f − 1), plus one: never 0
    return (((h >>> 32) * fingerprintRange) >>> 32) + 1;
  }

  /** Returns the first bucket of a hash, in [0, bucketCount). */
  long firstBucket(long h) {
    if (redis) {
      return h & bucketMask;
    }
    return standardFirstBucket(h, bucketCount);
  }

  /** STANDARD {@link #firstBucket}: the low 32 bits mapped onto [0, bucketCount). */
  static long standardFirstBucket(long h, long bucketCount) {
    // multiply-shift range reduction of the low 32 bits onto [0, m) (Lemire), m <= 2^32
    return ((h & 0xFFFFFFFFL) * bucketCount) >>> 32;
  }

  /**
   * Returns the other bucket of {@code fingerprint} stored in {@code bucket}. An involution; for
   * STANDARD never equal to {@code bucket}.
   */
  long alternateBucket(long bucket, long fingerprint) {
    if (redis) {
      return (bucket ^ (fingerprint * REDIS_ALT_MULTIPLIER)) & bucketMask;
    }
    return standardAlternateBucket(bucket, fingerprint, bucketCount, halfBucketCount);
  }

  /** STANDARD {@link #alternateBucket}, for an even {@code bucketCount} and its half. */
  static long standardAlternateBucket(
      long bucket, long fingerprint, long bucketCount, long halfBucketCount) {
    // (−i − r) mod m with r odd in [1, m): with m even, i and the result differ in parity
    long r = ((((fingerprint * GOLDEN) >>> 32) * halfBucketCount) >>> 32) * 2 + 1;
    long j = bucketCount - bucket - r;
    return j + ((j >> 63) & bucketCount);
  }
}
