package dev.cuckoo;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

/**
 * A cuckoo filter that grows: a chain of filters ("links"); when the newest link is full, a larger
 * one is added. Lookups check every link, so the false-positive rate is at most the sum of the
 * links'.
 *
 * <h2>STANDARD</h2>
 *
 * <p>{@link #builder} creates a chain of {@link Scheme#STANDARD} filters whose compound
 * false-positive rate stays at or below the configured target however far it grows: link {@code k}
 * is rated for {@code expectedItems × growthFactor^k} items, and each link gets fingerprints wide
 * enough for a share of what is left of the target rate (a geometric series, as in scalable Bloom
 * filters). Wider fingerprints cost space: grown 1000-fold from its initial capacity with growth
 * factor 2 and a 1% target, the chain uses about 1.4 times the bits per item of a single filter
 * sized for the final count (see {@code StandardChainTest} for the measurement). With a hint of the
 * final count ({@link Builder#expectedFinalItems}) the budget is split by the links' shares of the
 * items instead, and the same growth costs about 1.2 times (see {@code GrowthHintTest}); the bound
 * still holds past the hint.
 *
 * <pre>{@code
 * ScalableCuckooFilter<CharSequence> filter = ScalableCuckooFilter.builder(ItemHashers.utf8())
 *     .expectedItems(1000)
 *     .falsePositiveRate(0.01)
 *     .build();
 * for (int i = 0; i < 100_000; i++) {
 *   filter.add("key" + i);       // adds links as it fills
 * }
 * filter.mightContain("key42"); // true
 * }</pre>
 *
 * <p>Items are added to the newest link only. A remove takes the item's fingerprint from the newest
 * link where one is found; if another item added later collides with it there (the false-positive
 * event, probability at most about the target rate), that item's copy is the one removed and it can
 * become a false negative. Keep the target rate small when removes are frequent.
 *
 * <h2>REDISBLOOM</h2>
 *
 * <p>{@link #builder} with {@link Builder#scheme Scheme.REDISBLOOM} creates a chain that behaves
 * bit for bit like a RedisBloom cuckoo filter ({@code CF.RESERVE key capacity BUCKETSIZE b
 * MAXITERATIONS m EXPANSION e} in Redis 8): items are hashed with MurmurHash64A ({@link
 * ItemHashers#redisBytes()}), 8-bit fingerprints, link {@code k} has {@code base × expansion^k}
 * buckets, lookups and inserts go from the newest link to the oldest, only the newest link
 * relocates fingerprints, deletes go newest first and compact the chain when deletes exceed 10% of
 * the items. Its {@link #redisDebug()}, {@link #redisSize()} and {@link #scanDump(long)} output
 * equal RedisBloom's, and {@link #loadDumpHeader} / {@link #loadDumpChunk} read a RedisBloom dump.
 *
 * <pre>{@code
 * ScalableCuckooFilter<byte[]> filter = ScalableCuckooFilter.builder(ItemHashers.redisBytes())
 *     .scheme(Scheme.REDISBLOOM)
 *     .expectedItems(1000)   // CF.RESERVE key 1000 (BUCKETSIZE 2 MAXITERATIONS 20 EXPANSION 1)
 *     .build();
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
 *   <li>Not thread-safe for writes. Reads may run concurrently with each other: {@link
 *       #mightContain}, {@link #count}, their hash forms, {@link #scanDump}, {@link #writeTo} and
 *       every property change nothing, so any number of threads may call them at once while no
 *       {@code add}, {@code tryAdd}, {@code remove}, {@code replace}, {@code compact}, {@code
 *       clear} or {@code loadDumpChunk} runs (for instance under a read lock whose write lock
 *       guards those). A write concurrent with anything else needs external synchronization.
 * </ul>
 *
 * @param <T> the item type
 */
