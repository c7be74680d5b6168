package dev.cuckoo.examples.logstore;

import java.io.IOException;

/**
 * The store's in-memory index: a cuckoo hash table whose slots hold a key's fingerprint (tag) and
 * the offset of its newest record, and never the key itself. It answers which offsets might hold a
 * key; the store confirms a candidate by reading the record and comparing the full key.
 */
final class OffsetIndex {
  /*
   * Layout. Buckets of BUCKET_SIZE = 4 slots in one long[]; a slot is one long,
   * tag << OFFSET_BITS | offset, and 0 marks an empty slot (tags are never 0). With 16-bit tags
   * and 40-bit offsets (logs up to 1 TiB) a slot is 56 bits of payload in 64.
   *
   * Hashing. A key's 64-bit hash h (XXH3-64 from cuckoo-core's ItemHashers.bytes()) gives the tag
   * from its top tagBits bits (0 is remapped to 1) and the first bucket from its low bits,
   * i1 = h & (m − 1) with m a power of two. The second bucket depends on the first and the tag
   * only, i2 = i1 XOR (odd(mix(tag)) & (m − 1)) [1]: a slot can move between its two buckets
   * ("kick") knowing just its tag, and because the XOR'd value is odd the two buckets always
   * differ. Insertion is a random walk of at most MAX_KICKS kicks [1].
   *
   * Growth. The table does not keep the hash bits it would need to double in place, so when a
   * walk fails the homeless entry and every stored one are re-inserted into a table twice the size,
   * each hash recomputed from the key read back from the log at the slot's offset: one record read
   * per live key per doubling, amortised to at most one per insert.
   *
   * False positives. A lookup of an absent key compares its tag with the occupied slots of its two
   * buckets, on average 2·b·α of them at load α. Each comparison matches with probability
   * p = Σ_t P(t)² = (2^f + 2) / 4^f (tag 1 is twice as likely as the others because of the
   * remapped 0), and each match costs one record read. So an absent key is read-free with
   * probability (1 − p)^(2bα): with f = 16, b = 4 and α ≤ 0.95, at least 99.988%.
   *
   * [1] B. Fan, D. G. Andersen, M. Kaminsky, M. D. Mitzenmacher, "Cuckoo Filter: Practically
   *     Better Than Bloom", CoNEXT 2014 (partial-key cuckoo hashing).
   */

  /** Slots per bucket. */
  static final int BUCKET_SIZE = 4;

  /** Bits of a slot that hold the record offset. */
  static final int OFFSET_BITS = 40;

  /** Smallest allowed tag width. */
  static final int MIN_TAG_BITS = 4;

  /** Largest allowed tag width: what is left of a long after the offset. */
  static final int MAX_TAG_BITS = Long.SIZE - OFFSET_BITS;

  /** Largest bucket count (the slots must fit one Java array). */
  static final int MAX_BUCKETS = 1 << 28;

  /** Maximum number of kicks of one insertion before the table grows. */
  static final int MAX_KICKS = 500;

  private static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  /** Gives the key hash of the record at an offset, by reading the key back from the log. */
  @FunctionalInterface
  interface KeyHashes {
    /** Returns the 64-bit hash of the key of the record at {@code offset}. */
    long hashAt(long offset) throws IOException;
  }

  private final int tagBits;
  private long[] slots;
  private int bucketMask;
  private long size;
  private long random;

  /** Creates an empty index of {@code bucketCount} buckets (a power of two, at least 2). */
  OffsetIndex(int tagBits, int bucketCount) {
    if (tagBits < MIN_TAG_BITS || tagBits > MAX_TAG_BITS) {
      throw new IllegalArgumentException(
          "fingerprintBits: "
              + tagBits
              + " (expected: "
              + MIN_TAG_BITS
              + " <= fingerprintBits <= "
              + MAX_TAG_BITS
              + ")");
    }
    if (bucketCount < 2 || bucketCount > MAX_BUCKETS || Integer.bitCount(bucketCount) != 1) {
      throw new IllegalArgumentException(
          "bucketCount: "
              + bucketCount
              + " (expected: a power of two, 2 <= bucketCount <= "
              + MAX_BUCKETS
              + ")");
    }
    this.tagBits = tagBits;
    this.slots = new long[bucketCount * BUCKET_SIZE];
    this.bucketMask = bucketCount - 1;
    this.random = GOLDEN ^ tagBits;
  }

