package dev.cuckoo.server;

import dev.cuckoo.FilterFormatException;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.ScalableCuckooFilter;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The snapshot file: every key with its filter in the core serialized form.
 *
 * <p>Layout (little-endian): magic {@code CKOOSNP2}, u64 generation, u64 key count, u32 CRC32C of
 * those 24 bytes; then per key: u32 key length, key bytes, u64 filter length, the filter as
 * {@code ScalableCuckooFilter.writeTo} wrote it (the chain format: every link's slots, whatever
 * the item count says), u32 CRC32C of key and filter bytes. Written to a temporary file, forced to
 * disk and renamed over the old snapshot.
 *
 * <p>Version 1 (magic {@code CKOOSNP1}) is still read: the same layout with each filter stored as
 * its {@link DumpStream}.
 */
final class SnapshotFile {
  private static final byte[] MAGIC = {'C', 'K', 'O', 'O', 'S', 'N', 'P', '2'};
  private static final byte[] MAGIC_V1 = {'C', 'K', 'O', 'O', 'S', 'N', 'P', '1'};
  private static final int HEADER_BYTES = 28;

  /** What a snapshot held. */
  static final class Loaded {
    private final long generation;
    private final long keys;

    Loaded(long generation, long keys) {
      this.generation = generation;
      this.keys = keys;
    }

    /** Returns the snapshot generation (0: no snapshot). */
    long generation() {
      return generation;
    }

    /** Returns the number of keys loaded. */
    long keys() {
      return keys;
    }
  }

  private SnapshotFile() {}