public final class ScalableCuckooFilter<T> implements MembershipFilter<T> {
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
     * A new link was needed but cannot be made ("Insufficient memory"): the link limit is reached,
     * its table is beyond the table limits or larger than the maximum heap, the heap has no room
     * for it even after a full garbage collection, or ({@link Scheme#STANDARD}) its fingerprints
     * would need more than 32 bits.
     */
    NO_MEMORY
  }

  /** Default growth factor of a {@link Scheme#STANDARD} chain. */
  public static final double DEFAULT_GROWTH_FACTOR = 2.0;

  /** Smallest {@link Builder#growthFactor}. */
  public static final double MIN_GROWTH_FACTOR = 1.1;

  /** Largest {@link Builder#growthFactor}. */
  public static final double MAX_GROWTH_FACTOR = 64;

  /** Largest {@link Builder#expectedFinalItems}: 2^40. */
  public static final long MAX_EXPECTED_FINAL_ITEMS = 1L << 40;

  /** Largest {@link Builder#expansion}: RedisBloom's. */
  public static final int MAX_EXPANSION = RedisChain.MAX_EXPANSION;

  /** Largest {@link Builder#maxKicks} of a {@link Scheme#REDISBLOOM} chain: RedisBloom's. */
  public static final int MAX_REDISBLOOM_KICKS = RedisChain.MAX_ITERATIONS;

  /** Default bucket size of a {@link Scheme#REDISBLOOM} chain, as {@code CF.RESERVE}'s. */
  private static final int DEFAULT_REDIS_BUCKET_SIZE = 2;

  /** Largest {@code CF.RESERVE} capacity accepted. */
  private static final long MAX_REDIS_CAPACITY = 1L << 62;

  /** Heap bytes of this object: a 12-byte header and three compressed references. */
  private static final long OBJECT_BYTES = 24;

  private final ItemHasher<? super T> hasher;
  private final Scheme scheme;

  /**
   * The links. A {@link CompactRedisChain} is replaced by its {@link CompactRedisChain#expand
   * expanded} RedisChain when it first needs a second link, by a write (which callers synchronize
   * as any write).
   */
  private Chain chain;

  /** A REDISBLOOM filter: {@code redisChain} is a {@link RedisChain} or a compact one. */
  private ScalableCuckooFilter(ItemHasher<? super T> hasher, Chain redisChain) {
    this.hasher = hasher;
    this.scheme = Scheme.REDISBLOOM;
    this.chain = redisChain;
  }

  private ScalableCuckooFilter(ItemHasher<? super T> hasher, StandardChain<T> chain) {
    this.hasher = hasher;
    this.scheme = Scheme.STANDARD;
    this.chain = chain;
  }

  /**
   * Returns a builder for a growing filter of items hashed by {@code hasher}: {@link
   * Scheme#STANDARD} unless {@link Builder#scheme} says otherwise.
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
   * bucketSize MAXITERATIONS maxIterations EXPANSION expansion} does: {@code nextPowerOfTwo(max(1,
   * capacity / bucketSize))} buckets of {@code bucketSize} 8-bit slots, and the expansion rounded
   * up to a power of two (0 stays 0: the filter never grows).
   *
   * <p>Whether the table fits is decided by allocating it, not by the free heap (which counts
   * garbage): sizes beyond the table limits or larger than the maximum heap ({@link
   * Runtime#maxMemory()} less 1/16 of it, at least 16 MiB) are refused before anything is
   * allocated; any other size is allocated, and if the heap has no room for it even after the full
   * garbage collection the JVM makes first, the {@link OutOfMemoryError} becomes a {@link
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
   * @deprecated use {@code builder(ItemHashers.redisBytes()).scheme(Scheme.REDISBLOOM)
   *     .expectedItems(capacity).bucketSize(bucketSize).maxKicks(maxIterations)
   *     .expansion(expansion).build()}, which creates the same filter
   */
  @Deprecated
  public static ScalableCuckooFilter<byte[]> redisBloom(
      long capacity, int bucketSize, int maxIterations, int expansion) {
    return newRedisBloom(
        ItemHashers.redisBytes(), capacity, bucketSize, "maxIterations", maxIterations, expansion);
  }

  /** CF.RESERVE: the checks name {@code maxKicksName} as the caller calls it. */
  private static <T> ScalableCuckooFilter<T> newRedisBloom(
      ItemHasher<? super T> hasher,
      long capacity,
      int bucketSize,
      String maxKicksName,
      int maxKicks,
      int expansion) {
    long buckets = redisBaseBuckets(capacity, bucketSize);
    Checks.requireRange(maxKicksName, maxKicks, 1, RedisChain.MAX_ITERATIONS);
    Checks.requireRange("expansion", expansion, 0, RedisChain.MAX_EXPANSION);
    int rounded = expansion == 0 ? 0 : (int) Sizing.nextPowerOfTwo(expansion);
    Chain chain =
        CompactRedisChain.fits(buckets, bucketSize)
            ? CompactRedisChain.create(buckets, bucketSize, maxKicks, rounded)
            : RedisChain.create(buckets, bucketSize, maxKicks, rounded);
    return new ScalableCuckooFilter<>(hasher, chain);
  }

  /**
   * Returns the heap bytes that a {@link Scheme#REDISBLOOM} filter built with {@code
   * expectedItems(capacity)} and {@code bucketSize(bucketSize)} would take, without allocating
   * anything: {@link #sizeInBytes()} of the new filter, whatever its maxIterations and expansion.
   * For admission by a memory limit counted from filters' own sizes (a server's {@code maxmemory}).
   *
   * <pre>{@code
   * long bytes = ScalableCuckooFilter.redisBloomSizeInBytes(1 << 30, 1);   // 2^30 + 632
   * ScalableCuckooFilter.builder(ItemHashers.redisBytes()).scheme(Scheme.REDISBLOOM)
   *     .expectedItems(1 << 30).bucketSize(1).build().sizeInBytes() == bytes;   // true
   * }</pre>
   *
   * @param capacity the number of items, at least 1, as for {@link Builder#expectedItems}
   * @param bucketSize slots per bucket, 1 to 255
   * @return the heap bytes of the new filter
   * @throws IllegalArgumentException if a parameter is out of range
   * @throws FilterAllocationException if the table is beyond the table limits, as {@link
   *     Builder#build()} would throw
   */
  public static long redisBloomSizeInBytes(long capacity, int bucketSize) {
    long buckets = redisBaseBuckets(capacity, bucketSize);
    return (CompactRedisChain.fits(buckets, bucketSize)
            ? CompactRedisChain.newChainBytes(buckets, bucketSize)
            : RedisChain.newChainBytes(buckets, bucketSize))
        + OBJECT_BYTES;
  }

  /** Returns CF.RESERVE's bucket count, nextPowerOfTwo(max(1, capacity / bucketSize)). */
  private static long redisBaseBuckets(long capacity, int bucketSize) {
    Checks.requireRange("bucketSize", bucketSize, 1, RedisChain.MAX_BUCKET_SIZE);
    Checks.requireRange("capacity", capacity, 1, MAX_REDIS_CAPACITY);
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
    return add(hash(item), false);
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
    return add(hash(item), true);
  }

  // ---------------------------------------------------------------------------------------------
  // Hash-level API: the primitive path for callers that hash themselves (no boxing). The item
  // forms (add, addIfAbsent, addIfAbsentWithOutcome, mightContain, remove, count, replace) are
  // MembershipFilter's defaults, which hash the item and call these.

  /**
   * Hash-level {@link #tryAdd}: adds the item whose hash, as this filter's {@link ItemHasher}
   * computes it, is {@code hash}.
   *
   * @param hash the item's hash
   * @return as {@link #tryAdd}
   */
  public AddResult tryAddHash(long hash) {
    return add(hash, false);
  }

  /**
   * Hash-level {@link #tryAddIfAbsent}.
   *
   * @param hash the item's hash
   * @return as {@link #tryAddIfAbsent}
   */
  public AddResult tryAddIfAbsentHash(long hash) {
    return add(hash, true);
  }

  /**
   * Hash-level {@link #add} ({@code CF.ADD}): {@link #tryAddHash} as a boolean.
   *
   * @param hash the item's hash
   * @return true if added; false if there was no room (the filter is unchanged): {@link
   *     AddResult#FULL} or {@link AddResult#NO_MEMORY}
   */
  @Override
  public boolean addHash(long hash) {
    return add(hash, false) == AddResult.ADDED;
  }

  /**
   * Hash-level {@link #addIfAbsentWithOutcome} ({@code CF.ADDNX}): {@link #tryAddIfAbsentHash} with
   * {@link AddResult#EXISTS} reported as {@link AddOutcome#ALREADY_PRESENT}, and both {@link
   * AddResult#FULL} and {@link AddResult#NO_MEMORY} as {@link AddOutcome#FULL}.
   *
   * @param hash the item's hash
   * @return what was done
   */
  @Override
  public AddOutcome addIfAbsentWithOutcomeHash(long hash) {
    switch (add(hash, true)) {
      case ADDED:
        return AddOutcome.ADDED;
      case EXISTS:
        return AddOutcome.ALREADY_PRESENT;
      default:
        return AddOutcome.FULL;
    }
  }

  /**
   * Hash-level {@link #mightContain} ({@code CF.EXISTS}): true if the item's fingerprint is in one
   * of its buckets of any link.
   *
   * @param hash the item's hash
   * @return false only if the item was not added (or was removed as often as added)
   */
  @Override
  public boolean mightContainHash(long hash) {
    return chain.mightContain(hash);
  }

  /**
   * Hash-level {@link #count} ({@code CF.COUNT}): the copies of the item's fingerprint in its
   * buckets of every link, at least the times it was added and not removed. As in RedisBloom, a
   * link where both of the item's buckets are the same bucket counts it twice.
   *
   * @param hash the item's hash
   * @return the count
   */
  @Override
  public long countHash(long hash) {
    return chain.count(hash);
  }

  /**
   * Hash-level {@link #remove} ({@code CF.DEL}): removes one copy of the item's fingerprint,
   * searching the newest link first; {@link Scheme#REDISBLOOM} then compacts the chain if more than
   * one link exists and the deletes since the last compaction exceed 10% of the items.
   *
   * @param hash the hash of an item that was added
   * @return true if a copy was removed
   */
  @Override
  public boolean removeHash(long hash) {
    return chain.remove(hash);
  }

  /**
   * Hash-level {@link #replace}: the copy {@link #removeHash} would remove is cleared and the new
   * item is added as {@link #addHash} would add it; if that fails, nothing changes. Not counted as
   * a delete.
   *
   * @param oldHash hash of the item to remove
   * @param newHash hash of the item to add
   * @return true if replaced
   */
  @Override
  public boolean replaceHash(long oldHash, long newHash) {
    if (chain instanceof CompactRedisChain) {
      Boolean replaced = ((CompactRedisChain) chain).replaceOrNull(oldHash, newHash);
      if (replaced != null) {
        return replaced;
      }
      chain = ((CompactRedisChain) chain).expand();
    }
    return chain.replace(oldHash, newHash);
  }

  /** Removes every item: the chain shrinks to its first link, emptied, and the counters are 0. */
  @Override
  public void clear() {
    chain.clear();
  }

  /**
   * Relocates fingerprints from newer links into older ones and frees the newest links that become
   * empty ({@code CF.COMPACT}); resets {@link #deletedCount()}. {@link Scheme#REDISBLOOM} only.
   *
   * @throws UnsupportedOperationException for a {@link Scheme#STANDARD} filter
   */
  public void compact() {
    if (chain instanceof CompactRedisChain) {
      ((CompactRedisChain) chain).compact();
    } else {
      requireRedis("compact").compact(true);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Properties

  /**
   * Returns the number of items: adds minus removes that succeeded (RedisBloom's numItems, "Number
   * of items inserted"). A count loaded from a dump is kept as RedisBloom's unsigned 64-bit value.
   *
   * @return the number of items
   */
  @Override
  public long size() {
    return chain.size();
  }

  /**
   * Returns the fraction of all links' slots in use ({@link Scheme#REDISBLOOM}: the item count, as
   * RedisBloom keeps it, per slot).
   *
   * @return the load factor
   */
  @Override
  public double loadFactor() {
    return chain.loadFactor();
  }

  /**
   * Returns the expected false-positive rate at the current loads: {@code 1 − Π (1 − ε_i)} over the
   * links, {@code ε_i} the rate of link {@code i} at its load (see {@link
   * CuckooFilter#expectedFalsePositiveRate()}).
   *
   * @return the expected false-positive rate now
   */
  @Override
  public double expectedFalsePositiveRate() {
    return chain.expectedFalsePositiveRate();
  }

  /**
   * Returns the number of removes since the last compaction ("Number of items deleted"); for {@link
   * Scheme#STANDARD}, since creation or the last {@link #clear()}.
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
  @Override
  public int bucketSize() {
    return chain.bucketSize();
  }

  /**
   * Returns the most relocations one insert may make ("Max iterations").
   *
   * @return the max kicks
   */
  @Override
  public int maxKicks() {
    return chain.maxKicks();
  }

  /**
   * Returns the growth factor of new links ("Expansion rate"): rounded up to a power of two when
   * created by the {@link Builder}, as stored when loaded from a dump header; for {@link
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
  @Override
  public Scheme scheme() {
    return scheme;
  }

  /**
   * Returns the hasher items are hashed with.
   *
   * @return the hasher
   */
  @Override
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
   * Returns the sum of the links' rated capacities: the number of items the chain holds before it
   * grows again ({@link Scheme#REDISBLOOM}: the number of slots).
   *
   * @return the capacity of the current links
   */
  @Override
  public long capacity() {
    return chain.capacity();
  }

  /**
   * Returns the bound on the false-positive rate once every current link is at capacity: the sum of
   * the links' rates ({@link Scheme#STANDARD}: at most the target rate, for any number of links;
   * {@link Scheme#REDISBLOOM}: about {@code 2 × bucketSize / 255} per link).
   *
   * @return the compound false-positive bound
   */
  @Override
  public double falsePositiveRateAtCapacity() {
    return chain.falsePositiveRateAtCapacity();
  }

  /**
   * Returns the table bits per rated item: every link's slots times its fingerprint width, divided
   * by {@link #capacity()}.
   *
   * @return bits per item at capacity
   */
  public double bitsPerItem() {
    return chain.bitsPerItem();
  }

  /**
   * Returns RedisBloom's computed size ({@code CF.INFO} "Size"): {@code 40 + 16 × links + Σ buckets
   * × bucketSize}.
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
   * and padding) and the objects of the links and of the chain, computed from the object layout of
   * a 64-bit JVM with compressed references (the default below 32 GiB of heap). Exact for the
   * tables, estimated within a few hundred bytes for the rest; the shared hasher and the
   * collector's rounding of an array to whole heap regions are not counted. For {@link
   * Scheme#REDISBLOOM} filters it is {@link #redisBloomSizeInBytes} when new and grows by each link
   * added.
   *
   * @return size in bytes
   */
  @Override
  public long sizeInBytes() {
    return chain.sizeInBytes() + OBJECT_BYTES;
  }

  /**
   * Returns the number of bytes {@link #writeTo(OutputStream)} writes now: the 80-byte chain
   * header, every link (a {@link Scheme#STANDARD} link with its 64-byte header, a {@link
   * Scheme#REDISBLOOM} link as its slots only) and the 4-byte CRC32C. It grows when a link is added
   * and shrinks when {@link #compact} or {@link #clear} drops links.
   *
   * @return the serialized size in bytes
   */
  @Override
  public long serializedSizeInBytes() {
    return ChainFormat.serializedBytes(this);
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
   * Returns the 38-byte header of this filter's RedisBloom dump, as {@code scanDump(0)} returns it;
   * unlike {@link #scanDump}, also for an empty filter (loaded with {@link #loadDumpHeader} or
   * {@code CF.LOADCHUNK}, the header alone makes an empty filter of the same geometry).
   *
   * @return the header
   * @throws UnsupportedOperationException for a {@link Scheme#STANDARD} filter
   */
  public byte[] dumpHeader() {
    return RedisDump.header(requireRedis("dumpHeader"));
  }

  /**
   * Returns a one-link {@link Scheme#REDISBLOOM} chain over the table of {@code filter}: what
   * RedisBloom holds after {@code CF.RESERVE} with the filter's geometry, {@code MAXITERATIONS}
   * {@code filter.maxKicks()} and {@code EXPANSION expansion}, and the same adds; so that a single
   * filter can be dumped ({@link #scanDump}) into Redis. The chain shares the filter's table, not a
   * copy: a change to either shows in the other. The expansion is recorded as given.
   *
   * @param filter a {@link Scheme#REDISBLOOM} filter whose max kicks are 1 to 65535
   * @param expansion the expansion to record, 0 to 32768
   * @param <T> the item type
   * @return the chain, with the filter's hasher and item count
   * @throws IllegalArgumentException if the filter is not {@link Scheme#REDISBLOOM}, or its max
   *     kicks or {@code expansion} are outside RedisBloom's ranges (the message names them)
   * @throws NullPointerException if {@code filter} is null
   */
  public static <T> ScalableCuckooFilter<T> redisBloomOf(CuckooFilter<T> filter, int expansion) {
    Checks.requireNonNull(filter, "filter");
    Checks.requireArgument(
        filter.scheme() == Scheme.REDISBLOOM,
        "filter: scheme %s (expected: REDISBLOOM)",
        filter.scheme());
    Checks.requireRange("maxKicks", filter.maxKicks(), 1, RedisChain.MAX_ITERATIONS);
    Checks.requireRange("expansion", expansion, 0, RedisChain.MAX_EXPANSION);
    return new ScalableCuckooFilter<>(
        filter.hasher(),
        RedisChain.over(filter.table(), filter.maxKicks(), expansion, filter.size()));
  }

  /**
   * Returns the single {@link Scheme#REDISBLOOM} {@link CuckooFilter} holding this one-link chain's
   * slots, items hashed by {@code hasher}: the other direction of {@link #redisBloomOf}, for a dump
   * of a filter that never grew. The filter shares the chain's table, not a copy, unless the chain
   * is small enough to be held compactly (at most 65536 slots): then it holds a copy.
   *
   * @param hasher the hasher of the filter's items (its id is what the filter's file records)
   * @param <U> the item type
   * @return the filter, with the chain's max kicks and item count
   * @throws UnsupportedOperationException for a {@link Scheme#STANDARD} filter
   * @throws IllegalStateException if the chain has more than one link
   * @throws FilterFormatException if the item count is not the number of occupied slots (a dump
   *     whose counters disagree with its data)
   * @throws NullPointerException if {@code hasher} is null
   */
  public <U> CuckooFilter<U> singleFilter(ItemHasher<? super U> hasher) {
    Checks.requireNonNull(hasher, "hasher");
    RedisChain redis = requireRedis("singleFilter");
    if (redis.linkCount() != 1) {
      throw new IllegalStateException(
          "linkCount: " + redis.linkCount() + " (expected: 1 for a single filter)");
    }
    RedisLink link = redis.links().get(0);
    if (redis.items() != link.occupied) {
      throw new FilterFormatException(
          "numItems",
          RedisDump.OFFSET_ITEMS,
          Long.toUnsignedString(redis.items())
              + " (expected: "
              + link.occupied
              + ", the occupied slots)");
    }
    CuckooFilter<U> filter =
        new CuckooFilter<>(
            hasher, Scheme.REDISBLOOM, link.table, redis.maxIterations(), 0, link.slots);
    filter.setSize(redis.items());
    return filter;
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
   *     larger than the maximum heap (nothing is then allocated), or the heap has no room for them
   *     even after a full garbage collection
   * @throws NullPointerException if {@code header} is null
   */
  public static ScalableCuckooFilter<byte[]> loadDumpHeader(byte[] header) {
    return of(ItemHashers.redisBytes(), RedisDump.load(header));
  }

  /**
   * Writes a chunk of a RedisBloom dump into the links ({@code CF.LOADCHUNK key iterator data}):
   * the bytes go to offset {@code iterator − data.length − 1} of the links' concatenated slots and
   * must lie inside one link.
   *
   * @param iterator the iterator returned with the chunk, at least 2
   * @param data the chunk
   * @throws FilterFormatException if the iterator or the length does not fit
   * @throws NullPointerException if {@code data} is null
   * @throws UnsupportedOperationException for a {@link Scheme#STANDARD} filter
   */
  public void loadDumpChunk(long iterator, byte[] data) {
    if (chain instanceof CompactRedisChain) {
      ((CompactRedisChain) chain).loadDumpChunk(iterator, data);
      return;
    }
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
  @Override
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

  /** Adds through the chain, first expanding a compact chain that needs a new link for it. */
  private AddResult add(long hash, boolean ifAbsent) {
    AddResult result = chain.add(hash, ifAbsent);
    if (result == null) {
      chain = ((CompactRedisChain) chain).expand();
      result = chain.add(hash, ifAbsent);
    }
    return result;
  }

  private long hash(T item) {
    return hasher.hash(Checks.requireNonNull(item, "item"));
  }

  /**
   * Wraps a chain read back (ChainFormat, LOADCHUNK's header), in its compact form if it has one
   * small link.
   */
  static <T> ScalableCuckooFilter<T> of(ItemHasher<? super T> hasher, RedisChain chain) {
    CompactRedisChain compact = CompactRedisChain.of(chain);
    return new ScalableCuckooFilter<>(hasher, compact != null ? compact : chain);
  }

  /** Wraps a RedisChain as it is, never in the compact form (tests: the reference form). */
  static <T> ScalableCuckooFilter<T> chained(ItemHasher<? super T> hasher, RedisChain chain) {
    return new ScalableCuckooFilter<>(hasher, chain);
  }

  /** Returns true if the filter is held in the compact form of one small link (tests). */
  boolean isCompact() {
    return chain instanceof CompactRedisChain;
  }

  /** Returns the compact chain, or null if the filter is not in that form (ChainFormat). */
  CompactRedisChain compactChain() {
    return chain instanceof CompactRedisChain ? (CompactRedisChain) chain : null;
  }

  /** Wraps a chain read back (ChainFormat). */
  static <T> ScalableCuckooFilter<T> of(ItemHasher<? super T> hasher, StandardChain<T> chain) {
    return new ScalableCuckooFilter<>(hasher, chain);
  }

  private RedisChain requireRedis(String operation) {
    if (chain instanceof CompactRedisChain) {
      return ((CompactRedisChain) chain).expand();
    }
    if (!(chain instanceof RedisChain)) {
      throw new UnsupportedOperationException(operation + " needs the REDISBLOOM scheme");
    }
    return (RedisChain) chain;
  }

  /**
   * Returns the RedisBloom chain, or null (package tests, ChainFormat): for the compact form a
   * RedisChain over a copy of its slots and counters.
   */
  RedisChain redisChain() {
    if (chain instanceof CompactRedisChain) {
      return ((CompactRedisChain) chain).expand();
    }
    return chain instanceof RedisChain ? (RedisChain) chain : null;
  }

  /** Returns the STANDARD chain, or null (package tests, ChainFormat). */
  @SuppressWarnings("unchecked")
  StandardChain<T> standardChain() {
    return chain instanceof StandardChain ? (StandardChain<T>) chain : null;
  }

  /**
   * Configures and creates a {@link ScalableCuckooFilter}. {@link #expectedItems} is required;
   * everything else has a default, which depends on the {@link #scheme}. Settings that only one
   * scheme has are rejected by {@link #build()} for the other, with a message naming them: {@link
   * #falsePositiveRate}, {@link #growthFactor}, {@link #expectedFinalItems} and {@link #seed} are
   * {@link Scheme#STANDARD}'s, {@link #expansion} is {@link Scheme#REDISBLOOM}'s.
   *
   * <pre>{@code
   * // CF.RESERVE key 1000 BUCKETSIZE 2 MAXITERATIONS 20 EXPANSION 1
   * ScalableCuckooFilter<byte[]> redis = ScalableCuckooFilter.builder(ItemHashers.redisBytes())
   *     .scheme(Scheme.REDISBLOOM)
   *     .expectedItems(1000)
   *     .bucketSize(2)
   *     .maxKicks(20)
   *     .expansion(1)
   *     .build();
   * }</pre>
   *
   * @param <T> the item type
   */
  public static final class Builder<T> {
    private final ItemHasher<? super T> hasher;
    private Scheme scheme = Scheme.STANDARD;
    private long expectedItems = -1;
    private double growthFactor = Double.NaN;
    private double falsePositiveRate = Double.NaN;
    private int bucketSize = -1;
    private int maxKicks = -1;
    private long seed = CuckooFilter.DEFAULT_SEED;
    private int expansion = -1;
    private long expectedFinalItems = -1;

    private Builder(ItemHasher<? super T> hasher) {
      this.hasher = hasher;
    }

    /**
     * Sets the scheme (default {@link Scheme#STANDARD}). {@link Scheme#REDISBLOOM} creates what
     * {@code CF.RESERVE} creates; use it with {@link ItemHashers#redisBytes()} or {@link
     * ItemHashers#redisUtf8()} to answer as RedisBloom does.
     *
     * @param scheme the scheme
     * @return this builder
     * @throws NullPointerException if null
     */
    public Builder<T> scheme(Scheme scheme) {
      this.scheme = Checks.requireNonNull(scheme, "scheme");
      return this;
    }

    /**
     * Sets the number of items the first link is rated for (required). For {@link
     * Scheme#REDISBLOOM} this is {@code CF.RESERVE}'s capacity: the first link has {@code
     * nextPowerOfTwo(max(1, expectedItems / bucketSize))} buckets.
     *
     * @param expectedItems 1 to 2^36 ({@link Scheme#REDISBLOOM}: to 2^62); checked against the
     *     scheme set so far, and again by {@link #build()}
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> expectedItems(long expectedItems) {
      Checks.requireRange("expectedItems", expectedItems, 1, maxExpectedItems(scheme));
      this.expectedItems = expectedItems;
      return this;
    }

    private static long maxExpectedItems(Scheme scheme) {
      return scheme == Scheme.REDISBLOOM ? MAX_REDIS_CAPACITY : Sizing.MAX_EXPECTED_ITEMS;
    }

    /**
     * Sets the rated capacity of the first link.
     *
     * @param initialCapacity 1 to 2^36
     * @return this builder
     * @throws IllegalArgumentException if out of range
     * @deprecated use {@link #expectedItems(long)}, the name every builder uses
     */
    @Deprecated
    public Builder<T> initialCapacity(long initialCapacity) {
      Checks.requireRange("initialCapacity", initialCapacity, 1, Sizing.MAX_EXPECTED_ITEMS);
      this.expectedItems = initialCapacity;
      return this;
    }

    /**
     * Sets a hint of the number of items the filter is expected to hold in the end ({@link
     * Scheme#STANDARD} only; default none). The hint changes only the fingerprint widths: the links
     * up to the one that takes the count past the hint share the false-positive budget by their
     * shares of the items, the largest (newest) links getting the largest shares, so the bits per
     * item come close to those of one filter sized for the final count (within 1.2 times after
     * growing 1000-fold with growth factor 2, against about 1.4 without a hint). A small part of
     * the budget is kept for links beyond the hint, so the compound false-positive rate stays at or
     * below the target however far the filter grows; but those links get wide fingerprints, so a
     * hint well below the final count costs more bits than no hint.
     *
     * <pre>{@code
     * ScalableCuckooFilter<Long> filter = ScalableCuckooFilter.builder(ItemHashers.longs())
     *     .expectedItems(1000)            // the first link
     *     .expectedFinalItems(1_000_000)  // grows 1000-fold
     *     .falsePositiveRate(0.01)
     *     .build();
     * }</pre>
     *
     * @param expectedFinalItems {@code expectedItems} to 2^40; {@link #build()} also refuses a hint
     *     whose links would be beyond the table limits, more than 1024, or need fingerprints wider
     *     than 32 bits for the target rate (the message gives the largest hint it accepts)
     * @return this builder
     * @throws IllegalArgumentException if below 1 or above {@link #MAX_EXPECTED_FINAL_ITEMS}
     */
    public Builder<T> expectedFinalItems(long expectedFinalItems) {
      Checks.requireRange("expectedFinalItems", expectedFinalItems, 1, MAX_EXPECTED_FINAL_ITEMS);
      this.expectedFinalItems = expectedFinalItems;
      return this;
    }

    /**
     * Sets the ratio of each new link's capacity to the previous one's (default 2; {@link
     * Scheme#STANDARD} only, see {@link #expansion} for {@link Scheme#REDISBLOOM}).
     *
     * @param growthFactor 1.1 to 64
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> growthFactor(double growthFactor) {
      Checks.requireArgument(
          growthFactor >= MIN_GROWTH_FACTOR && growthFactor <= MAX_GROWTH_FACTOR,
          "growthFactor: %s (expected: 1.1 <= growthFactor <= 64)",
          growthFactor);
      this.growthFactor = growthFactor;
      return this;
    }

    /**
     * Sets the target false-positive rate of the whole chain, however many links it grows to
     * (default 0.01; {@link Scheme#STANDARD} only: {@link Scheme#REDISBLOOM} fingerprints are 8
     * bits, so its rate follows from the bucket size).
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
     * Sets the number of slots per bucket (default 4; {@link Scheme#REDISBLOOM}: 2, as {@code
     * CF.RESERVE}). Checked against the scheme set so far, and again by {@link #build()}: set
     * {@link #scheme} first for a {@link Scheme#REDISBLOOM} size other than 2, 4 or 8.
     *
     * @param bucketSize 2, 4 or 8 ({@link Scheme#REDISBLOOM}: 1 to 255)
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> bucketSize(int bucketSize) {
      checkBucketSize(scheme, bucketSize);
      this.bucketSize = bucketSize;
      return this;
    }

    private static void checkBucketSize(Scheme scheme, int bucketSize) {
      if (scheme == Scheme.REDISBLOOM) {
        Checks.requireRange("bucketSize", bucketSize, 1, RedisChain.MAX_BUCKET_SIZE);
      } else {
        Checks.requireArgument(
            bucketSize == 2 || bucketSize == 4 || bucketSize == 8,
            "bucketSize: %s (expected: 2, 4 or 8)",
            bucketSize);
      }
    }

    /**
     * Sets the most relocations one insert may make in the newest link (default 500; {@link
     * Scheme#REDISBLOOM}: 20, {@code CF.RESERVE}'s MAXITERATIONS).
     *
     * @param maxKicks 0 to {@value CuckooFilter#MAX_KICKS_LIMIT} ({@link Scheme#REDISBLOOM}: 1 to
     *     65535)
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> maxKicks(int maxKicks) {
      Checks.requireRange("maxKicks", maxKicks, 0, CuckooFilter.MAX_KICKS_LIMIT);
      this.maxKicks = maxKicks;
      return this;
    }

    /**
     * Sets the seed mixed into every item hash (default 0: the hash is used as it is; {@link
     * Scheme#STANDARD} only).
     *
     * @param seed any value
     * @return this builder
     */
    public Builder<T> seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Sets the growth factor of new links ({@code CF.RESERVE}'s EXPANSION, default 1; {@link
     * Scheme#REDISBLOOM} only): rounded up to a power of two; 0 means the filter never grows.
     *
     * @param expansion 0 to 32768
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> expansion(int expansion) {
      Checks.requireRange("expansion", expansion, 0, RedisChain.MAX_EXPANSION);
      this.expansion = expansion;
      return this;
    }

    /**
     * Creates the filter with its first link.
     *
     * @return a new, empty filter
     * @throws IllegalStateException if {@link #expectedItems} was not set
     * @throws IllegalArgumentException if a setting does not apply to the scheme or is out of its
     *     range (the message names the setting and its value), or the target rate needs
     *     fingerprints wider than 32 bits
     * @throws FilterAllocationException if the first link does not fit in the heap
     */
    public ScalableCuckooFilter<T> build() {
      if (expectedItems < 0) {
        throw new IllegalStateException("expectedItems must be set");
      }
      if (scheme == Scheme.REDISBLOOM) {
        return buildRedis();
      }
      Checks.requireArgument(
          expansion < 0,
          "expansion: %s (expected: not set for the STANDARD scheme, which grows by growthFactor)",
          expansion);
      Checks.requireRange("expectedItems", expectedItems, 1, Sizing.MAX_EXPECTED_ITEMS);
      int size = bucketSize > 0 ? bucketSize : CuckooFilter.DEFAULT_BUCKET_SIZE;
      checkBucketSize(scheme, size);
      double growth = Double.isNaN(growthFactor) ? DEFAULT_GROWTH_FACTOR : growthFactor;
      double rate =
          Double.isNaN(falsePositiveRate)
              ? CuckooFilter.DEFAULT_FALSE_POSITIVE_RATE
              : falsePositiveRate;
      int kicks = maxKicks >= 0 ? maxKicks : CuckooFilter.DEFAULT_MAX_KICKS;
      int hinted = hintedLinks(growth, rate, size);
      return new ScalableCuckooFilter<>(
          hasher,
          new StandardChain<>(
              hasher, expectedItems, growth, rate, size, kicks, seed, null, 0, hinted));
    }

    /** Returns the links {@link #expectedFinalItems} covers (0 without a hint), checking it. */
    private int hintedLinks(double growth, double rate, int size) {
      if (expectedFinalItems < 0) {
        return 0;
      }
      if (expectedFinalItems < expectedItems) {
        throw new IllegalArgumentException(
            "expectedFinalItems: "
                + expectedFinalItems
                + " (expected: expectedItems "
                + expectedItems
                + " <= expectedFinalItems <= "
                + MAX_EXPECTED_FINAL_ITEMS
                + ")");
      }
      StandardChain<T> shape =
          new StandardChain<>(hasher, expectedItems, growth, rate, size, 0, seed, List.of(), 0);
      int links = shape.linksToHold(expectedFinalItems, ChainFormat.MAX_STANDARD_LINKS);
      if (links > 0 && shape.plan(links) != null) {
        return links;
      }
      long largest = 0;
      long total = 0;
      for (int k = 1; k <= ChainFormat.MAX_STANDARD_LINKS && shape.plan(k) != null; k++) {
        total += shape.linkCapacity(k - 1);
        largest = total;
      }
      throw new IllegalArgumentException(
          "expectedFinalItems: "
              + expectedFinalItems
              + " (expected: expectedItems "
              + expectedItems
              + " <= expectedFinalItems <= "
              + largest
              + ", the most that links of bucketSize "
              + size
              + " and growthFactor "
              + growth
              + " can hold with falsePositiveRate "
              + rate
              + " in fingerprints of at most 32 bits)");
    }

    private ScalableCuckooFilter<T> buildRedis() {
      Checks.requireArgument(
          Double.isNaN(falsePositiveRate),
          "falsePositiveRate: %s (expected: not set for the REDISBLOOM scheme, whose 8-bit"
              + " fingerprints give about 2 × bucketSize / 255 per link)",
          falsePositiveRate);
      Checks.requireArgument(
          Double.isNaN(growthFactor),
          "growthFactor: %s (expected: not set for the REDISBLOOM scheme; use expansion)",
          growthFactor);
      Checks.requireArgument(
          seed == 0, "seed: %s (expected: 0, the REDISBLOOM scheme has no seed)", seed);
      Checks.requireArgument(
          expectedFinalItems < 0,
          "expectedFinalItems: %s (expected: not set for the REDISBLOOM scheme, whose links follow"
              + " RedisBloom's expansion)",
          expectedFinalItems);
      int size = bucketSize > 0 ? bucketSize : DEFAULT_REDIS_BUCKET_SIZE;
      checkBucketSize(scheme, size);
      return newRedisBloom(
          hasher,
          expectedItems,
          size,
          "maxKicks",
          maxKicks >= 0 ? maxKicks : CuckooFilter.DEFAULT_REDISBLOOM_MAX_KICKS,
          expansion >= 0 ? expansion : 1);
    }
  }
}
