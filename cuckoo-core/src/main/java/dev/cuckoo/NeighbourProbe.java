package dev.cuckoo;

/**
 * One-move relocation with every candidate probed at once: the first thing a STANDARD insert tries
 * when both of an item's buckets are full, before the random walk. Preallocated; one per filter;
 * not thread-safe.
 */
final class NeighbourProbe {
  /*
   * With both buckets B1 and B2 full, each of their 2·b fingerprints could move to its own
   * alternate bucket, freeing a slot for the new fingerprint. The random walk tries one such move
   * at a time, and each try is a cache miss that depends on the one before (the next bucket is
   * known only after the previous one was read). Here the 2·b alternate buckets are computed from
   * the two words already in cache, all their words are loaded in one loop (independent loads, so
   * their misses overlap), and only then checked in order: B1's slots 0..b-1, then B2's. The
   * first one with an empty slot takes its fingerprint, whose old slot takes the new fingerprint.
   * Near the rated load, where a bucket has room with probability p ~ 0.2, one round of 2·b
   * overlapped misses succeeds with probability 1 - (1 - p)^(2b) ~ 0.83 for b = 4, where the walk
   * needs 1/p ~ 5 dependent misses on average. Nothing moves unless a free slot is found. SWAR
   * tables only (the bucket word holds every slot).
   *
   * InsertBenchmark, ε = 0.1%, 3.2·10^7 keys, ns per insert filling to rated capacity, two
   * alternating rounds: 219 / 198 without, 152 / 150 with (fastfilter Cuckoo16 in the same runs:
   * 230-250); 10^7 keys: 185 / 134 -> 126 / 139.
   */
  private final long[] children;
  private final long[] words;

  NeighbourProbe(int bucketSize) {
    this.children = new long[2 * bucketSize];
    this.words = new long[2 * bucketSize];
  }

  /**
   * Stores {@code fingerprint} in {@code first} or {@code second}, both full, after moving one of
   * their fingerprints to its alternate bucket; false, changing nothing, if no alternate bucket has
   * an empty slot.
   */
  boolean insert(
      CuckooFilter<?> filter, BucketTable table, long first, long second, long fingerprint) {
    int bucketSize = table.bucketSize();
    int bits = table.fingerprintBits();
    long slotMask = (1L << bits) - 1;
    long word1 = table.bucketWord(first);
    long word2 = table.bucketWord(second);
    for (int slot = 0; slot < bucketSize; slot++) {
      children[slot] = filter.alternateBucket(first, (word1 >>> (slot * bits)) & slotMask);
      children[bucketSize + slot] =
          filter.alternateBucket(second, (word2 >>> (slot * bits)) & slotMask);
    }
    int candidates = 2 * bucketSize;
    for (int k = 0; k < candidates; k++) {
      words[k] = table.bucketWord(children[k]);
    }
    for (int k = 0; k < candidates; k++) {
      if (table.hasEmptyLane(words[k])) {
        long from = k < bucketSize ? first : second;
        int slot = k < bucketSize ? k : k - bucketSize;
        table.insert(children[k], table.get(from, slot));
        table.set(from, slot, fingerprint);
        return true;
      }
    }
    return false;
  }

  /** Returns the heap bytes of the scratch arrays. */
  long sizeInBytes() {
    return 16L * children.length + 48;
  }
}
