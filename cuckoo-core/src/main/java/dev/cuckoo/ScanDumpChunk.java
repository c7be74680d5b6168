package dev.cuckoo;

/**
 * One reply of RedisBloom's {@code CF.SCANDUMP}: the iterator to pass to the next call and the
 * chunk of bytes for {@code CF.LOADCHUNK}. Immutable; the end of a dump is {@code iterator() == 0}
 * with {@code data() == null}.
 *
 * @see RedisCuckooFilter#scanDump(long)
 */
public final class ScanDumpChunk {
  /** The reply that ends a dump: iterator 0, no data. */
  static final ScanDumpChunk DONE = new ScanDumpChunk(0, null);

  private final long iterator;
  private final byte[] data;

  ScanDumpChunk(long iterator, byte[] data) {
    this.iterator = iterator;
    this.data = data;
  }

  /**
   * Returns the iterator to pass to the next {@code scanDump} call, and with this chunk to {@code
   * loadDumpChunk}; 0 when the dump is complete.
   *
   * @return the next iterator
   */
  public long iterator() {
    return iterator;
  }

  /**
   * Returns a copy of the chunk's bytes: the 38-byte header for the first chunk, then table bytes;
   * null when the dump is complete.
   *
   * @return the bytes, or null
   */
  public byte[] data() {
    return data == null ? null : data.clone();
  }

  /** Returns true if this is the reply that ends the dump. */
  boolean isDone() {
    return data == null;
  }

  @Override
  public String toString() {
    return "ScanDumpChunk{iterator="
        + iterator
        + ", bytes="
        + (data == null ? "null" : data.length)
        + "}";
  }
}
