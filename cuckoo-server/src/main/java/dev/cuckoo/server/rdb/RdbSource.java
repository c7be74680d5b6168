package dev.cuckoo.server.rdb;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The bytes of an RDB as they arrive, read through one buffer: RDB lengths and strings, with the
 * CRC64 of everything consumed kept up to date and, on request, a copy of what a value consumed. A
 * declared length allocates nothing by itself: what is skipped is read and dropped, and what is
 * kept grows with the bytes that actually arrive, so a huge length on a short input fails at the
 * input's end, not in the allocator.
 */
final class RdbSource {
  private static final int BUFFER_BYTES = 64 * 1024;
  private static final int FIRST_CHUNK_BYTES = 64 * 1024;
  private static final int LARGEST_ARRAY = Integer.MAX_VALUE - 8;
  private static final int ENCODED = 3;

  private final InputStream in;
  private final byte[] buffer = new byte[BUFFER_BYTES];
  private int position;
  private int limit;
  private long base;
  // the CRC and the copy cover the buffer up to folded; what is consumed after it is folded later
  private long crc;
  private int folded;
  private ByteArrayOutputStream copy;

  RdbSource(InputStream in) {
    this.in = in;
  }

  /** Returns the offset of the next byte from the start of the RDB. */
  long offset() {
    return base + position;
  }

  private void fold() {
    int consumed = position - folded;
    if (consumed > 0) {
      crc = Crc64.update(crc, buffer, folded, consumed);
      if (copy != null) {
        copy.write(buffer, folded, consumed);
      }
      folded = position;
    }
  }

  private void refill(String field) throws IOException {
    fold();
    int unread = limit - position;
    System.arraycopy(buffer, position, buffer, 0, unread);
    base += position;
    position = 0;
    folded = 0;
    limit = unread;
    int n = in.read(buffer, limit, buffer.length - limit);
    if (n < 0) {
      throw bad(field, offset(), "the input ends here (truncated)");
    }
    limit += n;
  }

  int u8(String field) throws IOException {
    if (position == limit) {
      refill(field);
    }
    return buffer[position++] & 0xFF;
  }

  long littleEndian(int bytes, String field) throws IOException {
    long value = 0;
    for (int i = 0; i < bytes; i++) {
      value |= (long) u8(field) << (8 * i);
    }
    return value;
  }

  private long bigEndian(int bytes, String field) throws IOException {
    long value = 0;
    for (int i = 0; i < bytes; i++) {
      value = (value << 8) | u8(field);
    }
    return value;
  }

  /** Reads {@code count} bytes as ASCII text (a header). */
  String ascii(int count, String field) throws IOException {
    return new String(bytes(count, field), StandardCharsets.ISO_8859_1);
  }

  /** Skips {@code count} bytes, reading them (their CRC counts) without keeping them. */
  void skip(long count, String field) throws IOException {
    long left = count;
    while (left > 0) {
      if (position == limit) {
        refill(field);
      }
      int n = (int) Math.min(left, limit - position);
      position += n;
      left -= n;
    }
  }

  /** Reads {@code count} bytes into an array that grows with what arrives. */
  byte[] bytes(long count, String field) throws IOException {
    if (count < 0 || count > LARGEST_ARRAY) {
      throw bad(
          field,
          offset(),
          "length " + Long.toUnsignedString(count) + " (expected: 0 to " + LARGEST_ARRAY + ")");
    }
    int wanted = (int) count;
    byte[] out = new byte[Math.min(wanted, FIRST_CHUNK_BYTES)];
    int filled = 0;
    while (filled < wanted) {
      if (position == limit) {
        refill(field);
      }
      if (filled == out.length) {
        out = Arrays.copyOf(out, (int) Math.min(wanted, 2L * out.length));
      }
      int n = Math.min(Math.min(wanted - filled, limit - position), out.length - filled);
      System.arraycopy(buffer, position, out, filled, n);
      position += n;
      filled += n;
    }
    return out;
  }

