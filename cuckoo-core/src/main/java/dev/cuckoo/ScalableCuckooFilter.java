package dev.cuckoo;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A cuckoo filter that grows: a chain of filters ("links"); when the newest link is full, a larger
 * one is added. Lookups check every link, so the false-positive rate is at most the sum of the
 * links'.
 *
 * <h2>STANDARD</h2>
 *
 * <p>{@link #builder} creates a chain of {@link Scheme#STANDARD} filters whose compound
 * false-positive rate stays at or below the configured target however far it grows: link {@code
 * k} is rated for {@code initialCapacity × growthFactor^k} items, and each link gets fingerprints
 * wide enough for a share of what is left of the target rate (a geometric series, as in scalable
 * Bloom filters). Wider fingerprints cost space: grown 1000-fold from its initial capacity with
 * growth factor 2 and a 1% target, the chain uses about 1.4 times the bits per item of a single
 * filter sized for the final count (see {@code StandardChainTest} for the measurement).
 *
 * <pre>{@code
 * ScalableCuckooFilter<CharSequence> filter = ScalableCuckooFilter.builder(ItemHashers.utf8())
 *     .initialCapacity(1000)
 *     .falsePositiveRate(0.01)
 *     .build();
 * for (int i = 0; i < 100_000; i++) {
 *   filter.add("key" + i);       // adds links as it fills
 * }
 * filter.mightContain("key42"); // true
 * }</pre>
 *
 * <p>Items are added to the newest link only. A remove takes the item's fingerprint from the
 * newest link where one is found; if another item added later collides with it there (the
 * false-positive event, probability at most about the target rate), that item's copy is the one
 * removed and it can become a false negative. Keep the target rate small when removes are
 * frequent.
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
     * A new link was needed but cannot be made ("Insufficient memory"): the link limit is
     * reached, its table is beyond the table limits or larger than the maximum heap, the heap
     * has no room for it even after a full garbage collection, or ({@link Scheme#STANDARD}) its
     * fingerprints would need more than 32 bits.
     */
    NO_MEMORY
  }

  /** Default growth factor of a {@link Scheme#STANDARD} chain. */
  public static final double DEFAULT_GROWTH_FACTOR = 2.0;

  /** Heap bytes of this object: a 12-byte header and four compressed references. */
  private static final long OBJECT_BYTES = 32;

  private final ItemHasher<? super T> hasher;
  private final Scheme scheme;
  private final Chain chain;

  private ScalableCuckooFilter(ItemHasher<? super T> hasher, RedisChain chain) {
    this.hasher = hasher;
    this.scheme = Scheme.REDISBLOOM;
    this.chain = chain;
  }

  private ScalableCuckooFilter(ItemHasher<? super T> hasher, StandardChain<T> chain) {
    this.hasher = hasher;
    this.scheme = Scheme.STANDARD;
    this.chain = chain;
  }

  /**
   * Returns a builder for a growing {@link Scheme#STANDARD} filter of items hashed by {@code
   * hasher}.
   *
   * @param hasher turns items into 64-bit hashes, e.g. {@link ItemHashers#utf8()}
   * @param <T> the item type
   * @return a new builder
   * @throws NullPointerException if {@code hasher} is null
   */
  public static <T> Builder<T> builder(ItemHasher<? super T> hasher) {
    return new Builder<>(Checks.requireNonNull(hasher, "hasher"));
  }

  /**
   * Creates an empty RedisBloom-compatible filter, as {@code CF.RESERVE key capacity BUCKETSIZE
   * bucketSize MAXITERATIONS maxIterations EXPANSION expansion} does: {@code
   * nextPowerOfTwo(max(1, capacity / bucketSize))} buckets of {@code bucketSize} 8-bit slots, and
   * the expansion rounded up to a power of two (0 stays 0: the filter never grows).
   *
   * <p>Whether the table fits is decided by allocating it, not by the free heap (which counts
   * garbage): sizes beyond the table limits or larger than the maximum heap ({@link
   * Runtime#maxMemory()} less 1/16 of it, at least 16 MiB) are refused before anything is
   * allocated; any other size is allocated, and if the heap has no room for it even after the
   * full garbage collection the JVM makes first, the {@link OutOfMemoryError} becomes a {@link
   * FilterAllocationException}. {@link #redisBloomSizeInBytes} gives the size beforehand.
   *
   * @param capacity the number of items, at least 1 (Redis accepts 2 × bucketSize to 2^30)
   * @param bucketSize slots per bucket, 1 to 255
   * @param maxIterations relocations per insert, 1 to 65535
   * @param expansion growth factor of each new link, 0 to 32768
   * @return the filter, holding items hashed by {@link ItemHashers#redisBytes()}
   * @throws IllegalArgumentException if a parameter is out of range
   * @throws FilterAllocationException if the table is beyond the table limits or larger than the
   *     maximum heap, or the heap has no room for it (the message names the size and the bound)
   */
  public static ScalableCuckooFilter<byte[]> redisBloom(
      long capacity, int bucketSize, int maxIterations, int expansion) {
    long buckets = redisBaseBuckets(capacity, bucketSize);
    Checks.requireRange("maxIterations", maxIterations, 1, RedisChain.MAX_ITERATIONS);
    Checks.requireRange("expansion", expansion, 0, RedisChain.MAX_EXPANSION);
    int rounded = expansion == 0 ? 0 : (int) Sizing.nextPowerOfTwo(expansion);
    return new ScalableCuckooFilter<>(
        ItemHashers.redisBytes(), RedisChain.create(buckets, bucketSize, maxIterations, rounded));
  }

  /**
   * Returns the heap bytes that {@link #redisBloom redisBloom(capacity, bucketSize, ...)} would
   * take, without allocating anything: {@link #sizeInBytes()} of the new filter, whatever its
   * maxIterations and expansion. For admission by a memory limit counted from filters' own sizes
   * (a server's {@code maxmemory}).
   *
   * <pre>{@code
   * long bytes = ScalableCuckooFilter.redisBloomSizeInBytes(1 << 30, 1);   // 2^30 + 576
   * ScalableCuckooFilter.redisBloom(1 << 30, 1, 20, 1).sizeInBytes() == bytes;   // true
   * }</pre>
   *
   * @param capacity the number of items, at least 1, as for {@link #redisBloom}
   * @param bucketSize slots per bucket, 1 to 255
   * @return the heap bytes of the new filter
   * @throws IllegalArgumentException if a parameter is out of range
   * @throws FilterAllocationException if the table is beyond the table limits, as {@link
   *     #redisBloom} would throw
   */
  public static long redisBloomSizeInBytes(long capacity, int bucketSize) {
    return RedisChain.newChainBytes(redisBaseBuckets(capacity, bucketSize), bucketSize)
        + OBJECT_BYTES;
  }

  /** Returns CF.RESERVE's bucket count, nextPowerOfTwo(max(1, capacity / bucketSize)). */
  private static long redisBaseBuckets(long capacity, int bucketSize) {
    Checks.requireRange("bucketSize", bucketSize, 1, RedisChain.MAX_BUCKET_SIZE);
    Checks.requireRange("capacity", capacity, 1, 1L << 62);
    return Sizing.nextPowerOfTwo(Math.max(1, capacity / bucketSize));
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
    return chain.add(hash(item), false);
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
    return chain.add(hash(item), true);
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
    return chain.mightContain(hash(item));
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
    return chain.count(hash(item));
  }

  /**
   * Removes one copy of {@code item}'s fingerprint, searching the newest link first ({@code
   * CF.DEL}); {@link Scheme#REDISBLOOM} then compacts the chain if more than one link exists and
   * the deletes since the last compaction exceed 10% of the items.
   *
   * @param item an item that was added
   * @return true if a copy was removed
   * @throws NullPointerException if {@code item} is null
   */
  public boolean remove(T item) {
    return chain.remove(hash(item));
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
    long oldHash = hash(oldItem);
    return chain.replace(oldHash, hash(newItem));
  }

  /** Removes every item: the chain shrinks to its first link, emptied, and the counters are 0. */
  public void clear() {
    chain.clear();
  }

  /**
   * Relocates fingerprints from newer links into older ones and frees the newest links that
   * become empty ({@code CF.COMPACT}); resets {@link #deletedCount()}. {@link Scheme#REDISBLOOM}
   * only.
   *
   * @throws UnsupportedOperationException for a {@link Scheme#STANDARD} filter
   */
  public void compact() {
    requireRedis("compact").compact(true);
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
    return chain.size();
  }

  /**
   * Returns the number of removes since the last compaction ("Number of items deleted"); for
   * {@link Scheme#STANDARD}, since creation or the last {@link #clear()}.
   *
   * @return the delete count
   */
  public long deletedCount() {
    return chain.deletedCount();
  }

  /**
   * Returns the number of links ("Number of filters").
   *
   * @return the link count, at least 1
   */
  public int linkCount() {
    return chain.linkCount();
  }

  /**
   * Returns the bucket count of the first link ("Number of buckets").
   *
   * @return the base bucket count
   */
  public long baseBucketCount() {
    return chain.baseBucketCount();
  }

  /**
   * Returns the number of slots per bucket ("Bucket size").
   *
   * @return the bucket size
   */
  public int bucketSize() {
    return chain.bucketSize();
  }

  /**
   * Returns the most relocations one insert may make ("Max iterations").
   *
   * @return the max kicks
   */
  public int maxKicks() {
    return chain.maxKicks();
  }

  /**
   * Returns the growth factor of new links ("Expansion rate"): rounded up to a power of two when
   * created by {@link #redisBloom}, as stored when loaded from a dump header; for {@link
   * Scheme#STANDARD}, {@link #growthFactor()} rounded down.
   *
   * @return the expansion
   */
  public int expansion() {
    return chain.expansion();
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
   * Returns the growth factor: the ratio of a new link's rated capacity to the previous one's
   * ({@link Scheme#STANDARD}), or {@link #expansion()} ({@link Scheme#REDISBLOOM}).
   *
   * @return the growth factor
   */
  public double growthFactor() {
    return chain.growthFactor();
  }

  /**
   * Returns the sum of the links' rated capacities: the number of items the chain holds before
   * it grows again ({@link Scheme#REDISBLOOM}: the number of slots).
   *
   * @return the capacity of the current links
   */
  public long capacity() {
    return chain.capacity();
  }

  /**
   * Returns the bound on the false-positive rate once every current link is at capacity: the sum
   * of the links' rates ({@link Scheme#STANDARD}: at most the target rate, for any number of
   * links; {@link Scheme#REDISBLOOM}: about {@code 2 × bucketSize / 255} per link).
   *
   * @return the compound false-positive bound
   */
  public double falsePositiveRateAtCapacity() {
    return chain.falsePositiveRateAtCapacity();
  }

  /**
   * Returns the table bits per rated item: every link's slots times its fingerprint width,
   * divided by {@link #capacity()}.
   *
   * @return bits per item at capacity
   */
  public double bitsPerItem() {
    return chain.bitsPerItem();
  }

  /**
   * Returns RedisBloom's computed size ({@code CF.INFO} "Size"): {@code 40 + 16 × links + Σ
   * buckets × bucketSize}.
   *
   * @return the size RedisBloom reports
   * @throws UnsupportedOperationException for a {@link Scheme#STANDARD} filter
   */
  public long redisSize() {
    return requireRedis("redisSize").redisSize();
  }

  /**
   * Returns RedisBloom's {@code CF.DEBUG} string: {@code "bktsize:2 buckets:512 items:1 deletes:0
   * filters:1 max_iterations:20 expansion:1"}.
   *
   * @return the debug string
   * @throws UnsupportedOperationException for a {@link Scheme#STANDARD} filter
   */
  public String redisDebug() {
    return requireRedis("redisDebug").debug();
  }

  /**
   * Returns the heap bytes of the filter: every link's table (its page arrays with their headers
   * and padding) and the objects of the links and of the chain, computed from the object layout
   * of a 64-bit JVM with compressed references (the default below 32 GiB of heap). Exact for the
   * tables, estimated within a few hundred bytes for the rest; the shared hasher and the
   * collector's rounding of an array to whole heap regions are not counted. For {@link
   * #redisBloom} filters it is {@link #redisBloomSizeInBytes} when new and grows by each link
   * added.
   *
   * @return size in bytes
   */
  public long sizeInBytes() {
    return chain.sizeInBytes() + OBJECT_BYTES;
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
   * @throws UnsupportedOperationException for a {@link Scheme#STANDARD} filter
   */
  public ScanDumpChunk scanDump(long iterator) {
    return RedisDump.scan(requireRedis("scanDump"), iterator);
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
   * @throws FilterFormatException if the header is invalid or its links are beyond the limits or
   *     larger than the maximum heap (nothing is then allocated), or the heap has no room for
   *     them even after a full garbage collection
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
   * @throws UnsupportedOperationException for a {@link Scheme#STANDARD} filter
   */
  public void loadDumpChunk(long iterator, byte[] data) {
    RedisDump.loadChunk(requireRedis("loadDumpChunk"), iterator, data);
  }

  // ---------------------------------------------------------------------------------------------
  // Serialization (docs/FORMAT.md, "Chained filters")

  /**
   * Writes this filter in the versioned binary format of chained filters (a chain header, every
   * link, a CRC32C) to {@code out}, streaming the tables without copying them; does not close
   * {@code out}.
   *
   * @param out the stream to write to
   * @throws IOException if {@code out} fails
   */
  public void writeTo(OutputStream out) throws IOException {
    ChainFormat.write(this, out);
  }

  /**
   * Reads a filter written by {@link #writeTo(OutputStream)}, leaving {@code in} just after it.
   *
   * @param in the stream to read from
   * @param hasher the hasher the filter was written with
   * @param <T> the item type
   * @return the filter
   * @throws FilterFormatException if the bytes are corrupt, truncated, of an unknown version,
   *     written with a different built-in hasher, inconsistent (a link that does not match the
   *     chain's parameters), or its links are larger than the maximum heap (refused before
   *     allocating) or do not fit in the heap even after a full garbage collection
   * @throws IOException if {@code in} fails
   */
  public static <T> ScalableCuckooFilter<T> readFrom(InputStream in, ItemHasher<? super T> hasher)
      throws IOException {
    return ChainFormat.read(in, hasher);
  }

  @Override
  public String toString() {
    return "ScalableCuckooFilter{scheme=" + scheme + ", " + chain.describe() + "}";
  }

  // ---------------------------------------------------------------------------------------------

  private long hash(T item) {
    return hasher.hash(Checks.requireNonNull(item, "item"));
  }

  /** Wraps a chain read back (ChainFormat). */
  static <T> ScalableCuckooFilter<T> of(ItemHasher<? super T> hasher, RedisChain chain) {
    return new ScalableCuckooFilter<>(hasher, chain);
  }

  /** Wraps a chain read back (ChainFormat). */
  static <T> ScalableCuckooFilter<T> of(ItemHasher<? super T> hasher, StandardChain<T> chain) {
    return new ScalableCuckooFilter<>(hasher, chain);
  }

  private RedisChain requireRedis(String operation) {
    if (!(chain instanceof RedisChain)) {
      throw new UnsupportedOperationException(operation + " needs the REDISBLOOM scheme");
    }
    return (RedisChain) chain;
  }

  /** Returns the RedisBloom chain, or null (package tests, ChainFormat). */
  RedisChain redisChain() {
    return chain instanceof RedisChain ? (RedisChain) chain : null;
  }

  /** Returns the STANDARD chain, or null (package tests, ChainFormat). */
  @SuppressWarnings("unchecked")
  StandardChain<T> standardChain() {
    return chain instanceof StandardChain ? (StandardChain<T>) chain : null;
  }

  /**
   * Configures and creates a growing {@link Scheme#STANDARD} filter. {@link #initialCapacity} is
   * required; everything else has a default.
   *
   * @param <T> the item type
   */
  public static final class Builder<T> {
    private final ItemHasher<? super T> hasher;
    private long initialCapacity = -1;
    private double growthFactor = DEFAULT_GROWTH_FACTOR;
    private double falsePositiveRate = CuckooFilter.DEFAULT_FALSE_POSITIVE_RATE;
    private int bucketSize = CuckooFilter.DEFAULT_BUCKET_SIZE;
    private int maxKicks = CuckooFilter.DEFAULT_MAX_KICKS;
    private long seed = CuckooFilter.DEFAULT_SEED;

    private Builder(ItemHasher<? super T> hasher) {
      this.hasher = hasher;
    }

    /**
     * Sets the rated capacity of the first link (required).
     *
     * @param initialCapacity 1 to 2^36
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> initialCapacity(long initialCapacity) {
      Checks.requireRange("initialCapacity", initialCapacity, 1, Sizing.MAX_EXPECTED_ITEMS);
      this.initialCapacity = initialCapacity;
      return this;
    }

    /**
     * Sets the ratio of each new link's capacity to the previous one's (default 2).
     *
     * @param growthFactor 1.1 to 64
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> growthFactor(double growthFactor) {
      Checks.requireArgument(
          growthFactor >= 1.1 && growthFactor <= 64,
          "growthFactor: %s (expected: 1.1 <= growthFactor <= 64)",
          growthFactor);
      this.growthFactor = growthFactor;
      return this;
    }

    /**
     * Sets the target false-positive rate of the whole chain, however many links it grows to
     * (default 0.01).
     *
     * @param falsePositiveRate in (0, 1)
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> falsePositiveRate(double falsePositiveRate) {
      this.falsePositiveRate = Checks.requireRate("falsePositiveRate", falsePositiveRate);
      return this;
    }

    /**
     * Sets the number of slots per bucket (default 4).
     *
     * @param bucketSize 2, 4 or 8
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> bucketSize(int bucketSize) {
      Checks.requireArgument(
          bucketSize == 2 || bucketSize == 4 || bucketSize == 8,
          "bucketSize: %s (expected: 2, 4 or 8)",
          bucketSize);
      this.bucketSize = bucketSize;
      return this;
    }

    /**
     * Sets the most relocations one insert may make in the newest link (default 500).
     *
     * @param maxKicks 0 to {@value CuckooFilter#MAX_KICKS_LIMIT}
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> maxKicks(int maxKicks) {
      Checks.requireRange("maxKicks", maxKicks, 0, CuckooFilter.MAX_KICKS_LIMIT);
      this.maxKicks = maxKicks;
      return this;
    }

    /**
     * Sets the seed mixed into every item hash (default 0: the hash is used as it is).
     *
     * @param seed any value
     * @return this builder
     */
    public Builder<T> seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Creates the filter with its first link.
     *
     * @return a new, empty filter
     * @throws IllegalStateException if {@link #initialCapacity} was not set
     * @throws IllegalArgumentException if the target rate needs fingerprints wider than 32 bits
     * @throws FilterAllocationException if the first link does not fit in the heap
     */
    public ScalableCuckooFilter<T> build() {
      if (initialCapacity < 0) {
        throw new IllegalStateException("initialCapacity must be set");
      }
      return new ScalableCuckooFilter<>(
          hasher,
          new StandardChain<>(
              hasher, initialCapacity, growthFactor, falsePositiveRate, bucketSize, maxKicks, seed));
    }
  }
}
