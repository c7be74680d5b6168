package dev.cuckoo;

/**
 * The index arithmetic of a {@link Scheme}: the seed remix, the fingerprint, the first bucket and
 * the alternate bucket of a 64-bit item hash. Every class that turns hashes into slots asks an
 * {@code Indexer}; no other class knows these formulas.
 */
final class Indexer {
  /*
   * STANDARD: the fingerprint from the high 32 bits and the first bucket from the low 32 bits, each
   * by multiply-shift range reduction; the alternate bucket (−i − r(fp)) mod m with r odd, so the
   * two buckets of a fingerprint always differ. An optional seed is mixed into the hash first.
   *
   * REDISBLOOM (docs/REDISBLOOM.md, "Index arithmetic"): fp = h mod 255 + 1, i1 = h mod m,
   * i2 = (h XOR fp·0x5bd1e995) mod m, and from a stored slot alt(i, fp) = (i XOR fp·0x5bd1e995)
   * mod m. A single filter has a power-of-two m; a link of a RedisBloom chain loaded from a dump
   * may have any m, and then the reduction is a true division, as in RedisBloom.
   *
   * STANDARD_FAST: STANDARD's fingerprint and first bucket; the alternate bucket (r − i) mod m
   * with r = ((fp · φ) mod 2^64) >>> (64 − s) | 1, where 2^s is the largest power of two <= m and
   * φ = 0x9E3779B97F4A7C15 (Fibonacci hashing [Knuth, TAOCP 3, 6.4]): r is odd and below 2^s <= m,
   * m is even, so i and (r − i) mod m differ in parity, and r − (r − i) = i makes it an involution.
   * One multiply and a shift instead of STANDARD's two multiply-shift range reductions.
   *
   * Why not the cheaper-looking r = floor(fp·m / 2^f) | 1: an offset linear in fp makes every
   * offset a multiple of about m / 2^f, so bucket i only ever reaches buckets i + k·m/2^f (plus
   * rounding) in two moves and the table falls apart into ~m / 2^(f+1) small independent tables,
   * whose uneven fill fails inserts early: load at first failure with 2^18 buckets, b = 8, f = 8,
   * 0.951 against STANDARD's 0.992 (b = 4, f = 13: 0.970 vs 0.974). The Fibonacci offsets of
   * consecutive fingerprints are spread over the whole range, so two moves reach offsets that do
   * not repeat with a short period, as with STANDARD's.
   */

  /** RedisBloom's multiplier of a fingerprint in the alternate-bucket XOR. */
  static final long REDIS_ALT_MULTIPLIER = 0x5bd1e995L;

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private final boolean redis;

  /**
   * STANDARD_FAST: 64 − s for the largest power of two 2^s <= bucketCount, at least 1, and the
   * alternate bucket by {@link #fastAlternateBucket}; 0 for the other schemes.
   */
  private final int fastOffsetShift;

  private final long seed;
  private final long bucketCount;
  private final long halfBucketCount;

  /** bucketCount − 1 if bucketCount is a power of two, otherwise −1 (REDISBLOOM links only). */
  private final long bucketMask;

  private final long fingerprintRange;

  private Indexer(boolean redis, boolean fast, long bucketCount, long fingerprintRange, long seed) {
    this.redis = redis;
    this.fastOffsetShift = fast ? fastOffsetShift(bucketCount) : 0;
    this.seed = seed;
    this.bucketCount = bucketCount;
    this.halfBucketCount = bucketCount >>> 1;
    this.bucketMask = Long.bitCount(bucketCount) == 1 ? bucketCount - 1 : -1;
    this.fingerprintRange = fingerprintRange;
  }

  /**
   * Creates the arithmetic for {@code bucketCount} buckets (STANDARD: even, at most 2^32;
   * REDISBLOOM: a power of two) and {@code fingerprintBits}-bit fingerprints, without a seed.
   */
  Indexer(Scheme scheme, long bucketCount, int fingerprintBits) {
    this(scheme, bucketCount, fingerprintBits, 0);
  }

  /**
   * Creates the arithmetic for {@code bucketCount} buckets (STANDARD: even, at most 2^32;
   * REDISBLOOM: a power of two), {@code fingerprintBits}-bit fingerprints and a seed (STANDARD
   * only; 0 means the hash is used as it is).
   */
  Indexer(Scheme scheme, long bucketCount, int fingerprintBits, long seed) {
    this(
        scheme == Scheme.REDISBLOOM,
        scheme == Scheme.STANDARD_FAST,
        checkBucketCount(scheme, bucketCount),
        scheme == Scheme.REDISBLOOM ? 255 : (1L << fingerprintBits) - 1,
        scheme == Scheme.REDISBLOOM ? 0 : seed);
  }

  /**
   * Returns the arithmetic of one link of a RedisBloom chain: REDISBLOOM with any bucket count of
   * at least 1, reduced by true division when it is not a power of two.
   */
  static Indexer redisLink(long bucketCount) {
    Checks.requireArgument(bucketCount >= 1, "bucketCount: %s (expected: >= 1)", bucketCount);
    return new Indexer(true, false, bucketCount, 255, 0);
  }

