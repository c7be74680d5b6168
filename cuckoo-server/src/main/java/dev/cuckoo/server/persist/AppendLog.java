package dev.cuckoo.server.persist;

import io.netty.util.concurrent.FastThreadLocal;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * One append-only log file of write commands.
 *
 * <p>File layout (little-endian), version 4: a 32-byte header {@code magic "CKOOLOG4", u64
 * generation, u64 baseLsn, u32 CRC32C of the 24 bytes before it, u32 zero}, then records. A record
 * is {@code u32 length, u32 lengthCrc, u32 payloadCrc, payload}, where the payload is {@code u64
 * lsn, u32 db, u32 argc} followed by {@code argc} times {@code u32 len, bytes} (the command and the
 * database it ran in; version 3, magic {@code CKOOLOG3}, is the same without the database, which is
 * then 0). A transaction is one record (see {@link Transaction}). lengthCrc is the CRC32C of the
 * length field alone and payloadCrc the CRC32C of the payload. The separate length checksum makes
 * record boundaries self-checking; the header checksum makes a damaged generation or base
 * detectable instead of being taken at its word.
 *
 * <p>Every record carries its log sequence number (lsn): numbers grow by one per record across
 * every log file of a data directory. {@code baseLsn} is the number of the last record written
 * before this file was started. Snapshots store, per key, the number of the last record they
 * contain, so recovery can skip what a snapshot already holds (see {@link Persistence}).
 *
 * <p>Versions 1 and 2 (magics {@code CKOOLOG1}, {@code CKOOLOG2}, a 16-byte unchecked header,
 * records without numbers) are still read by {@link LogReader}; they are never appended to.
 *
 * <p>Appends go to an in-memory buffer under a short lock; {@link #flush} writes the buffer to the
 * file (and forces it to disk if asked) before the replies of a batch are sent. Concurrent flushes
 * coalesce: one write and one fsync cover every record appended before it (group commit). A write
 * or fsync that fails leaves the log failed: nothing more is written to this file, the records that
 * are not known to be on disk stay available to {@link #discardUnacknowledged} so that their
 * effects can be undone, and only {@link #rotate} (a new file) ends the failed state.
 */
public final class AppendLog implements Closeable {
  /** File magic (format version 4, the only one: no release wrote another). */
  public static final byte[] MAGIC = {'C', 'K', 'O', 'O', 'L', 'O', 'G', '4'};

  /** Bytes before the first record. */
  public static final int HEADER_BYTES = 32;

  /** Bytes of a record's length, length crc and payload crc fields. */
  public static final int RECORD_HEADER_BYTES = 12;

  private static final int INITIAL_BUFFER = 64 * 1024;

  /**
   * Largest buffer kept for the next batch once written. A pipelined batch of small writes (Netty
   * reads up to 16 × 64 KiB of requests before the replies go out) logs about 1.5 MB; with a limit
   * of 1 MiB each such batch regrew its buffer from 64 KiB by doubling, copying its records about
   * twice over (the largest allocation site of the event loop loading 10^6 small filters,
   * docs/server-benchmark.md).
   */
  private static final int KEPT_BUFFER = 8 << 20;

  private static final byte[] EMPTY = new byte[0];

  private final Object appendLock = new Object();
  private final Object ioLock = new Object();
  // held while the file is forced, so that writes (ioLock) go on meanwhile; taken before ioLock
  private final Object syncLock = new Object();
  private final Path path;
  private final FileChannels files;
  private FileChannel channel;
  private long generation;
  // guarded by appendLock
  private byte[] pending = new byte[INITIAL_BUFFER];
  private int pendingLength;
  private long lastLsn;
  // lastLsn as last seen, read without the lock to guess the next record's number (a stale value
  // only costs a second checksum under the lock)
  private volatile long lastLsnGuess;
  // guarded by ioLock
  private byte[] spare = new byte[INITIAL_BUFFER];
  // the bytes written by forcing flushes since the last fsync (appendfsync always undoes them
  // after a failed fsync): the first unsyncedLength bytes of unsynced
  private byte[] unsynced = EMPTY;
  private int unsyncedLength;
  private byte[] failedBatch = EMPTY;

  // whether discardUnacknowledged ran since the failure: until then the records that were not
  // acknowledged are only here, and a rotation that forgot them would make them look acknowledged
  private boolean failureDiscarded;
  // written under ioLock, read without it
  private volatile long writtenPosition;
  private long syncedPosition;
  private volatile long writtenLsn;
  private volatile long syncedLsn;
  private volatile IOException failure;
  // runs after a force moved syncedLsn (persistence wakes what waits for an fsync: WAITAOF)
  private volatile Runnable afterForce = () -> {};

  private AppendLog(
      Path path, FileChannels files, FileChannel channel, long generation, long end, long lastLsn) {
    this.path = path;
    this.files = files;
    this.channel = channel;
    this.generation = generation;
    this.writtenPosition = end;
    this.syncedPosition = end;
    this.lastLsn = lastLsn;
    this.lastLsnGuess = lastLsn;
    this.writtenLsn = lastLsn;
    this.syncedLsn = lastLsn;
  }

  /**
   * Opens an existing current-version log for appending after its last valid byte {@code end};
   * bytes after it are cut off and the cut is forced to disk.
   */
  static AppendLog openAt(Path path, FileChannels files, long generation, long end, long lastLsn)
      throws IOException {
    FileChannel channel = files.open(path, StandardOpenOption.WRITE);
    try {
      if (channel.size() > end) {
        channel.truncate(end);
        channel.force(true);
      }
      channel.position(end);
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    return new AppendLog(path, files, channel, generation, end, lastLsn);
  }

  /** Creates (or replaces, atomically) an empty log and opens it for appending. */
  public static AppendLog create(Path path, FileChannels files, long generation, long baseLsn)
      throws IOException {
    writeEmpty(path, files, generation, baseLsn);
    return openAt(path, files, generation, HEADER_BYTES, baseLsn);
  }

  /** Returns the 32 header bytes of a current-version log. */
  static byte[] header(long generation, long baseLsn) {
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    header.put(MAGIC).putLong(generation).putLong(baseLsn);
    CRC32C crc = new CRC32C();
    crc.update(header.array(), 0, 24);
    header.putInt((int) crc.getValue()).putInt(0);
    return header.array();
  }

  private static void writeEmpty(Path path, FileChannels files, long generation, long baseLsn)
      throws IOException {
    Path temp = path.resolveSibling(path.getFileName() + ".tmp");
    try (FileChannel out =
        files.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer header = ByteBuffer.wrap(header(generation, baseLsn));
      while (header.hasRemaining()) {
        out.write(header);
      }
      out.force(true);
    } catch (IOException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    FileSync.replace(temp, path);
  }

  /** Returns the encoded size of a record for these arguments. */
  static long recordBytes(byte[][] args) {
    long size = RECORD_HEADER_BYTES + 8L + 4L + 4L;
    for (byte[] arg : args) {
      size += 4L + arg.length;
    }
    return size;
  }

  /**
   * Buffers one record and returns its sequence number. Called while the command's key locks are
   * held, so records of one key are numbered in the order the writes were applied.
   *
   * @throws IllegalArgumentException if the record would exceed 2^31 - 64 bytes
   */
  public long append(int db, byte[][] args) {
    long size = recordBytes(args);
    if (size > Integer.MAX_VALUE - 64) {
      throw new IllegalArgumentException("log record too large: " + size + " bytes");
    }
    // the record is encoded and checksummed outside the lock with the number it will most likely
    // get; under the lock only a wrong guess (another thread appended meanwhile) is redone
    Encoder encoder = ENCODER.get();
    byte[] record = encoder.buffer((int) size);
    int length = (int) size - RECORD_HEADER_BYTES;
    long guess = lastLsnGuess + 1;
    ByteBuffer out = ByteBuffer.wrap(record, 0, (int) size).order(ByteOrder.LITTLE_ENDIAN);
    out.putInt(length)
        .putInt(lengthCrc(encoder.crc, length))
        .putInt(0)
        .putLong(guess)
        .putInt(db)
        .putInt(args.length);
    for (byte[] arg : args) {
      out.putInt(arg.length);
      out.put(arg);
    }
    encoder.checksum(record, length);
    synchronized (appendLock) {
      long lsn = lastLsn + 1;
      if (lsn != guess) {
        out.putLong(RECORD_HEADER_BYTES, lsn);
        encoder.checksum(record, length);
      }
      int need = pendingLength + (int) size;
      if (need > pending.length || need < 0) {
        pending =
            Arrays.copyOf(
                pending,
                (int) Math.min(Integer.MAX_VALUE - 64, Math.max((long) need, 2L * pending.length)));
      }
      System.arraycopy(record, 0, pending, pendingLength, (int) size);
      pendingLength = need;
      lastLsn = lsn;
      lastLsnGuess = lsn;
      return lsn;
    }
  }

  /** A thread's buffer and checksum for encoding records before they are appended. */
  private static final class Encoder {
    final CRC32C crc = new CRC32C();
    private byte[] buffer = new byte[256];

    byte[] buffer(int size) {
      if (buffer.length < size) {
        byte[] grown = new byte[Math.max(size, buffer.length * 2)];
        if (size > 1 << 20) {
          return grown; // a huge record's buffer is not kept
        }
        buffer = grown;
      }
      return buffer;
    }

    /** Writes the CRC32C of the payload (after the record header) into the header. */
    void checksum(byte[] record, int length) {
      crc.reset();
      crc.update(record, RECORD_HEADER_BYTES, length);
      int value = (int) crc.getValue();
      record[8] = (byte) value;
      record[9] = (byte) (value >>> 8);
      record[10] = (byte) (value >>> 16);
      record[11] = (byte) (value >>> 24);
    }
  }

  // network threads are Netty's: a FastThreadLocal is an array index there
  private static final FastThreadLocal<Encoder> ENCODER =
      new FastThreadLocal<>() {
        @Override
        protected Encoder initialValue() {
          return new Encoder();
        }
      };

  /** Returns the CRC32C of a record's length field (four little-endian bytes). */
  static int lengthCrc(CRC32C crc, int length) {
    crc.reset();
    crc.update(length & 0xff);
    crc.update((length >>> 8) & 0xff);
    crc.update((length >>> 16) & 0xff);
    crc.update(length >>> 24);
    return (int) crc.getValue();
  }

  /** Returns the sequence number of the last record appended (buffered or not). */
  long lastLsn() {
    synchronized (appendLock) {
      return lastLsn;
    }
  }

  /**
   * Returns the sequence number of the last record appended, without the append lock: every record
   * whose append returned before this call is at or below it.
   */
  long appendedLsn() {
    return lastLsnGuess;
  }

  /**
   * Sets what runs after each force that moved the records forced to disk ({@link #durableLsn} with
   * {@code forced}); it runs on the forcing thread, possibly with this log's locks held, so it must
   * only read this log's volatile state and hand work elsewhere.
   */
  void afterForce(Runnable hook) {
    afterForce = hook;
  }

  /** Returns the snapshot generation this file continues. */
  long generation() {
    synchronized (ioLock) {
      return generation;
    }
  }

  /** Returns the failure that stopped this log, or null while it works. */
  IOException failure() {
    return failure;
  }

  /**
   * Returns the sequence number up to which records are acknowledged: forced to disk if {@code
   * forced}, otherwise written to the file.
   */
  long durableLsn(boolean forced) {
    return forced ? syncedLsn : writtenLsn;
  }

  /**
   * Makes the records through {@code lsn} durable, written to the file and, if {@code forced},
   * forced to disk, unless another connection's flush (group commit) already covered them; returns
   * {@link #durableLsn} then.
   *
   * @throws IOException if the write or fsync fails (now or before)
   */
  long durableThrough(long lsn, boolean forced) throws IOException {
    if (durableLsn(forced) < lsn) {
      flush(forced);
    }
    return durableLsn(forced);
  }

  /** Returns the file's size as far as records were written to it. */
  long writtenBytes() {
    return writtenPosition;
  }

  /**
   * Writes every record appended so far to the file and, if {@code force}, to the disk. After a
   * failure every call throws that failure again until {@link #rotate} starts a new file.
   *
   * @throws IOException if the write or fsync fails (now or before)
   */
  void flush(boolean force) throws IOException {
    write(force);
    if (force) {
      force();
    }
  }

  /**
   * Writes and forces every record appended so far, then runs {@code then} before any other batch
   * is written: a change of the fsync policy takes effect at a point where nothing written is
   * unforced, so no record is acknowledged under one policy and undone under the other.
   *
   * @throws IOException if the write or fsync fails ({@code then} has not run)
   */
  void forceThen(Runnable then) throws IOException {
    synchronized (syncLock) {
      synchronized (ioLock) {
        flush(true);
        then.run();
      }
    }
  }

  /**
   * Writes every record appended so far to the file (not forced); {@code keep} keeps the bytes
   * until they are forced.
   */
  private void write(boolean keep) throws IOException {
    synchronized (ioLock) {
      if (failure != null) {
        throw failure;
      }
      byte[] data;
      int length;
      long lsn;
      synchronized (appendLock) {
        data = pending;
        length = pendingLength;
        lsn = lastLsn;
        if (length > 0) {
          // the spare is handed over, never shared: a failed write must not leave the buffer
          // being written aliased with the one appends go to
          pending = spare != null ? spare : new byte[INITIAL_BUFFER];
          spare = null;
          pendingLength = 0;
        }
      }
      try {
        if (length > 0) {
          ByteBuffer buffer = ByteBuffer.wrap(data, 0, length);
          long at = writtenPosition;
          while (buffer.hasRemaining()) {
            at += channel.write(buffer, at);
          }
          writtenPosition = at;
          writtenLsn = lsn;
          if (keep) {
            keepUnsynced(data, length);
          }
          // the written buffer becomes the next spare; a huge one is not kept
          spare = data.length > KEPT_BUFFER ? new byte[INITIAL_BUFFER] : data;
        }
      } catch (IOException | RuntimeException e) {
        if (length > 0 && writtenLsn != lsn) {
          // the batch is not (completely) in the file; bytes of it past writtenPosition are torn
          failedBatch = Arrays.copyOf(data, length);
        }
        failure = e instanceof IOException ? (IOException) e : new IOException(e);
        failureDiscarded = false;
        throw failure;
      }
    }
  }

  /**
   * Forces what was written so far to the disk. Writes go on meanwhile: the fsync runs under its
   * own lock, not the one writes take, so a slow fsync (a snapshot's writeback queued before it)
   * delays only those waiting for durability, never the write of another batch.
   */
  private void force() throws IOException {
    if (forceWritten()) {
      afterForce.run();
    }
  }

  /** Forces what was written; returns true if that moved the records known to be on disk. */
  private boolean forceWritten() throws IOException {
    synchronized (syncLock) {
      FileChannel forcing;
      long lsn;
      long position;
      int covered;
      synchronized (ioLock) {
        if (failure != null) {
          throw failure;
        }
        if (syncedLsn >= writtenLsn) {
          return false;
        }
        forcing = channel;
        lsn = writtenLsn;
        position = writtenPosition;
        covered = unsyncedLength;
      }
      try {
        forcing.force(false);
      } catch (IOException | RuntimeException e) {
        synchronized (ioLock) {
          if (failure == null) {
            failure = e instanceof IOException ? (IOException) e : new IOException(e);
            failureDiscarded = false;
          }
          throw failure;
        }
      }
      synchronized (ioLock) {
        // rotate() and failures take syncLock first, so the file is still the one forced
        syncedLsn = lsn;
        syncedPosition = position;
        unsyncedLength -= covered;
        System.arraycopy(unsynced, covered, unsynced, 0, unsyncedLength);
        if (unsynced.length > 1 << 20 && unsyncedLength < INITIAL_BUFFER) {
          unsynced = Arrays.copyOf(unsynced, INITIAL_BUFFER);
        }
      }
      return true;
    }
  }

  /** Appends written bytes to {@link #unsynced}, growing it by doubling (caller holds ioLock). */
  private void keepUnsynced(byte[] data, int length) {
    if (unsyncedLength + length > unsynced.length) {
      unsynced =
          Arrays.copyOf(
              unsynced,
              Math.max(unsyncedLength + length, Math.max(INITIAL_BUFFER, 2 * unsynced.length)));
    }
    System.arraycopy(data, 0, unsynced, unsyncedLength, length);
    unsyncedLength += length;
  }

  private static byte[] append(byte[] to, byte[] data, int length) {
    byte[] out = Arrays.copyOf(to, to.length + length);
    System.arraycopy(data, 0, out, to.length, length);
    return out;
  }

  /**
   * After a failure: returns the bytes of every record that is not acknowledged, and forgets them.
   * With {@code forced} acknowledgement (appendfsync always) those are the records written since
   * the last successful fsync, the batch whose write failed and everything buffered since;
   * otherwise the failed batch and everything buffered since. The log stays failed.
   */
  byte[] discardUnacknowledged(boolean forced) {
    synchronized (syncLock) {
      synchronized (ioLock) {
        synchronized (appendLock) {
          byte[] out = forced ? Arrays.copyOf(unsynced, unsyncedLength) : EMPTY;
          out = append(out, failedBatch, failedBatch.length);
          out = append(out, pending, pendingLength);
          if (forced) {
            writtenPosition = syncedPosition;
            writtenLsn = syncedLsn;
          }
          unsyncedLength = 0;
          failedBatch = EMPTY;
          pendingLength = 0;
          failureDiscarded = failure != null;
          return out;
        }
      }
    }
  }

  /**
   * Ends this file and starts a new one: the records appended so far are written and forced (or, if
   * the log failed, the file is cut back to its last acknowledged record), the file is renamed to
   * {@code retired}, and an empty file of generation {@code newGeneration} takes its place. Appends
   * wait meanwhile, so every record up to the returned number is in the retired file and every
   * later one in the new file.
   *
   * @return the sequence number of the last record in the retired file
   * @throws IOException if the old file cannot be finished or the new one created (the log is then
   *     failed), or if a write failed and {@link #discardUnacknowledged} has not taken its records
   *     yet (the failure is thrown again: the caller must handle it first)
   */
  long rotate(long newGeneration, Path retired) throws IOException {
    if (failure == null) {
      // most of the records are written and forced before appends are stopped: the final flush
      // below, with appends waiting, then has only the last few to write and force
      flush(true);
    }
    synchronized (syncLock) {
      synchronized (ioLock) {
        synchronized (appendLock) {
          if (failure != null && !failureDiscarded) {
            // a write failed after the flush above and its records are not undone yet: ending the
            // file now would number them as written (a snapshot failing next would lose them)
            throw failure;
          }
          if (failure == null) {
            flush(true);
          } else {
            try {
              channel.truncate(writtenPosition);
              channel.force(true);
            } catch (IOException e) {
              // the retired file may keep a torn tail; recovery reads it as one
            }
          }
          long base = lastLsn;
          try {
            writeEmpty(
                path.resolveSibling(path.getFileName() + ".new"), files, newGeneration, base);
            FileSync.move(path, retired);
            FileSync.replace(path.resolveSibling(path.getFileName() + ".new"), path);
          } catch (IOException e) {
            Files.deleteIfExists(path.resolveSibling(path.getFileName() + ".new"));
            if (failure == null) {
              failure = e;
              failureDiscarded = false;
            }
            throw e;
          }
          FileChannel next = files.open(path, StandardOpenOption.WRITE);
          try {
            channel.close();
          } catch (IOException e) {
            // the old file is complete and forced; closing it cannot lose records
          }
          channel = next;
          generation = newGeneration;
          writtenPosition = HEADER_BYTES;
          syncedPosition = HEADER_BYTES;
          writtenLsn = base;
          syncedLsn = base;
          unsyncedLength = 0;
          failedBatch = EMPTY;
          failure = null;
          return base;
        }
      }
    }
  }

  @Override
  public void close() throws IOException {
    synchronized (syncLock) {
      synchronized (ioLock) {
        try {
          if (failure == null) {
            flush(true);
          }
        } finally {
          channel.close();
        }
      }
    }
  }
}
