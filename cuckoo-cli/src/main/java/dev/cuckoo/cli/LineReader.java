package dev.cuckoo.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a byte stream into lines at {@code '\n'}, dropping a {@code '\r'} before it, without
 * decoding: the bytes of each line are exactly what the hashers see.
 */
final class LineReader {
  private static final int BUFFER_BYTES = 1 << 16;

  /** Longest line accepted, so that a file without newlines cannot exhaust the heap. */
  static final int MAX_LINE_BYTES = 64 << 20;

  private final InputStream in;
  private final byte[] buffer = new byte[BUFFER_BYTES];
  private int position;
  private int limit;
  private byte[] line = new byte[256];
  private long lineNumber;
  private long bytesRead;

  /**
   * Creates a reader of {@code in}; the caller closes {@code in}.
   *
   * @param in the stream to read
   */
  LineReader(InputStream in) {
    this.in = in;
  }

  /**
   * Returns the next line without its terminator, or null at the end of the stream.
   *
   * @return a new array with the line's bytes, or null
   * @throws IOException if reading fails
   * @throws CliException if a line is longer than {@link #MAX_LINE_BYTES}
   */
  byte[] next() throws IOException {
    int length = 0;
    boolean any = false;
    while (true) {
      if (position == limit) {
        limit = in.read(buffer, 0, buffer.length);
        position = 0;
        if (limit <= 0) {
          limit = 0;
          if (!any) {
            return null;
          }
          break;
        }
        bytesRead += limit;
      }
      any = true;
      int start = position;
      int end = start;
      while (end < limit && buffer[end] != '\n') {
        end++;
      }
      length = append(length, start, end);
      if (end < limit) {
        position = end + 1;
        break;
      }
      position = limit;
    }
    lineNumber++;
    if (length > 0 && line[length - 1] == '\r') {
      length--;
    }
    return Arrays.copyOf(line, length);
  }

  private int append(int length, int start, int end) {
    int count = end - start;
    if (count == 0) {
      return length;
    }
    if (length + count > MAX_LINE_BYTES) {
      throw new CliException(
          "line " + (lineNumber + 1) + " is longer than " + MAX_LINE_BYTES + " bytes");
    }
    if (length + count > line.length) {
      line =
          Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, Math.max(line.length * 2, length + count)));
    }
    System.arraycopy(buffer, start, line, length, count);
    return length + count;
  }

  /**
   * Returns the number of the line {@link #next} returned last (1 for the first).
   *
   * @return the line number
   */
  long lineNumber() {
    return lineNumber;
  }

  /**
   * Returns how many bytes were read from the stream so far.
   *
   * @return bytes read
   */
  long bytesRead() {
    return bytesRead;
  }
}