  /** Writes every filter to {@code target} durably; the caller holds every keyspace lock. */
  static void write(Path target, long generation, Map<Key, ScalableCuckooFilter<byte[]>> filters)
      throws IOException {
    Path temp = target.resolveSibling(target.getFileName() + ".tmp");
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      header.put(MAGIC).putLong(generation).putLong(filters.size());
      CRC32C crc = new CRC32C();
      crc.update(header.array(), 0, 24);
      header.putInt((int) crc.getValue()).flip();
      writeFully(channel, header, 0);
      long position = HEADER_BYTES;
      for (Map.Entry<Key, ScalableCuckooFilter<byte[]>> entry : filters.entrySet()) {
        position = writeEntry(channel, position, entry.getKey().bytes(), entry.getValue());
      }
      channel.truncate(position);
      channel.force(true);
    }
    FileSync.replace(temp, target);
  }

  private static long writeEntry(FileChannel channel, long position, byte[] key,
      ScalableCuckooFilter<byte[]> filter) throws IOException {
    ByteBuffer prefix = ByteBuffer.allocate(4 + key.length + 8).order(ByteOrder.LITTLE_ENDIAN);
    prefix.putInt(key.length).put(key).putLong(0).flip();
    writeFully(channel, prefix, position);
    long blobStart = position + 4 + key.length + 8;
    CRC32C crc = new CRC32C();
    crc.update(key);
    channel.position(blobStart);
    CountingCrcOutputStream counter = new CountingCrcOutputStream(
        Channels.newOutputStream(channel), crc);
    try (BufferedOutputStream out = new BufferedOutputStream(counter, 1 << 16) {
          @Override
          public void close() throws IOException {
            flush();
          }
        }) {
      filter.writeTo(out);
    }
    long blobLength = counter.count();
    ByteBuffer length = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    length.putLong(blobLength).flip();
    writeFully(channel, length, blobStart - 8);
    ByteBuffer trailer = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
    trailer.putInt((int) crc.getValue()).flip();
    writeFully(channel, trailer, blobStart + blobLength);
    return blobStart + blobLength + 4;
  }

  private static void writeFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    long at = position;
    while (buffer.hasRemaining()) {
      at += channel.write(buffer, at);
    }
  }

  /**
   * Loads a snapshot into the map.
   *
   * @throws FilterFormatException if the file is damaged (no partial result is usable then)
   */
  static Loaded read(Path file, Map<Key, ScalableCuckooFilter<byte[]>> into) throws IOException {
    long size = Files.size(file);
    try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
      DataInputStream in = new DataInputStream(raw);
      byte[] header = new byte[HEADER_BYTES];
      in.readFully(header);
      ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
      byte[] magic = new byte[8];
      h.get(magic);
      boolean v1 = Arrays.equals(magic, MAGIC_V1);
      if (!v1 && !Arrays.equals(magic, MAGIC)) {
        throw new FilterFormatException("magic", 0, file + ": not a snapshot file");
      }
      long generation = h.getLong();
      long keys = h.getLong();
      CRC32C crc = new CRC32C();
      crc.update(header, 0, 24);
      if (h.getInt() != (int) crc.getValue()) {
        throw new FilterFormatException("header", 24, file + ": snapshot header checksum");
      }
      long position = HEADER_BYTES;
      for (long n = 0; n < keys; n++) {
        position = readEntry(in, file, position, size, v1, into);
      }
      if (position != size) {
        throw new FilterFormatException("end", position, file + ": trailing bytes");
      }
      return new Loaded(generation, keys);
    } catch (EOFException e) {
      throw new FilterFormatException("data", size, file + ": snapshot truncated", e);
    }
  }

  private static long readEntry(DataInputStream in, Path file, long position, long size,
      boolean v1, Map<Key, ScalableCuckooFilter<byte[]>> into) throws IOException {
    long keyLength = Integer.reverseBytes(in.readInt()) & 0xffffffffL;
    if (keyLength > size - position - 16) {
      throw new FilterFormatException("keyLength", position, file + ": key length " + keyLength);
    }
    byte[] key = new byte[(int) keyLength];
    in.readFully(key);
    long blobLength = Long.reverseBytes(in.readLong());
    long blobStart = position + 4 + keyLength + 8;
    if (blobLength < 0 || blobLength > size - blobStart - 4) {
      throw new FilterFormatException("filterLength", blobStart - 8,
          file + ": filter length " + blobLength);
    }
    CRC32C crc = new CRC32C();
    crc.update(key);
    BoundedCrcInputStream bounded = new BoundedCrcInputStream(in, blobLength, crc);
    ScalableCuckooFilter<byte[]> filter = v1 ? DumpStream.read(bounded)
        : ScalableCuckooFilter.readFrom(bounded, ItemHashers.redisBytes());
    if (bounded.remaining() != 0) {
      throw new FilterFormatException("filter", blobStart, file + ": filter length mismatch");
    }
    if (Integer.reverseBytes(in.readInt()) != (int) crc.getValue()) {
      throw new FilterFormatException("crc", blobStart + blobLength, file + ": entry checksum");
    }
    into.put(new Key(key), filter);
    return blobStart + blobLength + 4;
  }

  /** Counts and checksums the bytes passing through. */
  private static final class CountingCrcOutputStream extends OutputStream {
    private final OutputStream out;
    private final CRC32C crc;
    private long count;

    CountingCrcOutputStream(OutputStream out, CRC32C crc) {
      this.out = out;
      this.crc = crc;
    }

    long count() {
      return count;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      crc.update(b);
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      crc.update(b, off, len);
      count += len;
    }
  }

  /** Limits reading to a known length and checksums the bytes read. */
  private static final class BoundedCrcInputStream extends InputStream {
    private final InputStream in;
    private final CRC32C crc;
    private long remaining;

    BoundedCrcInputStream(InputStream in, long limit, CRC32C crc) {
      this.in = in;
      this.remaining = limit;
      this.crc = crc;
    }

    long remaining() {
      return remaining;
    }

    @Override
    public int read() throws IOException {
      if (remaining <= 0) {
        return -1;
      }
      int b = in.read();
      if (b >= 0) {
        remaining--;
        crc.update(b);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (remaining <= 0) {
        return -1;
      }
      int n = in.read(b, off, (int) Math.min(len, remaining));
      if (n > 0) {
        remaining -= n;
        crc.update(b, off, n);
      }
      return n;
    }
  }
}
