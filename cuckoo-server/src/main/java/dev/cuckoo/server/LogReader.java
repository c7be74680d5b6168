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
 * <p>What counts as a torn last write (reading stops before it and the caller truncates it with a
 * warning): fewer bytes than a record header at the end of the file; a record whose checked length
 * runs past the end of the file; a record whose payload checksum fails and which ends exactly at
 * the end of the file; a tail of zero bytes only (space the file system allocated but the write
 * never filled). Everything else that is wrong is corruption: a complete record header whose length
 * checksum fails, or a bad payload followed by more data. Corruption fails reading with {@link
 * CorruptLogException}, naming the offset, unless repair is allowed, in which case reading stops
 * before the bad record.
 *
 * <p>Version-1 logs, whose length is covered only by the record's single checksum, are read with
 * the rules of that version: a length that runs past the end of the file is taken for a torn
 * write. Every length is checked against the bytes left in the file before anything is allocated.
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
    private final int version;
    private final long generation;
    private final long validEnd;
    private final long fileSize;
    private final long records;
    private final String problem;

    Result(int version, long generation, long validEnd, long fileSize, long records,
        String problem) {
      this.version = version;
      this.generation = generation;
      this.validEnd = validEnd;
      this.fileSize = fileSize;
      this.records = records;
      this.problem = problem;
    }

    /** Returns the log format version (1 or 2). */
    int version() {
      return version;
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
      return readHeader(path, channel)[1];
    }
  }

  /** Returns the version and the generation. */
  private static long[] readHeader(Path path, FileChannel channel) throws IOException {
    long size = channel.size();
    ByteBuffer header = ByteBuffer.allocate(AppendLog.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    if (size < AppendLog.HEADER_BYTES || readFully(channel, header, 0) < AppendLog.HEADER_BYTES) {
      throw new CorruptLogException(path + ": log header missing (" + size + " bytes)");
    }
    byte[] magic = new byte[AppendLog.MAGIC.length];
    header.flip();
    header.get(magic);
    int version;
    if (Arrays.equals(magic, AppendLog.MAGIC)) {
      version = 2;
    } else if (Arrays.equals(magic, AppendLog.MAGIC_V1)) {
      version = 1;
    } else {
      throw new CorruptLogException(path + ": not an append-only log (bad magic)");
    }
    return new long[] {version, header.getLong()};
  }

  /**
   * Reads the log, handing each good record's arguments to {@code replay}.
   *
   * @param repair truncate at a corrupt middle record instead of failing
   */
  static Result read(Path path, boolean repair, Consumer<byte[][]> replay) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      long[] header = readHeader(path, channel);
      return new Scan(path, channel, (int) header[0], header[1], repair).run(replay);
    }
  }

  /** One pass over the records of an open log. */
  private static final class Scan {
    private final Path path;
    private final FileChannel channel;
    private final int version;
    private final long generation;
    private final boolean repair;
    private final long size;
    private final int headerBytes;
    private final CRC32C crc = new CRC32C();
    private long records;

    Scan(Path path, FileChannel channel, int version, long generation, boolean repair)
        throws IOException {
      this.path = path;
      this.channel = channel;
      this.version = version;
      this.generation = generation;
      this.repair = repair;
      this.size = channel.size();
      this.headerBytes =
          version == 1 ? AppendLog.V1_RECORD_HEADER_BYTES : AppendLog.RECORD_HEADER_BYTES;
    }

    private Result stop(long position, String problem) {
      return new Result(version, generation, position, size, records, problem);
    }

    /** Stops at a torn tail, or at corruption if repair is allowed; otherwise throws. */
    private Result corrupt(long position, String what) throws IOException {
      if (zeroFrom(position)) {
        return stop(position, "zero-filled tail at offset " + position + " (" + what + ")");
      }
      if (repair) {
        return stop(position, what);
      }
      throw new CorruptLogException(path + ": " + what + " with " + (size - position)
          + " bytes from there to the end of the log; refusing to start. Restart with"
          + " --repair-log yes to truncate the log at offset " + position
          + " (the records from there on are lost).");
    }

    Result run(Consumer<byte[][]> replay) throws IOException {
      long position = AppendLog.HEADER_BYTES;
      ByteBuffer recordHeader = ByteBuffer.allocate(headerBytes).order(ByteOrder.LITTLE_ENDIAN);
      while (position < size) {
        long left = size - position;
        if (left < headerBytes) {
          return stop(position, "torn record header at offset " + position);
        }
        recordHeader.clear();
        readFully(channel, recordHeader, position);
        recordHeader.flip();
        int rawLength = recordHeader.getInt();
        long length = rawLength & 0xffffffffL;
        if (version != 1 && recordHeader.getInt() != AppendLog.lengthCrc(crc, rawLength)) {
          return corrupt(position, "record header checksum failed at offset " + position
              + " (length field " + length + ")");
        }
        int stored = recordHeader.getInt();
        if (length > left - headerBytes) {
          return stop(position, "torn record at offset " + position + " (length " + length
              + ", " + (left - headerBytes) + " bytes left)");
        }
        long end = position + headerBytes + length;
        byte[][] args = null;
        if (length <= Integer.MAX_VALUE - 64) {
          ByteBuffer payload = ByteBuffer.allocate((int) length).order(ByteOrder.LITTLE_ENDIAN);
          readFully(channel, payload, position + headerBytes);
          crc.reset();
          if (version == 1) {
            crc.update(recordHeader.array(), 0, 4);
          }
          crc.update(payload.array(), 0, (int) length);
          if ((int) crc.getValue() == stored) {
            args = decode(payload);
          }
        }
        if (args == null) {
          String what = "bad record at offset " + position;
          if (end == size) {
            return stop(position, "torn last record: " + what);
          }
          return corrupt(position, what);
        }
        replay.accept(args);
        records++;
        position = end;
      }
      return stop(position, null);
    }

    /** Returns true if every byte from {@code position} to the end of the file is zero. */
    private boolean zeroFrom(long position) throws IOException {
      ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
      for (long at = position; at < size; ) {
        buffer.clear();
        if (size - at < buffer.capacity()) {
          buffer.limit((int) (size - at));
        }
        int n = readFully(channel, buffer, at);
        if (n <= 0) {
          return false;
        }
        for (int i = 0; i < n; i++) {
          if (buffer.get(i) != 0) {
            return false;
          }
        }
        at += n;
      }
      return true;
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
