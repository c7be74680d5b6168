package dev.cuckoo.cli;

import java.io.IOException;

/**
 * Receives a RedisBloom SCANDUMP stream: the 38-byte header at iterator 1, then the data chunks,
 * each with the iterator {@code CF.LOADCHUNK} expects (1 + the byte offset of the chunk's end).
 */
interface DumpSink {
  /**
   * Takes one chunk.
   *
   * @param iterator the iterator to pass to {@code CF.LOADCHUNK}
   * @param data the chunk's bytes; owned by the sink after the call
   * @throws IOException if writing it fails
   */
  void chunk(long iterator, byte[] data) throws IOException;
}
