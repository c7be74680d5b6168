package dev.cuckoo;

/**
 * The compact form of a small RedisBloom chain that has one link and never grew: the header fields
 * and one byte array of slots, two objects in all. It answers every command as the {@link
 * RedisChain} of the same slots would, bit for bit; when an insert needs a second link, {@link
 * #add} returns null and {@link #expand} gives that RedisChain (over a copy of the slots), which
 * the caller then uses instead.
 */
final class CompactRedisChain extends Chain {
  /*
   * Why: per-user or per-day filters are many and small (CF.RESERVE key 100 is 64 buckets of 2
   * slots, 128 bytes). A RedisChain of one link holds twelve objects around them (the chain, its
   * list and the list's array, the room index and its words, the link offsets, the link, its
   * BucketTable, page array and Indexer): about 650 bytes of heap for 128 bytes of slots. This form
   * holds 40 bytes of fields and the slot array.
   *
   * Layout of `slots`: BucketTable's payload of 8-bit slots (bucket i, slot s at byte i·b + s),
   * without the page padding a BucketTable reads past its last bucket (8 bytes a filter). What
   * needs a BucketTable (a kick-out, a dump, the RedisChain of expand) gets one over a padded copy;
   * a kick-out copies the slots back when it succeeds (a failed one leaves them as they were).
   *
   * Only power-of-two bucket counts (every CF.RESERVE's): h mod n is then h & (n − 1), and a failed
   * kick-out retraces exactly, so a failed attempt here followed by the same attempt in the
   * expanded chain behaves as one attempt in a RedisChain.
   */

  /** Most slots of a chain kept in this form: larger links hardly gain from it. */
  static final long MAX_SLOTS = 1L << 16;

  /**
   * Heap bytes of this object (compressed oops, 12-byte header): one reference, two ints and two
   * longs (checked against a heap walk in the server's KeyspaceMemoryTest).
   */
  static final long OBJECT_BYTES = 40;

  private final byte[] slots;

  /** bucketSize << 16 | (bucketCount − 1): both fit, as bucketCount·bucketSize <= 2^16. */
  private final int geometry;

  /** maxIterations << 16 | expansion (RedisBloom's u16 fields). */
  private final int limits;

  private long items;
  private long deletes;

  private CompactRedisChain(
      byte[] slots, long bucketCount, int bucketSize, int maxIterations, int expansion) {
    this.slots = slots;
    this.geometry = bucketSize << 16 | (int) (bucketCount - 1);
    this.limits = maxIterations << 16 | expansion;
  }

  private int bucketMask() {
    return geometry & 0xFFFF;
  }

  @Override
  int bucketSize() {
    return geometry >>> 16;
  }

  @Override
  int maxKicks() {
    return limits >>> 16;
  }

  @Override
  int expansion() {
    return limits & 0xFFFF;
  }

  /** Returns true if a chain of one link of this geometry can take this form. */
  static boolean fits(long bucketCount, int bucketSize) {
    return bucketCount >= 1
        && Long.bitCount(bucketCount) == 1
        && bucketSize >= 1
        && bucketSize <= RedisChain.MAX_BUCKET_SIZE
        && bucketCount * bucketSize <= MAX_SLOTS;
  }

  /** Creates an empty chain, as CF.RESERVE does; the geometry must {@link #fits}. */
  static CompactRedisChain create(
      long bucketCount, int bucketSize, int maxIterations, int expansion) {
    Checks.requireArgument(
        fits(bucketCount, bucketSize),
        "%s buckets of %s slots (expected: a power of two, at most %s slots)",
        bucketCount,
        bucketSize,
        MAX_SLOTS);
    byte[] slots = new byte[(int) (bucketCount * bucketSize)];
    return new CompactRedisChain(slots, bucketCount, bucketSize, maxIterations, expansion);
  }

