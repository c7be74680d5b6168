package dev.cuckoo;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * RedisBloom's {@code CF.SCANDUMP} / {@code CF.LOADCHUNK} stream for a {@link RedisChain}: a
 * 38-byte header, then the links' slot bytes in chunks of at most 16 MiB.
 */
final class RedisDump {
  /*
   * Header (RedisBloom CFHeader, packed, little-endian), offsets in bytes:
   *    0 u64 numItems    8 u64 numBuckets (base link)   16 u64 numDeletes   24 u64 numFilters
   *   32 u16 bucketSize 34 u16 maxIterations            36 u16 expansion
   *
   * Iterators (docs/REDISBLOOM.md, "Dump format"): SCANDUMP 0 gives [1, header]; SCANDUMP it > 0
   * reads at payload offset it − 1: the whole link that holds that offset if the link is at most
   * 16 MiB (from the link's start, even if the offset is in its middle), else at most 16 MiB from
   * the offset up to the link's end; the next iterator is it + chunk length. An empty filter
   * (numItems 0) or an offset past the end gives [0, nil]. LOADCHUNK it > 1 writes the chunk at
   * offset it − length − 1, which must lie inside one link.
   */

  /** Length of the header. */
  static final int HEADER_BYTES = 38;

  /** Largest chunk of slot bytes (RedisBloom's MAX_SCANDUMP_SIZE). */
  static final long MAX_CHUNK_BYTES = 16L << 20;

  /** Largest numFilters a header may hold (it is stored in 16 bits, so 65536 becomes 0). */
  static final long MAX_HEADER_LINKS = 65536;

  static final int OFFSET_ITEMS = 0;
  static final int OFFSET_BUCKETS = 8;
  static final int OFFSET_DELETES = 16;
  static final int OFFSET_LINKS = 24;
  static final int OFFSET_BUCKET_SIZE = 32;
  static final int OFFSET_MAX_ITERATIONS = 34;
  static final int OFFSET_EXPANSION = 36;

  private RedisDump() {}

  /** Returns the chain's 38-byte header. */
  static byte[] header(RedisChain chain) {
    ByteBuffer buffer = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    buffer.putLong(chain.items());
    buffer.putLong(chain.baseBuckets());
    buffer.putLong(chain.deletes());
    buffer.putLong(chain.linkCount());
    buffer.putShort((short) chain.bucketSize());
    buffer.putShort((short) chain.maxIterations());
    buffer.putShort((short) chain.expansion());
    return buffer.array();
  }

  /** SCANDUMP: the chunk at {@code iterator} (>= 0). */
  static ScanDumpChunk scan(RedisChain chain, long iterator) {
    Checks.requireRange("iterator", iterator, 0, Long.MAX_VALUE);
    if (chain.items() == 0) {
      return ScanDumpChunk.DONE;
    }
    if (iterator == 0) {
      return new ScanDumpChunk(1, header(chain));
    }
    long offset = iterator - 1;
    int index = chain.linkAt(offset);
    if (index < 0) {
      return ScanDumpChunk.DONE;
    }
    RedisLink link = chain.links().get(index);
    long start = chain.linkStart(index);
    long from;
    long length;
    if (link.bytes() <= MAX_CHUNK_BYTES) {
      from = 0;
      length = link.bytes();
    } else {
      from = offset - start;
      length = Math.min(MAX_CHUNK_BYTES, link.bytes() - from);
    }
    byte[] data = new byte[(int) length];
    link.table.readPayload(from, data, 0, data.length);
    return new ScanDumpChunk(iterator + length, data);
  }

