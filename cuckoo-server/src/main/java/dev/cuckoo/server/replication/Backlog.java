package dev.cuckoo.server.replication;

/**
 * The replication backlog: a ring holding the last {@code size} bytes of the write stream, so that
 * a replica that lost its link can continue from its offset (PSYNC +CONTINUE) instead of copying
 * everything. Its size is fixed when it is created; it never grows. Not thread-safe: {@link
 * Replication} guards it.
 */
final class Backlog {
  private final byte[] ring;
  private int next;
  private long histlen;
  private long endOffset;

  /**
   * Creates an empty backlog of {@code size} bytes whose next byte is the stream's byte {@code
   * offset + 1}.
   */
  Backlog(int size, long offset) {
    if (size < 1) {
      throw new IllegalArgumentException("repl-backlog-size: " + size + " (expected: at least 1)");
    }
    this.ring = new byte[size];
    this.endOffset = offset;
  }

  /** Returns the backlog's capacity in bytes (repl_backlog_size). */
  int size() {
    return ring.length;
  }

  /** Returns the bytes held (repl_backlog_histlen). */
  long histlen() {
    return histlen;
  }

  /** Returns the stream offset of the first byte held (repl_backlog_first_byte_offset). */
  long firstByteOffset() {
    return endOffset - histlen + 1;
  }

  /** Appends stream bytes; the oldest fall out once the ring is full. */
  void append(byte[] bytes, int from, int length) {
    int skip = Math.max(0, length - ring.length);
    int at = from + skip;
    int left = length - skip;
    while (left > 0) {
      int chunk = Math.min(left, ring.length - next);
      System.arraycopy(bytes, at, ring, next, chunk);
      next = (next + chunk) % ring.length;
      at += chunk;
      left -= chunk;
    }
    endOffset += length;
    histlen = Math.min(ring.length, histlen + length);
  }

  /**
   * Returns the bytes from stream offset {@code offset} (the first byte a replica lacks) to the
   * end, or null if the backlog no longer (or not yet) holds them.
   */
  byte[] from(long offset) {
    if (offset < firstByteOffset() || offset > endOffset + 1) {
      return null;
    }
    int length = (int) (endOffset + 1 - offset);
    byte[] out = new byte[length];
    int start = Math.floorMod(next - length, ring.length);
    int first = Math.min(length, ring.length - start);
    System.arraycopy(ring, start, out, 0, first);
    System.arraycopy(ring, 0, out, first, length - first);
    return out;
  }
}
