package dev.cuckoo.examples.logstore;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The append-only segment file: a file header followed by length-prefixed, checksummed records. It
 * knows nothing about indexes; it appends, reads one record at an offset (and counts those reads),
 * and on open scans every record in order.
 */
final class SegmentLog implements Closeable {
  /*
   * File layout (little-endian):
   *
   *   file header   8 bytes  "CUCKLOG" + format version 1
   *   record        crc32c   u32  CRC-32C of every record byte after this field
   *                 type     u8   1 = put, 2 = tombstone (delete)
   *                 keyLen   u16  0..65535
   *                 valueLen u32  0..MAX_VALUE_BYTES (0 for a tombstone)
   *                 key, value
   *
   * Recovery. A crash can only damage what was being appended: the last record may be cut short
   * (a torn write) or, after a power loss without fsync, end in garbage or zeros. So on open, a
   * record that fails validation is treated as a torn tail — dropped, and the file truncated to the
   * last good record so that new appends follow valid data — when it is the last thing in the file:
   * its header is cut short, its lengths run past the end of the file, its CRC fails and it ends
   * exactly at the end of the file, or its header is invalid and fewer than MAX_RECORD_BYTES
   * follow. A complete record with a bad CRC followed by more data is damage in the middle of the
   * log: open refuses with an IOException naming the offset and leaves the file untouched, rather
   * than truncate away good records after it.
   */

  static final byte[] MAGIC = {'C', 'U', 'C', 'K', 'L', 'O', 'G', 1};
  static final int FILE_HEADER_BYTES = MAGIC.length;
  static final int RECORD_HEADER_BYTES = 11;
  static final int MAX_KEY_BYTES = 0xFFFF;
  static final int MAX_VALUE_BYTES = 1 << 20;
  static final int MAX_RECORD_BYTES = RECORD_HEADER_BYTES + MAX_KEY_BYTES + MAX_VALUE_BYTES;

  /** Offsets must fit the index's 40-bit offset field. */
  static final long MAX_LOG_BYTES = 1L << OffsetIndex.OFFSET_BITS;

  /** Receives each valid record during the scan on open. */
  @FunctionalInterface
  interface RecordVisitor {
    /** Called once per valid record, in log order. */
    void visit(LogRecord record) throws IOException;
  }

  private final Path path;
  private final FileChannel channel;
  private long end = FILE_HEADER_BYTES;
  private long discardedTailBytes;
  private long recordReads;

  private SegmentLog(Path path, FileChannel channel) {
    this.path = path;
    this.channel = channel;
  }

