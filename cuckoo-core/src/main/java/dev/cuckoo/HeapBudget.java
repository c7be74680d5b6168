package dev.cuckoo;

/**
 * Allocates bucket tables whose sizes come from untrusted input: the size is checked against the
 * table limits and the free heap before anything is allocated, and an {@link OutOfMemoryError}
 * thrown by the allocation itself is turned into a {@link FilterAllocationException}.
 */
final class HeapBudget {
  /** Estimated heap bytes of one table beyond its payload: headers, page padding, bookkeeping. */
  static final long TABLE_OVERHEAD_BYTES = 256;

  private HeapBudget() {}

  /** Returns the estimated heap bytes of a table of this geometry (payload, padding, headers). */
  static long tableBytes(long bucketCount, int bucketSize, int fingerprintBits) {
    long payload = BucketTable.payloadBytes(bucketCount, bucketSize, fingerprintBits);
    long pages = payload / BucketTable.MAX_PAGE_BYTES + 1;
    return payload + pages * (BucketTable.PAGE_PADDING_BYTES + 16) + TABLE_OVERHEAD_BYTES;
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
   * Allocates a table after checking its geometry against the table limits and the free heap.
   *
   * @throws FilterAllocationException if it is too large or the allocation fails
   */
  static BucketTable allocate(long bucketCount, int bucketSize, int fingerprintBits, String what) {
    long max = BucketTable.maxBucketCount(bucketSize, fingerprintBits);
    if (bucketCount < 1 || bucketCount > max) {
      throw new FilterAllocationException(
          -1, what + ": bucketCount " + bucketCount + " (expected: 1 <= bucketCount <= " + max + ")");
    }
    long bytes = tableBytes(bucketCount, bucketSize, fingerprintBits);
    requireAvailable(bytes, what);
    try {
      return new BucketTable(bucketCount, bucketSize, fingerprintBits);
    } catch (OutOfMemoryError e) {
      throw new FilterAllocationException(bytes, what + " needs " + bytes + " bytes: out of heap", e);
    }
  }
}
