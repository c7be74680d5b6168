package dev.cuckoo.server.persist;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
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
 * <p>Every length is checked against the bytes left in the file before anything is allocated. Only
 * the current format ({@link AppendLog#MAGIC}) is read: no release wrote another.
 *
 * <p>A header whose checksum fails is damage, never a reason to drop the log: reading refuses with
 * {@link CorruptLogException} unless repair is allowed, and then the records are read with the
 * generation and base the caller supplies. A file shorter than its header (a crash while it was
 * being created holds no records) is likewise refused unless repair is allowed.
 */
public final class LogReader {
  /** Receives the records read. */
  @FunctionalInterface
  public interface RecordSink {
    /**
     * Takes one good record.
     *
     * @param lsn the record's sequence number
     * @param db the database the command ran in
     * @param args the command's arguments
     * @param offset where the record starts in the file
     * @throws IOException to stop reading (recovery cannot continue)
     */
    void accept(long lsn, int db, byte[][] args, long offset) throws IOException;
  }

  /** What a log's header says. */
  static final class Header {
    private final long generation;
    private final long baseLsn;
    private final String damage;

    Header(long generation, long baseLsn, String damage) {
      this.generation = generation;
      this.baseLsn = baseLsn;
      this.damage = damage;
    }

    /** Returns the snapshot generation the log continues. */
    long generation() {
      return generation;
    }

    /** Returns the sequence number before the first record. */
    long baseLsn() {
      return baseLsn;
    }

    /** Returns what is wrong with the header, or null if it is sound. */
    String damage() {
      return damage;
    }
  }

  /** Thrown when a record in the middle of the log is corrupt. */
  static final class CorruptLogException extends IOException {
    private static final long serialVersionUID = 1L;

    CorruptLogException(String message) {
      super(message);
    }
  }

  /** What reading found. */
  public static final class Result {
    private final long generation;
    private final long validEnd;
    private final long fileSize;
    private final long records;
    private final long lastLsn;
    private final String problem;

    public Result(
        long generation, long validEnd, long fileSize, long records, long lastLsn, String problem) {
      this.generation = generation;
      this.validEnd = validEnd;
      this.fileSize = fileSize;
      this.records = records;
      this.lastLsn = lastLsn;
      this.problem = problem;
    }

    /** Returns the sequence number of the last good record (the base if there is none). */
    public long lastLsn() {
      return lastLsn;
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

  /**
   * Reads a log's header.
   *
   * @throws CorruptLogException if the file is not a log at all (bad magic) or shorter than a
   *     header; a header with a bad checksum is returned with {@link Header#damage}
   */
  public static Header header(Path path) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      return readHeader(path, channel);
    }
  }

  private static Header readHeader(Path path, FileChannel channel) throws IOException {
    long size = channel.size();
    ByteBuffer header = ByteBuffer.allocate(AppendLog.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    int read = readFully(channel, header, 0);
    header.flip();
    byte[] magic = new byte[AppendLog.MAGIC.length];
    if (read < magic.length) {
      throw new CorruptLogException(
          path
              + ": log header cut off at offset "
              + size
              + " (expected "
              + AppendLog.HEADER_BYTES
              + " bytes)");
    }
    header.get(magic);
    if (!Arrays.equals(magic, AppendLog.MAGIC)) {
      if (read >= AppendLog.HEADER_BYTES && magicDamaged(header.array())) {
        // the header's checksum holds with the log's magic: a damaged header, not another file
        return new Header(
            header.getLong(8),
            header.getLong(16),
            "log header magic damaged at offset "
                + firstDifference(magic, AppendLog.MAGIC)
                + " (the header checksum matches a log header)");
      }
      throw new CorruptLogException(path + ": not an append-only log (bad magic at offset 0)");
    }
    if (read < AppendLog.HEADER_BYTES) {
      throw new CorruptLogException(
          path
              + ": log header cut off at offset "
              + size
              + " (expected "
              + AppendLog.HEADER_BYTES
              + " bytes)");
    }
    long generation = header.getLong();
    long base = header.getLong();
    int stored = header.getInt();
    int reserved = header.getInt();
    CRC32C crc = new CRC32C();
    crc.update(header.array(), 0, 24);
    String damage = null;
    if (stored != (int) crc.getValue() || reserved != 0) {
      damage =
          "log header checksum failed at offset 24 (generation field "
              + generation
              + ", base "
              + base
              + ")";
    }
    return new Header(generation, base, damage);
  }

  /** Returns the offset of the first byte where {@code magic} differs from {@code expected}. */
  private static int firstDifference(byte[] magic, byte[] expected) {
    int at = Arrays.mismatch(magic, expected);
    return at < 0 ? 0 : at;
  }

  /** Returns true if the header's checksum holds once its magic is replaced by the log's. */
  private static boolean magicDamaged(byte[] header) {
    int stored = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getInt(24);
    byte[] fixed = Arrays.copyOf(header, 24);
    System.arraycopy(AppendLog.MAGIC, 0, fixed, 0, 8);
    CRC32C crc = new CRC32C();
    crc.update(fixed);
    return stored == (int) crc.getValue();
  }

  /**
   * Reads the records of a log, handing each good one to {@code sink}.
   *
   * @param header the file's header (from {@link #header}), or a substitute for a damaged one
   * @param limit stop at this offset (records after it are not read); Long.MAX_VALUE for all
   * @param repair truncate at a corrupt middle record instead of failing
   */
  public static Result read(Path path, Header header, long limit, boolean repair, RecordSink sink)
      throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      return new Scan(path, channel, header, Math.min(limit, channel.size()), repair).run(sink);
    }
  }

  /** Parses records laid out as {@link AppendLog} writes them (no file header), in order. */
  static void parse(byte[] records, RecordSink sink) throws IOException {
    ByteBuffer in = ByteBuffer.wrap(records).order(ByteOrder.LITTLE_ENDIAN);
    while (in.remaining() >= AppendLog.RECORD_HEADER_BYTES) {
      int start = in.position();
      int length = in.getInt();
      in.position(start + AppendLog.RECORD_HEADER_BYTES);
      ByteBuffer payload = in.slice().order(ByteOrder.LITTLE_ENDIAN);
      payload.limit(length);
      long lsn = payload.getLong();
      int db = payload.getInt();
      payload.compact();
      byte[][] args = decode(payload);
      if (args == null) {
        throw new IOException("unreadable buffered record at " + start);
      }
      sink.accept(lsn, db, args, start);
      in.position(start + AppendLog.RECORD_HEADER_BYTES + length);
    }
  }

  /** One pass over the records of an open log. */
  private static final class Scan {
    private final Path path;
    private final FileChannel channel;
    private final Header header;
    private final boolean repair;
    private final long size;
    private final CRC32C crc = new CRC32C();
    private long records;
    private long lastLsn;

    Scan(Path path, FileChannel channel, Header header, long size, boolean repair) {
      this.path = path;
      this.channel = channel;
      this.header = header;
      this.repair = repair;
      this.size = size;
      this.lastLsn = header.baseLsn();
    }

    private Result stop(long position, String problem) {
      return new Result(header.generation(), position, size, records, lastLsn, problem);
    }

    /** Stops at a torn tail, or at corruption if repair is allowed; otherwise throws. */
    private Result corrupt(long position, String what) throws IOException {
      if (zeroFrom(position)) {
        return stop(position, "zero-filled tail at offset " + position + " (" + what + ")");
      }
      if (repair) {
        return stop(position, what);
      }
      throw new CorruptLogException(
          path
              + ": "
              + what
              + " with "
              + (size - position)
              + " bytes from there to the end of the log; refusing to start. Restart with"
              + " --repair-log yes to truncate the log at offset "
              + position
              + " (the records from there on are lost).");
    }

    Result run(RecordSink sink) throws IOException {
      final int headerBytes = AppendLog.RECORD_HEADER_BYTES;
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
        if (recordHeader.getInt() != AppendLog.lengthCrc(crc, rawLength)) {
          return corrupt(
              position,
              "record header checksum failed at offset "
                  + position
                  + " (length field "
                  + length
                  + ")");
        }
        int stored = recordHeader.getInt();
        if (length > left - headerBytes) {
          return stop(
              position,
              "torn record at offset "
                  + position
                  + " (length "
                  + length
                  + ", "
                  + (left - headerBytes)
                  + " bytes left)");
        }
        long end = position + headerBytes + length;
        byte[][] args = null;
        long lsn = -1;
        int db = 0;
        if (length <= Integer.MAX_VALUE - 64) {
          ByteBuffer payload = ByteBuffer.allocate((int) length).order(ByteOrder.LITTLE_ENDIAN);
          readFully(channel, payload, position + headerBytes);
          crc.reset();
          crc.update(payload.array(), 0, (int) length);
          // the record's number and database come first in its payload
          if ((int) crc.getValue() == stored && length >= 12) {
            payload.flip();
            lsn = payload.getLong();
            db = payload.getInt();
            payload.compact();
            args = lsn <= lastLsn || db < 0 ? null : decode(payload);
          }
        }
        if (args == null) {
          String what = "bad record at offset " + position;
          if (end == size) {
            return stop(position, "torn last record: " + what);
          }
          return corrupt(position, what);
        }
        sink.accept(lsn, db, args, position);
        records++;
        lastLsn = lsn;
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