  /**
   * Opens or creates the log at {@code path} and checks its file header. Call {@link #recover}
   * before anything else.
   */
  static SegmentLog open(Path path) throws IOException {
    FileChannel channel =
        FileChannel.open(
            path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      if (!hasHeader(path, channel)) {
        channel.truncate(0);
        writeFully(channel, ByteBuffer.wrap(MAGIC), 0);
        channel.force(true);
      }
      return new SegmentLog(path, channel);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * Passes every valid record to {@code visitor} in order, then cuts off a torn tail. The visitor
   * may {@link #read} the record it is given and any earlier one.
   */
  void recover(RecordVisitor visitor) throws IOException {
    scan(visitor);
    discardedTailBytes = channel.size() - end;
    if (discardedTailBytes > 0) {
      channel.truncate(end);
      channel.force(true);
    }
  }

  /**
   * Returns true if the file starts with the header; false if it is empty or holds a cut-short
   * header (a crash during creation); throws if it is some other file.
   */
  private static boolean hasHeader(Path path, FileChannel channel) throws IOException {
    int length = (int) Math.min(channel.size(), FILE_HEADER_BYTES);
    ByteBuffer header = ByteBuffer.allocate(length);
    readFully(channel, header, 0);
    byte[] bytes = header.array();
    if (!Arrays.equals(bytes, 0, length, MAGIC, 0, length)) {
      throw new IOException(path + " is not a log store file (bad magic bytes)");
    }
    return length == FILE_HEADER_BYTES;
  }

  /**
   * Reads every record from the start, advancing {@link #end} past each valid one before the
   * visitor sees it (so the visitor may {@link #read} it and any earlier record).
   */
  private void scan(RecordVisitor visitor) throws IOException {
    long size = channel.size();
    long position = FILE_HEADER_BYTES;
    ByteBuffer header = ByteBuffer.allocate(RECORD_HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    while (size - position >= RECORD_HEADER_BYTES) {
      header.clear();
      readFully(channel, header, position);
      long remaining = size - position;
      String problem = checkHeader(header);
      if (problem != null) {
        if (remaining <= MAX_RECORD_BYTES) {
          return;
        }
        throw corrupt(position, problem);
      }
      long length = recordLength(header);
      if (length > remaining) {
        return;
      }
      LogRecord record = readBody(header, position);
      if (record == null) {
        if (length == remaining) {
          return;
        }
        throw corrupt(position, "CRC mismatch in a complete record followed by more data");
      }
      position += length;
      end = position;
      visitor.visit(record);
    }
  }

  /**
   * Appends a record and returns its offset. The bytes reach the operating system before this
   * returns; {@link #force()} makes them durable.
   */
  long append(byte type, byte[] key, byte[] value) throws IOException {
    int length = RECORD_HEADER_BYTES + key.length + value.length;
    if (end + length > MAX_LOG_BYTES) {
      throw new IOException(
          "log full: " + (end + length) + " bytes (expected: <= " + MAX_LOG_BYTES + ")");
    }
    ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
    buffer.putInt(0).put(type).putShort((short) key.length).putInt(value.length);
    buffer.put(key).put(value);
    buffer.putInt(0, crc(buffer.array(), length));
    buffer.flip();
    long offset = end;
    writeFully(channel, buffer, offset);
    end = offset + length;
    return offset;
  }

  /** Reads the whole record at {@code offset}, verifying its CRC; counts one record read. */
  LogRecord read(long offset) throws IOException {
    if (offset < FILE_HEADER_BYTES || offset > end - RECORD_HEADER_BYTES) {
      throw new IOException(
          "record offset: "
              + offset
              + " (expected: "
              + FILE_HEADER_BYTES
              + " <= offset <= "
              + (end - RECORD_HEADER_BYTES)
              + ")");
    }
    recordReads++;
    ByteBuffer header = ByteBuffer.allocate(RECORD_HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    readFully(channel, header, offset);
    String problem = checkHeader(header);
    if (problem != null) {
      throw corrupt(offset, problem);
    }
    if (offset + recordLength(header) > end) {
      throw corrupt(offset, "record runs past the end of the log");
    }
    LogRecord record = readBody(header, offset);
    if (record == null) {
      throw corrupt(offset, "CRC mismatch");
    }
    return record;
  }

  /** Returns null if the header is valid, else what is wrong with it. */
  private static String checkHeader(ByteBuffer header) {
    byte type = header.get(4);
    long valueLength = Integer.toUnsignedLong(header.getInt(7));
    if (type != LogRecord.TYPE_PUT && type != LogRecord.TYPE_DELETE) {
      return "type: " + type + " (expected: 1 or 2)";
    }
    if (valueLength > MAX_VALUE_BYTES) {
      return "valueLength: " + valueLength + " (expected: <= " + MAX_VALUE_BYTES + ")";
    }
    if (type == LogRecord.TYPE_DELETE && valueLength != 0) {
      return "valueLength: " + valueLength + " (expected: 0 in a tombstone)";
    }
    return null;
  }

  private static long recordLength(ByteBuffer header) {
    return RECORD_HEADER_BYTES + Short.toUnsignedInt(header.getShort(5)) + header.getInt(7);
  }

  /** Reads key and value after a checked header; returns null if the CRC does not match. */
  private LogRecord readBody(ByteBuffer header, long offset) throws IOException {
    int keyLength = Short.toUnsignedInt(header.getShort(5));
    int valueLength = header.getInt(7);
    byte[] record = new byte[RECORD_HEADER_BYTES + keyLength + valueLength];
    System.arraycopy(header.array(), 0, record, 0, RECORD_HEADER_BYTES);
    ByteBuffer body = ByteBuffer.wrap(record, RECORD_HEADER_BYTES, keyLength + valueLength);
    readFully(channel, body, offset + RECORD_HEADER_BYTES);
    if (crc(record, record.length) != header.getInt(0)) {
      return null;
    }
    int keyStart = RECORD_HEADER_BYTES;
    int valueStart = keyStart + keyLength;
    return new LogRecord(
        offset,
        header.get(4),
        Arrays.copyOfRange(record, keyStart, valueStart),
        Arrays.copyOfRange(record, valueStart, record.length));
  }

  private static int crc(byte[] record, int length) {
    CRC32C crc = new CRC32C();
    crc.update(record, 4, length - 4);
    return (int) crc.getValue();
  }

  private IOException corrupt(long offset, String problem) {
    return new IOException(path + ": corrupt record at offset " + offset + ": " + problem);
  }

  private static void readFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    long next = position;
    while (buffer.hasRemaining()) {
      int read = channel.read(buffer, next);
      if (read < 0) {
        throw new EOFException("unexpected end of file at offset " + next);
      }
      next += read;
    }
  }

  private static void writeFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    long next = position;
    while (buffer.hasRemaining()) {
      next += channel.write(buffer, next);
    }
  }

  /** Returns the number of records read by {@link #read} since the log was opened. */
  long recordReads() {
    return recordReads;
  }

  /** Returns the offset where the next record will be appended: the log's valid length. */
  long sizeInBytes() {
    return end;
  }

  /** Returns how many bytes of torn tail were cut off when the log was opened. */
  long discardedTailBytes() {
    return discardedTailBytes;
  }

  /** Forces every appended byte to the storage device. */
  void force() throws IOException {
    channel.force(false);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
