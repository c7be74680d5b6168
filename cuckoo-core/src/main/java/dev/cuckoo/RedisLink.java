package dev.cuckoo;

/**
 * One sub-filter of a RedisBloom chain: a table of 8-bit slots and its {@link Indexer} ({@code h
 * mod bucketCount}: a mask when the count is a power of two, as it is for every filter RedisBloom
 * creates; a dump header with an expansion that is not a power of two gives other counts, which
 * RedisBloom then indexes by true division, and so does the indexer).
 */
final class RedisLink {
  final BucketTable table;
  final Indexer indexer;
  final long bucketCount;

  /** bucketCount × bucketSize. */
  final long slots;

  /**
   * Non-empty slots, kept by every operation of the chain, so that inserts can pass over full
   * links: their buckets have no empty slot, so skipping them changes nothing.
   */
  long occupied;

  RedisLink(BucketTable table) {
    this.table = table;
    this.bucketCount = table.bucketCount();
    this.slots = bucketCount * table.bucketSize();
    this.indexer = Indexer.redisLink(bucketCount);
  }

  /** Returns true if the bucket count is a power of two, so that retracing a kick is exact. */
  boolean isPowerOfTwo() {
    return indexer.isPowerOfTwo();
  }

  /** Returns true if no slot is empty. */
  boolean isFull() {
    return occupied == slots;
  }

  /** Recounts the non-empty slots (after the payload was written directly). */
  void recount() {
    occupied = table.countOccupied();
  }

  /** Returns {@code h mod bucketCount}, h taken as unsigned. */
  long index(long h) {
    return indexer.firstBucket(h);
  }

  /** Returns the number of payload bytes: bucketCount × bucketSize. */
  long bytes() {
    return table.payloadBytes();
  }
}
