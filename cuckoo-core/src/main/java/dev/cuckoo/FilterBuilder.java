package dev.cuckoo;

/**
 * The settings every filter builder has, each validated once here: the hasher, {@link
 * #expectedItems} (required), {@link #falsePositiveRate}, {@link #bucketSize}, {@link #maxKicks}
 * and {@link #seed}. {@link CuckooFilter.Builder}, {@link ConcurrentCuckooFilter.Builder}, {@link
 * ShardedCuckooFilter.Builder} and {@link ScalableCuckooFilter.Builder} extend it with what only
 * they have and read the fields when they build; a setting not set keeps the value that means "the
 * builder's default" ({@code -1}, or the flag false), so each builder applies its own default.
 *
 * @param <T> the item type
 * @param <B> the concrete builder, which every setter returns
 */
abstract class FilterBuilder<T, B extends FilterBuilder<T, B>> {
  final ItemHasher<? super T> hasher;
  long expectedItems = -1;
  double falsePositiveRate = CuckooFilter.DEFAULT_FALSE_POSITIVE_RATE;
  boolean falsePositiveRateSet;
  int bucketSize = CuckooFilter.DEFAULT_BUCKET_SIZE;
  boolean bucketSizeSet;
  int maxKicks = -1;
  long seed;

  FilterBuilder(ItemHasher<? super T> hasher, long defaultSeed) {
    this.hasher = Checks.requireNonNull(hasher, "hasher");
    this.seed = defaultSeed;
  }

  /** Returns this builder as its concrete type. */
  abstract B self();

  /**
   * Sets the number of distinct items the filter must hold (required): of a {@link
   * ShardedCuckooFilter}, all its shards together; of a {@link ScalableCuckooFilter}, its first
   * link, which grows from there.
   *
   * @param expectedItems 1 to 2^36
   * @return this builder
   * @throws IllegalArgumentException if out of range
   */
  public B expectedItems(long expectedItems) {
    Checks.requireRange("expectedItems", expectedItems, 1, Sizing.MAX_EXPECTED_ITEMS);
    this.expectedItems = expectedItems;
    return self();
  }

  /**
   * Sets the target false-positive rate (default 0.01): at {@code expectedItems} items for a single
   * or sharded filter, whose fingerprint width is derived from it; for the whole chain of a {@link
   * ScalableCuckooFilter}, however many links it grows to. {@link CuckooFilter.Builder} ignores it
   * if {@code fingerprintBits} is set.
   *
   * @param falsePositiveRate in (0, 1)
   * @return this builder
   * @throws IllegalArgumentException if out of range
   */
  public B falsePositiveRate(double falsePositiveRate) {
    this.falsePositiveRate = Checks.requireRate("falsePositiveRate", falsePositiveRate);
    this.falsePositiveRateSet = true;
    return self();
  }

  /**
   * Sets the number of slots per bucket (default 4). Larger buckets reach a higher load but need
   * longer fingerprints for the same false-positive rate. Measured load at the first failed insert,
   * random keys, 500 kicks, 2^18 buckets, 8 runs ({@code LoadFactorTest}): b = 2: 88.6% worst /
   * 88.9% mean, b = 4: 97.2% / 97.4%, b = 8: 99.1% / 99.3%. Tables of at least 4096 slots are sized
   * for 84%, 94.5% and 97.5%; smaller tables for less (their failure load varies much more), so
   * that {@code expectedItems} always fit.
   *
   * @param bucketSize 2, 4 or 8
   * @return this builder
   * @throws IllegalArgumentException if out of range
   */
  public B bucketSize(int bucketSize) {
    checkBucketSize(bucketSize);
    this.bucketSize = bucketSize;
    this.bucketSizeSet = true;
    return self();
  }

  /** Checks a bucket size as {@link #bucketSize(int)} is given it: 2, 4 or 8 unless overridden. */
  void checkBucketSize(int bucketSize) {
    Checks.requireArgument(
        bucketSize == 2 || bucketSize == 4 || bucketSize == 8,
        "bucketSize: %s (expected: 2, 4 or 8)",
        bucketSize);
  }

  /**
   * Sets the most relocations ("kicks") one insert may make before it gives up (default {@value
   * CuckooFilter#DEFAULT_MAX_KICKS}). A {@link ConcurrentCuckooFilter} examines at most {@code 4 ×
   * maxKicks} buckets in its breadth-first search for room; a {@link ScalableCuckooFilter}
   * relocates in its newest link only. 0 disables relocation.
   *
   * @param maxKicks 0 to {@value CuckooFilter#MAX_KICKS_LIMIT}
   * @return this builder
   * @throws IllegalArgumentException if out of range
   */
  public B maxKicks(int maxKicks) {
    Checks.requireRange("maxKicks", maxKicks, 0, CuckooFilter.MAX_KICKS_LIMIT);
    this.maxKicks = maxKicks;
    return self();
  }

  /** Returns {@link #maxKicks(int)} as set, or {@code defaultKicks}. */
  int maxKicksOr(int defaultKicks) {
    return maxKicks >= 0 ? maxKicks : defaultKicks;
  }

  /**
   * Sets the seed mixed into every item hash (default {@value CuckooFilter#DEFAULT_SEED}: the hash
   * is used as it is; {@link ShardedCuckooFilter.Builder}: {@link
   * ShardedCuckooFilter#DEFAULT_SHARD_SEED}, and never 0). Filters with different seeds have
   * independent false positives; filters must have equal seeds to be merged.
   *
   * @param seed any value (a sharded filter's: any but 0)
   * @return this builder
   * @throws IllegalArgumentException if the builder does not take {@code seed}
   */
  public B seed(long seed) {
    checkSeed(seed);
    this.seed = seed;
    return self();
  }

  /** Checks a seed as {@link #seed(long)} is given it: any value unless overridden. */
  void checkSeed(long seed) {}

  /** Throws unless {@link #expectedItems} was set. */
  void requireExpectedItems() {
    if (expectedItems < 0) {
      throw new IllegalStateException("expectedItems must be set");
    }
  }
}
