package dev.cuckoo;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;

/**
 * A cuckoo filter: a set that answers "might contain" or "definitely does not contain" in a few
 * bits per item, with a bounded false-positive rate, and that — unlike a Bloom filter — supports
 * deletion and counting.
 *
 * <p>Each item is reduced to a short fingerprint stored in one of two buckets; the second bucket is
 * computed from the first and the fingerprint alone, so fingerprints can be moved ("kicked")
 * without the original item (partial-key cuckoo hashing, Fan et al. 2014).
 *
 * <pre>{@code
 * CuckooFilter<CharSequence> filter = CuckooFilter.builder(ItemHashers.utf8())
 *     .expectedItems(1_000_000)
 *     .falsePositiveRate(0.001)
 *     .build();
 * filter.add("https://example.com/");
 * filter.mightContain("https://example.com/");   // true
 * filter.mightContain("https://example.org/");   // false, except with probability <= 0.1%
 * filter.remove("https://example.com/");          // true
 * }</pre>
 *
 * <h2>Contract</h2>
 *
 * <ul>
 *   <li>{@link #mightContain} never returns false for an item that was added and not removed (no
 *       false negatives), provided only items that were added are removed.
 *   <li>It returns true for an item that was never added with probability at most about {@link
 *       #falsePositiveRateAtCapacity()} once the filter holds {@link #capacity()} items; {@link
 *       #expectedFalsePositiveRate()} gives the rate at the current load.
 *   <li>Inserting {@link #capacity()} distinct items always succeeds. Beyond that {@link #add} may
 *       return false, and then the filter is exactly as it was before the call: nothing added,
 *       nothing lost.
 *   <li>Duplicates are stored as separate copies. The same item (or items with the same fingerprint
 *       and buckets) can be added at most {@code 2 × bucketSize()} times; the next add fails.
 *       {@link #addIfAbsent} avoids duplicates.
 *   <li>Removing an item that was never added can remove another item's fingerprint, which then
 *       becomes a false negative. Remove only what you added.
 *   <li>Not thread-safe for writes: use external synchronization or {@link
 *       java.util.concurrent.locks.ReadWriteLock}-style guarding when sharing a filter. Methods
 *       that only read ({@code mightContain}, {@code mightContainAll}, {@code count}, their hash
 *       forms, the properties, {@code writeTo}) may run in any number of threads at once while no
 *       write runs; {@link ConcurrentCuckooFilter} also allows writes.
 * </ul>
 *
 * <h2>Load</h2>
 *
 * <p>Load reached before the first failed insert with the default 500 kicks (random keys, {@link
 * Scheme#STANDARD_FAST} or {@link Scheme#STANDARD}, large tables): about 88.9% for b = 2, 97.4% for
 * b = 4, 99.2% for b = 8 (see {@link Builder#bucketSize(int)}). The builder sizes tables for a load
 * below that, so that {@code expectedItems} always fit: at b = 4 and ε = 0.1% that is 13 bits per
 * fingerprint and 13.76 bits per item at any size from 10^4 items up (no power-of-two rounding), or
 * 12.70 with {@link Builder#semiSorted semi-sorted buckets}.
 *
 * @param <T> the item type
 */
public final class CuckooFilter<T> implements MembershipFilter<T> {
  /*
   * Algorithms.
   *
   * Insert: try both buckets; if both are full, the Inserter relocates fingerprints (STANDARD:
   * neighbour probe, random walk, breadth-first search; REDISBLOOM: RedisBloom's kick-out, see
   * docs/REDISBLOOM.md). Every strategy either stores the fingerprint or leaves the table bit for
   * bit as it was, so a failed add leaves the filter unchanged.
   *
   * Sizing from a target rate ε: at load α the probability that a lookup of a never-added item
   * matches one of the 2·b·α fingerprints it is compared with is at most 2·b·α / (2^f − 1), so
   * f = ceil(log2(2·b·α_design / ε + 1)), and m = ceil(n / (b · α_design)) rounded up to even. The
   * design loads α_design are below the measured failure loads (see DESIGN_LOAD).
   *
   * B. Fan, D. G. Andersen, M. Kaminsky, M. D. Mitzenmacher, "Cuckoo Filter: Practically Better
   * Than Bloom", CoNEXT 2014.
   */

  /** Default maximum number of kicks per insert. */
  public static final int DEFAULT_MAX_KICKS = 500;

