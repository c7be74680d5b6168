package dev.cuckoo;

/**
 * The moves of one kick-out insert, recorded so that a failed insert can be undone exactly.
 * Preallocated for {@code maxKicks} moves; one per filter; not thread-safe.
 */
final class KickPath {
  private final long[] buckets;
  private final int[] slots;
  private final long[] evicted;
  private int steps;

  KickPath(int maxKicks) {
    this.buckets = new long[maxKicks];
    this.slots = new int[maxKicks];
    this.evicted = new long[maxKicks];
  }

  /** Forgets the recorded moves. */
  void reset() {
    steps = 0;
  }

  /** Stores {@code fingerprint} in the slot, records the move and returns what was there. */
  long swap(BucketTable table, long bucket, int slot, long fingerprint) {
    long previous = table.get(bucket, slot);
    buckets[steps] = bucket;
    // the slot the fingerprint landed in (a semi-sorted table re-sorts): undo writes there
    slots[steps] = table.set(bucket, slot, fingerprint);
    evicted[steps] = previous;
    steps++;
    return previous;
  }

  /** Undoes the recorded moves in reverse order, restoring the table bit for bit. */
  void undo(BucketTable table) {
    for (int i = steps - 1; i >= 0; i--) {
      table.set(buckets[i], slots[i], evicted[i]);
    }
    steps = 0;
  }

  /** Returns the heap bytes of the recorded-move arrays. */
  long sizeInBytes() {
    return 20L * buckets.length + 64;
  }
}
