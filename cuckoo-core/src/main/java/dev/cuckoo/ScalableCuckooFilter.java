package dev.cuckoo;

/**
 * A cuckoo filter that grows: a chain of filters ("links"); when the newest link is full, a larger
 * one is added. Lookups check every link, so the false-positive rate is the sum of the links'.
 *
 * <h2>REDISBLOOM</h2>
 *
 * <p>{@link #redisBloom} creates a chain that behaves bit for bit like a RedisBloom cuckoo filter
 * ({@code CF.RESERVE key capacity BUCKETSIZE b MAXITERATIONS m EXPANSION e} in Redis 8): items are
 * hashed with MurmurHash64A ({@link ItemHashers#redisBytes()}), 8-bit fingerprints, link {@code k}
 * has {@code base × expansion^k} buckets, lookups and inserts go from the newest link to the
 * oldest, only the newest link relocates fingerprints, deletes go newest first and compact the
 * chain when deletes exceed 10% of the items. Its {@link #redisDebug()}, {@link #redisSize()} and
 * {@link #scanDump(long)} output equal RedisBloom's, and {@link #loadDumpHeader} / {@link
 * #loadDumpChunk} read a RedisBloom dump.
 *
 * <pre>{@code
 * ScalableCuckooFilter<byte[]> filter = ScalableCuckooFilter.redisBloom(1000, 2, 20, 1);
 * filter.tryAdd("item1".getBytes(StandardCharsets.UTF_8));      // ADDED
 * filter.redisDebug();  // "bktsize:2 buckets:512 items:1 deletes:0 filters:1 max_iterations:20 expansion:1"
 * }</pre>
 *
 * <h2>Contract</h2>
 *
 * <ul>
 *   <li>No false negatives: {@link #mightContain} is true for every item added and not removed,
 *       provided only added items are removed.
 *   <li>An add that returns anything but {@link AddResult#ADDED} leaves the filter unchanged.
 *   <li>Duplicates are stored as separate copies; removing an item that was never added can remove
 *       another item's fingerprint.
 *   <li>Not thread-safe.
 * </ul>
 *
 * @param <T> the item type
 */
public final class ScalableCuckooFilter<T> {
  /**
   * The outcome of {@link #tryAdd} and {@link #tryAddIfAbsent}, mapping onto RedisBloom's replies.
   */
  public enum AddResult {
    /** The item was added ({@code CF.ADD} 1). */
    ADDED,
    /** {@link #tryAddIfAbsent} only: the item might already be present ({@code CF.ADDNX} 0). */
    EXISTS,
    /** The filter has no room and may not grow: expansion 0 ("Filter is full"). */
    FULL,
    /**
     * A new link was needed but cannot be made: the link limit is reached or its table does not
     * fit in the heap ("Insufficient memory").
     */
    NO_MEMORY
  }

  private final ItemHasher<? super T> hasher;
  private final Scheme scheme;
  private final RedisChain redis;

  private ScalableCuckooFilter(ItemHasher<? super T> hasher, RedisChain redis) {
    this.hasher = hasher;
    this.scheme = Scheme.REDISBLOOM;
    this.redis = redis;
  }

  /**
   * Creates an empty RedisBloom-compatible filter, as {@code CF.RESERVE key capacity BUCKETSIZE
   * bucketSize MAXITERATIONS maxIterations EXPANSION expansion} does: {@code
   * nextPowerOfTwo(max(1, capacity / bucketSize))} buckets of {@code bucketSize} 8-bit slots, and
   * the expansion rounded up to a power of two (0 stays 0: the filter never grows).
   *
   * @param capacity the number of items, at least 1 (Redis accepts 2 × bucketSize to 2^30)
   * @param bucketSize slots per bucket, 1 to 255
   * @param maxIterations relocations per insert, 1 to 65535
   * @param expansion growth factor of each new link, 0 to 32768
   * @return the filter, holding items hashed by {@link ItemHashers#redisBytes()}
   * @throws IllegalArgumentException if a parameter is out of range
   * @throws FilterAllocationException if the table is too large for the limits or the heap
   */
  public static ScalableCuckooFilter<byte[]> redisBloom(
      long capacity, int bucketSize, int maxIterations, int expansion) {
    Checks.requireRange("bucketSize", bucketSize, 1, RedisChain.MAX_BUCKET_SIZE);
    Checks.requireRange("maxIterations", maxIterations, 1, RedisChain.MAX_ITERATIONS);
    Checks.requireRange("expansion", expansion, 0, RedisChain.MAX_EXPANSION);
    Checks.requireRange("capacity", capacity, 1, 1L << 62);
    long buckets = Sizing.nextPowerOfTwo(Math.max(1, capacity / bucketSize));
    int rounded = expansion == 0 ? 0 : (int) Sizing.nextPowerOfTwo(expansion);
    return new ScalableCuckooFilter<>(
        ItemHashers.redisBytes(), RedisChain.create(buckets, bucketSize, maxIterations, rounded));
  }

