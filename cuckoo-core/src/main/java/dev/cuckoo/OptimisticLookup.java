package dev.cuckoo;

/**
 * The seqlock lookup of {@link ConcurrentCuckooFilter} for its commonest shape, with every constant
 * it needs in this one object: a STANDARD or STANDARD_FAST filter without a seed whose table is one
 * page of one-word (SWAR) buckets (b = 4 with f <= 16 and tables up to 2^30 bytes, about 600 M
 * items).
 *
 * <p>It computes exactly what the general path computes (the Indexer's STANDARD arithmetic, the
 * bucket words of BucketTable, the version protocol of LockStripes); it only skips the tests that
 * choose between schemes, seeds, SWAR and paging, and it reads its constants from one object.
 */
final class OptimisticLookup {
  /*
   * Why a separate object. The protocol's fences stop the JIT from keeping loop-invariant fields in
   * registers across lookups: after every fence each field is loaded again, and a lookup through
   * the filter, its CuckooFilter, Indexer, BucketTable and LockStripes reloads some twenty fields
   * over three levels of objects, with a bounds check and a branch for every choice above. Here a
   * lookup reloads the fields of this object only.
   * ConcurrentLookupBenchmark.lookup1, 10^5 items, idle machine, two rounds (ops/us): PLAIN 100.8
   * and 102.0; CONCURRENT through the general path 64.3 and 64.4 (1.58x the plain filter's time),
   * through this class 80.7 and 80.9 (1.26x). With 2 forks, 10^5 / 10^7 items: PLAIN 102.1 / 30.4,
   * CONCURRENT 80.4 / 21.5, two threads 153.0 / 50.8 (1.90x / 2.37x one thread's throughput).
   */

  /** Returned by {@link #probe} when a write was open: the caller retries on the general path. */
  static final int RETRY = -1;

  private final byte[] page;
  private final long[] versions;
  private final int stripeShift;
  private final long bucketCount;
  private final long halfBucketCount;
  private final long fingerprintRange;
  private final long bucketBits;
  private final long lanesLow;
  private final long lanesHigh;

  /** STANDARD_FAST's alternate-bucket shift ({@link Indexer#fastOffsetShift()}), or 0. */
  private final int fastOffsetShift;

  private OptimisticLookup(
      PlainBucketTable table, LockStripes stripes, long fingerprintRange, Indexer indexer) {
    this.fastOffsetShift = indexer.fastOffsetShift();
    this.page = table.singlePage();
    this.versions = stripes.versions();
    this.stripeShift = stripes.shift();
    this.bucketCount = table.bucketCount();
    this.halfBucketCount = bucketCount >>> 1;
    this.fingerprintRange = fingerprintRange;
    this.bucketBits = (long) table.bucketSize() * table.fingerprintBits();
    this.lanesLow = table.lanesLow();
    this.lanesHigh = table.lanesHigh();
  }

  /** Returns the lookup for a filter of this shape, or null if it needs the general path. */
  static OptimisticLookup forShape(
      Scheme scheme, Indexer indexer, BucketTable table, LockStripes stripes) {
    if (!scheme.isStandard()
        || indexer.seed() != 0
        || !(table instanceof PlainBucketTable plain)
        || !plain.isSwar()
        || plain.singlePage() == null) {
      return null;
    }
    return new OptimisticLookup(plain, stripes, indexer.fingerprintRange(), indexer);
  }

  /**
   * Returns 1 if the item of {@code hash} might be present, 0 if it is absent, or {@link #RETRY} if
   * a write was open on one of its stripes during the read.
   */
  int probe(long hash) {
    long fingerprint = Indexer.standardFingerprint(hash, fingerprintRange);
    long bucket1 = Indexer.standardFirstBucket(hash, bucketCount);
    long bucket2 =
        fastOffsetShift != 0
            ? Indexer.fastAlternateBucket(bucket1, fingerprint, fastOffsetShift, bucketCount)
            : Indexer.standardAlternateBucket(bucket1, fingerprint, bucketCount, halfBucketCount);
    int stripe1 = (int) (bucket1 >>> stripeShift);
    int stripe2 = (int) (bucket2 >>> stripeShift);
    long bit1 = bucket1 * bucketBits;
    long bit2 = bucket2 * bucketBits;
    long pattern = fingerprint * lanesLow;
    long low = lanesLow;
    long high = lanesHigh;
    byte[] page = this.page;
    long[] versions = this.versions;
    long version1 = LockStripes.readVersion(versions, stripe1);
    long version2 = LockStripes.readVersion(versions, stripe2);
    LockStripes.startReadFence();
    long word1 = BucketTable.wordAt(page, bit1);
    long word2 = BucketTable.wordAt(page, bit2);
    if (!LockStripes.isUnchanged(versions, stripe1, version1, stripe2, version2)) {
      return RETRY;
    }
    long lanes =
        BucketTable.matchingLanes(word1, pattern, low, high)
            | BucketTable.matchingLanes(word2, pattern, low, high);
    // 1 iff lanes != 0: (lanes | −lanes) has its sign bit set exactly for non-zero lanes
    return (int) ((lanes | -lanes) >>> 63);
  }
}
