package dev.cuckoo;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/** Helpers shared by the format tests: serialize to bytes, read back, patch fields. */
final class FormatTestSupport {
  private FormatTestSupport() {}

  /** Returns the serialized bytes of {@code filter}. */
  static byte[] bytesOf(MembershipFilter<?> filter) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      filter.writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /**
   * Reads a filter from {@code bytes} through a plain ByteArrayInputStream (length known): with
   * {@link CuckooFilter#readFrom(InputStream, ItemHasher)}, or for bytes of the REDISBLOOM scheme
   * (which that refuses) as the single RedisBloom table the package reads before it converts it to
   * a {@link RedisCuckooFilter}, checked alike.
   */
  static <T> CuckooFilter<T> read(byte[] bytes, ItemHasher<? super T> hasher) throws IOException {
    return read(new ByteArrayInputStream(bytes), isRedisBloom(bytes), hasher);
  }

  /** Reads a filter from {@code bytes} through a stream whose length the reader cannot know. */
  static <T> CuckooFilter<T> readUnknownLength(byte[] bytes, ItemHasher<? super T> hasher)
      throws IOException {
    return read(new OneByteAtATimeInputStream(bytes), isRedisBloom(bytes), hasher);
  }

  private static boolean isRedisBloom(byte[] bytes) {
    return bytes.length > FilterHeader.OFFSET_SCHEME
        && bytes[FilterHeader.OFFSET_SCHEME] == Scheme.REDISBLOOM.id();
  }

  private static <T> CuckooFilter<T> read(
      InputStream in, boolean redisBloom, ItemHasher<? super T> hasher) throws IOException {
    if (!redisBloom) {
      return CuckooFilter.readFrom(in, hasher);
    }
    FormatInput input = FormatInput.of(in);
    input.resetCrc();
    return FilterFormat.readLink(input, hasher, true);
  }

  /** Returns a copy of {@code bytes} with the little-endian long at {@code offset} replaced. */
  static byte[] withLong(byte[] bytes, int offset, long value) {
    byte[] copy = bytes.clone();
    ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putLong(offset, value);
    return copy;
  }

  /** Returns a copy of {@code bytes} with the little-endian int at {@code offset} replaced. */
  static byte[] withInt(byte[] bytes, int offset, int value) {
    byte[] copy = bytes.clone();
    ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putInt(offset, value);
    return copy;
  }

  /** Returns a copy of {@code bytes} with the little-endian short at {@code offset} replaced. */
  static byte[] withShort(byte[] bytes, int offset, int value) {
    byte[] copy = bytes.clone();
    ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putShort(offset, (short) value);
    return copy;
  }

  /** Returns a copy of {@code bytes} with the byte at {@code offset} replaced. */
  static byte[] withByte(byte[] bytes, int offset, int value) {
    byte[] copy = bytes.clone();
    copy[offset] = (byte) value;
    return copy;
  }

  /**
   * Recomputes the trailing CRC32C of a single serialized filter in place, so that a test of a
   * patched field exercises that field's own check rather than the CRC.
   */
  static byte[] withFixedCrc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    return withInt(bytes, bytes.length - 4, (int) crc.getValue());
  }

  /** A stream that returns at most one byte per read and reports nothing available. */
  static final class OneByteAtATimeInputStream extends java.io.InputStream {
    private final byte[] bytes;
    private int position;

    OneByteAtATimeInputStream(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public int read() {
      return position < bytes.length ? bytes[position++] & 0xFF : -1;
    }

    @Override
    public int read(byte[] dst, int offset, int length) {
      if (length == 0) {
        return 0;
      }
      int b = read();
      if (b < 0) {
        return -1;
      }
      dst[offset] = (byte) b;
      return 1;
    }

    @Override
    public int available() {
      return 0;
    }
  }
}