  // ---------------------------------------------------------------------------------------------
  // Item API

  /**
   * Adds one copy of {@code item} ({@code CF.ADD}).
   *
   * @param item the item
   * @return {@link AddResult#ADDED}, {@link AddResult#FULL} or {@link AddResult#NO_MEMORY}
   * @throws NullPointerException if {@code item} is null
   */
  public AddResult tryAdd(T item) {
    return redis.add(hash(item), false);
  }

  /**
   * Adds {@code item} unless it might already be present ({@code CF.ADDNX}).
   *
   * @param item the item
   * @return {@link AddResult#EXISTS} if its fingerprint is in one of its buckets of any link,
   *     otherwise as {@link #tryAdd}
   * @throws NullPointerException if {@code item} is null
   */
  public AddResult tryAddIfAbsent(T item) {
    return redis.add(hash(item), true);
  }

  /**
   * Adds one copy of {@code item}.
   *
   * @param item the item
   * @return true if added; false if there was no room (the filter is unchanged)
   * @throws NullPointerException if {@code item} is null
   */
  public boolean add(T item) {
    return tryAdd(item) == AddResult.ADDED;
  }

  /**
   * Adds {@code item} unless it might already be present.
   *
   * @param item the item
   * @return true if added
   * @throws NullPointerException if {@code item} is null
   */
  public boolean addIfAbsent(T item) {
    return tryAddIfAbsent(item) == AddResult.ADDED;
  }

  /**
   * Returns true if {@code item} might be in the filter, false if it definitely is not ({@code
   * CF.EXISTS}).
   *
   * @param item the item
   * @return false only if {@code item} was not added (or was removed as often as added)
   * @throws NullPointerException if {@code item} is null
   */
  public boolean mightContain(T item) {
    return redis.mightContain(hash(item));
  }

  /**
   * Returns the number of copies of {@code item}'s fingerprint in its buckets of every link
   * ({@code CF.COUNT}): at least the times it was added and not removed. As in RedisBloom, a link
   * where both of the item's buckets are the same bucket counts it twice.
   *
   * @param item the item
   * @return the count
   * @throws NullPointerException if {@code item} is null
   */
  public long count(T item) {
    return redis.count(hash(item));
  }

  /**
   * Removes one copy of {@code item}'s fingerprint, searching the newest link first ({@code
   * CF.DEL}); then compacts the chain if more than one link exists and the deletes since the last
   * compaction exceed 10% of the items.
   *
   * @param item an item that was added
   * @return true if a copy was removed
   * @throws NullPointerException if {@code item} is null
   */
  public boolean remove(T item) {
    return redis.remove(hash(item));
  }

  /**
   * Replaces one copy of {@code oldItem} by {@code newItem}: the copy {@link #remove} would remove
   * is cleared and {@code newItem} is added as {@link #add} would add it; if that fails, nothing
   * changes. Not counted as a delete.
   *
   * @param oldItem an item that was added
   * @param newItem the item to add in its place
   * @return true if replaced
   * @throws NullPointerException if an item is null
   */
  public boolean replace(T oldItem, T newItem) {
    return redis.replace(hash(oldItem), hash(newItem));
  }

  /** Removes every item: the chain shrinks to its first link, emptied, and the counters are 0. */
  public void clear() {
    redis.clear();
  }

  /**
   * Relocates fingerprints from newer links into older ones and frees the newest links that
   * become empty ({@code CF.COMPACT}); resets {@link #deletedCount()}.
   */
  public void compact() {
    redis.compact(true);
  }

  // ---------------------------------------------------------------------------------------------
  // Properties

  /**
   * Returns the number of items: adds minus removes that succeeded (RedisBloom's numItems, "Number
   * of items inserted"). A count loaded from a dump is kept as RedisBloom's unsigned 64-bit value.
   *
   * @return the number of items
   */
  public long size() {
    return redis.items();
  }

  /**
   * Returns the number of removes since the last compaction ("Number of items deleted").
   *
   * @return the delete count
   */
  public long deletedCount() {
    return redis.deletes();
  }

  /**
   * Returns the number of links ("Number of filters").
   *
   * @return the link count, at least 1
   */
  public int linkCount() {
    return redis.linkCount();
  }

  /**
   * Returns the bucket count of the first link ("Number of buckets").
   *
   * @return the base bucket count
   */
  public long baseBucketCount() {
    return redis.baseBuckets();
  }

  /**
   * Returns the number of slots per bucket ("Bucket size").
   *
   * @return the bucket size
   */
  public int bucketSize() {
    return redis.bucketSize();
  }