  /** Default target false-positive rate. */
  public static final double DEFAULT_FALSE_POSITIVE_RATE = 0.01;

  /** Default bucket size. */
  public static final int DEFAULT_BUCKET_SIZE = 4;

  /** The scheme of a builder that is not given one. */
  static final Scheme DEFAULT_SCHEME = Scheme.STANDARD_FAST;

  /** Default seed of {@link Scheme#STANDARD} filters: 0, meaning the item hash is used as is. */
  public static final long DEFAULT_SEED = 0L;

  /** Largest allowed {@code maxKicks}. */
  public static final int MAX_KICKS_LIMIT = 1 << 20;

  /** Narrowest fingerprint of {@link Builder#fingerprintBits}. */
  public static final int MIN_FINGERPRINT_BITS = 4;

  /** Widest fingerprint of {@link Builder#fingerprintBits}. */
  public static final int MAX_FINGERPRINT_BITS = 32;

  /** Largest {@link Builder#expectedItems}: 2^36. */
  public static final long MAX_EXPECTED_ITEMS = Sizing.MAX_EXPECTED_ITEMS;

  /** What two filters must have in common to be merged, in the order the check names them. */
  private static final String[] MERGE_PARAMETERS = {
    "scheme", "seed", "bucketSize", "fingerprintBits", "bucketCount", "hasher id"
  };

  private final ItemHasher<? super T> hasher;
  private final Scheme scheme;
  private final BucketTable table;
  private final Indexer indexer;
  private final long bucketCount;
  private final int bucketSize;
  private final int fingerprintBits;
  private final long fingerprintRange;
  private final int maxKicks;
  private final long seed;
  private final long capacity;

  private final Inserter inserter;

  private long size;

  CuckooFilter(
      ItemHasher<? super T> hasher,
      Scheme scheme,
      long bucketCount,
      int bucketSize,
      int fingerprintBits,
      int maxKicks,
      long seed,
      long capacity) {
    this(
        hasher,
        scheme,
        new PlainBucketTable(bucketCount, bucketSize, fingerprintBits),
        maxKicks,
        seed,
        capacity);
  }

  /**
   * Creates a filter over {@code table}, which it takes over (or shares, as the serialization view
   * of a {@link ConcurrentCuckooFilter} does); its size is 0 until {@link #setSize} is called.
   */
  CuckooFilter(
      ItemHasher<? super T> hasher,
      Scheme scheme,
      BucketTable table,
      int maxKicks,
      long seed,
      long capacity) {
    this.hasher = hasher;
    this.scheme = scheme;
    this.table = table;
    this.bucketCount = table.bucketCount();
    this.bucketSize = table.bucketSize();
    this.fingerprintBits = table.fingerprintBits();
    this.indexer = new Indexer(scheme, bucketCount, fingerprintBits, seed);
    this.fingerprintRange = indexer.fingerprintRange();
    this.maxKicks = maxKicks;
    this.seed = seed;
    this.capacity = capacity;
    this.inserter = new Inserter(scheme, indexer, table, maxKicks);
  }

  /**
   * Returns a builder for a filter of items hashed by {@code hasher}.
   *
   * @param hasher turns items into 64-bit hashes, e.g. {@link ItemHashers#utf8()}
   * @param <T> the item type
   * @return a new builder
   * @throws NullPointerException if {@code hasher} is null
   */
  public static <T> Builder<T> builder(ItemHasher<? super T> hasher) {
    return new Builder<>(Checks.requireNonNull(hasher, "hasher"));
  }

  // ---------------------------------------------------------------------------------------------
  // Hash-level API: the primitive path for callers that hash themselves (no boxing). The item
  // forms (add, addIfAbsent, addIfAbsentWithOutcome, mightContain, remove, count, replace) are
  // MembershipFilter's defaults, which hash the item and call these.

  /**
   * Adds an item given by its 64-bit hash, as computed by this filter's {@link ItemHasher} (or, for
   * {@code long} keys without boxing, {@link ItemHashers#hashLong(long)}). Succeeds for any of the
   * first {@link #capacity()} distinct items; beyond that it may fail, and a failed add leaves the
   * table bit for bit as it was.
   *
   * @param hash the item's hash
   * @return true if stored; false if full (filter unchanged)
   */
  @Override
  public boolean addHash(long hash) {
    long h = indexer.remix(hash);
    long fingerprint = indexer.fingerprint(h);
    long bucket = indexer.firstBucket(h);
    if (table.insert(bucket, fingerprint)
        || table.insert(indexer.alternateBucket(bucket, fingerprint), fingerprint)
        || inserter.relocate(bucket, fingerprint)) {
      size++;
      return true;
    }
    return false;
  }

