package dev.cuckoo.cli;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.FilterFormatException;
import dev.cuckoo.Scheme;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Assembles a filter file from a RedisBloom SCANDUMP of a one-link filter: the file of an empty
 * {@code REDISBLOOM} filter of the dumped geometry (docs/FORMAT.md: 64-byte header, payload,
 * CRC32C), the dumped chunks copied into its payload, the header's item count set and the CRC
 * recomputed. {@link #finish} then reads the result back with {@link CuckooFilter#readFrom}, which
 * checks every field, the CRC and that the item count equals the occupied slots.
 */
final class DumpImage implements DumpAssembly {
  private static final int FORMAT_HEADER_BYTES = 64;
  private static final int OFFSET_ITEM_COUNT = 48;
  private static final int CRC_BYTES = 4;
  private static final int ID_REDIS_UTF8 = 5;

  private final long numItems;
  private final long payloadBytes;
  private final byte[] image;
  private final CompatibleHasher hasher;
  private long loadedBytes;

  private DumpImage(long numItems, long payloadBytes, byte[] image, CompatibleHasher hasher) {
    this.numItems = numItems;
    this.payloadBytes = payloadBytes;
    this.image = image;
    this.hasher = hasher;
  }

  /**
   * Starts an image from the 38-byte SCANDUMP header of a one-link filter ({@link
   * DumpAssembly#fromHeader} sends chains of several links to {@link ChainImage}).
   *
   * @param header the header, as CF.SCANDUMP returned it for iterator 0
   * @param key the key, for messages
   * @return the image, its payload still empty
   * @throws CliException if the header is malformed or too large for this JVM
   */
  static DumpImage fromHeader(byte[] header, String key) {
    if (header == null || header.length != RedisDumpHeader.BYTES) {
      throw new CliException(
          "key '"
              + key
              + "': the SCANDUMP header has "
              + (header == null ? "no" : header.length)
              + " bytes (expected: "
              + RedisDumpHeader.BYTES
              + ")");
    }
    ByteBuffer buffer = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
    long numItems = buffer.getLong(0);
    long numBuckets = buffer.getLong(8);
    int bucketSize = Short.toUnsignedInt(buffer.getShort(32));
    int maxIterations = Short.toUnsignedInt(buffer.getShort(34));
    if (bucketSize < 1 || bucketSize > 255) {
      throw new CliException(
          "key '" + key + "': bucket size " + bucketSize + " (expected: 1 to 255)");
    }
    if (numBuckets < 1 || Long.bitCount(numBuckets) != 1) {
      throw new CliException(
          "key '" + key + "': " + numBuckets + " buckets (expected: a power of two)");
    }
    if (maxIterations < 1) {
      throw new CliException("key '" + key + "': max iterations 0 (expected: 1 to 65535)");
    }
    long payloadBytes = numBuckets * bucketSize;
    long imageBytes = FORMAT_HEADER_BYTES + payloadBytes + CRC_BYTES;
    if (payloadBytes / bucketSize != numBuckets
        || imageBytes > Integer.MAX_VALUE - 16
        || 3 * imageBytes > HeapMeter.headroom()) {
      throw new CliException(
          "key '"
              + key
              + "' holds "
              + Text.bytes(payloadBytes)
              + " of slots: too large to import in this JVM (raise -Xmx via CUCKOO_JAVA_OPTS;"
              + " at most 2 GiB)");
    }
    if (numItems < 0 || numItems > payloadBytes) {
      throw new CliException(
          "key '" + key + "': " + numItems + " items in " + payloadBytes + " slots");
    }
    CompatibleHasher hasher = CompatibleHasher.forId(ID_REDIS_UTF8, key);
    CuckooFilter<byte[]> empty =
        CuckooFilter.builder(hasher)
            .scheme(Scheme.REDISBLOOM)
            .expectedItems(payloadBytes)
            .bucketSize(bucketSize)
            .maxKicks(maxIterations)
            .build();
    if (empty.bucketCount() != numBuckets) {
      throw new IllegalStateException(
          "sized " + empty.bucketCount() + " buckets for a dump of " + numBuckets);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream((int) imageBytes);
    try {
      empty.writeTo(out);
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory failed", e);
    }
    byte[] image = out.toByteArray();
    if (image.length != imageBytes) {
      throw new IllegalStateException(
          "the filter format is " + image.length + " bytes, expected " + imageBytes);
    }
    return new DumpImage(numItems, payloadBytes, image, hasher);
  }

  @Override
  public long links() {
    return 1;
  }

  /**
   * Copies one data chunk into the payload.
   *
   * @param iterator the iterator SCANDUMP returned with the chunk: 1 + the offset of its end
   * @param data the chunk
   * @param key the key, for messages
   * @throws CliException if the chunk lies outside the payload
   */
  @Override
  public void load(long iterator, byte[] data, String key) {
    long offset = iterator - data.length - 1;
    if (data.length == 0 || offset < 0 || offset + data.length > payloadBytes) {
      throw new CliException(
          "key '"
              + key
              + "': a chunk of "
              + data.length
              + " bytes ending at iterator "
              + iterator
              + " lies outside the "
              + payloadBytes
              + "-byte table");
    }
    System.arraycopy(data, 0, image, (int) (FORMAT_HEADER_BYTES + offset), data.length);
    loadedBytes += data.length;
  }

  /**
   * Completes the image and checks it by reading it as a filter.
   *
   * @param key the key, for messages
   * @return the bytes of the filter file
   * @throws CliException if chunks are missing or the data is inconsistent
   */
  @Override
  public byte[] finish(String key) {
    if (loadedBytes != payloadBytes) {
      throw new CliException(
          "key '" + key + "': the dump holds " + loadedBytes + " of " + payloadBytes + " bytes");
    }
    ByteBuffer buffer = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
    buffer.putLong(OFFSET_ITEM_COUNT, numItems);
    CRC32C crc = new CRC32C();
    crc.update(image, 0, (int) (FORMAT_HEADER_BYTES + payloadBytes));
    buffer.putInt((int) (FORMAT_HEADER_BYTES + payloadBytes), (int) crc.getValue());
    try {
      CuckooFilter.readFrom(new ByteArrayInputStream(image), hasher);
    } catch (FilterFormatException e) {
      throw new CliException("key '" + key + "': the dump is inconsistent: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new IllegalStateException("reading from memory failed", e);
    }
    return image;
  }
}
