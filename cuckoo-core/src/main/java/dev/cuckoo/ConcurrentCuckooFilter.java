package dev.cuckoo;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A thread-safe cuckoo filter: the item API of {@link CuckooFilter}, shared by any number of
 * threads, with lookups that never take a lock.
 *
 * <pre>{@code
 * ConcurrentCuckooFilter<CharSequence> filter = ConcurrentCuckooFilter.builder(ItemHashers.utf8())
 *     .expectedItems(1_000_000)
 *     .falsePositiveRate(0.001)
 *     .build();
 * filter.add("https://example.com/");              // from any thread
 * filter.mightContain("https://example.com/");     // true, from any thread, without locking
 * }</pre>
 *
 * <h2>Concurrency contract</h2>
 *
 * <ul>
 *   <li>{@link #mightContain} and {@link #count} take no lock. A lookup never misses an item whose
 *       {@link #add} returned true before the lookup started and whose {@link #remove} had not
 *       started when the lookup returned, even while concurrent inserts relocate that item's
 *       fingerprint. A lookup retries only while a write to one of its item's two bucket stripes is
 *       in progress (a few stores); after many retries it yields the processor.
 *   <li>{@link #add}, {@link #addIfAbsent}, {@link #addIfAbsentWithOutcome}, {@link #remove},
 *       {@link #replace}, {@link #count}, {@link #mightContain} and {@link #clear} (and their hash
 *       forms) are linearizable: each takes effect at one instant between its call and its return,
 *       as if the operations ran one at a time in that order on a {@link CuckooFilter} holding the
 *       same fingerprints (a failed add means the relocation search found no room at that instant,
 *       as in a plain filter).
 *   <li>{@link #size()}, {@link #loadFactor()} and {@link #isEmpty()} are exact when no write is in
 *       progress; during writes they lie between the values before and after the writes in flight.
 *   <li>Everything else in {@link CuckooFilter}'s contract holds unchanged (false-positive rate,
 *       capacity, duplicates, removing only what was added).
 * </ul>
 *
 * <p>Writes lock one or two of {@link Builder#stripes(int) stripes} of the table; an insert that
 * must relocate fingerprints searches a path without locks, then locks every stripe on it. When
 * that fails repeatedly, or the search finds no room, the insert locks the whole table, so that a
 * failed add is exact. Adds into a nearly full filter are therefore slower and serialize.
 *
 * <p>Only {@link Scheme#STANDARD} is supported. Relocation uses breadth-first search (not the
 * random walk of {@link CuckooFilter}), so the table layout can differ from a plain filter's for
 * the same adds; answers for stored items cannot.
 *
 * @param <T> the item type
 */
public final class ConcurrentCuckooFilter<T> implements MembershipFilter<T> {
  /*
   * Why a lookup never misses a completed add.
   *
   * State. The table is split into stripes: ranges of 2^k >= 8 contiguous buckets, each with a lock
   * and a seqlock version (LockStripes). Every change to a bucket is made by a thread holding its
   * stripe's lock, between beginWrite and endWrite of that stripe ("a write on the stripe"), with
   * narrow stores that touch no byte of another stripe.
   *
   * Invariant I. For every item x whose add has completed and whose remove has not started, one
   * copy of fp(x) lies in bucket i1(x) or i2(x), at every instant at which no write is open on
   * stripe(i1(x)) or stripe(i2(x)). Each kind of write preserves it because each takes all the
   * locks it needs before it changes anything, and opens a write on every stripe it changes:
   *   - add stores fp into i1 or i2 (holding both stripes, so addIfAbsent's check is atomic);
   *   - remove clears one copy of fp from i1 or i2 (holding both stripes);
   *   - a relocation moves fingerprints one step each along a path b0 -> b1 -> ... -> bk, every
   *     b(j+1) = alt(bj, fp_j), inside ONE write opened on the stripes of all of b0..bk. A moved
   *     fingerprint belongs to some item y whose two buckets are bj and b(j+1): both stripes are
   *     open for the whole relocation, and when it closes fp_y is in b(j+1), one of y's buckets.
   *     Nothing is ever taken out of the table by a relocation, so no copy is lost, and no reader
   *     can see the intermediate state, in which the move is half done, without failing validation.
   *   - replace and clear lock both items' stripes (or all) and open writes on them likewise.
   *
   * Lookup. A reader loads the versions v1, v2 of s1 = stripe(i1), s2 = stripe(i2), reads both
   * buckets, and accepts the answer only if v1 and v2 are even and unchanged afterwards (the fence
   * argument is in LockStripes). Accepted, the two buckets it read are the buckets as they were at
   * every instant between the second version load and the first re-check: no write was open on s1
   * or s2 then, so by I the fingerprint of every completed, unremoved x is in what it read. If x's
   * add completed before the lookup started (its return happens-before the lookup's call, e.g. the
   * reader learned of it through a volatile variable, a queue or Thread.join), its endWrite (a
   * release store) happens-before the reader's version load, which therefore reads that version or
   * a later one: the reader cannot see the table from before the add. Hence no false negative.
   * count is the same read, so it returns the number of copies at that instant: linearizable, as
   * is mightContain. OptimisticLookup is this same protocol for the commonest table shape, with its
   * constants gathered in one object; a read it cannot accept is retried on the general path.
   *
   * Linearization points: add/addIfAbsent/remove/replace: their write (or, when they fail, any
   * instant while they hold the locks under which they decided); lookups: any instant in the
   * validated window; clear: its write on all stripes.
   *
   * Deadlock freedom. A thread acquires stripe locks only in ascending stripe order and holds no
   * lock when it starts a new acquisition round (the pair, a path's sorted stripes, or all).
   *
   * Relocation. The path is found by breadth-first search without locks (RelocationPath), then
   * its stripes and the item's two stripes are locked in ascending order and the path is checked
   * against the table; if a concurrent write invalidated it, the locks are released and the search
   * runs again, at most OPTIMISTIC_ATTEMPTS times. After that, or if the unlocked search finds no
   * path at all, the insert locks every stripe and searches again on a quiescent table: then a
   * failed insert means there was no path within the search limit at that instant (exactly the
   * plain filter's notion of full) and the filter is unchanged.
   */

  /** Default number of lock stripes (fewer for tables of less than 8 buckets per stripe). */
  public static final int DEFAULT_STRIPES = 1024;

  /** Largest number of lock stripes. */
  public static final int MAX_STRIPES = 1 << 16;

  private static final int OPTIMISTIC_ATTEMPTS = 4;
  private static final int SPINS_BEFORE_YIELD = 64;

  private final ItemHasher<? super T> hasher;
  private final Scheme scheme;
  private final Indexer indexer;
  private final PlainBucketTable table;
  private final int maxKicks;
  private final long capacity;
  private final boolean swar;
  private final LockStripes stripes;

  /** The lookup of the commonest shape (one-page STANDARD SWAR tables, no seed), or null. */
  private final OptimisticLookup optimisticLookup;

  private final int maxSearchNodes;
  private final AtomicLong size = new AtomicLong();
  private final AtomicLong relocations = new AtomicLong();
  private final ThreadLocal<RelocationPath> paths;

  /**
   * Takes over the table, arithmetic and settings of {@code filter}, which must not be used again.
   */
  private ConcurrentCuckooFilter(CuckooFilter<T> filter, int stripeCount) {
    this.hasher = filter.hasher();
    this.scheme = filter.scheme();
    this.indexer = filter.indexer();
    // the builder refuses semi-sorted filters, so the table is a plain one
    this.table = (PlainBucketTable) filter.table();
    this.maxKicks = filter.maxKicks();
    this.capacity = filter.capacity();
    this.size.set(filter.size());
    this.swar = table.isSwar();
    this.stripes = new LockStripes(table.bucketCount(), stripeCount);
    this.optimisticLookup = OptimisticLookup.forShape(scheme, indexer, table, stripes);
    this.maxSearchNodes = (int) Math.min(Integer.MAX_VALUE - 8, 4L * maxKicks);
    this.paths = ThreadLocal.withInitial(() -> new RelocationPath(maxSearchNodes));
  }

  /**
   * Returns a builder for a concurrent filter of items hashed by {@code hasher}; its options are
   * those of {@link CuckooFilter.Builder} plus {@link Builder#stripes(int)}.
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
  // Hash-level API

  /**
   * Hash-level {@link #add}: adds an item given by its 64-bit hash, as computed by this filter's
   * {@link ItemHasher} (or {@link ItemHashers#hashLong(long)} for {@code long} keys).
   *
   * @param hash the item's hash
   * @return true if stored; false if full (filter unchanged)
   */
  @Override
  public boolean addHash(long hash) {
    return insert(hash, false) == AddOutcome.ADDED;
  }

  /**
   * Hash-level {@link #addIfAbsentWithOutcome}, atomically: the lookup and the add are one step, so
   * of several threads adding the same absent item this way at once, exactly one gets {@link
   * AddOutcome#ADDED} and the others {@link AddOutcome#ALREADY_PRESENT}.
   *
   * @param hash the item's hash
   * @return what was done
   */
  @Override
  public AddOutcome addIfAbsentWithOutcomeHash(long hash) {
    return insert(hash, true);
  }

  /**
   * Hash-level {@link #mightContain}; never blocks.
   *
   * @param hash the item's hash
   * @return false only if the item was not present during the call
   */
  @Override
  public boolean mightContainHash(long hash) {
    OptimisticLookup optimistic = optimisticLookup;
    if (optimistic != null) {
      int answer = optimistic.probe(hash);
      if (answer != OptimisticLookup.RETRY) {
        // 0 or 1 as an int compared with 0: the JIT converts it without a branch (see
        // BucketTable.isNonZero, which ends in the same comparison)
        return answer != 0;
      }
    }
    long h = indexer.remix(hash);
    long fingerprint = indexer.fingerprint(h);
    long bucket1 = indexer.firstBucket(h);
    long bucket2 = indexer.alternateBucket(bucket1, fingerprint);
    int stripe1 = stripes.stripeOf(bucket1);
    int stripe2 = stripes.stripeOf(bucket2);
    if (!swar) {
      return mightContainSlots(bucket1, stripe1, bucket2, stripe2, fingerprint);
    }
    // Other shapes, and retries. Addresses and masks are computed before the first fence: a fence
    // makes the JIT reload every field read after it, so only the version loads and the two word
    // loads follow it. ConcurrentLookupBenchmark.lookup1, idle machine, 2 forks, CONCURRENT/PLAIN
    // time per lookup: 1.66x -> 1.55x (10^5 items), 1.84x -> 1.34x (10^7 items).
    PlainBucketTable table = this.table;
    byte[] page1 = table.pageOf(bucket1);
    byte[] page2 = table.pageOf(bucket2);
    long bit1 = table.bitInPage(bucket1);
    long bit2 = table.bitInPage(bucket2);
    long pattern = table.broadcast(fingerprint);
    long lanesLow = table.lanesLow();
    long lanesHigh = table.lanesHigh();
    LockStripes stripes = this.stripes;
    long version1 = stripes.readVersion(stripe1);
    long version2 = stripes.readVersion(stripe2);
    stripes.startRead();
    // only the two loads inside the validated window; the lane test runs on validated words
    long word1 = BucketTable.wordAt(page1, bit1);
    long word2 = BucketTable.wordAt(page2, bit2);
    if (stripes.isUnchanged(stripe1, version1, stripe2, version2)) {
      return (BucketTable.matchingLanes(word1, pattern, lanesLow, lanesHigh)
              | BucketTable.matchingLanes(word2, pattern, lanesLow, lanesHigh))
          != 0;
    }
    // a write was open: retry out of line, so that the common path has no loop of its own
    return mightContainSlots(bucket1, stripe1, bucket2, stripe2, fingerprint);
  }

  private boolean mightContainSlots(
      long bucket1, int stripe1, long bucket2, int stripe2, long fingerprint) {
    for (int attempt = 1; ; attempt++) {
      long version1 = stripes.readVersion(stripe1);
      long version2 = stripes.readVersion(stripe2);
      stripes.startRead();
      boolean found = table.contains(bucket1, fingerprint) | table.contains(bucket2, fingerprint);
      if (stripes.isUnchanged(stripe1, version1, stripe2, version2)) {
        return found;
      }
      backOff(attempt);
    }
  }

  /**
   * Hash-level {@link #remove}; see {@link CuckooFilter#removeHash}.
   *
   * @param hash the hash of an item that was added; removing one that was not may remove another
   *     item
   * @return true if a copy was found and removed
   */
  @Override
  public boolean removeHash(long hash) {
    long h = indexer.remix(hash);
    long fingerprint = indexer.fingerprint(h);
    long bucket1 = indexer.firstBucket(h);
    long bucket2 = indexer.alternateBucket(bucket1, fingerprint);
    int stripe1 = stripes.stripeOf(bucket1);
    int stripe2 = stripes.stripeOf(bucket2);
    stripes.lockPair(stripe1, stripe2);
    try {
      return removeLocked(bucket1, stripe1, fingerprint)
          || removeLocked(bucket2, stripe2, fingerprint);
    } finally {
      stripes.unlockPair(stripe1, stripe2);
    }
  }

  /**
   * Hash-level {@link #count}: the copies of the item's fingerprint in its two buckets at one
   * instant during the call; never blocks. See {@link CuckooFilter#countHash}.
   *
   * @param hash the item's hash
   * @return the count, 0 to {@code 2 × bucketSize()}
   */
  @Override
  public long countHash(long hash) {
    long h = indexer.remix(hash);
    long fingerprint = indexer.fingerprint(h);
    long bucket1 = indexer.firstBucket(h);
    long bucket2 = indexer.alternateBucket(bucket1, fingerprint);
    int stripe1 = stripes.stripeOf(bucket1);
    int stripe2 = stripes.stripeOf(bucket2);
    for (int attempt = 1; ; attempt++) {
      long version1 = stripes.readVersion(stripe1);
      long version2 = stripes.readVersion(stripe2);
      stripes.startRead();
      int count = table.count(bucket1, fingerprint) + table.count(bucket2, fingerprint);
      if (stripes.isUnchanged(stripe1, version1, stripe2, version2)) {
        return count;
      }
      backOff(attempt);
    }
  }

  /**
   * Hash-level {@link #replace}, atomically: other threads see either both changes or neither, and
   * on failure nothing changes.
   *
   * @param oldHash hash of the item to remove
   * @param newHash hash of the item to add
   * @return true if replaced; false if the old item was not found or there is no room
   */
  @Override
  public boolean replaceHash(long oldHash, long newHash) {
    Item old = new Item(oldHash);
    Item item = new Item(newHash);
    int[] locked = sortedStripes(old.stripe1, old.stripe2, item.stripe1, item.stripe2);
    for (int stripe : locked) {
      stripes.lock(stripe);
    }
    try {
      long oldBucket = old.bucket1;
      int oldSlot = table.find(oldBucket, old.fingerprint);
      if (oldSlot < 0) {
        oldBucket = old.bucket2;
        oldSlot = table.find(oldBucket, old.fingerprint);
        if (oldSlot < 0) {
          return false;
        }
      }
      long newBucket = item.bucket1;
      int newSlot = table.firstEmpty(newBucket);
      if (newSlot < 0) {
        newBucket = item.bucket2;
        newSlot = table.firstEmpty(newBucket);
      }
      if (newSlot < 0 && (oldBucket == item.bucket1 || oldBucket == item.bucket2)) {
        newBucket = oldBucket;
        newSlot = oldSlot;
      }
      if (newSlot >= 0) {
        for (int stripe : locked) {
          stripes.beginWrite(stripe);
        }
        table.setNarrow(oldBucket, oldSlot, 0);
        table.setNarrow(newBucket, newSlot, item.fingerprint);
        for (int stripe : locked) {
          stripes.endWrite(stripe);
        }
        return true;
      }
    } finally {
      for (int stripe : locked) {
        stripes.unlock(stripe);
      }
    }
    return replaceWithRelocation(old, item);
  }

  /**
   * Removes every item; concurrent lookups wait for it (they retry) and then see an empty filter.
   */
  @Override
  public void clear() {
    stripes.lockAll();
    try {
      stripes.beginWriteAll();
      table.clear();
      size.set(0);
      stripes.endWriteAll();
    } finally {
      stripes.unlockAll();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Properties

  /**
   * Returns the number of fingerprints stored (adds minus removes that succeeded); exact when no
   * write is in progress.
   *
   * @return the number of items
   */
  public long size() {
    return size.get();
  }

  /**
   * Returns the number of items the filter is rated for; see {@link CuckooFilter#capacity()}.
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
    return (double) size.get() / ((double) table.bucketCount() * table.bucketSize());
  }

  /**
   * Returns the number of buckets.
   *
   * @return the bucket count
   */
  public long bucketCount() {
    return table.bucketCount();
  }

  /**
   * Returns the number of slots per bucket.
   *
   * @return the bucket size
   */
  public int bucketSize() {
    return table.bucketSize();
  }

  /**
   * Returns the width of a fingerprint in bits.
   *
   * @return the fingerprint width
   */
  public int fingerprintBits() {
    return table.fingerprintBits();
  }

  /**
   * Returns the table's payload bits per rated item; see {@link CuckooFilter#bitsPerItem()}.
   *
   * @return bits per item at capacity
   */
  public double bitsPerItem() {
    return (double) table.bucketCount() * table.bucketSize() * table.fingerprintBits() / capacity;
  }

  /**
   * Returns the expected false-positive rate at the current load; see {@link
   * CuckooFilter#expectedFalsePositiveRate()}.
   *
   * @return the expected false-positive rate now
   */
  public double expectedFalsePositiveRate() {
    return Sizing.falsePositiveRate(indexer.fingerprintRange(), table.bucketSize(), loadFactor());
  }

  /**
   * Returns the expected false-positive rate once the filter holds {@link #capacity()} items.
   *
   * @return the expected false-positive rate at capacity
   */
  public double falsePositiveRateAtCapacity() {
    return Sizing.falsePositiveRate(
        indexer.fingerprintRange(),
        table.bucketSize(),
        Math.min(1.0, (double) capacity / table.bucketCount() / table.bucketSize()));
  }

  /**
   * Returns the approximate heap size of the filter in bytes: table, lock stripes and overhead.
   *
   * @return size in bytes
   */
  public long sizeInBytes() {
    return table.sizeInBytes() + stripes.sizeInBytes() + 256;
  }

  /**
   * Returns the number of bytes {@link #writeTo(OutputStream)} writes: those of a {@link
   * CuckooFilter} of the same geometry.
   *
   * @return the serialized size in bytes
   */
  @Override
  public long serializedSizeInBytes() {
    return FilterFormat.serializedBytes(table.payloadBytes());
  }

  /**
   * Returns the scheme: {@link Scheme#STANDARD} or {@link Scheme#STANDARD_FAST}.
   *
   * @return the scheme
   */
  public Scheme scheme() {
    return scheme;
  }

  /**
   * Returns the seed mixed into item hashes (0 means none).
   *
   * @return the seed
   */
  public long seed() {
    return indexer.seed();
  }

  /**
   * Returns the relocation budget: an insert's breadth-first search examines at most {@code 4 ×
   * maxKicks()} buckets.
   *
   * @return max kicks
   */
  public int maxKicks() {
    return maxKicks;
  }

  /**
   * Returns the number of lock stripes.
   *
   * @return the stripe count
   */
  public int stripes() {
    return stripes.count();
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
    return "ConcurrentCuckooFilter{size="
        + size.get()
        + ", capacity="
        + capacity()
        + ", bucketCount="
        + bucketCount()
        + ", bucketSize="
        + bucketSize()
        + ", fingerprintBits="
        + fingerprintBits()
        + ", stripes="
        + stripes()
        + ", hasher="
        + hasher()
        + "}";
  }

  // ---------------------------------------------------------------------------------------------
  // Serialization (the single-filter format of CuckooFilter, docs/FORMAT.md)

  /**
   * Writes this filter in the binary format of {@link CuckooFilter#writeTo(OutputStream)}, so that
   * {@link CuckooFilter#readFrom(InputStream, ItemHasher)} reads it back as a plain filter and
   * {@link #readFrom(InputStream, ItemHasher)} as a concurrent one; does not close {@code out}.
   * Writes wait until it is done (it holds every stripe's lock); lookups go on meanwhile. The bytes
   * are those of one instant: a {@link CuckooFilter} holding the same fingerprints.
   *
   * @param out the stream to write to
   * @throws IOException if {@code out} fails
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    stripes.lockAll();
    try {
      CuckooFilter<T> view = new CuckooFilter<>(hasher, scheme, table, maxKicks, seed(), capacity);
      view.setSize(size.get());
      view.writeTo(out);
    } finally {
      stripes.unlockAll();
    }
  }

  /**
   * Reads a filter written by {@link #writeTo(OutputStream)} or {@link
   * CuckooFilter#writeTo(OutputStream)}, leaving {@code in} just after it, with {@value
   * #DEFAULT_STRIPES} lock stripes (fewer for small tables).
   *
   * @param in the stream to read from
   * @param hasher the hasher the filter was written with
   * @param <T> the item type
   * @return the filter
   * @throws FilterFormatException if the bytes are corrupt or hold a {@link Scheme#REDISBLOOM}
   *     filter (see {@link CuckooFilter#readFrom(InputStream, ItemHasher)}) or a semi-sorted one
   *     ({@link CuckooFilter.Builder#semiSorted}), which this class does not support
   * @throws IOException if {@code in} fails
   */
  public static <T> ConcurrentCuckooFilter<T> readFrom(InputStream in, ItemHasher<? super T> hasher)
      throws IOException {
    // a REDISBLOOM filter is refused by CuckooFilter.readFrom, before its table is allocated
    CuckooFilter<T> filter = CuckooFilter.readFrom(in, hasher);
    if (filter.isSemiSorted()) {
      throw new FilterFormatException(
          "scheme",
          FilterHeader.OFFSET_SCHEME,
          "scheme: "
              + FilterHeader.schemeByte(filter.scheme(), true)
              + ", semi-sorted buckets (expected: "
              + filter.scheme().id()
              + ", plain buckets, for a ConcurrentCuckooFilter)");
    }
    return new ConcurrentCuckooFilter<>(filter, DEFAULT_STRIPES);
  }

  /** Returns how many inserts relocated fingerprints (for tests). */
  long relocations() {
    return relocations.get();
  }

  PlainBucketTable table() {
    return table;
  }

  /** Returns the index arithmetic of this filter (tests). */
  Indexer indexer() {
    return indexer;
  }

  LockStripes lockStripes() {
    return stripes;
  }

  // ---------------------------------------------------------------------------------------------
  // Internals

  private static void backOff(int attempt) {
    if (attempt % SPINS_BEFORE_YIELD == 0) {
      Thread.yield();
    } else {
      Thread.onSpinWait();
    }
  }

  /**
   * Adds the item of {@code hash}, or does nothing if {@code ifAbsent} and it might be present;
   * {@link AddOutcome#FULL} means no room (no relocation path within the search limit).
   */
  private AddOutcome insert(long hash, boolean ifAbsent) {
    Item item = new Item(hash);
    AddOutcome outcome;
    stripes.lockPair(item.stripe1, item.stripe2);
    try {
      outcome = insertDirect(item, ifAbsent);
    } finally {
      stripes.unlockPair(item.stripe1, item.stripe2);
    }
    if (outcome != AddOutcome.FULL || maxSearchNodes == 0) {
      return outcome;
    }
    RelocationPath path = paths.get();
    for (int attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      if (!path.search(indexer, table, item.bucket1, item.bucket2)) {
        break;
      }
      int count = path.collectStripes(stripes, item.bucket1, item.bucket2);
      for (int i = 0; i < count; i++) {
        stripes.lock(path.stripe(i));
      }
      try {
        outcome = insertDirect(item, ifAbsent);
        if (outcome == AddOutcome.FULL && path.isValid(table)) {
          applyPath(path, count, item.fingerprint);
          outcome = AddOutcome.ADDED;
        }
      } finally {
        for (int i = 0; i < count; i++) {
          stripes.unlock(path.stripe(i));
        }
      }
      if (outcome != AddOutcome.FULL) {
        return outcome;
      }
    }
    stripes.lockAll();
    try {
      outcome = insertDirect(item, ifAbsent);
      if (outcome == AddOutcome.FULL && path.search(indexer, table, item.bucket1, item.bucket2)) {
        applyPath(path, path.collectStripes(stripes, item.bucket1, item.bucket2), item.fingerprint);
        outcome = AddOutcome.ADDED;
      }
    } finally {
      stripes.unlockAll();
    }
    return outcome;
  }

  /**
   * Stores the item in one of its buckets if there is room ({@link AddOutcome#FULL}: none in
   * either); the caller holds both stripes.
   */
  private AddOutcome insertDirect(Item item, boolean ifAbsent) {
    if (ifAbsent
        && (table.contains(item.bucket1, item.fingerprint)
            || table.contains(item.bucket2, item.fingerprint))) {
      return AddOutcome.ALREADY_PRESENT;
    }
    if (storeLocked(item.bucket1, item.stripe1, item.fingerprint)
        || storeLocked(item.bucket2, item.stripe2, item.fingerprint)) {
      size.incrementAndGet();
      return AddOutcome.ADDED;
    }
    return AddOutcome.FULL;
  }

  /** Applies a validated path inside one write on its {@code count} collected stripes. */
  private void applyPath(RelocationPath path, int count, long fingerprint) {
    for (int i = 0; i < count; i++) {
      stripes.beginWrite(path.stripe(i));
    }
    path.apply(table, fingerprint);
    size.incrementAndGet();
    for (int i = 0; i < count; i++) {
      stripes.endWrite(path.stripe(i));
    }
    relocations.incrementAndGet();
  }

  private boolean storeLocked(long bucket, int stripe, long fingerprint) {
    int slot = table.firstEmpty(bucket);
    if (slot < 0) {
      return false;
    }
    stripes.beginWrite(stripe);
    table.setNarrow(bucket, slot, fingerprint);
    stripes.endWrite(stripe);
    return true;
  }

  private boolean removeLocked(long bucket, int stripe, long fingerprint) {
    int slot = table.find(bucket, fingerprint);
    if (slot < 0) {
      return false;
    }
    stripes.beginWrite(stripe);
    table.setNarrow(bucket, slot, 0);
    stripes.endWrite(stripe);
    size.decrementAndGet();
    return true;
  }

  /** Replace when the new item needs relocation: everything under all locks, in one write. */
  private boolean replaceWithRelocation(Item old, Item item) {
    RelocationPath path = paths.get();
    stripes.lockAll();
    try {
      long oldBucket = old.bucket1;
      int oldSlot = table.find(oldBucket, old.fingerprint);
      if (oldSlot < 0) {
        oldBucket = old.bucket2;
        oldSlot = table.find(oldBucket, old.fingerprint);
        if (oldSlot < 0) {
          return false;
        }
      }
      stripes.beginWriteAll();
      table.setNarrow(oldBucket, oldSlot, 0);
      boolean replaced = path.search(indexer, table, item.bucket1, item.bucket2);
      if (replaced) {
        path.apply(table, item.fingerprint);
      } else {
        table.setNarrow(oldBucket, oldSlot, old.fingerprint);
      }
      stripes.endWriteAll();
      return replaced;
    } finally {
      stripes.unlockAll();
    }
  }

  private static int[] sortedStripes(int a, int b, int c, int d) {
    int[] all = {a, b, c, d};
    Arrays.sort(all);
    int n = 1;
    for (int i = 1; i < all.length; i++) {
      if (all[i] != all[n - 1]) {
        all[n++] = all[i];
      }
    }
    return Arrays.copyOf(all, n);
  }

  /** An item's fingerprint, buckets and stripes. */
  private final class Item {
    final long fingerprint;
    final long bucket1;
    final long bucket2;
    final int stripe1;
    final int stripe2;

    Item(long hash) {
      long h = indexer.remix(hash);
      this.fingerprint = indexer.fingerprint(h);
      this.bucket1 = indexer.firstBucket(h);
      this.bucket2 = indexer.alternateBucket(bucket1, fingerprint);
      this.stripe1 = stripes.stripeOf(bucket1);
      this.stripe2 = stripes.stripeOf(bucket2);
    }
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Configures and creates a {@link ConcurrentCuckooFilter}: the options of {@link
   * CuckooFilter.Builder}, with the same meaning and defaults, but semi-sorted buckets, plus {@link
   * #stripes(int)}. {@link #expectedItems} is required.
   *
   * @param <T> the item type
   */
  public static final class Builder<T> extends FilterBuilder<T, Builder<T>> {
    private Scheme scheme = CuckooFilter.DEFAULT_SCHEME;
    private int fingerprintBits = -1;
    private int stripes = DEFAULT_STRIPES;

    private Builder(ItemHasher<? super T> hasher) {
      super(hasher, CuckooFilter.DEFAULT_SEED);
    }

    @Override
    Builder<T> self() {
      return this;
    }

    /**
     * Sets the fingerprint width; see {@link CuckooFilter.Builder#fingerprintBits(int)}.
     *
     * @param fingerprintBits 4 to 32
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> fingerprintBits(int fingerprintBits) {
      Checks.requireRange(
          "fingerprintBits",
          fingerprintBits,
          CuckooFilter.MIN_FINGERPRINT_BITS,
          CuckooFilter.MAX_FINGERPRINT_BITS);
      this.fingerprintBits = fingerprintBits;
      return this;
    }

    /**
     * Sets the scheme: {@link Scheme#STANDARD} or {@link Scheme#STANDARD_FAST} (default: {@link
     * CuckooFilter.Builder#scheme CuckooFilter's}).
     *
     * @param scheme {@link Scheme#STANDARD} or {@link Scheme#STANDARD_FAST}
     * @return this builder
     * @throws NullPointerException if null
     * @throws IllegalArgumentException if {@link Scheme#REDISBLOOM}
     */
    public Builder<T> scheme(Scheme scheme) {
      this.scheme = CuckooFilter.requireStandard(scheme, "ConcurrentCuckooFilter");
      return this;
    }

    /**
     * Sets the number of lock stripes (default {@value ConcurrentCuckooFilter#DEFAULT_STRIPES}),
     * rounded so that each stripe is a power-of-two range of at least 8 buckets: small tables get
     * fewer. More stripes mean fewer collisions between writers, and fewer lookup retries, for
     * about 60 bytes each.
     *
     * @param stripes 1 to {@value ConcurrentCuckooFilter#MAX_STRIPES}
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> stripes(int stripes) {
      Checks.requireRange("stripes", stripes, 1, MAX_STRIPES);
      this.stripes = stripes;
      return this;
    }

    /**
     * Creates the filter.
     *
     * @return a new, empty filter
     * @throws IllegalStateException if {@link #expectedItems} was not set
     * @throws IllegalArgumentException if the parameters do not fit together
     */
    public ConcurrentCuckooFilter<T> build() {
      requireExpectedItems();
      CuckooFilter.Builder<T> filter =
          CuckooFilter.<T>builder(hasher)
              .scheme(scheme)
              .expectedItems(expectedItems)
              .bucketSize(bucketSize)
              .maxKicks(maxKicksOr(CuckooFilter.DEFAULT_MAX_KICKS))
              .seed(seed);
      if (falsePositiveRateSet) {
        filter.falsePositiveRate(falsePositiveRate);
      }
      if (fingerprintBits > 0) {
        filter.fingerprintBits(fingerprintBits);
      }
      return new ConcurrentCuckooFilter<>(filter.build(), stripes);
    }
  }
}
