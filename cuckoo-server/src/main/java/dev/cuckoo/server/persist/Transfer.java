package dev.cuckoo.server.persist;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;

/**
 * A full-sync transfer between a master and a replica: a fuzzy snapshot in the snapshot file's
 * format whose numbers are replication-stream offsets instead of log sequence numbers, and the
 * replay of the stream that follows it.
 *
 * <p>The master cuts at stream offset {@code start} (every record ending at or before it is in
 * every key) and writes each key under its lock with the stream offset reached then; the replica
 * loads it, checksummed entry by entry, and replays each later record only onto keys whose number
 * is below the record's end offset, exactly as recovery replays the log after a snapshot. So a
 * write that reached a key both through the snapshot and through the stream is applied once.
 */
public final class Transfer {
  /**
   * The capability a replica announces ({@code REPLCONF capa lz4}) when it reads a compressed
   * transfer.
   */
  public static final String CAPABILITY = "lz4";

  /**
   * A compressed transfer begins with these 8 bytes, then the u64 (little-endian) length of the
   * transfer it holds, then that transfer as one LZ4 frame. The first 7 bytes are the snapshot
   * file's, so a link that checks them accepts both forms.
   */
  static final byte[] COMPRESSED_MAGIC = {'C', 'K', 'O', 'O', 'S', 'N', 'P', 'Z'};

  private static final int COMPRESSED_HEADER = 16;

  private Transfer() {}

  /** What a loaded transfer held: its cut and the number each key was written with. */
  public static final class Loaded {
    private final SnapshotFile.Loaded loaded;

    private Loaded(SnapshotFile.Loaded loaded) {
      this.loaded = loaded;
    }

    /** Returns the stream offset of the cut. */
    public long start() {
      return loaded.startLsn();
    }

    /** Returns the number of keys loaded. */
    public long keys() {
      return loaded.keys();
    }

    /** Returns the largest number a key was written with (the cut if none is larger). */
    public long last() {
      long last = loaded.startLsn();
      for (long number : loaded.lsns().values()) {
        last = Math.max(last, number);
      }
      return last;
    }

    /**
     * Returns what replays the stream after the cut onto {@code target}, skipping each record for
     * the keys that already hold it. The record number passed to it is the record's end offset.
     *
     * @param applier runs records on {@code target}, logging nothing
     * @param rules which keys a record changes and whether it moves data
     */
    public LogReader.RecordSink replay(RecordApplier applier, RecordRules rules, Keyspace target) {
      return new Replay(applier, rules, target, loaded.lsns(), loaded.startLsn(), key -> true);
    }
  }

  /**
   * Writes the keys of {@code keyspace} to {@code file} (never forced to disk: a transfer is not
   * read after a crash), each under its read lock with the number {@code number} gives at that
   * moment (the stream offset); a key gone by then is written as a tombstone.
   *
   * @param keys the keys listed across the cut ({@link Keyspace#keysAcross})
   * @param start the stream offset at the cut
   */
  public static void write(
      Path file, long start, List<Key> keys, Keyspace keyspace, LongSupplier number)
      throws IOException {
    try (SnapshotFile.Writer writer =
        SnapshotFile.open(file, FileChannels.DEFAULT, 0, start, false)) {
      for (Key key : keys) {
        Lock lock = keyspace.readLockFor(key);
        lock.lock();
        try {
          RedisCuckooFilter<byte[]> filter = keyspace.stored(key);
          writer.write(key, number.getAsLong(), keyspace.expireAt(key), filter);
        } finally {
          lock.unlock();
        }
      }
      writer.commit();
    }
  }

  /**
   * Writes the transfer in {@code raw} to {@code compressed} as one LZ4 frame behind {@link
   * #COMPRESSED_MAGIC} and the raw length (a transfer of mostly empty tables shrinks a
   * hundredfold).
   */
  public static void compress(Path raw, Path compressed) throws IOException {
    long rawLength = Files.size(raw);
    try (OutputStream file = Files.newOutputStream(compressed)) {
      ByteBuffer header = ByteBuffer.allocate(COMPRESSED_HEADER).order(ByteOrder.LITTLE_ENDIAN);
      header.put(COMPRESSED_MAGIC).putLong(rawLength);
      file.write(header.array());
      try (OutputStream frame =
          new LZ4FrameOutputStream(
              new BufferedOutputStream(file, 1 << 16),
              LZ4FrameOutputStream.BLOCKSIZE.SIZE_4MB,
              rawLength,
              LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE,
              LZ4FrameOutputStream.FLG.Bits.CONTENT_SIZE)) {
        Files.copy(raw, frame);
      }
    }
  }

  /** A compressed transfer whose frame does not decode: damaged, as a failed checksum is. */
  private static IOException damagedFrame(RuntimeException malformed) {
    return new IOException(
        "damaged transfer: its LZ4 frame does not decode (" + malformed.getMessage() + ")",
        new dev.cuckoo.FilterFormatException(
            "frame", COMPRESSED_HEADER, malformed.getMessage(), malformed));
  }

  /**
   * Loads a transfer of {@code length} bytes, plain or compressed ({@link #compress}), into {@code
   * into} (a fresh keyspace) as it arrives, reading exactly that many bytes of {@code in} unless it
   * is damaged.
   *
   * @throws IOException if it is damaged (a checksum, a length, its end) or the connection ends:
   *     nothing of it may be used
   */
  public static Loaded load(InputStream in, long length, Keyspace into) throws IOException {
    try {
      byte[] head = new byte[(int) Math.min(COMPRESSED_HEADER, length)];
      int got = in.readNBytes(head, 0, head.length);
      if (got == COMPRESSED_HEADER
          && Arrays.equals(head, 0, COMPRESSED_MAGIC.length, COMPRESSED_MAGIC, 0, 8)) {
        long rawLength = ByteBuffer.wrap(head, 8, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (rawLength < 0) {
          throw new IOException(
              "damaged transfer: declared length " + rawLength + " (expected: >= 0)");
        }
        BufferedInputStream buffered = new BufferedInputStream(in, 1 << 16);
        InputStream frame = new LZ4FrameInputStream(buffered);
        Loaded loaded = new Loaded(SnapshotFile.read(frame, rawLength, into, key -> true));
        if (frame.read() >= 0 || buffered.read() >= 0) {
          throw new IOException("damaged transfer: bytes after its end");
        }
        return loaded;
      }
      InputStream whole = new SequenceInputStream(new ByteArrayInputStream(head, 0, got), in);
      return new Loaded(SnapshotFile.read(whole, length, into, key -> true));
    } catch (dev.cuckoo.FilterFormatException e) {
      throw new IOException("damaged transfer: " + e.getMessage(), e);
    } catch (net.jpountz.lz4.LZ4Exception e) {
      throw damagedFrame(e);
    } catch (IOException e) {
      // the frame reader reports a malformed frame as an IOException caused by LZ4Exception
      if (e.getCause() instanceof net.jpountz.lz4.LZ4Exception malformed) {
        throw damagedFrame(malformed);
      }
      throw e;
    }
  }
}
