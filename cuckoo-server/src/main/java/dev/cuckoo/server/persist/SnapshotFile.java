package dev.cuckoo.server.persist;

import dev.cuckoo.FilterFormatException;
import dev.cuckoo.FilterImage;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import java.util.zip.CRC32C;

/**
 * The snapshot file: every key with its filter in the core serialized form.
 *
 * <p>Layout (little-endian), version 4: magic {@code CKOOSNP4}, u64 generation, u64 startLsn, u64
 * entry count, u32 CRC32C of those 32 bytes; then per entry: u32 key length, key bytes, u64 lsn,
 * u32 database index, i64 expiry time (Unix milliseconds, -1 for none), u64 filter length, the
 * filter as {@code RedisCuckooFilter.writeTo} wrote it, u32 CRC32C of key, lsn, database, expiry
 * and filter bytes. A filter length of {@link #TOMBSTONE} (and no filter bytes) records that the
 * key did not exist when the snapshot visited it.
 *
 * <p>The snapshot is fuzzy: keys are written one at a time while commands go on. {@code startLsn}
 * is the sequence number of the last log record written before the snapshot began, so the snapshot
 * holds the effect of every record up to it; each entry's {@code lsn} is the number of the last
 * record applied when the key was written, so it holds the key's records up to that number too.
 * Recovery replays only records past those numbers (see {@link Persistence}). Written to a
 * temporary file, forced to disk and renamed over the old snapshot.
 *
 * <p>This is the only snapshot format: no release wrote another, so a file with another magic is
 * refused as not a snapshot.
 */
public final class SnapshotFile {
  /** The filter length that marks a key absent when it was visited. */
  static final long TOMBSTONE = -1L;

  private static final byte[] MAGIC = {'C', 'K', 'O', 'O', 'S', 'N', 'P', '4'};
  private static final int HEADER_BYTES = 36;
  // lsn, database, expiry and filter length after an entry's key
  private static final int ENTRY_FIELDS_BYTES = 28;

  /** What a snapshot held. */
  static final class Loaded {
    private final long generation;
    private final long startLsn;
    private final long keys;
    private final Map<Key, Long> lsns;

    Loaded(long generation, long startLsn, long keys, Map<Key, Long> lsns) {
      this.generation = generation;
      this.startLsn = startLsn;
      this.keys = keys;
      this.lsns = lsns;
    }

    /** Returns the snapshot generation (0: no snapshot). */
    long generation() {
      return generation;
    }

    /** Returns the number of the last log record the whole snapshot contains. */
    long startLsn() {
      return startLsn;
    }

    /** Returns the number of keys loaded. */
    long keys() {
      return keys;
    }

    /** Returns the number of the last record each visited key contains (tombstones too). */
    Map<Key, Long> lsns() {
      return lsns;
    }
  }

  /**
   * An open snapshot being written entry by entry to its temporary file, through one buffer that
   * every entry reuses: small filters cost no allocation and no system call of their own.
   */
  static final class Writer implements java.io.Closeable {
    /*
     * Why one buffer for the whole file: with 10^6 small filters, a 64 KiB stream buffer per entry
     * and four positional writes per entry allocated 65 GB and made 4·10^6 system calls per
     * snapshot (docs/server-benchmark.md, allocations per request). Entries are now appended to
     * the buffer, which goes to the file when full; only an entry's filter length, known after
     * its filter is written, is patched in place (in the buffer, or in the file if the filter was
     * larger than the buffer).
     */
    private final Path target;
    private final Path temp;
    private final FileChannel channel;
    private final long generation;
    private final long startLsn;
    // false for a transfer: a temporary file nobody reads after a crash is never forced
    private final boolean durable;
    private final byte[] buffer = new byte[BUFFER_BYTES];
    private final ByteBuffer fields = ByteBuffer.wrap(buffer).order(ByteOrder.LITTLE_ENDIAN);
    private final CRC32C crc = new CRC32C();
    private final FilterOutput filterOutput = new FilterOutput();
    // the file position of buffer[0], and the bytes buffered after it
    private long bufferStart = HEADER_BYTES;
    private int buffered;
    private long entries;
    private boolean done;
    // bytes of filters written since the file was last forced
    private long unforced;

    private Writer(
        Path target,
        Path temp,
        FileChannel channel,
        long generation,
        long startLsn,
        boolean durable) {
      this.target = target;
      this.temp = temp;
      this.channel = channel;
      this.generation = generation;
      this.startLsn = startLsn;
      this.durable = durable;
    }