  /**
   * Hash-level {@link #mightContain}: true if the item might be in the filter, false if it
   * definitely is not.
   *
   * @param hash the item's hash
   * @return false only if the item was never added (or was removed as often as added)
   */
  @Override
  public boolean mightContainHash(long hash) {
    long h = indexer.remix(hash);
    long fingerprint = indexer.fingerprint(h);
    long bucket = indexer.firstBucket(h);
    return table.containsEither(bucket, indexer.alternateBucket(bucket, fingerprint), fingerprint);
  }

  /**
   * Tests many hashes at once: sets bit {@code i − from} of {@code resultBits} (bit {@code k} of a
   * word is {@code 1L << k}, word {@code k / 64} holds bits {@code 64·(k/64)} onward) iff {@link
   * #mightContainHash mightContainHash(hashes[i])}, for every {@code i} in {@code [from, to)}. The
   * answers are exactly those of single lookups; they come faster for large tables because the
   * bucket loads of a block of keys are issued together and their cache misses overlap.
   *
   * <p>The first {@code ceil((to − from) / 64)} words of {@code resultBits} are overwritten (unused
   * high bits of the last one are cleared); later words are not touched. Allocation-free (a small
   * per-thread scratch array).
   *
   * @param hashes the items' hashes, as for {@link #mightContainHash}
   * @param from first index to test, inclusive
   * @param to last index to test, exclusive
   * @param resultBits receives the answers; at least {@code ceil((to − from) / 64)} words
   * @throws IndexOutOfBoundsException if {@code [from, to)} is not a range of {@code hashes}
   * @throws IllegalArgumentException if {@code resultBits} is too short
   */
  public void mightContainAll(long[] hashes, int from, int to, long[] resultBits) {
    BatchLookup.mightContainAll(
        indexer,
        table,
        Checks.requireNonNull(hashes, "hashes"),
        from,
        to,
        Checks.requireNonNull(resultBits, "resultBits"));
  }

  /**
   * Tests many items at once: sets bit {@code i − from} of {@code resultBits} iff {@link
   * #mightContain mightContain(items[i])}, for every {@code i} in {@code [from, to)}, with the same
   * bit layout and the same guarantees as {@link #mightContainAll(long[], int, int, long[])}.
   *
   * @param items the items
   * @param from first index to test, inclusive
   * @param to last index to test, exclusive
   * @param resultBits receives the answers; at least {@code ceil((to − from) / 64)} words
   * @throws IndexOutOfBoundsException if {@code [from, to)} is not a range of {@code items}
   * @throws IllegalArgumentException if {@code resultBits} is too short
   * @throws NullPointerException if an item in the range is null (some results may then have been
   *     written)
   */
  public void mightContainAll(T[] items, int from, int to, long[] resultBits) {
    BatchLookup.mightContainAll(
        indexer,
        table,
        hasher,
        Checks.requireNonNull(items, "items"),
        from,
        to,
        Checks.requireNonNull(resultBits, "resultBits"));
  }

  /**
   * Hash-level {@link #remove}: removes one copy of the item's fingerprint from its buckets.
   *
   * @param hash the hash of an item that was added; removing one that was not may remove another
   *     item
   * @return true if a copy was found and removed
   */
  @Override
  public boolean removeHash(long hash) {
    long h = indexer.remix(hash);
    long fingerprint = indexer.fingerprint(h);
    long bucket = indexer.firstBucket(h);
    if (removeFrom(bucket, fingerprint)
        || removeFrom(indexer.alternateBucket(bucket, fingerprint), fingerprint)) {
      size--;
      return true;
    }
    return false;
  }

  /**
   * Hash-level {@link #count}: the copies of the item's fingerprint in its two buckets, at least
   * the number of times it was added and not removed, more if other items share its fingerprint.
   *
   * @param hash the item's hash
   * @return the count, 0 to {@code 2 × bucketSize()}
   */
  @Override
  public long countHash(long hash) {
    long h = indexer.remix(hash);
    long fingerprint = indexer.fingerprint(h);
    long bucket = indexer.firstBucket(h);
    return table.count(bucket, fingerprint)
        + table.count(indexer.alternateBucket(bucket, fingerprint), fingerprint);
  }

