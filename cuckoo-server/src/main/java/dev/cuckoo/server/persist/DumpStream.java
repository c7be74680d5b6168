package dev.cuckoo.server.persist;

import dev.cuckoo.FilterAllocationException;
import dev.cuckoo.FilterFormatException;
import dev.cuckoo.ScalableCuckooFilter;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reader of a filter's form inside a version-1 snapshot: its RedisBloom SCANDUMP stream, i.e. the
 * 38-byte header followed by the chunks, each as {@code u64 iterator, u32 length, bytes}
 * (little-endian), ended by iterator 0. Loading replays the stream through LOADCHUNK's code, so
 * every check LOADCHUNK makes also guards the snapshot.
 *
 * <p>Version 1 stored a filter holding no items as its header alone, because SCANDUMP dumps nothing
 * then; current snapshots store every filter in the core chain format instead.
 */
public final class DumpStream {
  private static final int HEADER_BYTES = 38;
  private static final int MAX_CHUNK = 64 * 1024 * 1024;

  private DumpStream() {}

  /**
   * Reads a dump stream.
   *
   * @throws FilterFormatException if the stream is damaged or describes a filter that cannot be
   *     allocated
   */
  static ScalableCuckooFilter<byte[]> read(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
    try {
      byte[] header = new byte[HEADER_BYTES];
      data.readFully(header);
      ScalableCuckooFilter<byte[]> filter;
      try {
        filter = ScalableCuckooFilter.loadDumpHeader(header);
      } catch (FilterAllocationException e) {
        throw new FilterFormatException("header", 0, "filter cannot be allocated", e);
      }
      long offset = HEADER_BYTES;
      while (true) {
        long iterator = Long.reverseBytes(data.readLong());
        if (iterator == 0) {
          return filter;
        }
        int length = Integer.reverseBytes(data.readInt());
        if (length <= 0 || length > MAX_CHUNK) {
          throw new FilterFormatException("chunkLength", offset + 8, "chunk length " + length);
        }
        byte[] chunk = new byte[length];
        data.readFully(chunk);
        filter.loadDumpChunk(iterator, chunk);
        offset += 12 + length;
      }
    } catch (EOFException e) {
      throw new FilterFormatException("dump", 0, "dump stream truncated", e);
    }
  }
}
