package dev.cuckoo.cli;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Cuts the table payload out of a single filter's serialized form (a 64-byte header, the payload, a
 * CRC32C; docs/FORMAT.md) while it is being written, and hands it to a {@link DumpSink} in SCANDUMP
 * chunks, so a filter of any size is exported without a second copy.
 *
 * <p>With 8-bit fingerprints the payload is RedisBloom's sub-filter data byte for byte. Chunks
 * follow SCANDUMP: the whole sub-filter if it is at most 16 MiB, otherwise 16 MiB slices.
 */
final class PayloadChunker extends OutputStream {
  /** Size of the library format's header, skipped. */
  static final int FORMAT_HEADER_BYTES = 64;

  private final DumpSink sink;
  private final long payloadBytes;
  private long position;
  private byte[] chunk;
  private int filled;
  private long emitted;

  /**
   * Creates a chunker for a payload of {@code payloadBytes} bytes.
   *
   * @param sink receives the chunks
   * @param payloadBytes the payload length, {@code bucketCount × bucketSize}
   */
  PayloadChunker(DumpSink sink, long payloadBytes) {
    this.sink = sink;
    this.payloadBytes = payloadBytes;
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    long end = position + length;
    long from = Math.max(position, FORMAT_HEADER_BYTES);
    long to = Math.min(end, FORMAT_HEADER_BYTES + payloadBytes);
    for (long at = from; at < to; ) {
      if (chunk == null) {
        long remaining = payloadBytes - emitted;
        chunk = new byte[(int) Math.min(remaining, RedisDumpHeader.MAX_CHUNK_BYTES)];
        filled = 0;
      }
      int count = (int) Math.min(to - at, chunk.length - filled);
      System.arraycopy(bytes, offset + (int) (at - position), chunk, filled, count);
      filled += count;
      at += count;
      if (filled == chunk.length) {
        emitted += filled;
        sink.chunk(1 + emitted, chunk);
        chunk = null;
      }
    }
    position = end;
  }

  /**
   * Checks that the whole payload went out.
   *
   * @throws IllegalStateException if the stream ended early
   */
  void finish() {
    if (emitted != payloadBytes) {
      throw new IllegalStateException(
          "payload: " + emitted + " of " + payloadBytes + " bytes were written");
    }
  }
}