    /**
     * Writes one key: its filter, or a tombstone if {@code filter} is null, with its expiry time
     * ({@link Keyspace#NO_EXPIRY} for none).
     */
    void write(Key name, long lsn, long expireAt, RedisCuckooFilter<byte[]> filter)
        throws IOException {
      write(name, lsn, expireAt, filter == null ? null : filter::writeTo);
    }

    /**
     * Writes one key whose filter is {@code image}, captured earlier ({@link
     * RedisCuckooFilter#captureImage}), with its expiry time.
     */
    void writeImage(Key name, long lsn, long expireAt, FilterImage image) throws IOException {
      write(name, lsn, expireAt, image::writeTo);
    }

    /** Writes one key whose filter {@code body} writes, or a tombstone if it is null. */
    private void write(Key name, long lsn, long expireAt, FilterBody body) throws IOException {
      byte[] key = name.bytes();
      crc.reset();
      putInt(key.length);
      putBytes(key, 0, key.length, true);
      room(ENTRY_FIELDS_BYTES);
      int fieldsAt = buffered;
      fields
          .putLong(fieldsAt, lsn)
          .putInt(fieldsAt + 8, name.db())
          .putLong(fieldsAt + 12, body == null ? Keyspace.NO_EXPIRY : expireAt)
          .putLong(fieldsAt + 20, body == null ? TOMBSTONE : 0);
      crc.update(buffer, fieldsAt, ENTRY_FIELDS_BYTES - 8);
      buffered += ENTRY_FIELDS_BYTES;
      long lengthAt = position() - 8;
      if (body != null) {
        long blobStart = position();
        body.writeTo(filterOutput);
        patchLength(lengthAt, position() - blobStart);
      }
      putInt((int) crc.getValue());
      entries++;
    }

    /** Returns the file position after the last byte written or buffered. */
    private long position() {
      return bufferStart + buffered;
    }

    /** Makes room for {@code bytes} (at most the buffer's size) in the buffer. */
    private void room(int bytes) throws IOException {
      if (buffered + bytes > buffer.length) {
        drain();
      }
    }

    private void putInt(int value) throws IOException {
      room(4);
      fields.putInt(buffered, value);
      buffered += 4;
    }

    /** Appends bytes (checksummed if {@code checksum}), through the buffer. */
    private void putBytes(byte[] bytes, int offset, int length, boolean checksum)
        throws IOException {
      if (checksum) {
        crc.update(bytes, offset, length);
      }
      if (length > buffer.length - buffered) {
        drain();
        if (length > buffer.length) {
          writeFully(channel, ByteBuffer.wrap(bytes, offset, length), bufferStart);
          bufferStart += length;
          return;
        }
      }
      System.arraycopy(bytes, offset, buffer, buffered, length);
      buffered += length;
    }

    /** Writes the filter length of the entry whose length field is at {@code lengthAt}. */
    private void patchLength(long lengthAt, long length) throws IOException {
      if (lengthAt >= bufferStart) {
        fields.putLong((int) (lengthAt - bufferStart), length);
      } else {
        ByteBuffer field = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        writeFully(channel, field.putLong(0, length), lengthAt);
      }
    }

    /** Writes the buffered bytes to the file. */
    private void drain() throws IOException {
      if (buffered > 0) {
        writeFully(channel, ByteBuffer.wrap(buffer, 0, buffered), bufferStart);
        bufferStart += buffered;
        buffered = 0;
      }
    }

    /**
     * Forces the file every {@link #INCREMENTAL_FSYNC_BYTES} of filters (Redis's
     * rdb-save-incremental-fsync): the kernel then never holds a whole large snapshot as dirty
     * pages, whose writeback would stall the log's own writes and fsyncs for hundreds of
     * milliseconds at the final fsync.
     */
    private void wrote(int bytes) throws IOException {
      unforced += bytes;
      if (durable && unforced >= INCREMENTAL_FSYNC_BYTES) {
        unforced = 0;
        drain();
        channel.force(false);
      }
    }