  /**
   * Reads a length as Redis's {@code rdbLoadLen}: 6, 14, 32 or 64 bits; a special-encoding byte
   * ({@code 11xxxxxx}) reads as its 6 low bits, as Redis reads it where a length is due.
   *
   * @return the length, an unsigned 64-bit value
   */
  long length(String field) throws IOException {
    long at = offset();
    int first = u8(field);
    switch (first >>> 6) {
      case 0:
      case ENCODED:
        return first & 0x3F;
      case 1:
        return ((first & 0x3F) << 8) | u8(field);
      default:
        if (first == RdbInput.LENGTH_32) {
          return bigEndian(4, field);
        }
        if (first == RdbInput.LENGTH_64) {
          return bigEndian(8, field);
        }
        throw bad(
            field, at, String.format("length encoding 0x%02x (expected: 0x80 or 0x81)", first));
    }
  }

  /**
   * Reads a string as Redis's {@code rdbGenericLoadStringObject}: raw, an integer (given back as
   * its decimal text) or LZF-compressed (decompressed after its compressed bytes arrived, if their
   * plain length is within LZF's reach).
   */
  byte[] string(String field) throws IOException {
    long at = offset();
    int first = u8(field);
    if (first >>> 6 != ENCODED) {
      position--;
      return bytes(length(field), field);
    }
    switch (first & 0x3F) {
      case RdbInput.ENCODING_INT8:
        return decimal((byte) littleEndian(1, field));
      case RdbInput.ENCODING_INT16:
        return decimal((short) littleEndian(2, field));
      case RdbInput.ENCODING_INT32:
        return decimal((int) littleEndian(4, field));
      case RdbInput.ENCODING_LZF:
        long compressed = length(field);
        long plain = length(field);
        if (compressed > LARGEST_ARRAY || plain > compressed * Lzf.MAX_RATIO) {
          throw bad(
              field,
              at,
              "LZF plain length "
                  + Long.toUnsignedString(plain)
                  + " from "
                  + Long.toUnsignedString(compressed)
                  + " compressed bytes (expected: at most "
                  + Lzf.MAX_RATIO
                  + " times as many)");
        }
        byte[] packed = bytes(compressed, field);
        try {
          return Lzf.decompress(packed, 0, packed.length, (int) plain);
        } catch (DumpPayloadException e) {
          throw new RdbFormatException(field, at, e.getMessage(), e);
        }
      default:
        throw bad(field, at, "string encoding " + (first & 0x3F) + " (expected: 0 to 3)");
    }
  }

  /** Reads past a string without keeping it (an LZF string is not decompressed). */
  void skipString(String field) throws IOException {
    long at = offset();
    int first = u8(field);
    if (first >>> 6 != ENCODED) {
      position--;
      skip(length(field), field);
      return;
    }
    switch (first & 0x3F) {
      case RdbInput.ENCODING_INT8:
        skip(1, field);
        return;
      case RdbInput.ENCODING_INT16:
        skip(2, field);
        return;
      case RdbInput.ENCODING_INT32:
        skip(4, field);
        return;
      case RdbInput.ENCODING_LZF:
        long compressed = length(field);
        length(field);
        skip(compressed, field);
        return;
      default:
        throw bad(field, at, "string encoding " + (first & 0x3F) + " (expected: 0 to 3)");
    }
  }

  private static byte[] decimal(long value) {
    return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
  }

  /** Returns the CRC64 of every byte consumed so far. */
  long crc() {
    fold();
    return crc;
  }

  /** Starts copying what is consumed from here on. */
  void startCopy() {
    fold();
    copy = new ByteArrayOutputStream();
  }

  /** Stops copying and returns what was consumed since {@link #startCopy}. */
  byte[] endCopy() {
    fold();
    byte[] copied = copy.toByteArray();
    copy = null;
    return copied;
  }

  /** Returns the bytes read from the input but not consumed (what follows the RDB). */
  byte[] unconsumed() {
    return Arrays.copyOfRange(buffer, position, limit);
  }

  static RdbFormatException bad(String field, long offset, String detail) {
    return new RdbFormatException(field, offset, detail, null);
  }
}
