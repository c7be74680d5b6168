package dev.cuckoo.server;

import dev.cuckoo.FilterAllocationException;
import dev.cuckoo.FilterFormatException;
import dev.cuckoo.ScalableCuckooFilter;
import dev.cuckoo.ScanDumpChunk;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A filter's durable form inside a snapshot: its RedisBloom SCANDUMP stream, i.e. the 38-byte
 * header followed by the chunks, each as {@code u64 iterator, u32 length, bytes} (little-endian),
 * ended by iterator 0. Loading replays the stream through LOADCHUNK's code, so every check
 * LOADCHUNK makes also guards the snapshot.
 *
 * <p>SCANDUMP cannot dump a filter holding no items; such a filter is stored as its header alone
 * (its slots are empty, unless chunks with fingerprints were loaded under a header claiming zero
 * items — that content is not kept).
 */
final class DumpStream {
  private static final int HEADER_BYTES = 38;
  private static final int MAX_CHUNK = 64 * 1024 * 1024;

  private DumpStream() {}

  /** Builds the SCANDUMP header from the filter's counters. */
  private static byte[] header(ScalableCuckooFilter<byte[]> filter) {
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(filter.size()).putLong(filter.baseBucketCount()).putLong(filter.deletedCount())
        .putLong(filter.linkCount()).putShort((short) filter.bucketSize())
        .putShort((short) filter.maxKicks()).putShort((short) filter.expansion());
    return b.array();
  }

  /** Writes the filter's dump stream. */
  static void write(ScalableCuckooFilter<byte[]> filter, OutputStream out) throws IOException {
    DataOutputStream data = new DataOutputStream(out);
    data.write(header(filter));
    if (filter.size() != 0) {
      long iterator = 1;
      while (true) {
        ScanDumpChunk chunk = filter.scanDump(iterator);
        if (chunk.iterator() == 0) {
          break;
        }
        data.writeLong(Long.reverseBytes(chunk.iterator()));
        data.writeInt(Integer.reverseBytes(chunk.data().length));
        data.write(chunk.data());
        iterator = chunk.iterator();
      }
    }
    data.writeLong(0);
    data.flush();
  }

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
