package dev.cuckoo.server.persist;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;

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
   * Loads a transfer of {@code length} bytes into {@code into} (a fresh keyspace) as it arrives,
   * reading exactly that many bytes of {@code in} unless it is damaged.
   *
   * @throws IOException if it is damaged (a checksum, a length, its end) or the connection ends:
   *     nothing of it may be used
   */
  public static Loaded load(InputStream in, long length, Keyspace into) throws IOException {
    try {
      return new Loaded(SnapshotFile.read(in, length, into, key -> true));
    } catch (dev.cuckoo.FilterFormatException e) {
      throw new IOException("damaged transfer: " + e.getMessage(), e);
    }
  }
}