  /**
   * Returns the compact form of {@code chain} (a copy of its slots) if it has one link of a
   * geometry that {@link #fits}, else null.
   */
  static CompactRedisChain of(RedisChain chain) {
    if (chain.linkCount() != 1 || !fits(chain.baseBuckets(), chain.bucketSize())) {
      return null;
    }
    BucketTable table = chain.links().get(0).table;
    byte[] page = table.singlePage();
    if (page == null
        || table.fingerprintBits() != 8
        || table.bucketCount() != chain.baseBuckets()) {
      return null;
    }
    CompactRedisChain compact =
        new CompactRedisChain(
            java.util.Arrays.copyOf(page, (int) table.payloadBytes()),
            chain.baseBuckets(),
            chain.bucketSize(),
            chain.maxIterations(),
            chain.expansion());
    compact.items = chain.items();
    compact.deletes = chain.deletes();
    return compact;
  }

  /**
   * Returns the RedisChain of a copy of these slots and these counters: the form to use from now on
   * when {@link #add} returned null, or a snapshot for dumps and serialization.
   */
  RedisChain expand() {
    return RedisChain.over(table(), maxKicks(), expansion(), items, deletes);
  }

  /**
   * Writes the slots as the payload of the one link of the serialized form (ChainFormat), without
   * the RedisChain that {@link #expand} would build for it.
   */
  void writePayload(FormatOutput output) throws java.io.IOException {
    output.write(slots, 0, slots.length);
  }

  /** Returns a BucketTable over a padded copy of the slots. */
  private BucketTable table() {
    byte[] page = java.util.Arrays.copyOf(slots, slots.length + BucketTable.PAGE_PADDING_BYTES);
    return BucketTable.overPage(page, bucketMask() + 1L, bucketSize(), 8);
  }

  /** Copies the slots of {@code table} (a {@link #table()} changed since) back. */
  private void copyBack(BucketTable table) {
    System.arraycopy(table.singlePage(), 0, slots, 0, slots.length);
  }

  /** CF.LOADCHUNK: {@link RedisDump#loadChunk} into these slots. */
  void loadDumpChunk(long iterator, byte[] data) {
    RedisChain copy = expand();
    RedisDump.loadChunk(copy, iterator, data);
    copyBack(copy.links().get(0).table);
  }

  // ---------------------------------------------------------------------------------------------
  // Slots: 8-bit, bucket i's slot s at byte i·b + s

  private int bucket(long h) {
    return (int) h & geometry & 0xFFFF;
  }

  private boolean contains(int bucket, long fingerprint) {
    byte fp = (byte) fingerprint;
    int bucketSize = geometry >>> 16;
    for (int i = bucket * bucketSize, end = i + bucketSize; i < end; i++) {
      if (slots[i] == fp) {
        return true;
      }
    }
    return false;
  }

  private int count(int bucket, long fingerprint) {
    byte fp = (byte) fingerprint;
    int count = 0;
    int bucketSize = geometry >>> 16;
    for (int i = bucket * bucketSize, end = i + bucketSize; i < end; i++) {
      count += slots[i] == fp ? 1 : 0;
    }
    return count;
  }

  /** Returns the array index of the lowest slot of {@code bucket} holding the value, or −1. */
  private int find(int bucket, long fingerprint) {
    byte fp = (byte) fingerprint;
    int bucketSize = geometry >>> 16;
    for (int i = bucket * bucketSize, end = i + bucketSize; i < end; i++) {
      if (slots[i] == fp) {
        return i;
      }
    }
    return -1;
  }