  /**
   * Writes into {@code out} the offsets stored under the tag of {@code hash} in its two buckets and
   * returns how many there are (0 to {@code 2 × BUCKET_SIZE}).
   */
  int candidates(long hash, long[] out) {
    long tag = tag(hash);
    int first = firstBucket(hash);
    int count = collect(first, tag, out, 0);
    return collect(alternateBucket(first, tag), tag, out, count);
  }

  private int collect(int bucket, long tag, long[] out, int count) {
    int found = count;
    int start = bucket * BUCKET_SIZE;
    for (int i = start; i < start + BUCKET_SIZE; i++) {
      long slot = slots[i];
      if (slot != 0 && tagOf(slot) == tag) {
        out[found++] = slot & OFFSET_MASK;
      }
    }
    return found;
  }

  /**
   * Stores {@code offset} under {@code hash}. Returns 0 if it was stored; otherwise the table is
   * too full, every entry but the returned one (a slot value, never 0) is still stored, and the
   * caller must pass it to {@link #grow}.
   */
  long insert(long hash, long offset) {
    if (offset < 0 || offset > OFFSET_MASK) {
      throw new IllegalArgumentException(
          "offset: " + offset + " (expected: 0 <= offset <= " + OFFSET_MASK + ")");
    }
    long tag = tag(hash);
    long entry = tag << OFFSET_BITS | offset;
    int first = firstBucket(hash);
    int second = alternateBucket(first, tag);
    if (putInEmptySlot(first, entry) || putInEmptySlot(second, entry)) {
      size++;
      return 0;
    }
    int bucket = (nextRandom() & 1) == 0 ? first : second;
    for (int kick = 0; kick < MAX_KICKS; kick++) {
      int index = bucket * BUCKET_SIZE + (nextRandom() & (BUCKET_SIZE - 1));
      long victim = slots[index];
      slots[index] = entry;
      entry = victim;
      bucket = alternateBucket(bucket, tagOf(entry));
      if (putInEmptySlot(bucket, entry)) {
        size++;
        return 0;
      }
    }
    return entry;
  }

  /**
   * Re-inserts every stored entry and {@code homeless} (a value returned by {@link #insert}) into a
   * table at least twice as large, reading each key's hash back through {@code keyHashes}.
   */
  void grow(long homeless, KeyHashes keyHashes) throws IOException {
    long[] offsets = new long[Math.toIntExact(size + 1)];
    int count = 0;
    for (long slot : slots) {
      if (slot != 0) {
        offsets[count++] = slot & OFFSET_MASK;
      }
    }
    offsets[count++] = homeless & OFFSET_MASK;
    long[] hashes = new long[count];
    for (int i = 0; i < count; i++) {
      hashes[i] = keyHashes.hashAt(offsets[i]);
    }
    long[] oldSlots = slots;
    int oldMask = bucketMask;
    long oldSize = size;
    for (int bucketCount = 2 * (bucketMask + 1); ; bucketCount *= 2) {
      if (bucketCount > MAX_BUCKETS) {
        restore(oldSlots, oldMask, oldSize);
        throw new IllegalStateException(
            "index full: " + count + " keys (expected: <= " + MAX_BUCKETS + " buckets)");
      }
      if (tryRebuild(bucketCount, offsets, hashes, count)) {
        return;
      }
      if (count <= bucketCount * (BUCKET_SIZE / 2)) {
        // Random keys always fit a half-empty table; this failure means more than
        // 2 × BUCKET_SIZE keys share one tag and bucket pair, which no table size can hold.
        restore(oldSlots, oldMask, oldSize);
        throw new IllegalStateException(
            "index cannot hold "
                + count
                + " keys: more than "
                + 2 * BUCKET_SIZE
                + " of them share a fingerprint and both buckets");
      }
    }
  }

  private void restore(long[] oldSlots, int oldMask, long oldSize) {
    slots = oldSlots;
    bucketMask = oldMask;
    size = oldSize;
  }