  /**
   * Hash-level {@link #replace}: replaces one copy of the old item by the new one atomically; on
   * failure (old item not found, or no room for the new one) nothing changes.
   *
   * @param oldHash hash of the item to remove
   * @param newHash hash of the item to add
   * @return true if replaced
   */
  @Override
  public boolean replaceHash(long oldHash, long newHash) {
    long h = indexer.remix(oldHash);
    long fingerprint = indexer.fingerprint(h);
    long bucket = indexer.firstBucket(h);
    int slot = table.find(bucket, fingerprint);
    if (slot < 0) {
      bucket = indexer.alternateBucket(bucket, fingerprint);
      slot = table.find(bucket, fingerprint);
      if (slot < 0) {
        return false;
      }
    }
    slot = table.set(bucket, slot, 0);
    size--;
    if (addHash(newHash)) {
      return true;
    }
    table.set(bucket, slot, fingerprint);
    size++;
    return false;
  }

  /**
   * Adds every fingerprint of {@code other} to this filter (the union of the two multisets of
   * fingerprints), all or nothing: afterwards {@link #count} of any item is the sum of its counts
   * in both filters. {@code other} is not changed. Needs temporary memory of about 16 bytes per
   * fingerprint moved (an undo log).
   *
   * @param other a filter of the same scheme, seed, bucket count, bucket size, fingerprint width
   *     and hasher
   * @return true if every fingerprint fit; false if not, in which case this filter is exactly as it
   *     was
   * @throws IllegalArgumentException if a parameter differs (the message names it) or {@code other}
   *     is this filter
   * @throws NullPointerException if {@code other} is null
   */
  public boolean addAll(CuckooFilter<T> other) {
    Checks.requireNonNull(other, "other");
    Checks.requireArgument(
        other != this, "other: the filter itself (expected: a different filter)");
    FilterMerge.requireCompatible(MERGE_PARAMETERS, mergeParameters(), other.mergeParameters());
    if (other.size > bucketCount * bucketSize - size) {
      return false;
    }
    long moved = FilterMerge.addAll(indexer, table, maxKicks, seed ^ size, other.table);
    if (moved < 0) {
      return false;
    }
    size += moved;
    return true;
  }

  /** Returns the values of {@link #MERGE_PARAMETERS}: what must be equal to merge. */
  private Object[] mergeParameters() {
    return new Object[] {scheme, seed, bucketSize, fingerprintBits, bucketCount, hasher.id()};
  }