  private boolean insert(int bucket, long fingerprint) {
    int slot = find(bucket, 0);
    if (slot < 0) {
      return false;
    }
    slots[slot] = (byte) fingerprint;
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // Commands, as RedisChain's with one link

  /**
   * CF.ADD / CF.ADDNX; null, changing nothing, if the item needs a new link: then {@link #expand}
   * and add there.
   */
  AddOutcome add(long h, boolean ifAbsent) {
    if (ifAbsent && mightContain(h)) {
      return AddOutcome.ALREADY_PRESENT;
    }
    long fp = Indexer.redisFingerprint(h);
    int first = bucket(h);
    if (insert(first, fp)
        || insert(bucket(Indexer.redisAlternateHash(h, fp)), fp)
        || kick(first, fp)) {
      items++;
      return AddOutcome.ADDED;
    }
    return expansion() == 0 ? AddOutcome.FULL : null;
  }

  /**
   * RedisBloom's kick-out; on failure every slot is as it was (the bucket count is a power of 2).
   */
  private boolean kick(int bucket, long fp) {
    BucketTable table = table();
    if (!Inserter.redisKickOut(
        Indexer.redisLink(bucketMask() + 1L), table, bucket, fp, maxKicks())) {
      return false;
    }
    copyBack(table);
    return true;
  }

  /** CF.EXISTS. */
  @Override
  boolean mightContain(long h) {
    long fp = Indexer.redisFingerprint(h);
    return contains(bucket(h), fp) || contains(bucket(Indexer.redisAlternateHash(h, fp)), fp);
  }

  /** CF.COUNT: both buckets, the same bucket twice if both indexes coincide. */
  @Override
  long count(long h) {
    long fp = Indexer.redisFingerprint(h);
    return count(bucket(h), fp) + count(bucket(Indexer.redisAlternateHash(h, fp)), fp);
  }

  /** CF.DEL: the lowest matching slot of the first bucket, else of the second. */
  @Override
  boolean remove(long h) {
    int slot = findItem(h);
    if (slot < 0) {
      return false;
    }
    slots[slot] = 0;
    items--;
    deletes++;
    return true;
  }

  private int findItem(long h) {
    long fp = Indexer.redisFingerprint(h);
    int slot = find(bucket(h), fp);
    return slot >= 0 ? slot : find(bucket(Indexer.redisAlternateHash(h, fp)), fp);
  }

  /**
   * Replaces one copy of the first hash by the second, as {@link RedisChain#replace}; on a chain
   * that must grow for it, use {@link #replaceOrNull} and {@link #expand}.
   */
  @Override
  boolean replace(long oldHash, long newHash) {
    Boolean replaced = replaceOrNull(oldHash, newHash);
    if (replaced == null) {
      throw new IllegalStateException("replace needs a new link: expand the chain first");
    }
    return replaced;
  }

  /**
   * {@link #replace}, or null, changing nothing, if the second item needs a new link: then {@link
   * #expand} and replace there.
   */
  Boolean replaceOrNull(long oldHash, long newHash) {
    int slot = findItem(oldHash);
    if (slot < 0) {
      return Boolean.FALSE;
    }
    byte old = slots[slot];
    slots[slot] = 0;
    items--;
    AddOutcome added = add(newHash, false);
    if (added == AddOutcome.ADDED) {
      return Boolean.TRUE;
    }
    slots[slot] = old;
    items++;
    return added == null ? null : Boolean.FALSE;
  }

  /** CF.COMPACT: with one link nothing moves; the delete count restarts. */
  void compact() {
    deletes = 0;
  }

  @Override
  void clear() {
    java.util.Arrays.fill(slots, (byte) 0);
    items = 0;
    deletes = 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Properties

  @Override
  long size() {
    return items;
  }

  @Override
  long deletedCount() {
    return deletes;
  }

  @Override
  int linkCount() {
    return 1;
  }

  @Override
  long baseBucketCount() {
    return bucketMask() + 1L;
  }

  @Override
  double growthFactor() {
    return expansion();
  }

  @Override
  long capacity() {
    return (bucketMask() + 1L) * bucketSize();
  }

  @Override
  double falsePositiveRateAtCapacity() {
    return Sizing.falsePositiveRate(255, bucketSize(), 1.0);
  }

  @Override
  double expectedFalsePositiveRate() {
    return expand().expectedFalsePositiveRate();
  }

  @Override
  double loadFactor() {
    return RedisChain.unsignedToDouble(items) / capacity();
  }

  @Override
  double bitsPerItem() {
    return 8.0;
  }

  /** Returns the heap bytes of this object and its slot array. */
  @Override
  long sizeInBytes() {
    return OBJECT_BYTES + BucketTable.arrayBytes(slots.length);
  }

  /** Returns the heap bytes of a new chain of this geometry, as {@link #sizeInBytes()}. */
  static long newChainBytes(long bucketCount, int bucketSize) {
    return OBJECT_BYTES + BucketTable.arrayBytes(bucketCount * bucketSize);
  }

  @Override
  String describe() {
    return expand().debug();
  }
}
