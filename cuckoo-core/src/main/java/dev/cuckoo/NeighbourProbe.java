package dev.cuckoo;

/**
 * Relocation by one or two moves with every candidate of a level probed at once: the first thing a
 * STANDARD insert tries when both of an item's buckets are full, before the random walk.
 * Preallocated; one per filter; not thread-safe.
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
   * needs 1/p ~ 5 dependent misses on average. If every child is full too, the same is done one
   * level further: the 2·b·b fingerprints of the children, their alternate buckets loaded in one
   * loop, checked in order; the first with room gets a grandchild's move, whose slot takes a root
   * fingerprint, whose slot takes the new one (two moves, so only when maxKicks >= 2). Filling
   * 10^7 keys to rated capacity, the last tenth of the inserts: 57% found both buckets full and
   * 21.5% also every child, and those went on to random walks of 14 steps on average (dependent
   * misses). Nothing moves unless a free slot is found. SWAR tables only (the bucket word holds
   * every slot).
   *
   * InsertBenchmark, ε = 0.1%, 3.2·10^7 keys, ns per insert filling to rated capacity, two
   * alternating rounds: 219 / 198 without, 152 / 150 with (fastfilter Cuckoo16 in the same runs:
   * 230-250); 10^7 keys: 185 / 134 -> 126 / 139. The second level, two more alternating rounds
   * (a slower hour of the host): 3.2·10^7 keys 221 / 195 -> 191 / 157 ns, 10^7 keys 191 / 172 ->
   * 208 / 163 ns (Cuckoo16 in the same runs 234-284 and 208-276).
   */
  private final long[] children;
  private final long[] words;
  private final long[] grandchildren;
  private final long[] grandchildWords;

  NeighbourProbe(int bucketSize) {
    this.children = new long[2 * bucketSize];
    this.words = new long[2 * bucketSize];
    this.grandchildren = new long[2 * bucketSize * bucketSize];
    this.grandchildWords = new long[2 * bucketSize * bucketSize];
  }

  /**
   * Stores {@code fingerprint} in {@code first} or {@code second}, both full, after moving one of
   * their fingerprints to its alternate bucket (one level) or, with {@code maxMoves >= 2} and no
   * room one level away, after moving a fingerprint of such an alternate bucket on to its own
   * alternate bucket first (two levels); false, changing nothing, if neither finds an empty slot.
   */
  boolean insert(
      Indexer indexer, BucketTable table, long first, long second, long fingerprint, int maxMoves) {
    int bucketSize = table.bucketSize();
    int candidates = 2 * bucketSize;
    table.alternates(indexer, first, table.bucketWord(first), children, 0);
    table.alternates(indexer, second, table.bucketWord(second), children, bucketSize);
    int k = firstWithRoom(table, children, words, candidates);
    int g = -1;
    if (k < 0) {
      if (maxMoves < 2) {
        return false;
      }
      // every child is full: the same again one level further, all grandchildren loaded at once
      for (int child = 0; child < candidates; child++) {
        table.alternates(indexer, children[child], words[child], grandchildren, child * bucketSize);
      }
      g = firstWithRoom(table, grandchildren, grandchildWords, candidates * bucketSize);
      if (g < 0) {
        return false;
      }
      k = g / bucketSize;
    }
    long from = k < bucketSize ? first : second;
    int slot = k % bucketSize;
    if (g < 0) {
      table.insert(children[k], table.get(from, slot));
    } else {
      int childSlot = g % bucketSize;
      table.insert(grandchildren[g], table.get(children[k], childSlot));
      table.set(children[k], childSlot, table.get(from, slot));
    }
    table.set(from, slot, fingerprint);
    return true;
  }

  /**
   * Loads the words of {@code buckets[0 .. count)} into {@code words} in one loop (their misses
   * overlap), then returns the first index whose bucket has an empty slot, or -1.
   */
  private static int firstWithRoom(BucketTable table, long[] buckets, long[] words, int count) {
    for (int i = 0; i < count; i++) {
      words[i] = table.bucketWord(buckets[i]);
    }
    for (int i = 0; i < count; i++) {
      if (table.hasEmptyLane(words[i])) {
        return i;
      }
    }
    return -1;
  }

  /** Returns the heap bytes of the scratch arrays. */
  long sizeInBytes() {
    return 16L * children.length + 16L * grandchildren.length + 96;
  }
}