  /**
   * LOADCHUNK with iterator 1: validates the header as RedisBloom does and allocates the links.
   *
   * @throws FilterFormatException if the header is invalid or its links cannot be allocated
   */
  static RedisChain load(byte[] header) {
    Checks.requireNonNull(header, "header");
    if (header.length != HEADER_BYTES) {
      throw new FilterFormatException(
          "header", 0, "length " + header.length + " (expected: " + HEADER_BYTES + ")");
    }
    ByteBuffer buffer = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
    long items = buffer.getLong(OFFSET_ITEMS);
    long buckets = buffer.getLong(OFFSET_BUCKETS);
    long deletes = buffer.getLong(OFFSET_DELETES);
    long links = buffer.getLong(OFFSET_LINKS);
    int bucketSize = buffer.getShort(OFFSET_BUCKET_SIZE) & 0xFFFF;
    int maxIterations = buffer.getShort(OFFSET_MAX_ITERATIONS) & 0xFFFF;
    int expansion = buffer.getShort(OFFSET_EXPANSION) & 0xFFFF;
    requireField("bucketSize", OFFSET_BUCKET_SIZE, bucketSize, 1, RedisChain.MAX_BUCKET_SIZE);
    requireField("numFilters", OFFSET_LINKS, links, 1, MAX_HEADER_LINKS);
    requireField(
        "maxIterations", OFFSET_MAX_ITERATIONS, maxIterations, 1, RedisChain.MAX_ITERATIONS);
    requireField("expansion", OFFSET_EXPANSION, expansion, 0, RedisChain.MAX_EXPANSION);
    if (expansion == 0 && links > 1) {
      throw new FilterFormatException(
          "numFilters", OFFSET_LINKS, links + " with expansion 0 (expected: 1)");
    }
    requireField("numBuckets", OFFSET_BUCKETS, buckets, 1, RedisChain.MAX_REDIS_BUCKETS);
    if (Long.bitCount(buckets) != 1) {
      throw new FilterFormatException(
          "numBuckets", OFFSET_BUCKETS, buckets + " (expected: a power of two)");
    }
    if (links == MAX_HEADER_LINKS) {
      // RedisBloom accepts it and truncates it to 0 links, a filter that cannot work
      throw new FilterFormatException(
          "numFilters", OFFSET_LINKS, links + " (expected: <= " + RedisChain.MAX_LINKS + ")");
    }
    try {
      return RedisChain.restore(
          buckets, bucketSize, maxIterations, expansion, (int) links, items, deletes);
    } catch (FilterAllocationException e) {
      throw new FilterFormatException("numBuckets", OFFSET_BUCKETS, e.getMessage(), e);
    }
  }

  private static void requireField(String field, int offset, long value, long min, long max) {
    if (Long.compareUnsigned(value, min) < 0 || Long.compareUnsigned(value, max) > 0) {
      throw new FilterFormatException(
          field,
          offset,
          Long.toUnsignedString(value)
              + " (expected: "
              + min
              + " <= "
              + field
              + " <= "
              + max
              + ")");
    }
  }

  /**
   * LOADCHUNK with iterator > 1: copies {@code data} to payload offset {@code iterator − length −
   * 1}, which with the chunk must lie inside one link.
   *
   * @throws FilterFormatException if the iterator or length does not fit
   */
  static void loadChunk(RedisChain chain, long iterator, byte[] data) {
    Checks.requireNonNull(data, "data");
    long length = data.length;
    if (iterator < 2) {
      throw new FilterFormatException(
          "iterator", -1, iterator + " (expected: >= 2; 1 is the header)");
    }
    if (length == 0 || iterator - 1 < length) {
      throw new FilterFormatException(
          "data",
          -1,
          "length "
              + length
              + " with iterator "
              + iterator
              + " (expected: 1 <= length <= iterator - 1)");
    }
    long offset = iterator - length - 1;
    int index = chain.linkAt(offset);
    if (index < 0) {
      throw new FilterFormatException(
          "iterator",
          -1,
          iterator
              + ": offset "
              + offset
              + " (expected: < "
              + chain.linkStart(chain.linkCount())
              + ", the dump's length)");
    }
    RedisLink link = chain.links().get(index);
    long from = offset - chain.linkStart(index);
    if (length > link.bytes() - from) {
      throw new FilterFormatException(
          "data",
          -1,
          "length "
              + length
              + " at offset "
              + offset
              + " crosses the end of link "
              + index
              + " at "
              + chain.linkStart(index + 1));
    }
    link.occupied -= nonZero(link, from, data.length);
    link.table.writePayload(from, data, 0, data.length);
    link.occupied += nonZero(link, from, data.length);
    chain.occupancyChanged(index);
  }

  /** Returns the number of non-zero bytes (occupied 8-bit slots) in a range of a link. */
  private static long nonZero(RedisLink link, long from, int length) {
    byte[] buffer = new byte[Math.min(length, 1 << 16)];
    long count = 0;
    for (int done = 0; done < length; ) {
      int n = Math.min(buffer.length, length - done);
      link.table.readPayload(from + done, buffer, 0, n);
      for (int i = 0; i < n; i++) {
        count += buffer[i] != 0 ? 1 : 0;
      }
      done += n;
    }
    return count;
  }
}
