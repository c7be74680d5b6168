package dev.cuckoo;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32C;

/**
 * A source of serialized filter bytes that tracks the stream offset, a running CRC32C and, when it
 * can be known, the number of bytes left; every short read becomes a {@link FilterFormatException}
 * naming the field being read.
 *
 * <p>Not buffered: it reads exactly the bytes of the filter, so a caller can keep reading the
 * stream after it (e.g. the next link of a chain).
 */
final class FormatInput {
  /** Largest single read: large page reads go through the stream in slices of this size. */
  static final int CHUNK_BYTES = 1 << 16;

  private final InputStream in;
  private final CRC32C crc = new CRC32C();
  private long offset;
  private long remaining;

  /**
   * Creates an input over {@code in}.
   *
   * @param in the stream, positioned at the first byte to read
   * @param remaining the number of bytes the stream can still provide, or -1 if unknown
   */
  FormatInput(InputStream in, long remaining) {
    this.in = Checks.requireNonNull(in, "in");
    this.remaining = remaining;
  }

  /**
   * Creates an input over {@code in}, knowing its length only where that is reliable: a plain
   * {@link ByteArrayInputStream} reports its exact remaining bytes through {@link
   * InputStream#available()}. For every other stream {@code available()} is only a lower bound of
   * what can be read without blocking (buffered, compressed, network and concatenated streams say
   * less than they hold; a subclass may say anything), so the length is treated as unknown.
   */
  static FormatInput of(InputStream in) throws IOException {
    Checks.requireNonNull(in, "in");
    long remaining = in.getClass() == ByteArrayInputStream.class ? in.available() : -1;
    return new FormatInput(in, remaining);
  }

  /** Returns the offset of the next byte, from where this input started. */
  long offset() {
    return offset;
  }

  /** Returns the number of bytes left if known, else -1. */
  long remaining() {
    return remaining;
  }

  /** Fails unless at least {@code length} more bytes can be read, when that is known. */
  void requireAvailable(String field, long fieldOffset, long length) {
    if (remaining >= 0 && length > remaining) {
      throw new FilterFormatException(
          field,
          fieldOffset,
          "needs " + length + " more bytes but the input holds only " + remaining);
    }
  }

  /** Restarts the running CRC32C at the current offset. */
  void resetCrc() {
    crc.reset();
  }

  /** Returns the CRC32C of the bytes read since the last {@link #resetCrc()}. */
  int crc() {
    return (int) crc.getValue();
  }

  /** Reads exactly {@code length} bytes into {@code dst}, updating the CRC. */
  void readFully(byte[] dst, int dstOffset, int length, String field) throws IOException {
    int done = 0;
    while (done < length) {
      int n = in.read(dst, dstOffset + done, Math.min(length - done, CHUNK_BYTES));
      if (n < 0) {
        throw new FilterFormatException(
            field, offset, "input ends after " + done + " of " + length + " bytes (truncated)");
      }
      crc.update(dst, dstOffset + done, n);
      done += n;
      offset += n;
      if (remaining >= 0) {
        remaining = Math.max(0, remaining - n);
      }
    }
  }

  /** Reads a little-endian 32-bit integer, updating the CRC. */
  int readIntLe(String field) throws IOException {
    byte[] bytes = new byte[4];
    readFully(bytes, 0, 4, field);
    return (bytes[0] & 0xFF)
        | (bytes[1] & 0xFF) << 8
        | (bytes[2] & 0xFF) << 16
        | (bytes[3] & 0xFF) << 24;
  }

  /** Reads a filter's payload directly into its table's pages: no second copy of the table. */
  void readPayload(BucketTable table, String field) throws IOException {
    for (int i = 0; i < table.pageCount(); i++) {
      readFully(table.page(i), 0, table.pagePayloadBytes(i), field);
    }
  }

  /**
   * Reads the CRC32C stored next (not itself covered) and compares it with the running CRC of the
   * bytes read since the last reset.
   */
  void readAndCheckCrc(String field) throws IOException {
    int expected = crc();
    long at = offset;
    int stored = readIntLe(field);
    if (stored != expected) {
      throw new FilterFormatException(
          field,
          at,
          String.format(
              "stored CRC32C 0x%08x does not match 0x%08x computed over the data (corrupt)",
              stored, expected));
    }
  }
}
