package dev.cuckoo;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A growing cuckoo filter that behaves bit for bit like a RedisBloom cuckoo filter ({@code
 * CF.RESERVE key capacity BUCKETSIZE b MAXITERATIONS m EXPANSION e} in Redis 8): a chain of filters
 * ("links") whose slots end up holding the same fingerprints as RedisBloom's for the same sequence
 * of commands, so {@link #redisDebug()}, {@link #redisSize()} and {@link #scanDump(long)} equal
 * RedisBloom's {@code CF.DEBUG}, {@code CF.INFO} size and {@code CF.SCANDUMP}, and {@link
 * #loadDumpHeader} / {@link #loadDumpChunk} read a RedisBloom dump.
 *
 * <p>The rules are RedisBloom's: items hashed with MurmurHash64A ({@link ItemHashers#redisBytes()}
 * or {@link ItemHashers#redisUtf8()}), 8-bit fingerprints, link {@code k} has {@code base ×
 * expansion^k} buckets, lookups and inserts go from the newest link to the oldest, only the newest
 * link relocates fingerprints, deletes go newest first and compact the chain when deletes exceed
 * 10% of the items. It is the one filter of the {@link Scheme#REDISBLOOM} scheme: {@link
 * ScalableCuckooFilter} is the {@link Scheme#STANDARD} chain, and {@link CuckooFilter} refuses the
 * scheme. A filter that never grows is one reserved with expansion 0, which is also what a single
 * {@link Scheme#REDISBLOOM} filter file reads as ({@link #readFrom}, {@link FilterFile#read});
 * {@link #writeSingleTo} writes a one-link filter in that single-filter form.
 *
 * <pre>{@code
 * RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(1000, 2, 20, 1);
 * filter.tryAdd("item1".getBytes(StandardCharsets.UTF_8));   // ADDED
 * filter.redisDebug();
 * // "bktsize:2 buckets:512 items:1 deletes:0 filters:1 max_iterations:20 expansion:1"
 * }</pre>
 *
 * <h2>Contract</h2>
 *
 * <ul>
 *   <li>No false negatives: {@link #mightContain} is true for every item added and not removed,
 *       provided only added items are removed.
 *   <li>An add that returns anything but {@link AddOutcome#ADDED} leaves the filter unchanged.
 *   <li>Duplicates are stored as separate copies; removing an item that was never added can remove
 *       another item's fingerprint.
 *   <li>Not thread-safe for writes. Reads may run concurrently with each other: {@link
 *       #mightContain}, {@link #count}, their hash forms, {@link #scanDump}, {@link #dumpHeader},
 *       {@link #writeTo} and every property change nothing, so any number of threads may call them
 *       at once while no {@code add}, {@code tryAdd}, {@code remove}, {@code replace}, {@code
 *       compact}, {@code clear} or {@code loadDumpChunk} runs (for instance under a read lock whose
 *       write lock guards those). A write concurrent with anything else needs external
 *       synchronization.
 * </ul>
 *
 * @param <T> the item type: {@code byte[]} with {@link ItemHashers#redisBytes()}, {@code
 *     CharSequence} with {@link ItemHashers#redisUtf8()}, or any type whose hasher gives
 *     RedisBloom's hash of its bytes
 */
public final class RedisCuckooFilter<T> implements MembershipFilter<T> {
  /*
   * Two forms. A filter of one small link (at most 65536 slots, power-of-two buckets: every
   * CF.RESERVE up to that size) is held as a CompactRedisChain, two objects; the first write that
   * needs a second link (an add or a replace) swaps it for the full RedisChain of the same slots
   * and counters, which then does the add as RedisBloom would. Operations that need a RedisChain
   * without changing the filter (a dump, the debug string) use one built over a copy of the compact
   * slots. Both forms answer every command bit for bit alike; RedisCuckooFilterModelTest checks
   * that against a filter kept in the full form throughout.
   */

  /** {@code CF.RESERVE}'s default bucket size. */
  public static final int DEFAULT_BUCKET_SIZE = 2;

  /** {@code CF.RESERVE}'s default MAXITERATIONS. */
  public static final int DEFAULT_MAX_ITERATIONS = 20;

  /** {@code CF.RESERVE}'s default EXPANSION. */
  public static final int DEFAULT_EXPANSION = 1;

  /** Largest bucket size: RedisBloom's. */
  public static final int MAX_BUCKET_SIZE = RedisChain.MAX_BUCKET_SIZE;

  /** Largest MAXITERATIONS: RedisBloom's (a u16). */
  public static final int MAX_ITERATIONS = RedisChain.MAX_ITERATIONS;

  /** Largest EXPANSION: RedisBloom's. */
  public static final int MAX_EXPANSION = RedisChain.MAX_EXPANSION;

  /** Largest capacity accepted: 2^62. */
  public static final long MAX_CAPACITY = 1L << 62;

  /**
   * What two filters must have in common for {@link #addAll}, in the order the check names them.
   */
  private static final String[] MERGE_PARAMETERS = {"bucketCount", "bucketSize", "hasher id"};

  /** Hashes per pass of {@link #prefetchHashes}: its scratch space holds two buckets each. */
  private static final int PREFETCH_BLOCK = 64;

  private static final ThreadLocal<long[]> PREFETCH_SCRATCH =
      ThreadLocal.withInitial(() -> new long[2 * PREFETCH_BLOCK]);

  /** Heap bytes of this object: a 12-byte header and two compressed references, padded. */
  private static final long OBJECT_BYTES = 24;

  private final ItemHasher<? super T> hasher;

  /**
   * The links: a {@link CompactRedisChain} until a write first needs a second link, then the {@link
   * RedisChain} it expands to (by a write, which callers synchronize as any write).
   */
  private Chain chain;

  private RedisCuckooFilter(ItemHasher<? super T> hasher, Chain chain) {
    this.hasher = hasher;
    this.chain = chain;
  }

  // ---------------------------------------------------------------------------------------------
  // Creation

  /**
   * Creates an empty filter of items hashed by {@link ItemHashers#redisBytes()}, as {@code
   * CF.RESERVE key capacity BUCKETSIZE bucketSize MAXITERATIONS maxIterations EXPANSION expansion}
   * does: {@code nextPowerOfTwo(max(1, capacity / bucketSize))} buckets of {@code bucketSize} 8-bit
   * slots, and the expansion rounded up to a power of two (0 stays 0: the filter never grows).
   *
   * <p>Whether the table fits is decided by allocating it, not by the free heap (which counts
   * garbage): sizes beyond the table limits or larger than the maximum heap ({@link
   * Runtime#maxMemory()} less 1/16 of it, at least 16 MiB) are refused before anything is
   * allocated; any other size is allocated, and if the heap has no room for it even after the full
   * garbage collection the JVM makes first, the {@link OutOfMemoryError} becomes a {@link
   * FilterAllocationException}. {@link #reservedSizeInBytes} gives the size beforehand.
   *
   * @param capacity the number of items, 1 to 2^62 (Redis accepts 2 × bucketSize to 2^30)
   * @param bucketSize slots per bucket, 1 to 255
   * @param maxIterations relocations per insert, 1 to 65535
   * @param expansion growth factor of each new link, 0 to 32768
   * @return the filter
   * @throws IllegalArgumentException if a parameter is out of range (the message names it)
   * @throws FilterAllocationException if the table is beyond the table limits or larger than the
   *     maximum heap, or the heap has no room for it (the message names the size and the bound)
   */
  public static RedisCuckooFilter<byte[]> reserve(
      long capacity, int bucketSize, int maxIterations, int expansion) {
    return reserve(ItemHashers.redisBytes(), capacity, bucketSize, maxIterations, expansion);
  }

  /**
   * Creates an empty filter of items hashed by {@code hasher}, as {@link #reserve(long, int, int,
   * int)} does.
   *
   * @param hasher turns items into RedisBloom's hashes, e.g. {@link ItemHashers#redisUtf8()}
   * @param capacity the number of items, 1 to 2^62
   * @param bucketSize slots per bucket, 1 to 255
   * @param maxIterations relocations per insert, 1 to 65535
   * @param expansion growth factor of each new link, 0 to 32768
   * @param <T> the item type
   * @return the filter
   * @throws NullPointerException if {@code hasher} is null
   * @throws IllegalArgumentException if a parameter is out of range (the message names it)
   * @throws FilterAllocationException as {@link #reserve(long, int, int, int)}
   */
  public static <T> RedisCuckooFilter<T> reserve(
      ItemHasher<? super T> hasher,
      long capacity,
      int bucketSize,
      int maxIterations,
      int expansion) {
    return reserve(hasher, capacity, bucketSize, "maxIterations", maxIterations, expansion);
  }

  /** CF.RESERVE: the checks name {@code maxIterationsName} as the caller calls it. */
  static <T> RedisCuckooFilter<T> reserve(
      ItemHasher<? super T> hasher,
      long capacity,
      int bucketSize,
      String maxIterationsName,
      int maxIterations,
      int expansion) {
    Checks.requireNonNull(hasher, "hasher");
    long buckets = baseBuckets(capacity, bucketSize);
    Checks.requireRange(maxIterationsName, maxIterations, 1, MAX_ITERATIONS);
    Checks.requireRange("expansion", expansion, 0, MAX_EXPANSION);
    int rounded = expansion == 0 ? 0 : (int) Sizing.nextPowerOfTwo(expansion);
    Chain chain =
        CompactRedisChain.fits(buckets, bucketSize)
            ? CompactRedisChain.create(buckets, bucketSize, maxIterations, rounded)
            : RedisChain.create(buckets, bucketSize, maxIterations, rounded);
    return new RedisCuckooFilter<>(hasher, chain);
  }

  /**
   * Returns the heap bytes a filter made by {@link #reserve(long, int, int, int) reserve(capacity,
   * bucketSize, …)} would take, without allocating anything: {@link #sizeInBytes()} of the new
   * filter, whatever its maxIterations and expansion. For admission by a memory limit counted from
   * filters' own sizes (a server's {@code maxmemory}).
   *
   * <pre>{@code
   * long bytes = RedisCuckooFilter.reservedSizeInBytes(1 << 30, 1);   // 2^30 + 632
   * RedisCuckooFilter.reserve(1 << 30, 1, 20, 1).sizeInBytes() == bytes;   // true
   * }</pre>
   *
   * @param capacity the number of items, 1 to 2^62
   * @param bucketSize slots per bucket, 1 to 255
   * @return the heap bytes of the new filter
   * @throws IllegalArgumentException if a parameter is out of range
   * @throws FilterAllocationException if the table is beyond the table limits, as {@link #reserve}
   *     would throw
   */
  public static long reservedSizeInBytes(long capacity, int bucketSize) {
    long buckets = baseBuckets(capacity, bucketSize);
    return (CompactRedisChain.fits(buckets, bucketSize)
            ? CompactRedisChain.newChainBytes(buckets, bucketSize)
            : RedisChain.newChainBytes(buckets, bucketSize))
        + OBJECT_BYTES;
  }

  /** Returns CF.RESERVE's bucket count, nextPowerOfTwo(max(1, capacity / bucketSize)). */
  private static long baseBuckets(long capacity, int bucketSize) {
    Checks.requireRange("bucketSize", bucketSize, 1, MAX_BUCKET_SIZE);
    Checks.requireRange("capacity", capacity, 1, MAX_CAPACITY);
    return Sizing.nextPowerOfTwo(Math.max(1, capacity / bucketSize));
  }

  /**
   * Creates an empty filter from the header of a RedisBloom dump ({@code CF.LOADCHUNK key 1
   * header}), validating it as RedisBloom does: bucket size 1 to 255, 1 to 65535 links (RedisBloom
   * also takes 65536, which it truncates to 0 links), max iterations 1 to 65535, expansion 0 to
   * 32768 and not 0 with more than one link, base bucket count a power of two below 2^56. The
   * expansion is kept as it is, not rounded. Item and delete counts come from the header only.
   *
   * @param header the 38-byte header, as {@code scanDump(0)} returns it
   * @return a filter of items hashed by {@link ItemHashers#redisBytes()} whose links are allocated
   *     and empty, ready for {@link #loadDumpChunk}
   * @throws FilterFormatException if the header is invalid or its links are beyond the limits or
   *     larger than the maximum heap (nothing is then allocated), or the heap has no room for them
   *     even after a full garbage collection
   * @throws NullPointerException if {@code header} is null
   */
  public static RedisCuckooFilter<byte[]> loadDumpHeader(byte[] header) {
    return wrap(ItemHashers.redisBytes(), RedisDump.load(header));
  }

  /**
   * Reads a filter written by {@link #writeTo(OutputStream)} (any chain file of the {@link
   * Scheme#REDISBLOOM} scheme) or by {@link #writeSingleTo} (a single {@link Scheme#REDISBLOOM}
   * filter, also as written before {@link CuckooFilter} refused the scheme), leaving {@code in}
   * just after it. A single filter becomes a one-link filter that never grows (expansion 0, as the
   * single filter never grew) with no deletes counted; its max kicks must be 1 to 65535.
   *
   * @param in the stream to read from
   * @param hasher the hasher the filter was written with
   * @param <T> the item type
   * @return the filter
   * @throws FilterFormatException if the bytes are corrupt, truncated, of an unknown version, of a
   *     {@link Scheme#STANDARD} chain or another scheme's single filter, written with a different
   *     built-in hasher, or its links are larger than the maximum heap (refused before allocating)
   *     or do not fit in the heap even after a full garbage collection
   * @throws IOException if {@code in} fails
   */
  public static <T> RedisCuckooFilter<T> readFrom(InputStream in, ItemHasher<? super T> hasher)
      throws IOException {
    Checks.requireNonNull(in, "in");
    // the first 8 bytes tell the two forms apart; they are read again as part of the header, from
    // the stream itself where it can go back (so a byte array's known length is still used)
    InputStream whole;
    byte[] magic;
    if (in.markSupported()) {
      in.mark(Long.BYTES);
      magic = in.readNBytes(Long.BYTES);
      in.reset();
      whole = in;
    } else {
      magic = in.readNBytes(Long.BYTES);
      whole = new SequenceInputStream(new ByteArrayInputStream(magic), in);
    }
    if (magic.length == Long.BYTES
        && ByteBuffer.wrap(magic).order(ByteOrder.LITTLE_ENDIAN).getLong() == FilterHeader.MAGIC) {
      return (RedisCuckooFilter<T>)
          FilterFormat.<T>read(whole, hasher, FilterFormat.Reader.REDIS_CUCKOO_FILTER);
    }
    return ChainFormat.readRedis(whole, hasher);
  }

  /**
   * Returns a one-link filter that never grows (expansion 0) over the table of a single {@link
   * Scheme#REDISBLOOM} filter read from a file, whose max kicks the reader checked.
   */
  static <T> RedisCuckooFilter<T> ofSingle(CuckooFilter<T> single) {
    return wrap(
        single.hasher(), RedisChain.over(single.table(), single.maxKicks(), 0, single.size()));
  }

  /**
   * Wraps a chain made or read back (ChainFormat, LOADCHUNK's header), in its compact form if it
   * has one small link.
   */
  static <T> RedisCuckooFilter<T> wrap(ItemHasher<? super T> hasher, RedisChain chain) {
    CompactRedisChain compact = CompactRedisChain.of(chain);
    return new RedisCuckooFilter<>(hasher, compact != null ? compact : chain);
  }

  /** Wraps a RedisChain as it is, never in the compact form (tests: the reference form). */
  static <T> RedisCuckooFilter<T> chained(ItemHasher<? super T> hasher, RedisChain chain) {
    return new RedisCuckooFilter<>(hasher, chain);
  }

  // ---------------------------------------------------------------------------------------------
  // Adds

  /**
   * Adds one copy of {@code item} ({@code CF.ADD}), saying why when it was not stored.
   *
   * @param item the item
   * @return {@link AddOutcome#ADDED}, {@link AddOutcome#FULL} (no room and expansion 0: "Filter is
   *     full") or {@link AddOutcome#NO_MEMORY} (no new link: "Insufficient memory")
   * @throws NullPointerException if {@code item} is null
   */
  public AddOutcome tryAdd(T item) {
    return add(hash(item), false);
  }

  /**
   * Hash-level {@link #tryAdd}: adds the item whose hash, as this filter's {@link ItemHasher}
   * computes it, is {@code hash}.
   *
   * @param hash the item's hash
   * @return as {@link #tryAdd}
   */
  public AddOutcome tryAddHash(long hash) {
    return add(hash, false);
  }

  /**
   * Hash-level {@link #add} ({@code CF.ADD}): {@link #tryAddHash} as a boolean.
   *
   * @param hash the item's hash
   * @return true if added; false if there was no room (the filter is unchanged): {@link
   *     AddOutcome#FULL} or {@link AddOutcome#NO_MEMORY}
   */
  @Override
  public boolean addHash(long hash) {
    return add(hash, false) == AddOutcome.ADDED;
  }

  /**
   * Hash-level {@link #addIfAbsentWithOutcome} ({@code CF.ADDNX}).
   *
   * @param hash the item's hash
   * @return {@link AddOutcome#ALREADY_PRESENT} if its fingerprint is in one of its buckets of any
   *     link, otherwise as {@link #tryAddHash}
   */
  @Override
  public AddOutcome addIfAbsentWithOutcomeHash(long hash) {
    return add(hash, true);
  }

  /** Adds through the chain, first expanding a compact chain that needs a new link for it. */
  private AddOutcome add(long hash, boolean ifAbsent) {
    if (chain instanceof CompactRedisChain) {
      AddOutcome result = ((CompactRedisChain) chain).add(hash, ifAbsent);
      if (result != null) {
        return result;
      }
      chain = ((CompactRedisChain) chain).expand();
    }
    return ((RedisChain) chain).add(hash, ifAbsent);
  }

  // ---------------------------------------------------------------------------------------------
  // Lookups and removes

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
   * Loads into the CPU's caches the table memory that {@link #mightContainHash} reads first for
   * each hash in {@code hashes[from, to)}, so that the lookups that follow find it there. A lookup
   * in a filter far larger than the caches waits for a memory load (and often a page walk) of its
   * own; the loads issued here for a whole batch are independent, so they are in flight together
   * and the batch waits about once. Nothing changes and nothing is answered: a lookup after this
   * call returns what it would have returned without it, whatever happened to the filter in between
   * (a hash whose item was added or removed meanwhile only wastes its loads). Thread-safety as
   * {@link #mightContainHash}'s: the caller holds whatever guards the filter against writers.
   *
   * @param hashes the items' hashes (as {@link ItemHasher#hash} computes them)
   * @param from the first index to prefetch
   * @param to the index after the last one
   * @return a value folded from the loaded slots, meaningless except that a caller that keeps it
   *     (in a field, say) stops the JIT compiler from removing the loads as unused
   * @throws IndexOutOfBoundsException if not {@code 0 <= from <= to <= hashes.length}
   */
  public long prefetchHashes(long[] hashes, int from, int to) {
    if (from < 0 || from > to || to > hashes.length) {
      throw new IndexOutOfBoundsException(
          "range [" + from + ", " + to + ") (expected: 0 <= from <= to <= " + hashes.length + ")");
    }
    long[] buckets = PREFETCH_SCRATCH.get();
    long folded = 0;
    for (int start = from; start < to; start += PREFETCH_BLOCK) {
      folded ^= chain.prefetch(hashes, start, Math.min(to, start + PREFETCH_BLOCK), buckets);
    }
    return folded;
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
   * searching the newest link first, then compacts the chain if more than one link exists and the
   * deletes since the last compaction exceed 10% of the items.
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
   * empty ({@code CF.COMPACT}); resets {@link #deletedCount()}.
   */
  public void compact() {
    if (chain instanceof CompactRedisChain) {
      ((CompactRedisChain) chain).compact();
    } else {
      ((RedisChain) chain).compact(true);
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
   * Returns the number of removes since creation, the last {@link #clear()} or compaction ("Number
   * of items deleted").
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
   * @return the base bucket count, a power of two
   */
  public long baseBucketCount() {
    return chain.baseBucketCount();
  }

  /**
   * Returns the number of slots per bucket ("Bucket size").
   *
   * @return the bucket size, 1 to 255
   */
  @Override
  public int bucketSize() {
    return chain.bucketSize();
  }

  /**
   * Returns the most relocations one insert may make ("Max iterations").
   *
   * @return the max iterations, 1 to 65535
   */
  @Override
  public int maxKicks() {
    return chain.maxKicks();
  }

  /**
   * Returns the growth factor of new links ("Expansion rate"): rounded up to a power of two when
   * created by {@link #reserve}, as stored when loaded from a dump header.
   *
   * @return the expansion, 0 if the filter never grows
   */
  public int expansion() {
    return chain.expansion();
  }

  /**
   * Returns the number of slots of all links: the number of items the chain holds before it grows
   * again.
   *
   * @return the capacity of the current links
   */
  @Override
  public long capacity() {
    return chain.capacity();
  }

  /**
   * Returns the fraction of all links' slots in use: the item count, as RedisBloom keeps it, per
   * slot.
   *
   * @return the load factor
   */
  @Override
  public double loadFactor() {
    return chain.loadFactor();
  }

  /**
   * Returns the expected false-positive rate at the current loads: {@code 1 − Π (1 − ε_i)} over the
   * links, {@code ε_i} the rate of link {@code i} at its load.
   *
   * @return the expected false-positive rate now
   */
  @Override
  public double expectedFalsePositiveRate() {
    return chain.expectedFalsePositiveRate();
  }

  /**
   * Returns the bound on the false-positive rate once every current link is full: about {@code 2 ×
   * bucketSize / 255} per link, summed.
   *
   * @return the compound false-positive bound
   */
  @Override
  public double falsePositiveRateAtCapacity() {
    return chain.falsePositiveRateAtCapacity();
  }

  /**
   * Returns {@link Scheme#REDISBLOOM}.
   *
   * @return the scheme
   */
  @Override
  public Scheme scheme() {
    return Scheme.REDISBLOOM;
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
   * Returns the table bits per rated item: 8, as every slot is an 8-bit fingerprint and {@link
   * #capacity()} counts slots.
   *
   * @return bits per item at capacity
   */
  public double bitsPerItem() {
    return chain.bitsPerItem();
  }

  /**
   * Returns the heap bytes of the filter: every link's table (its page arrays with their headers
   * and padding) and the objects of the links and of the chain, computed from the object layout of
   * a 64-bit JVM with compressed references (the default below 32 GiB of heap). Exact for the
   * tables, estimated within a few hundred bytes for the rest; the shared hasher and the
   * collector's rounding of an array to whole heap regions are not counted. It is {@link
   * #reservedSizeInBytes} when new and grows by each link added.
   *
   * @return size in bytes
   */
  @Override
  public long sizeInBytes() {
    return chain.sizeInBytes() + OBJECT_BYTES;
  }

  /**
   * Returns the number of bytes {@link #writeTo(OutputStream)} writes now: the 80-byte chain
   * header, every link's slots and the 4-byte CRC32C. It grows when a link is added and shrinks
   * when {@link #compact} or {@link #clear} drops links.
   *
   * @return the serialized size in bytes
   */
  @Override
  public long serializedSizeInBytes() {
    return chain instanceof CompactRedisChain compact
        ? ChainFormat.serializedBytes(compact)
        : ChainFormat.serializedBytes((RedisChain) chain);
  }

  // ---------------------------------------------------------------------------------------------
  // RedisBloom's own views: CF.DEBUG, CF.INFO Size, SCANDUMP / LOADCHUNK

  /**
   * Returns RedisBloom's computed size ({@code CF.INFO} "Size"): {@code 40 + 16 × links + Σ buckets
   * × bucketSize}.
   *
   * @return the size RedisBloom reports
   */
  public long redisSize() {
    return redisChain().redisSize();
  }

  /**
   * Returns RedisBloom's {@code CF.DEBUG} string: {@code "bktsize:2 buckets:512 items:1 deletes:0
   * filters:1 max_iterations:20 expansion:1"}.
   *
   * @return the debug string
   */
  public String redisDebug() {
    return redisChain().debug();
  }

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
    return RedisDump.scan(redisChain(), iterator);
  }

  /**
   * Returns the 38-byte header of this filter's RedisBloom dump, as {@code scanDump(0)} returns it;
   * unlike {@link #scanDump}, also for an empty filter (loaded with {@link #loadDumpHeader} or
   * {@code CF.LOADCHUNK}, the header alone makes an empty filter of the same geometry).
   *
   * @return the header
   */
  public byte[] dumpHeader() {
    return RedisDump.header(redisChain());
  }

  /**
   * Returns a copy of the slot bytes of link {@code index}, as RedisBloom stores that link in its
   * RDB value (one byte per 8-bit slot, bucket after bucket): unlike {@link #scanDump}, also for a
   * filter of 0 items. The link has {@code linkSlots(index).length / bucketSize()} buckets.
   *
   * @param index the link, 0 (the oldest) to {@link #linkCount()} − 1
   * @return the link's slots
   * @throws IllegalArgumentException if {@code index} is not a link (the message names it)
   * @throws IllegalStateException if the link holds more than {@code Integer.MAX_VALUE - 8} bytes
   *     (a Java array cannot hold it)
   */
  public byte[] linkSlots(int index) {
    RedisChain redis = redisChain();
    Checks.requireRange("index", index, 0, redis.linkCount() - 1L);
    RedisLink link = redis.links().get(index);
    if (link.bytes() > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException(
          "link "
              + index
              + ": "
              + link.bytes()
              + " bytes (expected: <= "
              + (Integer.MAX_VALUE - 8)
              + " for one array)");
    }
    byte[] slots = new byte[(int) link.bytes()];
    link.table.readPayload(0, slots, 0, slots.length);
    return slots;
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
   */
  public void loadDumpChunk(long iterator, byte[] data) {
    if (chain instanceof CompactRedisChain) {
      ((CompactRedisChain) chain).loadDumpChunk(iterator, data);
    } else {
      RedisDump.loadChunk((RedisChain) chain, iterator, data);
    }
  }

  /**
   * Returns a one-link filter over this one-link filter's slots and counters that records {@code
   * expansion}: what RedisBloom holds after {@code CF.RESERVE} with this geometry, {@code
   * MAXITERATIONS maxKicks()} and {@code EXPANSION expansion}, and the same adds. For dumping a
   * filter that never grows (one read from a single-filter file has expansion 0) into a Redis key
   * that grows ({@link #scanDump} and {@link #dumpHeader} of the new filter carry {@code
   * expansion}). The expansion is recorded as given. The new filter shares this one's table when it
   * has more than 65536 slots and holds a copy otherwise: write to at most one of the two.
   *
   * @param expansion the expansion to record, 0 to 32768
   * @return the filter, with this one's hasher, item and delete counts
   * @throws IllegalArgumentException if {@code expansion} is out of range (the message names it)
   * @throws IllegalStateException if this filter has more than one link
   */
  public RedisCuckooFilter<T> withExpansion(int expansion) {
    Checks.requireRange("expansion", expansion, 0, MAX_EXPANSION);
    RedisChain redis = redisChain();
    RedisLink link = onlyLink(redis);
    return wrap(
        hasher,
        RedisChain.over(
            link.table, redis.maxIterations(), expansion, redis.items(), redis.deletes()));
  }

  /**
   * Adds every fingerprint of {@code other} to this filter (the union of the two multisets of
   * fingerprints), all or nothing, for filters of one link each: a fingerprint in bucket {@code i}
   * of {@code other} goes into bucket {@code i} or its alternate here, relocating others along a
   * random walk of at most {@link #maxKicks()} steps when both are full (not RedisBloom's kick-out:
   * the result answers as the union, but its slots are not what {@code CF.ADD} of both filters'
   * items would give). Afterwards {@link #count} of any item is the sum of its counts in both
   * filters. {@code other} is not changed; the delete counts are kept as they are.
   *
   * @param other a one-link filter of the same bucket count, bucket size and hasher
   * @return true if every fingerprint fit; false if not, in which case this filter is exactly as it
   *     was
   * @throws IllegalArgumentException if a parameter differs (the message names it) or {@code other}
   *     is this filter
   * @throws IllegalStateException if either filter has more than one link
   * @throws NullPointerException if {@code other} is null
   */
  public boolean addAll(RedisCuckooFilter<T> other) {
    Checks.requireNonNull(other, "other");
    Checks.requireArgument(
        other != this, "other: the filter itself (expected: a different filter)");
    RedisChain theirs = other.redisChain();
    RedisLink source = onlyLink(theirs);
    if (chain instanceof CompactRedisChain compact) {
      chain = compact.expand();
    }
    RedisChain mine = (RedisChain) chain;
    RedisLink target = onlyLink(mine);
    FilterMerge.requireCompatible(
        MERGE_PARAMETERS,
        new Object[] {target.bucketCount, mine.bucketSize(), hasher.id()},
        new Object[] {source.bucketCount, theirs.bucketSize(), other.hasher.id()});
    if (source.occupied > target.slots - target.occupied) {
      return false;
    }
    // the walk's seed is the item count, as a single filter's merge seeds it (seed 0 XOR size)
    long moved =
        FilterMerge.addAll(
            target.indexer, target.table, mine.maxIterations(), mine.items(), source.table);
    if (moved < 0) {
      return false;
    }
    mine.merged(moved);
    return true;
  }

  /** Returns the one link of {@code redis}, or fails naming the link count. */
  private static RedisLink onlyLink(RedisChain redis) {
    if (redis.linkCount() != 1) {
      throw new IllegalStateException(
          "linkCount: " + redis.linkCount() + " (expected: 1, a filter that never grew)");
    }
    return redis.links().get(0);
  }

  // ---------------------------------------------------------------------------------------------
  // Serialization (docs/FORMAT.md, "Chained filters")

  /**
   * Writes this filter in the versioned binary format of chained filters (a chain header, every
   * link's slots, a CRC32C) to {@code out}; does not close {@code out}. {@link #readFrom} and
   * {@link FilterFile#read} read it.
   *
   * @param out the stream to write to
   * @throws IOException if {@code out} fails
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    if (chain instanceof CompactRedisChain compact) {
      // the slots as they are: no expanded copy per snapshot entry
      ChainFormat.writeRedis(compact, hasher, out);
    } else {
      ChainFormat.writeRedis((RedisChain) chain, hasher, out);
    }
  }

  /**
   * Writes this one-link filter as a single {@link Scheme#REDISBLOOM} filter (docs/FORMAT.md, the
   * single-filter format, scheme 2: a 64-byte header, the slots, a CRC32C), the form of a filter
   * that never grows; does not close {@code out}. The expansion and the delete count are not part
   * of that form: {@link #readFrom} and {@link FilterFile#read} read it back as a one-link filter
   * of expansion 0 and no deletes.
   *
   * @param out the stream to write to
   * @param hasher the hasher whose id the file records: this filter's, or one that gives the same
   *     hashes for the items the file will be queried with (as {@link ItemHashers#redisUtf8()} for
   *     text does for a filter hashing its UTF-8 bytes with {@link ItemHashers#redisBytes()})
   * @throws IOException if {@code out} fails
   * @throws IllegalStateException if the filter has more than one link
   * @throws FilterFormatException if the item count is not the number of occupied slots (a dump
   *     whose counters disagree with its data)
   * @throws NullPointerException if {@code out} or {@code hasher} is null
   */
  public void writeSingleTo(OutputStream out, ItemHasher<?> hasher) throws IOException {
    Checks.requireNonNull(out, "out");
    Checks.requireNonNull(hasher, "hasher");
    RedisChain redis = redisChain();
    RedisLink link = onlyLink(redis);
    if (redis.items() != link.occupied) {
      throw new FilterFormatException(
          "numItems",
          RedisDump.OFFSET_ITEMS,
          Long.toUnsignedString(redis.items())
              + " (expected: "
              + link.occupied
              + ", the occupied slots)");
    }
    FilterFormat.write(single(hasher, link, redis.maxIterations(), redis.items()), out);
  }

  /**
   * Returns the number of bytes {@link #writeSingleTo} writes for a filter that {@link
   * #reserve(long, int, int, int) reserve(capacity, bucketSize, …)} makes, whatever it holds,
   * without allocating it: the 64-byte header, one byte per slot and the 4-byte CRC32C.
   *
   * @param capacity the number of items, 1 to 2^62
   * @param bucketSize slots per bucket, 1 to 255
   * @return the size of the single-filter form in bytes
   * @throws IllegalArgumentException if a parameter is out of range
   */
  public static long singleSerializedSizeInBytes(long capacity, int bucketSize) {
    long buckets = baseBuckets(capacity, bucketSize);
    return FilterFormat.serializedBytes(BucketTable.payloadBytes(buckets, bucketSize, 8));
  }

  /** The single REDISBLOOM filter over {@code link}'s table, as the single-filter form holds it. */
  private static <U> CuckooFilter<U> single(
      ItemHasher<U> hasher, RedisLink link, int maxIterations, long items) {
    CuckooFilter<U> filter =
        new CuckooFilter<>(hasher, Scheme.REDISBLOOM, link.table, maxIterations, 0, link.slots);
    filter.setSize(items);
    return filter;
  }

  /**
   * Captures an image of this filter as it is now, to be written while the filter goes on changing
   * (a snapshot of a big filter): {@link FilterImage#writeTo} writes exactly what {@link #writeTo}
   * writes now. Until the image is written, the first change of each 4 KiB region of a table it has
   * not written yet copies that region aside, so the image costs memory only for the regions
   * changed meanwhile, with no limit. Call this under the lock that guards the filter's writes.
   *
   * @return the image; {@link FilterImage#close close} it when written or abandoned
   * @throws IllegalStateException if an image of this filter is still open
   */
  public FilterImage captureImage() {
    return captureImage(Long.MAX_VALUE);
  }

  /**
   * {@link #captureImage()} whose copies aside hold at most {@code copyBudgetBytes} at once: a
   * change of a region the image has not written yet, when the copies already hold that much, waits
   * until the image has written the region (as if the filter were frozen while it is written). A
   * copy stops counting once it is written.
   *
   * @param copyBudgetBytes the most bytes the image's copies may hold at once, 0 or more
   * @return the image; {@link FilterImage#close close} it when written or abandoned
   * @throws IllegalArgumentException if {@code copyBudgetBytes} is negative
   * @throws IllegalStateException if an image of this filter is still open
   */
  public FilterImage captureImage(long copyBudgetBytes) {
    Checks.requireArgument(
        copyBudgetBytes >= 0, "copyBudgetBytes: %s (expected: 0 or more)", copyBudgetBytes);
    return chain instanceof CompactRedisChain compact
        ? FilterImage.capture(compact, hasher)
        : FilterImage.capture((RedisChain) chain, hasher, copyBudgetBytes);
  }

  @Override
  public String toString() {
    return "RedisCuckooFilter{" + chain.describe() + "}";
  }

  // ---------------------------------------------------------------------------------------------

  private long hash(T item) {
    return hasher.hash(Checks.requireNonNull(item, "item"));
  }

  /** Returns true if the filter is held in the compact form of one small link (tests). */
  boolean isCompact() {
    return chain instanceof CompactRedisChain;
  }

  /**
   * Returns the RedisChain: for the compact form, a RedisChain over a copy of its slots and
   * counters, which leaves the filter unchanged.
   */
  RedisChain redisChain() {
    if (chain instanceof CompactRedisChain) {
      return ((CompactRedisChain) chain).expand();
    }
    return (RedisChain) chain;
  }
}
