package dev.cuckoo.cli;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * RedisBloom's SCANDUMP header ({@code CFHeader}): 38 packed little-endian bytes, u64 numItems,
 * numBuckets, numDeletes, numFilters, then u16 bucketSize, maxIterations, expansion.
 */
final class RedisDumpHeader {
  /** Size of the header in bytes. */
  static final int BYTES = 38;

  /** Largest RedisBloom maxIterations. */
  static final int MAX_ITERATIONS = 65_535;

  /** Largest RedisBloom expansion. */
  static final int MAX_EXPANSION = 32_768;

  /** The largest SCANDUMP chunk RedisBloom sends ({@code MAX_SCANDUMP_SIZE}). */
  static final int MAX_CHUNK_BYTES = 16 << 20;

  private RedisDumpHeader() {}

  /**
   * Returns the header's numFilters field.
   *
   * @param header a header of {@value #BYTES} bytes
   * @return the number of sub-filters, as stored
   */
  static long numFilters(byte[] header) {
    return ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getLong(24);
  }

  /**
   * Encodes a header.
   *
   * @param numItems items in the filter
   * @param numBuckets buckets of the first sub-filter (a power of two)
   * @param numDeletes deletes since the last compaction
   * @param numFilters sub-filters
   * @param bucketSize slots per bucket, 1 to 255
   * @param maxIterations kicks per insert, 1 to 65535
   * @param expansion growth of later sub-filters, 0 to 32768
   * @return the 38 bytes
   */
  static byte[] encode(
      long numItems,
      long numBuckets,
      long numDeletes,
      long numFilters,
      int bucketSize,
      int maxIterations,
      int expansion) {
    return ByteBuffer.allocate(BYTES)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putLong(numItems)
        .putLong(numBuckets)
        .putLong(numDeletes)
        .putLong(numFilters)
        .putShort((short) bucketSize)
        .putShort((short) maxIterations)
        .putShort((short) expansion)
        .array();
  }
}