  private boolean tryRebuild(int bucketCount, long[] offsets, long[] hashes, int count) {
    slots = new long[bucketCount * BUCKET_SIZE];
    bucketMask = bucketCount - 1;
    size = 0;
    for (int i = 0; i < count; i++) {
      if (insert(hashes[i], offsets[i]) != 0) {
        return false;
      }
    }
    return true;
  }

  /** Changes the offset stored for {@code hash} from {@code oldOffset} to {@code newOffset}. */
  boolean replace(long hash, long oldOffset, long newOffset) {
    int index = find(hash, oldOffset);
    if (index < 0) {
      return false;
    }
    slots[index] = tag(hash) << OFFSET_BITS | newOffset;
    return true;
  }

  /** Removes the entry {@code (hash, offset)}; returns false if there is none. */
  boolean remove(long hash, long offset) {
    int index = find(hash, offset);
    if (index < 0) {
      return false;
    }
    slots[index] = 0;
    size--;
    return true;
  }

  private int find(long hash, long offset) {
    long entry = tag(hash) << OFFSET_BITS | offset;
    int first = firstBucket(hash);
    int index = indexOf(first, entry);
    return index >= 0 ? index : indexOf(alternateBucket(first, tag(hash)), entry);
  }

  private int indexOf(int bucket, long entry) {
    int start = bucket * BUCKET_SIZE;
    for (int i = start; i < start + BUCKET_SIZE; i++) {
      if (slots[i] == entry) {
        return i;
      }
    }
    return -1;
  }

  private boolean putInEmptySlot(int bucket, long entry) {
    int start = bucket * BUCKET_SIZE;
    for (int i = start; i < start + BUCKET_SIZE; i++) {
      if (slots[i] == 0) {
        slots[i] = entry;
        return true;
      }
    }
    return false;
  }

  /** Returns the number of occupied slots a lookup of {@code hash} compares its tag with. */
  int occupiedSlotsProbed(long hash) {
    int first = firstBucket(hash);
    return occupied(first) + occupied(alternateBucket(first, tag(hash)));
  }

  private int occupied(int bucket) {
    int count = 0;
    int start = bucket * BUCKET_SIZE;
    for (int i = start; i < start + BUCKET_SIZE; i++) {
      count += slots[i] != 0 ? 1 : 0;
    }
    return count;
  }

  /** Returns the tag of a hash: its top {@code tagBits} bits, 0 remapped to 1. */
  long tag(long hash) {
    long tag = hash >>> (Long.SIZE - tagBits);
    return tag == 0 ? 1 : tag;
  }

  private static long tagOf(long slot) {
    return slot >>> OFFSET_BITS;
  }

  private int firstBucket(long hash) {
    return (int) hash & bucketMask;
  }

  /** The other bucket of a tag: an involution, and never {@code bucket} itself (odd XOR). */
  private int alternateBucket(int bucket, long tag) {
    int offset = (int) ((tag * GOLDEN) >>> 32) | 1;
    return bucket ^ (offset & bucketMask);
  }

  private int nextRandom() {
    random ^= random << 13;
    random ^= random >>> 7;
    random ^= random << 17;
    return (int) (random >>> 32);
  }

  /** Returns the probability that two independent tags of {@code tagBits} bits are equal. */
  static double tagMatchProbability(int tagBits) {
    double values = Math.scalb(1.0, tagBits);
    return (values + 2) / (values * values);
  }

  /** Returns the number of stored entries. */
  long size() {
    return size;
  }

  /** Returns the number of buckets. */
  int bucketCount() {
    return bucketMask + 1;
  }

  /** Returns the tag width in bits. */
  int tagBits() {
    return tagBits;
  }

  /** Returns the fraction of slots in use. */
  double loadFactor() {
    return (double) size / slots.length;
  }

  /**
   * Returns the probability that a lookup of an absent key finds at least one matching tag (and so
   * reads a record) at the current load: {@code 1 − (1 − p)^(2·b·α)}.
   */
  double expectedFalsePositiveRate() {
    double comparisons = 2.0 * BUCKET_SIZE * loadFactor();
    return -Math.expm1(comparisons * Math.log1p(-tagMatchProbability(tagBits)));
  }

  /** Returns the heap size of the slot array in bytes. */
  long sizeInBytes() {
    return (long) slots.length * Long.BYTES;
  }
}
