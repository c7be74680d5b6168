package dev.cuckoo;

import java.io.IOException;
import java.io.OutputStream;

/**
 * An approximate-membership filter with deletion: the one type {@link CuckooFilter}, {@link
 * ScalableCuckooFilter}, {@link RedisCuckooFilter}, {@link ConcurrentCuckooFilter} and {@link
 * ShardedCuckooFilter} share, for code that works with any of them (a command-line tool, a server,
 * a data-processing job).
 *
 * <pre>{@code
 * MembershipFilter<CharSequence> filter = CuckooFilter.builder(ItemHashers.utf8())
 *     .expectedItems(1000)
 *     .build();
 * filter.add("https://example.com/");
 * filter.mightContain("https://example.com/");   // true
 * filter.count("https://example.com/");          // 1
 * }</pre>
 *
 * <h2>Contract</h2>
 *
 * <ul>
 *   <li>{@link #mightContain} never returns false for an item that was added and not removed (no
 *       false negatives), provided only items that were added are removed; for an item never added
 *       it returns true with a small probability (see {@link #expectedFalsePositiveRate()}).
 *   <li>An add that returns false (or an outcome other than {@link AddOutcome#ADDED}) leaves the
 *       filter unchanged.
 *   <li>Duplicates are stored as separate copies; {@link #addIfAbsent} avoids them, and {@link
 *       #addIfAbsentWithOutcome} also says why nothing was stored.
 *   <li>Removing an item that was never added can remove another item's fingerprint, which then
 *       becomes a false negative. Remove only what you added.
 *   <li>Every {@code xxxHash} method takes an item's 64-bit hash as this filter's {@link #hasher()}
 *       computes it, and does exactly what the item method does with that hash; callers that hash
 *       once can use the hash everywhere.
 *   <li>Thread safety is the implementation's: {@link ConcurrentCuckooFilter} may be shared by any
 *       number of threads; {@link CuckooFilter} and {@link ScalableCuckooFilter} allow concurrent
 *       calls of the methods that only read ({@code mightContain}, {@code count}, their hash forms,
 *       the properties and {@code writeTo}) while no write is in progress, for instance under the
 *       read lock of a {@link java.util.concurrent.locks.ReadWriteLock} whose write lock guards
 *       {@code add}, {@code remove}, {@code replace} and {@code clear}. {@link ShardedCuckooFilter}
 *       is like {@link CuckooFilter}.
 * </ul>
 *
 * <h2>Primitives and defaults</h2>
 *
 * <p>An implementation provides the hash-level operations ({@link #addHash}, {@link
 * #mightContainHash}, {@link #removeHash}, {@link #countHash}, {@link #replaceHash}) and the
 * properties; the item-level forms are default methods that hash the item with {@link #hasher()}
 * and call the hash-level form, and {@link #addIfAbsentWithOutcomeHash} defaults to a lookup
 * followed by an add, which a thread-safe implementation overrides to make it atomic.
 *
 * @param <T> the item type
 */
public interface MembershipFilter<T> {
  // ---------------------------------------------------------------------------------------------
  // Hash-level primitives

  /**
   * Adds one copy of the item whose 64-bit hash, as this filter's {@link #hasher()} computes it, is
   * {@code hash}.
   *
   * @param hash the item's hash
   * @return true if stored; false if there was no room (the filter is unchanged)
   */
  boolean addHash(long hash);

  /**
   * Hash-level {@link #mightContain}.
   *
   * @param hash the item's hash
   * @return false if definitely absent
   */
  boolean mightContainHash(long hash);

  /**
   * Hash-level {@link #remove}.
   *
   * @param hash the item's hash
   * @return true if a copy was removed
   */
  boolean removeHash(long hash);

  /**
   * Hash-level {@link #count}.
   *
   * @param hash the item's hash
   * @return the count
   */
  long countHash(long hash);

  /**
   * Hash-level {@link #replace}.
   *
   * @param oldHash hash of the item to remove
   * @param newHash hash of the item to add
   * @return true if replaced
   */
  boolean replaceHash(long oldHash, long newHash);

  /**
   * Hash-level {@link #addIfAbsentWithOutcome}. The default looks the hash up and adds it if the
   * lookup says absent; implementations that other threads may change meanwhile override it to
   * decide and add in one atomic step.
   *
   * @param hash the item's hash
   * @return {@link AddOutcome#ADDED}, {@link AddOutcome#ALREADY_PRESENT} (it might be present;
   *     nothing stored), {@link AddOutcome#FULL} (no room; nothing stored) or, from a growing
   *     filter, {@link AddOutcome#NO_MEMORY} (no new link; nothing stored)
   */
  default AddOutcome addIfAbsentWithOutcomeHash(long hash) {
    if (mightContainHash(hash)) {
      return AddOutcome.ALREADY_PRESENT;
    }
    return addHash(hash) ? AddOutcome.ADDED : AddOutcome.FULL;
  }

  /**
   * Hash-level {@link #addIfAbsent}.
   *
   * @param hash the item's hash
   * @return true if added; false if it might be present or there was no room
   */
  default boolean addIfAbsentHash(long hash) {
    return addIfAbsentWithOutcomeHash(hash) == AddOutcome.ADDED;
  }

  // ---------------------------------------------------------------------------------------------
  // Item-level forms: hash with hasher(), then the hash-level form