  private static long checkBucketCount(Scheme scheme, long bucketCount) {
    if (scheme == Scheme.REDISBLOOM) {
      Checks.requireArgument(
          Long.bitCount(bucketCount) == 1,
          "bucketCount: %s (expected: a power of two for the REDISBLOOM scheme)",
          bucketCount);
    } else {
      Checks.requireArgument(
          bucketCount >= 2
              && bucketCount <= Sizing.MAX_STANDARD_BUCKETS + 2
              && bucketCount % 2 == 0,
          "bucketCount: %s (expected: even, 2 <= bucketCount <= 2^32 for the %s scheme)",
          bucketCount,
          scheme);
    }
    return bucketCount;
  }

  /** Returns the number of distinct fingerprints: 2^f − 1 (STANDARD) or 255 (REDISBLOOM). */
  long fingerprintRange() {
    return fingerprintRange;
  }

  /** Returns the seed mixed into hashes by {@link #remix} (0: none). */
  long seed() {
    return seed;
  }

  /**
   * Returns true if the bucket count is a power of two, so that a RedisBloom kick retraces exactly.
   */
  boolean isPowerOfTwo() {
    return bucketMask >= 0;
  }

  /**
   * Applies the seed to an item hash (STANDARD with a non-zero seed); otherwise returns it as is.
   */
  long remix(long hash) {
    return seed == 0 ? hash : Sizing.mix(hash ^ seed);
  }

  /** Returns the fingerprint of a (remixed) hash, in [1, fingerprintRange]. */
  long fingerprint(long h) {
    if (redis) {
      return redisFingerprint(h);
    }
    return standardFingerprint(h, fingerprintRange);
  }

  /** STANDARD {@link #fingerprint}: the high 32 bits mapped onto [1, fingerprintRange]. */
  static long standardFingerprint(long h, long fingerprintRange) {
    // multiply-shift range reduction onto [0, 2^f − 1), plus one: never 0
    return (((h >>> 32) * fingerprintRange) >>> 32) + 1;
  }

  /** REDISBLOOM {@link #fingerprint}: h mod 255 + 1, h taken as unsigned. */
  static long redisFingerprint(long h) {
    return Long.remainderUnsigned(h, 255) + 1;
  }

  /** Returns the first bucket of a (remixed) hash, in [0, bucketCount). */
  long firstBucket(long h) {
    if (redis) {
      return redisReduce(h);
    }
    return standardFirstBucket(h, bucketCount);
  }

  /** STANDARD {@link #firstBucket}: the low 32 bits mapped onto [0, bucketCount). */
  static long standardFirstBucket(long h, long bucketCount) {
    // multiply-shift range reduction of the low 32 bits onto [0, m) (Lemire), m <= 2^32
    return ((h & 0xFFFFFFFFL) * bucketCount) >>> 32;
  }

  /**
   * REDISBLOOM: returns the hash whose {@link #firstBucket} is an item's second bucket, {@code h
   * XOR fp·0x5bd1e995}. For a power-of-two bucket count its bucket equals {@link #alternateBucket
   * alternateBucket(firstBucket(h), fp)}; RedisBloom's lookups use this form.
   */
  static long redisAlternateHash(long h, long fingerprint) {
    return h ^ (fingerprint * REDIS_ALT_MULTIPLIER);
  }

  /**
   * Returns the other bucket of {@code fingerprint} stored in {@code bucket}. An involution (for
   * REDISBLOOM when the bucket count is a power of two); for STANDARD never equal to {@code
   * bucket}.
   */
  long alternateBucket(long bucket, long fingerprint) {
    if (fastOffsetShift != 0) {
      return fastAlternateBucket(bucket, fingerprint, fastOffsetShift, bucketCount);
    }
    if (redis) {
      return redisReduce(redisAlternateHash(bucket, fingerprint));
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

  /**
   * Returns STANDARD_FAST's offset shift, or 0 for the other schemes ({@link #fastOffsetShift}).
   */
  int fastOffsetShift() {
    return fastOffsetShift;
  }

  /**
   * Returns 64 − s for the largest power of two 2^s <= {@code bucketCount} (at least 2): the shift
   * that turns a 64-bit product into an offset below 2^s.
   */
  static int fastOffsetShift(long bucketCount) {
    return Long.numberOfLeadingZeros(bucketCount) + 1;
  }

  /**
   * STANDARD_FAST {@link #alternateBucket}: (r − bucket) mod m with r = ((fp · φ) >>> shift) | 1,
   * for an even {@code bucketCount} m and {@code shift} = {@link #fastOffsetShift(long)}.
   */
  static long fastAlternateBucket(long bucket, long fingerprint, int shift, long bucketCount) {
    long j = (((fingerprint * GOLDEN) >>> shift) | 1) - bucket;
    return j + ((j >> 63) & bucketCount);
  }

  /** Returns {@code x mod bucketCount}, x taken as unsigned: a mask for a power of two. */
  private long redisReduce(long x) {
    return bucketMask >= 0 ? x & bucketMask : Long.remainderUnsigned(x, bucketCount);
  }
}
