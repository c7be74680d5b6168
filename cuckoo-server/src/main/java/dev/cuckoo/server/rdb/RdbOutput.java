package dev.cuckoo.server.rdb;

import java.io.ByteArrayOutputStream;

/**
 * Writes RDB encodings as Redis's rdb.c writes them: lengths ({@code rdbSaveLen}) and strings
 * ({@code rdbSaveRawString} with {@code rdbcompression yes}: integer form, else LZF if it saves at
 * least 4 bytes, else raw).
 */
final class RdbOutput {
  /** Strings up to this long are tried as integers. */
  private static final int MAX_INTEGER_STRING = 11;

  /** Strings up to this long are never compressed. */
  private static final int MAX_UNCOMPRESSED = 20;

  /** Bytes LZF must save for a compressed string to be written compressed. */
  private static final int MIN_SAVING = 4;

  private final ByteArrayOutputStream out;

  RdbOutput(int expectedBytes) {
    out = new ByteArrayOutputStream(expectedBytes);
  }

  void writeByte(int b) {
    out.write(b);
  }

  void writeBytes(byte[] bytes) {
    out.write(bytes, 0, bytes.length);
  }

  /**
   * Writes a length: 6 bits in one byte, 14 bits in two, else {@code 0x80} and 32 bits or {@code
   * 0x81} and 64 bits, big-endian.
   */
  void writeLength(long length) {
    if (length >= 0 && length < (1 << 6)) {
      out.write((int) length);
    } else if (length >= 0 && length < (1 << 14)) {
      out.write(0x40 | (int) (length >>> 8));
      out.write((int) length & 0xFF);
    } else if (length >= 0 && length <= 0xFFFFFFFFL) {
      out.write(RdbInput.LENGTH_32);
      writeBigEndian(length, 4);
    } else {
      out.write(RdbInput.LENGTH_64);
      writeBigEndian(length, 8);
    }
  }

  private void writeBigEndian(long value, int bytes) {
    for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
      out.write((int) (value >>> shift) & 0xFF);
    }
  }

  /** Writes a string as Redis's rdbSaveRawString writes it. */
  void writeString(byte[] s) {
    if (s.length <= MAX_INTEGER_STRING) {
      Long value = RdbInput.strictDecimal(s);
      if (value != null && writeInteger(value)) {
        return;
      }
    }
    if (s.length > MAX_UNCOMPRESSED) {
      byte[] compressed = Lzf.compress(s, s.length - MIN_SAVING);
      if (compressed != null) {
        out.write(0xC0 | RdbInput.ENCODING_LZF);
        writeLength(compressed.length);
        writeLength(s.length);
        writeBytes(compressed);
        return;
      }
    }
    writeLength(s.length);
    writeBytes(s);
  }

  /** Writes an 8-, 16- or 32-bit integer string encoding; false if the value needs more bits. */
  private boolean writeInteger(long value) {
    int bytes;
    int encoding;
    if (value >= Byte.MIN_VALUE && value <= Byte.MAX_VALUE) {
      bytes = 1;
      encoding = RdbInput.ENCODING_INT8;
    } else if (value >= Short.MIN_VALUE && value <= Short.MAX_VALUE) {
      bytes = 2;
      encoding = RdbInput.ENCODING_INT16;
    } else if (value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE) {
      bytes = 4;
      encoding = RdbInput.ENCODING_INT32;
    } else {
      return false;
    }
    out.write(0xC0 | encoding);
    for (int i = 0; i < bytes; i++) {
      out.write((int) (value >>> (8 * i)) & 0xFF); // little-endian
    }
    return true;
  }

  int size() {
    return out.size();
  }

  byte[] toByteArray() {
    return out.toByteArray();
  }
}
