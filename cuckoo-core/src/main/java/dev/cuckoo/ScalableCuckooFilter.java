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
 * <p>A growing filter that behaves bit for bit like RedisBloom's ({@code CF.RESERVE}, {@code
 * CF.SCANDUMP}, {@code CF.DEBUG}) is a {@link RedisCuckooFilter}: this class is the {@link
 * Scheme#STANDARD} scheme only.
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
 *       #mightContain}, {@link #count}, their hash forms, {@link #writeTo} and every property
 *       change nothing, so any number of threads may call them at once while no {@code add}, {@code
 *       remove}, {@code replace} or {@code clear} runs (for instance under a read lock whose write
 *       lock guards those). A write concurrent with anything else needs external synchronization.
 * </ul>
 *
 * @param <T> the item type
 */
public final class ScalableCuckooFilter<T> implements MembershipFilter<T> {
  /** Default growth factor of a {@link Scheme#STANDARD} chain. */
  public static final double DEFAULT_GROWTH_FACTOR = 2.0;

  /** Smallest {@link Builder#growthFactor}. */
  public static final double MIN_GROWTH_FACTOR = 1.1;

  /** Largest {@link Builder#growthFactor}. */
  public static final double MAX_GROWTH_FACTOR = 64;

  /** Largest {@link Builder#expectedFinalItems}: 2^40. */
  public static final long MAX_EXPECTED_FINAL_ITEMS = 1L << 40;

  /** Heap bytes of this object: a 12-byte header and two compressed references, padded. */
  private static final long OBJECT_BYTES = 24;

  private final ItemHasher<? super T> hasher;

  private final StandardChain<T> chain;

  private ScalableCuckooFilter(ItemHasher<? super T> hasher, StandardChain<T> chain) {
    this.hasher = hasher;
    this.chain = chain;
  }

  /**
   * Returns a builder for a growing filter of items hashed by {@code hasher}.
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
   * Hash-level {@link #add}: adds the item whose hash, as this filter's {@link ItemHasher} computes
   * it, is {@code hash}, to the newest link, adding a link first if that one is full.
   *
   * @param hash the item's hash
   * @return true if added; false if no link could be added for it (the filter is unchanged: what
   *     {@link #addIfAbsentWithOutcomeHash} reports as {@link AddOutcome#NO_MEMORY})
   */
  @Override
  public boolean addHash(long hash) {
    return chain.add(hash, false) == AddOutcome.ADDED;
  }

  /**
   * Hash-level {@link #addIfAbsentWithOutcome}.
   *
   * @param hash the item's hash
   * @return {@link AddOutcome#ALREADY_PRESENT} if its fingerprint is in one of its buckets of any
   *     link, {@link AddOutcome#ADDED}, or {@link AddOutcome#NO_MEMORY} if no link could be added
   *     for it (never {@link AddOutcome#FULL}: the chain grows instead)
   */
  @Override
  public AddOutcome addIfAbsentWithOutcomeHash(long hash) {
    return chain.add(hash, true);
  }

  /**
   * Hash-level {@link #mightContain}: true if the item's fingerprint is in one of its buckets of
   * any link.
   *
   * @param hash the item's hash
   * @return false only if the item was not added (or was removed as often as added)
   */
  @Override
  public boolean mightContainHash(long hash) {
    return chain.mightContain(hash);
  }

  /**
   * Hash-level {@link #count}: the copies of the item's fingerprint in its buckets of every link,
   * at least the times it was added and not removed.
   *
   * @param hash the item's hash
   * @return the count
   */
  @Override
  public long countHash(long hash) {
    return chain.count(hash);
  }

  /**
   * Hash-level {@link #remove}: removes one copy of the item's fingerprint, searching the newest
   * link first.
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
    return chain.replace(oldHash, newHash);
  }

  /** Removes every item: the chain shrinks to its first link, emptied, and the counters are 0. */
  @Override
  public void clear() {
    chain.clear();
  }

  // ---------------------------------------------------------------------------------------------
  // Properties

  /**
   * Returns the number of items: adds minus removes that succeeded.
   *
   * @return the number of items
   */
  @Override
  public long size() {
    return chain.size();
  }

  /**
   * Returns the fraction of all links' slots in use.
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
   * Returns the number of removes since creation or the last {@link #clear()}.
   *
   * @return the delete count
   */
  public long deletedCount() {
    return chain.deletedCount();
  }

  /**
   * Returns the number of links.
   *
   * @return the link count, at least 1
   */
  public int linkCount() {
    return chain.linkCount();
  }

  /**
   * Returns the bucket count of the first link.
   *
   * @return the base bucket count
   */
  public long baseBucketCount() {
    return chain.baseBucketCount();
  }

  /**
   * Returns the number of slots per bucket.
   *
   * @return the bucket size
   */
  @Override
  public int bucketSize() {
    return chain.bucketSize();
  }

  /**
   * Returns the most relocations one insert may make in the newest link.
   *
   * @return the max kicks
   */
  @Override
  public int maxKicks() {
    return chain.maxKicks();
  }

  /**
   * Returns {@link Scheme#STANDARD}.
   *
   * @return the scheme
   */
  @Override
  public Scheme scheme() {
    return Scheme.STANDARD;
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
   * Returns the growth factor: the ratio of a new link's rated capacity to the previous one's.
   *
   * @return the growth factor
   */
  public double growthFactor() {
    return chain.growthFactor();
  }

  /**
   * Returns the sum of the links' rated capacities: the number of items the chain holds before it
   * grows again.
   *
   * @return the capacity of the current links
   */
  @Override
  public long capacity() {
    return chain.capacity();
  }

  /**
   * Returns the bound on the false-positive rate once every current link is at capacity: the sum of
   * the links' rates, at most the target rate for any number of links.
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
   * Returns the heap bytes of the filter: every link's table (its page arrays with their headers
   * and padding) and the objects of the links and of the chain, computed from the object layout of
   * a 64-bit JVM with compressed references (the default below 32 GiB of heap). Exact for the
   * tables, estimated within a few hundred bytes for the rest; the shared hasher and the
   * collector's rounding of an array to whole heap regions are not counted.
   *
   * @return size in bytes
   */
  @Override
  public long sizeInBytes() {
    return chain.sizeInBytes() + OBJECT_BYTES;
  }

  /**
   * Returns the number of bytes {@link #writeTo(OutputStream)} writes now: the 80-byte chain
   * header, every link with its 64-byte header and the 4-byte CRC32C. It grows when a link is added
   * and shrinks when {@link #clear} drops links.
   *
   * @return the serialized size in bytes
   */
  @Override
  public long serializedSizeInBytes() {
    return ChainFormat.serializedBytes(chain);
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
    ChainFormat.write(chain, hasher, out);
  }

  /**
   * Reads a filter written by {@link #writeTo(OutputStream)}, leaving {@code in} just after it. A
   * chain of the {@link Scheme#REDISBLOOM} scheme is a {@link RedisCuckooFilter}'s: {@link
   * RedisCuckooFilter#readFrom} reads it, and {@link FilterFile#read} reads either.
   *
   * @param in the stream to read from
   * @param hasher the hasher the filter was written with
   * @param <T> the item type
   * @return the filter
   * @throws FilterFormatException if the bytes are corrupt, truncated, of an unknown version, of a
   *     {@link Scheme#REDISBLOOM} chain, written with a different built-in hasher, inconsistent (a
   *     link that does not match the chain's parameters), or its links are larger than the maximum
   *     heap (refused before allocating) or do not fit in the heap even after a full garbage
   *     collection
   * @throws IOException if {@code in} fails
   */
  public static <T> ScalableCuckooFilter<T> readFrom(InputStream in, ItemHasher<? super T> hasher)
      throws IOException {
    return ChainFormat.readStandard(in, hasher);
  }

  @Override
  public String toString() {
    return "ScalableCuckooFilter{scheme=" + scheme() + ", " + chain.describe() + "}";
  }

  // ---------------------------------------------------------------------------------------------

  /** Wraps a chain read back (ChainFormat). */
  static <T> ScalableCuckooFilter<T> of(ItemHasher<? super T> hasher, StandardChain<T> chain) {
    return new ScalableCuckooFilter<>(hasher, chain);
  }

  /** Returns the chain (package tests). */
  StandardChain<T> standardChain() {
    return chain;
  }

  /**
   * Configures and creates a {@link ScalableCuckooFilter}: the settings every builder has ({@link
   * #expectedItems}, required: the first link's; {@link #falsePositiveRate}: the whole chain's;
   * {@link #bucketSize}, {@link #maxKicks}: the newest link's relocations; {@link #seed}) and
   * {@link #growthFactor} and {@link #expectedFinalItems}.
   *
   * <pre>{@code
   * ScalableCuckooFilter<Long> filter = ScalableCuckooFilter.builder(ItemHashers.longs())
   *     .expectedItems(1000)
   *     .falsePositiveRate(0.001)
   *     .growthFactor(4)
   *     .build();
   * }</pre>
   *
   * @param <T> the item type
   */
  public static final class Builder<T> extends FilterBuilder<T, Builder<T>> {
    private double growthFactor = DEFAULT_GROWTH_FACTOR;
    private long expectedFinalItems = -1;

    private Builder(ItemHasher<? super T> hasher) {
      super(hasher, CuckooFilter.DEFAULT_SEED);
    }

    @Override
    Builder<T> self() {
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
     * Sets the ratio of each new link's capacity to the previous one's (default 2).
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
     * Creates the filter with its first link.
     *
     * @return a new, empty filter
     * @throws IllegalStateException if {@link #expectedItems} was not set
     * @throws IllegalArgumentException if {@link #expectedFinalItems} is out of its range (the
     *     message names it and its bound), or the target rate needs fingerprints wider than 32 bits
     * @throws FilterAllocationException if the first link does not fit in the heap
     */
    public ScalableCuckooFilter<T> build() {
      requireExpectedItems();
      int kicks = maxKicksOr(CuckooFilter.DEFAULT_MAX_KICKS);
      int hinted = hintedLinks();
      return new ScalableCuckooFilter<>(
          hasher,
          new StandardChain<>(
              hasher,
              expectedItems,
              growthFactor,
              falsePositiveRate,
              bucketSize,
              kicks,
              seed,
              null,
              0,
              hinted));
    }

    /** Returns the links {@link #expectedFinalItems} covers (0 without a hint), checking it. */
    private int hintedLinks() {
      double growth = growthFactor;
      double rate = falsePositiveRate;
      int size = bucketSize;
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
  }
}