  /** Removes every item. */
  @Override
  public void clear() {
    table.clear();
    size = 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Properties

  /**
   * Returns the number of fingerprints stored (adds minus removes that succeeded).
   *
   * @return the number of items
   */
  public long size() {
    return size;
  }

  /**
   * Returns the number of items the filter is rated for: inserting this many distinct items always
   * succeeds, and the false-positive rate is then at most {@link #falsePositiveRateAtCapacity()}.
   *
   * @return the rated capacity
   */
  public long capacity() {
    return capacity;
  }

  /**
   * Returns the fraction of slots in use.
   *
   * @return {@code size() / (bucketCount() × bucketSize())}
   */
  public double loadFactor() {
    return (double) size / ((double) bucketCount * bucketSize);
  }

  /**
   * Returns the number of buckets.
   *
   * @return the bucket count
   */
  public long bucketCount() {
    return bucketCount;
  }

  /**
   * Returns the number of slots per bucket.
   *
   * @return the bucket size
   */
  public int bucketSize() {
    return bucketSize;
  }

  /**
   * Returns the width of a fingerprint in bits.
   *
   * @return the fingerprint width
   */
  public int fingerprintBits() {
    return fingerprintBits;
  }

  /**
   * Returns the table's payload bits per rated item: {@code bucketCount × bucketSize ×
   * fingerprintBits / capacity()}, with {@code fingerprintBits − 1} for semi-sorted buckets.
   *
   * @return bits per item at capacity
   */
  public double bitsPerItem() {
    // a semi-sorted slot stores one bit less than a fingerprint
    int storedBits = isSemiSorted() ? fingerprintBits - 1 : fingerprintBits;
    return (double) bucketCount * bucketSize * storedBits / capacity;
  }

  /**
   * Returns true if the buckets are stored semi-sorted ({@link Builder#semiSorted}).
   *
   * @return true for a semi-sorted table, false for the plain one
   */
  public boolean isSemiSorted() {
    return table instanceof SemiSortedTable;
  }

  /**
   * Returns the expected false-positive rate at the current load: the probability that a lookup of
   * an item never added matches one of the fingerprints in its two buckets, {@code 1 − (1 −
   * 1/F)^(2·b·load)} with {@code F} the number of distinct fingerprints.
   *
   * @return the expected false-positive rate now
   */
  public double expectedFalsePositiveRate() {
    return Sizing.falsePositiveRate(fingerprintRange, bucketSize, loadFactor());
  }

  /**
   * Returns the expected false-positive rate once the filter holds {@link #capacity()} items.
   *
   * @return the expected false-positive rate at capacity
   */
  public double falsePositiveRateAtCapacity() {
    return Sizing.falsePositiveRate(
        fingerprintRange, bucketSize, Math.min(1.0, (double) capacity / bucketCount / bucketSize));
  }

  /**
   * Returns the approximate heap size of the filter in bytes: the table's page arrays (payload,
   * padding, headers), plus the kick-out scratch arrays once an insert has needed them (about 20
   * bytes per allowed kick and 60 bytes per breadth-first search node).
   *
   * @return size in bytes
   */
  public long sizeInBytes() {
    return table.sizeInBytes() + 128 + inserter.sizeInBytes();
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
   * Returns the seed mixed into item hashes ({@link Scheme#STANDARD} only; 0 means none).
   *
   * @return the seed
   */
  public long seed() {
    return seed;
  }

  /**
   * Returns the maximum number of kicks per insert.
   *
   * @return max kicks
   */
  public int maxKicks() {
    return maxKicks;
  }

  /**
   * Returns the hasher items are hashed with.
   *
   * @return the hasher
   */
  public ItemHasher<? super T> hasher() {
    return hasher;
  }

  @Override
  public String toString() {
    return "CuckooFilter{scheme="
        + scheme
        + ", size="
        + size
        + ", capacity="
        + capacity
        + ", bucketCount="
        + bucketCount
        + ", bucketSize="
        + bucketSize
        + ", fingerprintBits="
        + fingerprintBits
        + (isSemiSorted() ? ", semiSorted=true" : "")
        + ", hasher="
        + hasher
        + "}";
  }

  // ---------------------------------------------------------------------------------------------
  // Serialization (docs/FORMAT.md; the code is in FilterFormat)

  /**
   * Writes this filter in the versioned binary format (header, table, CRC32C) to {@code out},
   * streaming the table without copying it; does not close {@code out}. The format, its limits
   * (tables beyond 2 GiB, up to 2^40 slots) and its versioning rules are documented in the
   * project's {@code docs/FORMAT.md}.
   *
   * @param out the stream to write to
   * @throws IOException if {@code out} fails
   */
  public void writeTo(OutputStream out) throws IOException {
    FilterFormat.write(this, out);
  }

  /**
   * Returns the number of bytes {@link #writeTo(OutputStream)} writes: the 64-byte header, the
   * table's payload and the 4-byte CRC32C. It depends on the geometry only, not on what the filter
   * holds.
   *
   * @return the serialized size in bytes
   */
  @Override
  public long serializedSizeInBytes() {
    return FilterFormat.serializedBytes(table.payloadBytes());
  }

  /**
   * Writes this filter in the binary format to the file {@code path}, replacing it if it exists.
   *
   * @param path the file to write
   * @throws IOException if the file cannot be written
   */
  public void writeTo(Path path) throws IOException {
    FilterFormat.write(this, path);
  }

  /**
   * Reads a filter written by {@link #writeTo(OutputStream)}, leaving {@code in} just after it.
   *
   * @param in the stream to read from
   * @param hasher the hasher the filter was written with
   * @param <T> the item type
   * @return the filter
   * @throws FilterFormatException if the bytes are corrupt, truncated, of an unknown version, were
   *     written with a different built-in hasher, hold a {@link Scheme#REDISBLOOM} filter (refused
   *     as a {@code scheme} error before allocating: read it with {@link
   *     RedisCuckooFilter#readFrom} or {@link FilterFile#read(InputStream,
   *     java.util.function.IntFunction)}, which give a {@link RedisCuckooFilter}), or need more
   *     memory than the maximum heap (refused before allocating) or than the heap has even after a
   *     full garbage collection
   * @throws IOException if {@code in} fails
   */
  public static <T> CuckooFilter<T> readFrom(InputStream in, ItemHasher<? super T> hasher)
      throws IOException {
    return FilterFormat.read(in, hasher);
  }

  /**
   * Reads a filter from the file {@code path}, which must hold exactly one filter written by {@link
   * #writeTo(Path)}; its length is checked against the header before anything is allocated.
   *
   * @param path the file to read
   * @param hasher the hasher the filter was written with
   * @param <T> the item type
   * @return the filter
   * @throws FilterFormatException if the file is corrupt (see {@link #readFrom(InputStream,
   *     ItemHasher)}) or has bytes after the filter
   * @throws IOException if the file cannot be read
   */
  public static <T> CuckooFilter<T> readFrom(Path path, ItemHasher<? super T> hasher)
      throws IOException {
    return FilterFormat.read(path, hasher);
  }

  // ---------------------------------------------------------------------------------------------
  // Internals shared with the package (chains, serialization, concurrency)

  /**
   * Returns {@code scheme} if it is a STANDARD scheme; refuses {@link Scheme#REDISBLOOM}, whose
   * only filter is {@link RedisCuckooFilter}, naming the builder's class and what to use instead.
   *
   * @throws NullPointerException if {@code scheme} is null
   */
  static Scheme requireStandard(Scheme scheme, String className) {
    Checks.requireNonNull(scheme, "scheme");
    Checks.requireArgument(
        scheme.isStandard(),
        "scheme: %s (expected: STANDARD or STANDARD_FAST; a %s does not take %s: use"
            + " RedisCuckooFilter.reserve(capacity, bucketSize, maxIterations, expansion),"
            + " expansion 0 for a filter that never grows)",
        scheme,
        className,
        scheme);
    return scheme;
  }

  BucketTable table() {
    return table;
  }

  /** Returns the number of distinct fingerprints (see {@link Indexer#fingerprintRange()}). */
  long fingerprintRange() {
    return fingerprintRange;
  }

  void setSize(long size) {
    this.size = size;
  }

  long hash(T item) {
    return hasher.hash(Checks.requireNonNull(item, "item"));
  }

  /** Returns the index arithmetic of this filter (scheme, geometry and seed). */
  Indexer indexer() {
    return indexer;
  }

  private boolean removeFrom(long bucket, long fingerprint) {
    int slot = table.find(bucket, fingerprint);
    if (slot < 0) {
      return false;
    }
    table.set(bucket, slot, 0);
    return true;
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Configures and creates a {@link CuckooFilter}. {@link #expectedItems} is required; everything
   * else has a default.
   *
   * @param <T> the item type
   */
  public static final class Builder<T> extends FilterBuilder<T, Builder<T>> {
    private Scheme scheme = DEFAULT_SCHEME;
    private int fingerprintBits = -1;
    private boolean semiSorted;

    private Builder(ItemHasher<? super T> hasher) {
      super(hasher, DEFAULT_SEED);
    }

    @Override
    Builder<T> self() {
      return this;
    }

    /** 2, 4 or 8; any size RedisBloom takes once the package's REDISBLOOM scheme is set. */
    @Override
    void checkBucketSize(int bucketSize) {
      if (scheme == Scheme.REDISBLOOM) {
        Checks.requireRange("bucketSize", bucketSize, 1, RedisCuckooFilter.MAX_BUCKET_SIZE);
      } else {
        super.checkBucketSize(bucketSize);
      }
    }

    /**
     * Sets the fingerprint width directly, overriding {@link #falsePositiveRate}.
     *
     * @param fingerprintBits 4 to 32
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> fingerprintBits(int fingerprintBits) {
      Checks.requireRange(
          "fingerprintBits", fingerprintBits, MIN_FINGERPRINT_BITS, MAX_FINGERPRINT_BITS);
      this.fingerprintBits = fingerprintBits;
      return this;
    }

    /**
     * Sets the scheme (default {@link Scheme#STANDARD_FAST}; {@link Scheme#STANDARD}, the same
     * tables with a costlier alternate bucket, for filters that must merge with filters built with
     * it). With {@link #semiSorted semiSorted(true)} either works (scheme ids 5 and 3 in the
     * format). {@link Scheme#REDISBLOOM} is refused: a filter that answers as RedisBloom does is a
     * {@link RedisCuckooFilter} ({@link RedisCuckooFilter#reserve(long, int, int, int)}, expansion
     * 0 for one that never grows).
     *
     * @param scheme {@link Scheme#STANDARD_FAST} or {@link Scheme#STANDARD}
     * @return this builder
     * @throws NullPointerException if null
     * @throws IllegalArgumentException if {@link Scheme#REDISBLOOM}
     */
    public Builder<T> scheme(Scheme scheme) {
      this.scheme = requireStandard(scheme, "CuckooFilter");
      return this;
    }

    /**
     * Sets the {@link Scheme#REDISBLOOM} scheme that {@link #scheme} refuses: the single RedisBloom
     * table the package reads from a single-filter file and converts to a {@link
     * RedisCuckooFilter}, and whose insert the tests compare with RedisBloom's.
     */
    Builder<T> redisBloomScheme() {
      this.scheme = Scheme.REDISBLOOM;
      return this;
    }

    /**
     * Stores each bucket semi-sorted (default false): its four fingerprints in ascending order,
     * with their high 4 bits encoded together in 12 bits instead of 16 (Fan et al. 2014, §5.2).
     * That saves one bit per slot at the same false-positive rate — at ε = 0.1%, 12.70 bits per
     * item instead of 13.76 — and costs decoding on every lookup and re-encoding on every write
     * (see the project's {@code docs/benchmarks.md}). Everything else behaves as with plain
     * buckets: {@code count}, {@code remove}, {@code replace}, the all-or-nothing {@code add},
     * {@link CuckooFilter#addAll addAll} (with a plain or a semi-sorted filter of the same geometry
     * and scheme) and {@code writeTo} / {@code readFrom} (scheme id 5 in the format for {@link
     * Scheme#STANDARD_FAST}, 3 for {@link Scheme#STANDARD}). Batched lookups ({@code
     * mightContainAll}) give the same answers one key at a time, without the overlapped loads.
     * {@link ConcurrentCuckooFilter}, {@link ScalableCuckooFilter} and {@link ShardedCuckooFilter}
     * use plain buckets only.
     *
     * <p>Needs a STANDARD scheme ({@link Scheme#STANDARD_FAST}, the default, or {@link
     * Scheme#STANDARD}), {@code bucketSize} 4 and fingerprints of 5 to 16 bits: a {@link
     * #falsePositiveRate} that needs fewer than 5 bits gets 5, one that needs more than 16 is
     * rejected by {@link #build()}, as are other bucket sizes or fingerprint widths.
     *
     * @param semiSorted true for semi-sorted buckets
     * @return this builder
     */
    public Builder<T> semiSorted(boolean semiSorted) {
      this.semiSorted = semiSorted;
      return this;
    }

    /**
     * Creates the filter.
     *
     * @return a new, empty filter
     * @throws IllegalStateException if {@link #expectedItems} was not set
     * @throws IllegalArgumentException if the parameters do not fit together
     */
    public CuckooFilter<T> build() {
      Shape shape = shape();
      if (shape.semiSorted()) {
        SemiSortedTable table = new SemiSortedTable(shape.buckets(), shape.fingerprintBits());
        return new CuckooFilter<>(
            hasher, shape.scheme(), table, shape.maxKicks(), seed, shape.capacity());
      }
      return new CuckooFilter<>(
          hasher,
          shape.scheme(),
          shape.buckets(),
          shape.bucketSize(),
          shape.fingerprintBits(),
          shape.maxKicks(),
          seed,
          shape.capacity());
    }

    /**
     * Returns the number of bytes {@link CuckooFilter#writeTo(OutputStream)} writes for the filter
     * {@link #build()} would create, whatever it holds, without creating it: for checking a size
     * limit before allocating the table.
     *
     * <pre>{@code
     * long bytes = CuckooFilter.builder(ItemHashers.utf8())
     *     .expectedItems(1_000_000)
     *     .falsePositiveRate(0.001)
     *     .serializedSizeInBytes();   // 1_719_656, the same as build().serializedSizeInBytes()
     * }</pre>
     *
     * @return the serialized size in bytes
     * @throws IllegalStateException if {@link #expectedItems} was not set
     * @throws IllegalArgumentException if the parameters do not fit together, as {@link #build()}
     *     would throw
     */
    public long serializedSizeInBytes() {
      return FilterFormat.serializedBytes(shape().payloadBytes());
    }

    /** Checks the settings and returns the geometry {@link #build()} allocates. */
    private Shape shape() {
      requireExpectedItems();
      if (scheme == Scheme.REDISBLOOM) {
        Checks.requireArgument(
            !semiSorted, "semiSorted: true (expected: false for the REDISBLOOM scheme)");
        return redisShape();
      }
      Checks.requireArgument(
          bucketSize == 2 || bucketSize == 4 || bucketSize == 8,
          "bucketSize: %s (expected: 2, 4 or 8 for the STANDARD scheme)",
          bucketSize);
      Checks.requireArgument(
          !semiSorted || bucketSize == SemiSortedTable.BUCKET_SIZE,
          "bucketSize: %s (expected: 4 with semiSorted(true))",
          bucketSize);
      long buckets = Sizing.bucketCount(expectedItems, bucketSize);
      double designLoad = Sizing.designLoad(bucketSize, buckets * bucketSize);
      int bits =
          fingerprintBits > 0
              ? fingerprintBits
              : Sizing.fingerprintBits(falsePositiveRate, bucketSize, designLoad);
      long capacity = Math.max(expectedItems, (long) Math.floor(buckets * bucketSize * designLoad));
      int kicks = maxKicksOr(DEFAULT_MAX_KICKS);
      if (semiSorted) {
        bits = semiSortedBits(bits, designLoad);
      }
      return new Shape(scheme, semiSorted, buckets, bucketSize, bits, kicks, capacity);
    }

    /**
     * Returns the fingerprint width of a semi-sorted table: {@code bits} if set explicitly and in
     * range, else the width the rate needs, at least the narrowest semi-sorted width.
     */
    private int semiSortedBits(int bits, double designLoad) {
      int min = SemiSortedTable.MIN_FINGERPRINT_BITS;
      int max = SemiSortedTable.MAX_FINGERPRINT_BITS;
      Checks.requireArgument(
          fingerprintBits < 0 || (fingerprintBits >= min && fingerprintBits <= max),
          "fingerprintBits: %s (expected: %s <= fingerprintBits <= %s with semiSorted(true))",
          fingerprintBits,
          min,
          max);
      double lowestRate = 2.0 * bucketSize * designLoad / ((1L << max) - 1);
      Checks.requireArgument(
          bits <= max,
          "falsePositiveRate: %s (expected: >= %s with semiSorted(true), whose fingerprints have"
              + " at most %s bits)",
          falsePositiveRate,
          lowestRate,
          max);
      return Math.max(min, bits);
    }

    private Shape redisShape() {
      int size = bucketSizeSet ? bucketSize : RedisCuckooFilter.DEFAULT_BUCKET_SIZE;
      Checks.requireArgument(
          !falsePositiveRateSet,
          "falsePositiveRate: %s (expected: not set for the REDISBLOOM scheme, whose 8-bit"
              + " fingerprints give about 2 × bucketSize / 255)",
          falsePositiveRate);
      Checks.requireArgument(
          fingerprintBits < 0 || fingerprintBits == 8,
          "fingerprintBits: %s (expected: 8 for the REDISBLOOM scheme)",
          fingerprintBits);
      Checks.requireArgument(
          seed == 0, "seed: %s (expected: 0, the REDISBLOOM scheme has no seed)", seed);
      long buckets = Sizing.nextPowerOfTwo(Math.max(1, expectedItems / size));
      Checks.requireRange("bucketCount", buckets, 1, BucketTable.maxBucketCount(size));
      int kicks = maxKicksOr(RedisCuckooFilter.DEFAULT_MAX_ITERATIONS);
      return new Shape(Scheme.REDISBLOOM, false, buckets, size, 8, kicks, buckets * size);
    }

    /** The geometry and settings of the filter a builder makes, before its table is allocated. */
    private record Shape(
        Scheme scheme,
        boolean semiSorted,
        long buckets,
        int bucketSize,
        int fingerprintBits,
        int maxKicks,
        long capacity) {
      /** Returns the payload bytes of the table, as {@link FilterHeader} records them. */
      long payloadBytes() {
        return semiSorted
            ? SemiSortedTable.payloadBytes(buckets, fingerprintBits)
            : BucketTable.payloadBytes(buckets, bucketSize, fingerprintBits);
      }
    }
  }
}
