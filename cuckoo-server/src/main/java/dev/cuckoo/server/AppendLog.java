package dev.cuckoo.server;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The append-only log of write commands.
 *
 * <p>File layout (little-endian): an 8-byte magic {@code CKOOLOG2} and the 8-byte snapshot
 * generation the log continues from, then records. A record is {@code u32 length, u32 lengthCrc,
 * u32 payloadCrc, payload}, where payload is {@code u32 argc} followed by {@code argc} times
 * {@code u32 len, bytes}, lengthCrc is the CRC32C of the length field alone and payloadCrc the
 * CRC32C of the payload. The separate length checksum makes record boundaries self-checking: a
 * damaged length is recognized as damage, not mistaken for a record running past the end of the
 * file.
 *
 * <p>Version 1 (magic {@code CKOOLOG1}, record {@code u32 length, u32 crc, payload} with the crc
 * over the length field and the payload) is still read by {@link LogReader}; it is never appended
 * to.
 *
 * <p>Appends go to an in-memory buffer under a short lock; {@link #flush} writes the buffer to the
 * file (and forces it to disk if asked) before the replies of a batch are sent. Concurrent flushes
 * coalesce: one write and one fsync cover every record appended before it (group commit).
 */
final class AppendLog implements WriteLog, Closeable {
  /** File magic. */
  static final byte[] MAGIC = {'C', 'K', 'O', 'O', 'L', 'O', 'G', '2'};
  /** File magic of version 1. */
  static final byte[] MAGIC_V1 = {'C', 'K', 'O', 'O', 'L', 'O', 'G', '1'};
  /** Bytes before the first record. */
  static final int HEADER_BYTES = 16;
  /** Bytes of a record's length, length crc and payload crc fields. */
  static final int RECORD_HEADER_BYTES = 12;
  /** Bytes of a version-1 record's length and crc fields. */
  static final int V1_RECORD_HEADER_BYTES = 8;

  private final Object appendLock = new Object();
  private final Object ioLock = new Object();
  private final CRC32C crc = new CRC32C();
  private final Path path;
  private FileChannel channel;
  private byte[] pending = new byte[64 * 1024];
  private byte[] spare = new byte[64 * 1024];
  private int pendingLength;
  private long appendedPosition;
  private long writtenPosition;
  private long syncedPosition;

  private AppendLog(Path path, FileChannel channel, long end) {
    this.path = path;
    this.channel = channel;
    this.appendedPosition = end;
    this.writtenPosition = end;
    this.syncedPosition = end;
  }

  /** Opens an existing log for appending after its last valid byte {@code end}. */
  static AppendLog openAt(Path path, long end) throws IOException {
    FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE);
    channel.truncate(end);
    channel.position(end);
    return new AppendLog(path, channel, end);
  }

  /** Creates (or replaces, atomically) an empty log for the given generation. */
  static AppendLog create(Path path, long generation) throws IOException {
    writeEmpty(path, generation);
    return openAt(path, HEADER_BYTES);
  }

  private static void writeEmpty(Path path, long generation) throws IOException {
    Path temp = path.resolveSibling(path.getFileName() + ".tmp");
    try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      header.put(MAGIC).putLong(generation).flip();
      while (header.hasRemaining()) {
        out.write(header);
      }
      out.force(true);
    }
    FileSync.replace(temp, path);
  }

  /** Returns the encoded size of a record for these arguments. */
  static long recordBytes(byte[][] args) {
    long size = RECORD_HEADER_BYTES + 4L;
    for (byte[] arg : args) {
      size += 4L + arg.length;
    }
    return size;
  }

  @Override
  public void append(byte[][] args) {
    long size = recordBytes(args);
    if (size > Integer.MAX_VALUE - 64) {
      throw new IllegalArgumentException("log record too large: " + size + " bytes");
    }
    synchronized (appendLock) {
      int need = pendingLength + (int) size;
      if (need > pending.length || need < 0) {
        pending = Arrays.copyOf(pending, (int) Math.min(Integer.MAX_VALUE - 64,
            Math.max((long) need, 2L * pending.length)));
      }
      ByteBuffer out = ByteBuffer.wrap(pending, pendingLength, (int) size)
          .order(ByteOrder.LITTLE_ENDIAN);
      int start = pendingLength;
      int length = (int) size - RECORD_HEADER_BYTES;
      out.putInt(length);
      out.putInt(0);
      out.putInt(0);
      out.putInt(args.length);
      for (byte[] arg : args) {
        out.putInt(arg.length);
        out.put(arg);
      }
      // absolute indexes of a wrapped buffer count from the start of the array
      ByteBuffer header = ByteBuffer.wrap(pending).order(ByteOrder.LITTLE_ENDIAN);
      header.putInt(start + 4, lengthCrc(crc, length));
      crc.reset();
      crc.update(pending, start + RECORD_HEADER_BYTES, length);
      header.putInt(start + 8, (int) crc.getValue());
      pendingLength += (int) size;
      appendedPosition += size;
    }
  }

  /** Returns the CRC32C of a record's length field (four little-endian bytes). */
  static int lengthCrc(CRC32C crc, int length) {
    crc.reset();
    crc.update(length & 0xff);
    crc.update((length >>> 8) & 0xff);
    crc.update((length >>> 16) & 0xff);
    crc.update(length >>> 24);
    return (int) crc.getValue();
  }

  /** Returns the logical end of the log, buffered records included. */
  long appendedPosition() {
    synchronized (appendLock) {
      return appendedPosition;
    }
  }

  /**
   * Writes every record appended so far to the file and, if {@code force}, to the disk.
   *
   * @throws UncheckedIOException if the write or fsync fails
   */
  void flush(boolean force) {
    synchronized (ioLock) {
      byte[] data;
      int length;
      synchronized (appendLock) {
        data = pending;
        length = pendingLength;
        if (length > 0) {
          pending = spare;
          pendingLength = 0;
        }
      }
      try {
        if (length > 0) {
          ByteBuffer buffer = ByteBuffer.wrap(data, 0, length);
          while (buffer.hasRemaining()) {
            channel.write(buffer);
          }
          writtenPosition += length;
          // the written buffer becomes the next spare; a huge one is not kept
          spare = data.length > 1 << 20 ? new byte[64 * 1024] : data;
        }
        if (force && syncedPosition < writtenPosition) {
          channel.force(false);
          syncedPosition = writtenPosition;
        }
      } catch (IOException e) {
        throw new UncheckedIOException("append-only log write failed: " + path, e);
      }
    }
  }

  /** Returns true if records exist that are not yet forced to disk. */
  boolean hasUnsynced() {
    synchronized (ioLock) {
      return syncedPosition < appendedPosition();
    }
  }

  /**
   * Replaces the log with an empty one for a new snapshot generation. The caller holds every
   * keyspace lock, so nothing is appended meanwhile.
   */
  void rewrite(long generation) throws IOException {
    synchronized (ioLock) {
      flush(true);
      channel.close();
      writeEmpty(path, generation);
      channel = FileChannel.open(path, StandardOpenOption.WRITE);
      channel.position(HEADER_BYTES);
      synchronized (appendLock) {
        appendedPosition = HEADER_BYTES;
      }
      writtenPosition = HEADER_BYTES;
      syncedPosition = HEADER_BYTES;
    }
  }

  @Override
  public void close() throws IOException {
    synchronized (ioLock) {
      flush(true);
      channel.close();
    }
  }
}