    /** Writes the header, forces the file to disk and renames it over the snapshot. */
    void commit() throws IOException {
      drain();
      writeFully(channel, ByteBuffer.wrap(header(generation, startLsn, entries)), 0);
      channel.truncate(bufferStart);
      if (durable) {
        channel.force(true);
        channel.close();
        FileSync.replace(temp, target);
      } else {
        channel.close();
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      done = true;
    }

    /** Closes the file; deletes the temporary file unless {@link #commit} succeeded. */
    @Override
    public void close() throws IOException {
      if (!done) {
        try {
          channel.close();
        } finally {
          Files.deleteIfExists(temp);
        }
      }
    }

    /** What writes a filter's serialized form: the filter itself, or an image of it. */
    @FunctionalInterface
    private interface FilterBody {
      void writeTo(OutputStream out) throws IOException;
    }

    /** Where a filter writes itself: into the entry's checksum and the writer's buffer. */
    private final class FilterOutput extends OutputStream {
      private final byte[] one = new byte[1];

      @Override
      public void write(int b) throws IOException {
        one[0] = (byte) b;
        write(one, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        putBytes(b, off, len, true);
        wrote(len);
      }
    }
  }

  /** Bytes of the buffer a snapshot is written through. */
  static final int BUFFER_BYTES = 1 << 16;

  /** Bytes of filters written between two forces of a snapshot file being written. */
  static final int INCREMENTAL_FSYNC_BYTES = 8 << 20;

  private SnapshotFile() {}

  /** Returns the temporary file a snapshot is written to before it replaces {@code target}. */
  public static Path tempOf(Path target) {
    return target.resolveSibling(target.getFileName() + ".tmp");
  }

  /** Starts writing a snapshot of {@code generation} to the temporary file of {@code target}. */
  static Writer open(Path target, FileChannels files, long generation, long startLsn)
      throws IOException {
    return open(target, files, generation, startLsn, true);
  }

  /**
   * Starts writing a snapshot to the temporary file of {@code target}; unless {@code durable}, it
   * is never forced to disk (a file that is not read after a crash, such as a transfer, need not
   * be, and a gigabyte forced in 8 MiB steps costs seconds).
   */
  static Writer open(
      Path target, FileChannels files, long generation, long startLsn, boolean durable)
      throws IOException {
    Path temp = tempOf(target);
    FileChannel channel =
        files.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
    return new Writer(target, temp, channel, generation, startLsn, durable);
  }

  private static byte[] header(long generation, long startLsn, long entries) {
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    header.put(MAGIC).putLong(generation).putLong(startLsn).putLong(entries);
    CRC32C crc = new CRC32C();
    crc.update(header.array(), 0, 32);
    header.putInt((int) crc.getValue());
    return header.array();
  }

  private static void writeFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    long at = position;
    while (buffer.hasRemaining()) {
      at += channel.write(buffer, at);
    }
  }

  /**
   * Loads a snapshot into the map: every key, or only those {@code wanted} accepts (the others are
   * skipped without being read into memory or checked).
   *
   * @throws FilterFormatException if the file is damaged, naming the offset (no partial result is
   *     usable then)
   */
  static Loaded read(Path file, Keyspace into, Predicate<Key> wanted) throws IOException {
    try (InputStream raw = Files.newInputStream(file)) {
      return read(raw, Files.size(file), into, wanted);
    }
  }

  /**
   * What a snapshot's header says: its log generation and how many entries (keys, and keys deleted
   * while it was written) it holds.
   *
   * @param generation the log generation the snapshot began
   * @param entries the entries that follow the header
   */
  public record Summary(long generation, long entries) {}