  /**
   * Returns the most relocations one insert may make ("Max iterations").
   *
   * @return the max kicks
   */
  public int maxKicks() {
    return redis.maxIterations();
  }

  /**
   * Returns the growth factor of new links ("Expansion rate"): rounded up to a power of two when
   * created by {@link #redisBloom}, as stored when loaded from a dump header.
   *
   * @return the expansion
   */
  public int expansion() {
    return redis.expansion();
  }

  /**
   * Returns the scheme.
   *
   * @return the scheme
   */
  public Scheme scheme() {
    return scheme;
  }

  /**
   * Returns the hasher items are hashed with.
   *
   * @return the hasher
   */
  public ItemHasher<? super T> hasher() {
    return hasher;
  }

  /**
   * Returns RedisBloom's computed size ({@code CF.INFO} "Size"): {@code 40 + 16 × links + Σ
   * buckets × bucketSize}.
   *
   * @return the size RedisBloom reports
   */
  public long redisSize() {
    return redis.redisSize();
  }

  /**
   * Returns RedisBloom's {@code CF.DEBUG} string: {@code "bktsize:2 buckets:512 items:1 deletes:0
   * filters:1 max_iterations:20 expansion:1"}.
   *
   * @return the debug string
   */
  public String redisDebug() {
    return redis.debug();
  }

  /**
   * Returns the approximate heap size of the filter: the links' tables plus bookkeeping.
   *
   * @return size in bytes
   */
  public long sizeInBytes() {
    return redis.sizeInBytes() + 64;
  }

  // ---------------------------------------------------------------------------------------------
  // RedisBloom SCANDUMP / LOADCHUNK

  /**
   * Returns the chunk of RedisBloom's dump at {@code iterator} ({@code CF.SCANDUMP}): iterator 0
   * gives the 38-byte header and iterator 1; later iterators give the links' slot bytes, a whole
   * link at a time if it is at most 16 MiB, else 16 MiB at a time. An empty filter (size 0) or an
   * iterator past the end gives {@link ScanDumpChunk#iterator()} 0 and no data.
   *
   * <pre>{@code
   * for (long it = 0; ; ) {
   *   ScanDumpChunk chunk = filter.scanDump(it);
   *   if (chunk.iterator() == 0) break;
   *   send(chunk.iterator(), chunk.data());   // CF.LOADCHUNK key iterator data
   *   it = chunk.iterator();
   * }
   * }</pre>
   *
   * @param iterator 0 to start, then the iterator of the previous chunk
   * @return the chunk and the next iterator
   * @throws IllegalArgumentException if {@code iterator} is negative
   */
  public ScanDumpChunk scanDump(long iterator) {
    return RedisDump.scan(redis, iterator);
  }

  /**
   * Creates an empty filter from the header of a RedisBloom dump ({@code CF.LOADCHUNK key 1
   * header}), validating it as RedisBloom does: bucket size 1 to 255, 1 to 65535 links (RedisBloom
   * also takes 65536, which it truncates to 0 links), max iterations 1 to 65535, expansion 0 to
   * 32768 and not 0 with more than one link, base bucket count a power of two below 2^56. The
   * expansion is kept as it is, not rounded. Item and delete counts come from the header only.
   *
   * @param header the 38-byte header, as {@code scanDump(0)} returns it
   * @return a filter whose links are allocated and empty, ready for {@link #loadDumpChunk}
   * @throws FilterFormatException if the header is invalid or its links are too large for the
   *     limits or the heap (nothing is then allocated)
   * @throws NullPointerException if {@code header} is null
   */
  public static ScalableCuckooFilter<byte[]> loadDumpHeader(byte[] header) {
    return new ScalableCuckooFilter<>(ItemHashers.redisBytes(), RedisDump.load(header));
  }

  /**
   * Writes a chunk of a RedisBloom dump into the links ({@code CF.LOADCHUNK key iterator data}):
   * the bytes go to offset {@code iterator − data.length − 1} of the links' concatenated slots
   * and must lie inside one link.
   *
   * @param iterator the iterator returned with the chunk, at least 2
   * @param data the chunk
   * @throws FilterFormatException if the iterator or the length does not fit
   * @throws NullPointerException if {@code data} is null
   */
  public void loadDumpChunk(long iterator, byte[] data) {
    RedisDump.loadChunk(redis, iterator, data);
  }

  @Override
  public String toString() {
    return "ScalableCuckooFilter{scheme=" + scheme + ", " + redis.debug() + "}";
  }

  // ---------------------------------------------------------------------------------------------

  private long hash(T item) {
    return hasher.hash(Checks.requireNonNull(item, "item"));
  }

  /** Returns the RedisBloom chain (package tests). */
  RedisChain redisChain() {
    return redis;
  }
}