  /**
   * Adds one copy of {@code item}.
   *
   * @param item the item
   * @return true if it was stored; false if there was no room (the filter is unchanged)
   * @throws NullPointerException if {@code item} is null
   */
  default boolean add(T item) {
    return addHash(hashOf(item));
  }

  /**
   * Adds {@code item} unless it might already be present.
   *
   * @param item the item
   * @return true if it was added; false if it might be present or there was no room (see {@link
   *     #addIfAbsentWithOutcome} for which)
   * @throws NullPointerException if {@code item} is null
   */
  default boolean addIfAbsent(T item) {
    return addIfAbsentHash(hashOf(item));
  }

  /**
   * Adds {@code item} unless it might already be present, and says what happened: {@link
   * AddOutcome#ADDED}; {@link AddOutcome#ALREADY_PRESENT}, when {@link #mightContain} was true, so
   * nothing was added (the item was added before, or it is a false positive: "already present"
   * means "might contain", never "definitely contains"); {@link AddOutcome#FULL}, when there was no
   * room; or, from a growing filter, {@link AddOutcome#NO_MEMORY}, when it could not add a link.
   * Only {@code ADDED} changes the filter.
   *
   * @param item the item
   * @return what was done
   * @throws NullPointerException if {@code item} is null
   */
  default AddOutcome addIfAbsentWithOutcome(T item) {
    return addIfAbsentWithOutcomeHash(hashOf(item));
  }

  /**
   * Returns true if {@code item} might be in the filter, false if it definitely is not.
   *
   * @param item the item
   * @return false only if {@code item} was not added (or was removed as often as added)
   * @throws NullPointerException if {@code item} is null
   */
  default boolean mightContain(T item) {
    return mightContainHash(hashOf(item));
  }

  /**
   * Removes one copy of {@code item}'s fingerprint.
   *
   * @param item an item that was added; removing one that was not may remove another item
   * @return true if a copy was found and removed
   * @throws NullPointerException if {@code item} is null
   */
  default boolean remove(T item) {
    return removeHash(hashOf(item));
  }

  /**
   * Returns the number of copies of {@code item}'s fingerprint in its buckets: at least the number
   * of times it was added and not removed, more if other items share its fingerprint.
   *
   * @param item the item
   * @return the count
   * @throws NullPointerException if {@code item} is null
   */
  default long count(T item) {
    return countHash(hashOf(item));
  }

  /**
   * Replaces one copy of {@code oldItem} by {@code newItem}; on failure (old item not found, or no
   * room for the new one) nothing changes.
   *
   * @param oldItem an item that was added
   * @param newItem the item to add in its place
   * @return true if replaced
   * @throws NullPointerException if an item is null
   */
  default boolean replace(T oldItem, T newItem) {
    long oldHash = hashOf(oldItem);
    return replaceHash(oldHash, hashOf(newItem));
  }

  // ---------------------------------------------------------------------------------------------
  // State and properties

  /** Removes every item. */
  void clear();

  /**
   * Returns the number of fingerprints stored: adds minus removes that succeeded.
   *
   * @return the number of items
   */
  long size();

  /**
   * Returns true if the filter holds no fingerprint.
   *
   * @return {@code size() == 0}
   */
  default boolean isEmpty() {
    return size() == 0;
  }

  /**
   * Returns the number of items the filter is rated for (a growing filter: before it grows again).
   *
   * @return the rated capacity
   */
  long capacity();

  /**
   * Returns the fraction of slots in use.
   *
   * @return the load factor, 0 to 1
   */
  double loadFactor();

  /**
   * Returns the expected false-positive rate at the current load.
   *
   * @return the expected false-positive rate now
   */
  double expectedFalsePositiveRate();

  /**
   * Returns the false-positive bound once the filter holds {@link #capacity()} items.
   *
   * @return the expected false-positive rate at capacity
   */
  double falsePositiveRateAtCapacity();

  /**
   * Returns the approximate heap size of the filter in bytes.
   *
   * @return size in bytes
   */
  long sizeInBytes();

  /**
   * Returns the exact number of bytes {@link #writeTo} writes for the filter as it is now, without
   * writing them (for instance to size a buffer or to check a limit first).
   *
   * @return the serialized size in bytes
   */
  long serializedSizeInBytes();

  /**
   * Returns the number of slots per bucket.
   *
   * @return the bucket size
   */
  int bucketSize();

  /**
   * Returns the most relocations one insert may make.
   *
   * @return max kicks
   */
  int maxKicks();

  /**
   * Returns the scheme, which fixes how hashes become fingerprints and buckets.
   *
   * @return the scheme
   */
  Scheme scheme();

  /**
   * Returns the hasher items are hashed with.
   *
   * @return the hasher
   */
  ItemHasher<? super T> hasher();

  /**
   * Writes this filter in the project's versioned binary format ({@code docs/FORMAT.md}): a single
   * filter for {@link CuckooFilter} and {@link ConcurrentCuckooFilter}, a chained filter for {@link
   * ScalableCuckooFilter} ({@link FilterFile#read} reads either), a sharded filter for {@link
   * ShardedCuckooFilter} ({@link ShardedCuckooFilter#readFrom} reads it). Writes exactly {@link
   * #serializedSizeInBytes()} bytes. Does not close {@code out}.
   *
   * @param out the stream to write to
   * @throws IOException if {@code out} fails
   */
  void writeTo(OutputStream out) throws IOException;

  /** Returns the hash of a non-null item, as the item-level forms pass it on. */
  private long hashOf(T item) {
    return hasher().hash(Checks.requireNonNull(item, "item"));
  }
}
