package dev.cuckoo;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lock stripes over contiguous ranges of buckets, each with a writer lock and a seqlock version
 * counter that lets readers validate what they read without locking.
 *
 * <p>Protocol. A writer holds the stripe's lock, calls {@link #beginWrite} (the version becomes
 * odd), changes the stripe's buckets, then calls {@link #endWrite} (the version becomes even
 * again). A reader calls {@link #readVersion}, then {@link #startRead}, reads, and accepts what it
 * read only if {@link #isUnchanged} confirms that the version was even and has not moved. Writers
 * that need several stripes lock them in ascending stripe order.
 */
final class LockStripes {
  /*
   * Memory ordering (the fence pattern of java.util.concurrent.locks.StampedLock's optimistic
   * reads [1], which also reads the protected data with plain loads):
   *
   *   writer: setOpaque(version, v + 1); releaseFence();  data stores;  setRelease(version, v + 2)
   *   reader: v = getOpaque(version); acquireFence();  data loads;  acquireFence();
   *           getOpaque(version) == v
   *
   * If a reader's data load observes a store that follows the writer's releaseFence, the release
   * fence synchronizes with the reader's second acquireFence, so the reader's second version load
   * sees v + 1 or later and the read is discarded. If the reader's first load sees v + 2, the
   * setRelease and the acquireFence after that load synchronize (fence synchronization, as in
   * C++ [atomics.fences]), so every data store of that write is visible. One fence after both
   * stripes' first loads, instead of an acquire load each, halves the compiler barriers on the
   * lookup path. Hence an accepted read saw the
   * stripe exactly as some writer left it (or as it was initially), and as no write was open on it
   * between the two version loads, as it was at every instant in between. Data loads may tear or be
   * stale when they race; such values are only ever used after validation.
   *
   * Stripes are ranges of 2^k buckets with 2^k >= 8: a range of 8 buckets of B bits is B whole
   * bytes, so stripe boundaries fall on byte boundaries and two stripes never share a byte. Writers
   * use BucketTable.setNarrow, which writes only the bytes holding the slot, so writers holding
   * different stripes never touch the same byte. (BucketTable.set rewrites 8 bytes, which may
   * belong to the next stripe: it is not used by the concurrent filter.)
   *
   * Versions are not padded to a cache line each: readers only load them, and a write to one
   * stripe costs readers of the 7 neighbours on the same line a cache miss, not a retry.
   *
   * [1] JDK 17, java.util.concurrent.locks.StampedLock, tryOptimisticRead / validate.
   */
  private static final VarHandle VERSIONS = MethodHandles.arrayElementVarHandle(long[].class);

  /** Fewest buckets per stripe: 8 buckets always end on a byte boundary. */
  static final int MIN_BUCKETS_PER_STRIPE = 8;

  private final int shift;
  private final long[] versions;
  private final ReentrantLock[] locks;

  /** Creates about {@code stripes} stripes (fewer for small tables) over {@code bucketCount}. */
  LockStripes(long bucketCount, int stripes) {
    long perStripe =
        Math.max(
            MIN_BUCKETS_PER_STRIPE, Sizing.nextPowerOfTwo((bucketCount + stripes - 1) / stripes));
    this.shift = Long.numberOfTrailingZeros(perStripe);
    int count = (int) ((bucketCount + perStripe - 1) >>> shift);
    this.versions = new long[count];
    this.locks = new ReentrantLock[count];
    for (int i = 0; i < count; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  /** Returns the number of stripes. */
  int count() {
    return locks.length;
  }

  /** Returns the number of buckets per stripe. */
  long bucketsPerStripe() {
    return 1L << shift;
  }

  /** Returns the current version of a stripe (for tests). */
  long version(int stripe) {
    return (long) VERSIONS.getVolatile(versions, stripe);
  }

  /** Returns the stripe that guards {@code bucket}. */
  int stripeOf(long bucket) {
    return (int) (bucket >>> shift);
  }

  /** Returns the approximate heap size of the stripes in bytes. */
  long sizeInBytes() {
    return 16L + 8L * versions.length + 16L + 4L * locks.length + 48L * locks.length;
  }

  // ---------------------------------------------------------------------------------------------
  // Readers

  /**
   * Returns the stripe's version before an optimistic read; odd means a write is open. Call {@link
   * #startRead()} after the version loads and before reading data.
   */
  long readVersion(int stripe) {
    return readVersion(versions, stripe);
  }

  /** Orders the version loads before the data loads that follow (an acquire fence). */
  void startRead() {
    startReadFence();
  }

  /** {@link #startRead()} without an instance. */
  static void startReadFence() {
    VarHandle.acquireFence();
  }

  /**
   * Returns true if reads made after {@link #readVersion} returned {@code v1} and {@code v2} for
   * two stripes saw no write in progress: both even and both unchanged.
   */
  boolean isUnchanged(int stripe1, long v1, int stripe2, long v2) {
    return isUnchanged(versions, stripe1, v1, stripe2, v2);
  }

  /** Returns the version array, for readers that keep it in a local ({@link OptimisticLookup}). */
  long[] versions() {
    return versions;
  }

  /** Returns log2 of the number of buckets per stripe: {@code stripeOf(b) == b >>> shift()}. */
  int shift() {
    return shift;
  }

  /** {@link #readVersion} on the array of {@link #versions()}. */
  static long readVersion(long[] versions, int stripe) {
    return (long) VERSIONS.getOpaque(versions, stripe);
  }

  /** {@link #isUnchanged(int, long, int, long)} on the array of {@link #versions()}. */
  static boolean isUnchanged(long[] versions, int stripe1, long v1, int stripe2, long v2) {
    VarHandle.acquireFence();
    return ((v1 | v2) & 1) == 0
        && (long) VERSIONS.getOpaque(versions, stripe1) == v1
        && (long) VERSIONS.getOpaque(versions, stripe2) == v2;
  }

  // ---------------------------------------------------------------------------------------------
  // Writers

  void lock(int stripe) {
    locks[stripe].lock();
  }

  void unlock(int stripe) {
    locks[stripe].unlock();
  }

  /** Locks two stripes in ascending order (once if equal). */
  void lockPair(int stripe1, int stripe2) {
    int low = Math.min(stripe1, stripe2);
    int high = Math.max(stripe1, stripe2);
    locks[low].lock();
    if (high != low) {
      locks[high].lock();
    }
  }

  /** Unlocks what {@link #lockPair} locked. */
  void unlockPair(int stripe1, int stripe2) {
    locks[stripe1].unlock();
    if (stripe2 != stripe1) {
      locks[stripe2].unlock();
    }
  }

  /** Locks every stripe, in ascending order. */
  void lockAll() {
    for (ReentrantLock lock : locks) {
      lock.lock();
    }
  }

  /** Unlocks every stripe. */
  void unlockAll() {
    for (int i = locks.length - 1; i >= 0; i--) {
      locks[i].unlock();
    }
  }

  /** Opens a write on a stripe whose lock the caller holds: readers of it will retry. */
  void beginWrite(int stripe) {
    VERSIONS.setOpaque(versions, stripe, versions[stripe] + 1);
    VarHandle.releaseFence();
  }

  /** Closes the write opened by {@link #beginWrite}, publishing the stripe's new contents. */
  void endWrite(int stripe) {
    VERSIONS.setRelease(versions, stripe, versions[stripe] + 1);
  }

  /** Opens a write on every stripe (the caller holds all locks). */
  void beginWriteAll() {
    for (int i = 0; i < versions.length; i++) {
      VERSIONS.setOpaque(versions, i, versions[i] + 1);
    }
    VarHandle.releaseFence();
  }

  /** Closes the writes opened by {@link #beginWriteAll}. */
  void endWriteAll() {
    for (int i = 0; i < versions.length; i++) {
      VERSIONS.setRelease(versions, i, versions[i] + 1);
    }
  }
}