  /**
   * Reads the header of {@code file} if it is a snapshot (for tools that are handed one by
   * mistake), without reading the entries.
   *
   * @return the header, or null if the file does not begin with a snapshot's magic
   * @throws FilterFormatException if it begins like a snapshot but its header is damaged
   * @throws IOException if the file cannot be read
   */
  public static Summary summary(Path file) throws IOException {
    byte[] header = new byte[HEADER_BYTES];
    try (InputStream in = Files.newInputStream(file)) {
      int read = in.readNBytes(header, 0, HEADER_BYTES);
      if (read < MAGIC.length || !Arrays.equals(header, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
        return null;
      }
      if (read < HEADER_BYTES) {
        throw new FilterFormatException("header", read, "snapshot truncated");
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(header, 0, HEADER_BYTES - 4);
    ByteBuffer h = ByteBuffer.wrap(header, 8, HEADER_BYTES - 8).order(ByteOrder.LITTLE_ENDIAN);
    long generation = h.getLong();
    h.getLong();
    long entries = h.getLong();
    if (h.getInt() != (int) crc.getValue()) {
      throw new FilterFormatException("header", HEADER_BYTES - 4, "snapshot header checksum");
    }
    return new Summary(generation, entries);
  }

  /**
   * Loads a snapshot of {@code size} bytes from a stream (a transfer read straight from the
   * master's connection), as {@link #read(Path, Keyspace, Predicate)} does; reads exactly {@code
   * size} bytes unless it is damaged.
   */
  static Loaded read(InputStream raw, long size, Keyspace into, Predicate<Key> wanted)
      throws IOException {
    Map<Key, Long> lsns = new HashMap<>();
    try {
      DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16));
      byte[] magic = new byte[8];
      in.readFully(magic);
      if (!Arrays.equals(magic, MAGIC)) {
        throw new FilterFormatException("magic", 0, "not a snapshot file");
      }
      byte[] header = Arrays.copyOf(magic, HEADER_BYTES);
      in.readFully(header, 8, HEADER_BYTES - 8);
      ByteBuffer h = ByteBuffer.wrap(header, 8, HEADER_BYTES - 8).order(ByteOrder.LITTLE_ENDIAN);
      long generation = h.getLong();
      long startLsn = h.getLong();
      long keys = h.getLong();
      CRC32C crc = new CRC32C();
      crc.update(header, 0, HEADER_BYTES - 4);
      if (h.getInt() != (int) crc.getValue()) {
        throw new FilterFormatException("header", HEADER_BYTES - 4, "snapshot header checksum");
      }
      long position = HEADER_BYTES;
      long loaded = 0;
      for (long n = 0; n < keys; n++) {
        position = readEntry(in, position, size, into, lsns, wanted);
        loaded++;
      }
      if (position != size) {
        throw new FilterFormatException("end", position, "trailing bytes");
      }
      return new Loaded(generation, startLsn, loaded, lsns);
    } catch (EOFException e) {
      throw new FilterFormatException("data", size, "snapshot truncated", e);
    }
  }

  private static long readEntry(
      DataInputStream in,
      long position,
      long size,
      Keyspace into,
      Map<Key, Long> lsns,
      Predicate<Key> wanted)
      throws IOException {
    long keyLength = Integer.reverseBytes(in.readInt()) & 0xffffffffL;
    if (keyLength > size - position - 16) {
      throw new FilterFormatException("keyLength", position, "key length " + keyLength);
    }
    byte[] keyBytes = new byte[(int) keyLength];
    in.readFully(keyBytes);
    CRC32C crc = new CRC32C();
    crc.update(keyBytes);
    long lsn = Long.reverseBytes(in.readLong());
    int db = Integer.reverseBytes(in.readInt());
    long expireAt = Long.reverseBytes(in.readLong());
    if (db < 0) {
      throw new FilterFormatException("db", position + 4 + keyLength + 8, "database " + db);
    }
    if (db >= into.databases()) {
      throw new IOException(
          "a key of database "
              + db
              + " at offset "
              + position
              + " but the server has "
              + into.databases()
              + " databases; restart with"
              + " --databases "
              + (db + 1)
              + " or more");
    }
    crc.update(
        ByteBuffer.allocate(20)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putLong(lsn)
            .putInt(db)
            .putLong(expireAt)
            .array());
    long blobLength = Long.reverseBytes(in.readLong());
    long blobStart = position + 4 + keyLength + ENTRY_FIELDS_BYTES;
    Key key = new Key(db, keyBytes);
    boolean tombstone = blobLength == TOMBSTONE;
    if (!tombstone && (blobLength < 0 || blobLength > size - blobStart - 4)) {
      throw new FilterFormatException("filterLength", blobStart - 8, "filter length " + blobLength);
    }
    long blobBytes = tombstone ? 0 : blobLength;
    if (!wanted.test(key)) {
      in.skipNBytes(blobBytes + 4);
      return blobStart + blobBytes + 4;
    }
    RedisCuckooFilter<byte[]> filter = null;
    if (!tombstone) {
      BoundedCrcInputStream bounded = new BoundedCrcInputStream(in, blobLength, crc);
      filter = RedisCuckooFilter.readFrom(bounded, ItemHashers.redisBytes());
      if (bounded.remaining() != 0) {
        throw new FilterFormatException("filter", blobStart, "filter length mismatch");
      }
    }
    if (Integer.reverseBytes(in.readInt()) != (int) crc.getValue()) {
      throw new FilterFormatException("crc", blobStart + blobBytes, "entry checksum");
    }
    if (filter != null) {
      into.put(key, filter);
      if (expireAt != Keyspace.NO_EXPIRY) {
        into.expireAt(key, expireAt);
      }
    }
    lsns.put(key, lsn);
    return blobStart + blobBytes + 4;
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
