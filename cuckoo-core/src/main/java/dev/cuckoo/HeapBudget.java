package dev.cuckoo;

/**
 * Allocates bucket tables whose sizes come from untrusted input: the size is checked against the
 * table limits and the free heap before anything is allocated, and an {@link OutOfMemoryError}
 * thrown by the allocation itself is turned into a {@link FilterAllocationException}.
 */
final class HeapBudget {
  private HeapBudget() {}

  /** Returns the heap bytes of a table of this geometry (payload, padding, headers). */
  static long tableBytes(long bucketCount, int bucketSize, int fingerprintBits) {
    return BucketTable.heapBytes(bucketCount, bucketSize, fingerprintBits);
  }

  /**
   * Returns the heap bytes that may still be allocated: the maximum heap minus what is in use,
   * minus a margin (1/16 of the maximum heap, at least 16 MiB) kept for everything else.
   */
  static long availableBytes() {
    Runtime runtime = Runtime.getRuntime();
    long used = runtime.totalMemory() - runtime.freeMemory();
    long margin = Math.max(16L << 20, runtime.maxMemory() / 16);
    return Math.max(0, runtime.maxMemory() - used - margin);
  }

  /**
   * Fails unless {@code bytes} more bytes fit in the heap now.
   *
   * @throws FilterAllocationException if they do not
   */
  static void requireAvailable(long bytes, String what) {
    long available = availableBytes();
    if (bytes < 0 || bytes > available) {
      throw new FilterAllocationException(
          bytes,
          what + " needs " + (bytes < 0 ? "more than 2^63" : Long.toString(bytes))
              + " bytes (expected: <= " + available + ", the free heap)");
    }
  }

  /**
   * Allocates a {@link BucketTable#paged} table after checking its geometry against the table
   * limits and the free heap.
   *
   * @throws FilterAllocationException if it is too large or the allocation fails
   */
  static BucketTable allocate(long bucketCount, int bucketSize, int fingerprintBits, String what) {
    long max = BucketTable.maxBucketCount(bucketSize, fingerprintBits);
    if (bucketCount < 1 || bucketCount > max) {
      throw new FilterAllocationException(
          -1, what + ": bucketCount " + bucketCount + " (expected: 1 <= bucketCount <= " + max + ")");
    }
    long bytes = BucketTable.pagedHeapBytes(bucketCount, bucketSize, fingerprintBits);
    requireAvailable(bytes, what);
    try {
      return BucketTable.paged(bucketCount, bucketSize, fingerprintBits);
    } catch (OutOfMemoryError e) {
      throw new FilterAllocationException(bytes, what + " needs " + bytes + " bytes: out of heap", e);
    }
  }
}
