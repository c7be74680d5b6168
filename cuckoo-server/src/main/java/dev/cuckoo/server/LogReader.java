package dev.cuckoo.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * Reads an append-only log written by {@link AppendLog} for recovery.
 *
 * <p>A record that runs past the end of the file, or whose checksum fails and which ends exactly
 * at the end of the file, is a torn last write: reading stops before it and the caller truncates
 * it. A bad record followed by more data is corruption: reading fails with
 * {@link CorruptLogException} unless repair is allowed, in which case reading stops before it.
 * Every length is checked against the bytes left in the file before anything is allocated.
 */
final class LogReader {
  /** Thrown when a record in the middle of the log is corrupt. */
  static final class CorruptLogException extends IOException {
    private static final long serialVersionUID = 1L;

    CorruptLogException(String message) {
      super(message);
    }
  }

  /** What reading found. */
  static final class Result {
    private final long generation;
    private final long validEnd;
    private final long fileSize;
    private final long records;
    private final String problem;

    Result(long generation, long validEnd, long fileSize, long records, String problem) {
      this.generation = generation;
      this.validEnd = validEnd;
      this.fileSize = fileSize;
      this.records = records;
      this.problem = problem;
    }

    /** Returns the snapshot generation in the log header. */
    long generation() {
      return generation;
    }

    /** Returns the offset just after the last good record. */
    long validEnd() {
      return validEnd;
    }

    /** Returns the file size. */
    long fileSize() {
      return fileSize;
    }

    /** Returns the number of good records replayed. */
    long records() {
      return records;
    }

    /** Returns what was wrong after validEnd, or null if the log ended cleanly. */
    String problem() {
      return problem;
    }
  }

  private LogReader() {}

  /** Returns the snapshot generation in the log's header. */
  static long generationOf(Path path) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      return readHeader(path, channel);
    }
  }

  private static long readHeader(Path path, FileChannel channel) throws IOException {
    long size = channel.size();
    ByteBuffer header = ByteBuffer.allocate(AppendLog.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    if (size < AppendLog.HEADER_BYTES || readFully(channel, header, 0) < AppendLog.HEADER_BYTES) {
      throw new CorruptLogException(path + ": log header missing (" + size + " bytes)");
    }
    byte[] magic = new byte[AppendLog.MAGIC.length];
    header.flip();
    header.get(magic);
    if (!Arrays.equals(magic, AppendLog.MAGIC)) {
      throw new CorruptLogException(path + ": not an append-only log (bad magic)");
    }
    return header.getLong();
  }

  /**
   * Reads the log, handing each good record's arguments to {@code replay}.
   *
   * @param repair truncate at a corrupt middle record instead of failing
   */
  static Result read(Path path, boolean repair, Consumer<byte[][]> replay) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = channel.size();
      long generation = readHeader(path, channel);
      long position = AppendLog.HEADER_BYTES;
      long records = 0;
      ByteBuffer recordHeader =
          ByteBuffer.allocate(AppendLog.RECORD_HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      CRC32C crc = new CRC32C();
      while (position < size) {
        long left = size - position;
        if (left < AppendLog.RECORD_HEADER_BYTES) {
          return new Result(generation, position, size, records,
              "torn record header at offset " + position);
        }
        recordHeader.clear();
        readFully(channel, recordHeader, position);
        recordHeader.flip();
        long length = recordHeader.getInt() & 0xffffffffL;
        int stored = recordHeader.getInt();
        if (length > left - AppendLog.RECORD_HEADER_BYTES) {
          return new Result(generation, position, size, records,
              "torn record at offset " + position + " (length " + length + ", "
                  + (left - AppendLog.RECORD_HEADER_BYTES) + " bytes left)");
        }
        long end = position + AppendLog.RECORD_HEADER_BYTES + length;
        byte[][] args = null;
        if (length <= Integer.MAX_VALUE - 64) {
          ByteBuffer payload = ByteBuffer.allocate((int) length).order(ByteOrder.LITTLE_ENDIAN);
          readFully(channel, payload, position + AppendLog.RECORD_HEADER_BYTES);
          crc.reset();
          crc.update(recordHeader.array(), 0, 4);
          crc.update(payload.array(), 0, (int) length);
          if ((int) crc.getValue() == stored) {
            args = decode(payload);
          }
        }
        if (args == null) {
          String what = "bad record at offset " + position;
          if (end == size) {
            return new Result(generation, position, size, records, "torn last record: " + what);
          }
          if (repair) {
            return new Result(generation, position, size, records, what);
          }
          throw new CorruptLogException(path + ": " + what + " with " + (size - end)
              + " more bytes after it; refusing to start. Restart with --repair-log yes to"
              + " truncate the log there (the records after it are lost).");
        }
        replay.accept(args);
        records++;
        position = end;
      }
      return new Result(generation, position, size, records, null);
    }
  }

  private static int readFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    int total = 0;
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, position + total);
      if (n < 0) {
        break;
      }
      total += n;
    }
    return total;
  }

  /** Decodes a payload; returns null if its structure is inconsistent. */
  private static byte[][] decode(ByteBuffer payload) {
    payload.flip();
    if (payload.remaining() < 4) {
      return null;
    }
    int argc = payload.getInt();
    if (argc <= 0 || argc > payload.remaining() / 4) {
      return null;
    }
    byte[][] args = new byte[argc][];
    for (int i = 0; i < argc; i++) {
      if (payload.remaining() < 4) {
        return null;
      }
      int length = payload.getInt();
      if (length < 0 || length > payload.remaining()) {
        return null;
      }
      args[i] = new byte[length];
      payload.get(args[i]);
    }
    return payload.hasRemaining() ? null : args;
  }
}
