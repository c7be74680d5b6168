package dev.cuckoo;

import java.io.IOException;
import java.io.OutputStream;

/**
 * An approximate-membership filter with deletion: the one type {@link CuckooFilter}, {@link
 * ScalableCuckooFilter} and {@link ConcurrentCuckooFilter} share, for code that works with any of
 * them (a command-line tool, a server, a data-processing job).
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
 *   <li>An add that returns false leaves the filter unchanged.
 *   <li>Duplicates are stored as separate copies; {@link #addIfAbsent} avoids them.
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
 *       {@code add}, {@code remove}, {@code replace} and {@code clear}.
 * </ul>
 *
 * @param <T> the item type
 */
public interface MembershipFilter<T> {
  /**
   * Adds one copy of {@code item}.
   *
   * @param item the item
   * @return true if it was stored; false if there was no room (the filter is unchanged)
   * @throws NullPointerException if {@code item} is null
   */
  boolean add(T item);

  /**
   * Adds {@code item} unless it might already be present.
   *
   * @param item the item
   * @return true if it was added; false if it might be present or there was no room
   * @throws NullPointerException if {@code item} is null
   */
  boolean addIfAbsent(T item);

  /**
   * Returns true if {@code item} might be in the filter, false if it definitely is not.
   *
   * @param item the item
   * @return false only if {@code item} was not added (or was removed as often as added)
   * @throws NullPointerException if {@code item} is null
   */
  boolean mightContain(T item);

  /**
   * Removes one copy of {@code item}'s fingerprint.
   *
   * @param item an item that was added; removing one that was not may remove another item
   * @return true if a copy was found and removed
   * @throws NullPointerException if {@code item} is null
   */
  boolean remove(T item);

  /**
   * Returns the number of copies of {@code item}'s fingerprint in its buckets: at least the number
   * of times it was added and not removed, more if other items share its fingerprint.
   *
   * @param item the item
   * @return the count
   * @throws NullPointerException if {@code item} is null
   */
  long count(T item);

  /**
   * Replaces one copy of {@code oldItem} by {@code newItem}; on failure (old item not found, or no
   * room for the new one) nothing changes.
   *
   * @param oldItem an item that was added
   * @param newItem the item to add in its place
   * @return true if replaced
   * @throws NullPointerException if an item is null
   */
  boolean replace(T oldItem, T newItem);

  /**
   * Hash-level {@link #add}.
   *
   * @param hash the item's hash
   * @return true if stored; false if there was no room (the filter is unchanged)
   */
  boolean addHash(long hash);

  /**
   * Hash-level {@link #addIfAbsent}.
   *
   * @param hash the item's hash
   * @return true if added
   */
  boolean addIfAbsentHash(long hash);

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
  boolean isEmpty();

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
   * ScalableCuckooFilter}; {@link FilterFile#read} reads either. Does not close {@code out}.
   *
   * @param out the stream to write to
   * @throws IOException if {@code out} fails
   */
  void writeTo(OutputStream out) throws IOException;
}
