package dev.cuckoo.server;

/**
 * One step of a RedisBloom SCANDUMP walk: the next iterator and the chunk bytes.
 *
 * <p>Temporary stand-in for {@code dev.cuckoo.ScanDumpChunk}; removed when the core library
 * provides it.
 */
final class ScanDumpChunk {
  /** The chunk that ends a walk: iterator 0 and no data. */
  static final ScanDumpChunk DONE = new ScanDumpChunk(0, null);

  private final long iterator;
  private final byte[] data;

  ScanDumpChunk(long iterator, byte[] data) {
    this.iterator = iterator;
    this.data = data;
  }

  /** Returns the iterator to pass to the next SCANDUMP call, 0 when the walk is done. */
  long iterator() {
    return iterator;
  }

  /** Returns the chunk bytes, or null when the walk is done. */
  byte[] data() {
    return data;
  }
}
