package dev.cuckoo;

/**
 * Allocates bucket tables whose sizes come from untrusted input (a command argument, a dump
 * header): a size beyond the table limits or larger than the maximum heap is refused before
 * anything is allocated; any other size is allocated, and an {@link OutOfMemoryError} thrown by
 * that allocation is turned into a {@link FilterAllocationException}.
 */
final class HeapBudget {
  /*
   * Why not compare with the free heap: Runtime's maxMemory() - (totalMemory() - freeMemory())
   * counts garbage as used, so near the heap limit, or right after large filters were dropped,
   * it refused tables that fit as soon as the collector ran. The JVM runs a full collection before
   * it throws OutOfMemoryError, so attempting the allocation and catching that error refuses only
   * what really does not fit. The check against the maximum heap stays: it costs nothing and
   * keeps an absurd size from an untrusted header from triggering a full collection at all.
   */

  /** Smallest margin kept below the maximum heap for everything else. */
  static final long MIN_MARGIN_BYTES = 16L << 20;

  private HeapBudget() {}

  /**
   * Returns the most heap bytes one request may take: {@link Runtime#maxMemory()} minus a margin
   * for everything else (1/16 of it, at least 16 MiB). Anything larger could never be allocated.
   */
  static long maxRequestBytes() {
    long max = Runtime.getRuntime().maxMemory();
    return Math.max(0, max - Math.max(MIN_MARGIN_BYTES, max / 16));
  }

  /**
   * Fails if {@code bytes} is more than any heap of this JVM could hold ({@link
   * #maxRequestBytes()}), without looking at what is in use: whether it fits now is for the
   * allocation to find out.
   *
   * @param bytes the heap bytes the request needs; negative means more than 2^63
   * @param what what is being allocated, for the message
   * @throws FilterAllocationException naming the size and the bound
   */
  static void requireWithinMaxHeap(long bytes, String what) {
    long bound = maxRequestBytes();
    if (bytes < 0 || bytes > bound) {
      throw new FilterAllocationException(
          bytes < 0 ? -1 : bytes,
          what
              + " needs "
              + (bytes < 0 ? "more than 2^63" : Long.toString(bytes))
              + " bytes (expected: <= "
              + bound
              + ", the maximum heap less a margin)");
    }
  }

  /**
   * Allocates a {@link BucketTable#paged} table after checking its geometry against the table
   * limits and its size against the maximum heap.
   *
   * @throws FilterAllocationException if it is too large, or the allocation itself runs out of heap
   *     (after the collection the JVM makes before giving up)
   */
  static BucketTable allocate(long bucketCount, int bucketSize, int fingerprintBits, String what) {
    requireWithinLimits(bucketCount, bucketSize, what);
    long bytes = BucketTable.pagedHeapBytes(bucketCount, bucketSize, fingerprintBits);
    requireWithinMaxHeap(bytes, what);
    try {
      return BucketTable.paged(bucketCount, bucketSize, fingerprintBits);
    } catch (OutOfMemoryError e) {
      throw outOfHeap(bytes, what, e);
    }
  }

  /**
   * Fails unless {@code bucketCount} is within the table limits for this bucket size.
   *
   * @throws FilterAllocationException naming the count and the bound
   */
  static void requireWithinLimits(long bucketCount, int bucketSize, String what) {
    long max = BucketTable.maxBucketCount(bucketSize);
    if (bucketCount < 1 || bucketCount > max) {
      throw new FilterAllocationException(
          -1,
          what + ": bucketCount " + bucketCount + " (expected: 1 <= bucketCount <= " + max + ")");
    }
  }

  /** Returns the exception for an allocation of {@code bytes} that ran out of heap. */
  static FilterAllocationException outOfHeap(long bytes, String what, OutOfMemoryError cause) {
    return new FilterAllocationException(
        bytes,
        what
            + " needs "
            + bytes
            + " bytes: out of heap ("
            + Runtime.getRuntime().maxMemory()
            + " bytes at most) after a full collection",
        cause);
  }
}
