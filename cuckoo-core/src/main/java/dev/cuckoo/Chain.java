package dev.cuckoo;

/**
 * The links behind a {@link ScalableCuckooFilter} or a {@link RedisCuckooFilter}, one
 * implementation per scheme ({@link StandardChain}, {@link RedisChain} and its compact form {@link
 * CompactRedisChain}): the operations and properties every chain has, on item hashes. Adds are each
 * chain's own, as their rules differ (all answer an {@link AddOutcome}, but a compact chain answers
 * null when it must expand first). Not thread-safe; see the filters for the concurrent uses that
 * are safe.
 */
abstract class Chain {
  /** Returns true if the item of {@code hash} might be in a link. */
  abstract boolean mightContain(long hash);

  /**
   * Loads the first slot of both buckets of each hash in {@code hashes[from, to)} in the links a
   * lookup reads first, and returns the loaded values folded into one (see {@link
   * RedisCuckooFilter#prefetchHashes}); {@code buckets} holds at least {@code 2 · (to − from)}
   * longs of scratch space. This default loads nothing and returns 0: a chain that is not a {@link
   * RedisChain} is small enough to stay in cache.
   */
  long prefetch(long[] hashes, int from, int to, long[] buckets) {
    return 0;
  }

  /** Returns the number of copies of the item's fingerprint in its buckets of every link. */
  abstract long count(long hash);

  /** Removes one copy of the item's fingerprint, newest link first. */
  abstract boolean remove(long hash);

  /** Replaces one copy of the first item by the second; on failure nothing changes. */
  abstract boolean replace(long oldHash, long newHash);

  /** Empties the chain down to its first link. */
  abstract void clear();

  /** Returns the number of items: adds minus removes that succeeded. */
  abstract long size();

  /** Returns the number of removes counted since creation, the last clear or compaction. */
  abstract long deletedCount();

  /** Returns the number of links. */
  abstract int linkCount();

  /** Returns the bucket count of the first link. */
  abstract long baseBucketCount();

  /** Returns the number of slots per bucket. */
  abstract int bucketSize();

  /** Returns the most relocations one insert may make. */
  abstract int maxKicks();

  /** Returns the growth factor of new links as an integer ("Expansion rate"). */
  abstract int expansion();

  /** Returns the growth factor of new links. */
  abstract double growthFactor();

  /** Returns the number of items the current links are rated for. */
  abstract long capacity();

  /** Returns the compound false-positive bound once every current link is at capacity. */
  abstract double falsePositiveRateAtCapacity();

  /** Returns the expected false-positive rate at the current loads: 1 − Π (1 − rate of link i). */
  abstract double expectedFalsePositiveRate();

  /** Returns the fraction of all links' slots in use. */
  abstract double loadFactor();

  /** Returns the table bits per rated item. */
  abstract double bitsPerItem();

  /** Returns the heap bytes of the links and the chain's own objects. */
  abstract long sizeInBytes();

  /** Returns the chain's state for {@code toString}, e.g. {@code "size=3, links=1"}. */
  abstract String describe();
}
