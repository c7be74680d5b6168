package dev.cuckoo.server.rdb;

import java.nio.charset.StandardCharsets;

/**
 * Reads RDB encodings from a payload as Redis's rdb.c reads them, checking every length against the
 * bytes that remain before anything is allocated. Every failure is a {@link DumpPayloadException}
 * of kind {@link DumpPayloadException.Kind#CONTENT} naming the field and its offset.
 */
final class RdbInput {
  static final int LENGTH_32 = 0x80;
  static final int LENGTH_64 = 0x81;
  static final int ENCODING_INT8 = 0;
  static final int ENCODING_INT16 = 1;
  static final int ENCODING_INT32 = 2;
  static final int ENCODING_LZF = 3;

  private final byte[] data;
  private final int end;
  private int position;

  /** Reads {@code data} from {@code start} up to (not including) {@code end}. */
  RdbInput(byte[] data, int start, int end) {
    this.data = data;
    this.position = start;
    this.end = end;
  }

  int position() {
    return position;
  }

  int remaining() {
    return end - position;
  }

  int readByte(String field) {
    need(1, field);
    return data[position++] & 0xFF;
  }

  private void need(long bytes, String field) {
    if (bytes < 0 || bytes > end - position) {
      throw bad(
          field,
          position,
          Long.toUnsignedString(bytes) + " bytes needed, " + (end - position) + " left");
    }
  }

  /**
   * Reads a length as Redis's {@code rdbLoadLen(rdb, NULL)}: a special-encoding byte ({@code
   * 11xxxxxx}) reads as its 6 low bits, as Redis reads it there.
   *
   * @return the length, an unsigned 64-bit value
   */
  long readLength(String field) {
    int at = position;
    int first = readByte(field);
    switch (first >>> 6) {
      case 0:
      case 3:
        return first & 0x3F;
      case 1:
        return ((first & 0x3F) << 8) | readByte(field);
      default:
        if (first == LENGTH_32) {
          return readBigEndian(4, field);
        }
        if (first == LENGTH_64) {
          return readBigEndian(8, field);
        }
        throw bad(
            field, at, String.format("length encoding 0x%02x (expected: 0x80 or 0x81)", first));
    }
  }

  private long readBigEndian(int bytes, String field) {
    need(bytes, field);
    long value = 0;
    for (int i = 0; i < bytes; i++) {
      value = (value << 8) | (data[position++] & 0xFF);
    }
    return value;
  }

  /**
   * Reads a string as Redis's {@code rdbGenericLoadStringObject} with plain output: raw, an integer
   * (given back as its decimal text), or LZF-compressed. The string must be {@code expectedLength}
   * bytes long, which is checked before any buffer is allocated.
   */
  byte[] readString(String field, long expectedLength) {
    int at = position;
    int first = readByte(field);
    if (first >>> 6 != 3) {
      position = at;
      long length = readLength(field);
      requireLength(field, at, length, expectedLength);
      need(length, field);
      byte[] bytes = java.util.Arrays.copyOfRange(data, position, position + (int) length);
      position += (int) length;
      return bytes;
    }
    int encoding = first & 0x3F;
    switch (encoding) {
      case ENCODING_INT8:
        return decimal(field, at, (byte) readLittleEndian(1, field), expectedLength);
      case ENCODING_INT16:
        return decimal(field, at, (short) readLittleEndian(2, field), expectedLength);
      case ENCODING_INT32:
        return decimal(field, at, (int) readLittleEndian(4, field), expectedLength);
      case ENCODING_LZF:
        long compressed = readLength(field);
        long plain = readLength(field);
        requireLength(field, at, plain, expectedLength);
        need(compressed, field);
        byte[] bytes = Lzf.decompress(data, position, (int) compressed, (int) plain);
        position += (int) compressed;
        return bytes;
      default:
        throw bad(field, at, "string encoding " + encoding + " (expected: 0 to 3)");
    }
  }

  private static void requireLength(String field, int at, long length, long expected) {
    if (length != expected) {
      throw bad(
          field,
          at,
          "length "
              + Long.toUnsignedString(length)
              + " (expected: "
              + expected
              + ", numBuckets × bucketSize)");
    }
  }

  private long readLittleEndian(int bytes, String field) {
    need(bytes, field);
    long value = 0;
    for (int i = 0; i < bytes; i++) {
      value |= (long) (data[position++] & 0xFF) << (8 * i);
    }
    return value;
  }

  private static byte[] decimal(String field, int at, long value, long expectedLength) {
    byte[] text = Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    requireLength(field, at, text.length, expectedLength);
    return text;
  }

  /**
   * Returns the value of {@code s} if it is a decimal integer written exactly as Redis's {@code
   * string2ll} accepts it (optional minus, no leading zero or plus, no spaces, fits in 64 bits),
   * else null.
   */
  static Long strictDecimal(byte[] s) {
    int n = s.length;
    if (n == 0 || n >= 21) {
      return null;
    }
    if (n == 1 && s[0] == '0') {
      return 0L;
    }
    int i = s[0] == '-' ? 1 : 0;
    if (i == n || s[i] < '1' || s[i] > '9') {
      return null;
    }
    for (int k = i; k < n; k++) {
      if (s[k] < '0' || s[k] > '9') {
        return null;
      }
    }
    try {
      return Long.parseLong(new String(s, StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      return null; // beyond 64 bits
    }
  }

  static DumpPayloadException bad(String field, long offset, String detail) {
    return new DumpPayloadException(DumpPayloadException.Kind.CONTENT, field, offset, detail);
  }
}
