package dev.cuckoo.server.persist;

import dev.cuckoo.FilterImage;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;

/**
 * Writes the keys of a fuzzy checkpoint: one at a time, each as it is when visited, while commands
 * go on. A small filter is written under its stripe's read lock; a big one ({@value #IMAGE_BYTES}
 * bytes or more) from an image captured under that lock and written without it (copy on write: a
 * region of its table is copied aside only when a command changes it before the snapshot has
 * written it). A key deleted before it is visited is written as a tombstone.
 */
final class Checkpoint {
  /**
   * Filters at least this big are written from an image ({@link RedisCuckooFilter#captureImage}).
   */
  private static final long IMAGE_BYTES = 1 << 20;

  /** The least {@link #copyBudget}. */
  private static final long MIN_COPY_BUDGET_BYTES = 16L << 20;

  private Checkpoint() {}

  /**
   * Writes {@code keys} of {@code keyspace}; each with the number {@code lsn} gives while the key
   * is locked (the last log record applied, 0 without a log).
   */
  static void writeKeys(
      SnapshotFile.Writer writer, List<Key> keys, Keyspace keyspace, LongSupplier lsn)
      throws IOException {
    for (Key key : keys) {
      Lock lock = keyspace.readLockFor(key);
      lock.lock();
      FilterImage image;
      long keyLsn;
      long expireAt;
      try {
        RedisCuckooFilter<byte[]> filter = keyspace.stored(key);
        expireAt = keyspace.expireAt(key);
        keyLsn = lsn.getAsLong();
        if (filter == null || filter.sizeInBytes() < IMAGE_BYTES) {
          writer.write(key, keyLsn, expireAt, filter);
          continue;
        }
        image = filter.captureImage(copyBudget(keyspace));
      } finally {
        lock.unlock();
      }
      // a big filter is written from its image while commands go on changing it
      try {
        writer.writeImage(key, keyLsn, expireAt, image);
      } finally {
        // without the lock: a write waiting for the copy budget holds it until this
        image.close();
      }
    }
  }

  /**
   * The bytes a big filter's image may copy aside at once while a snapshot writes it: a quarter of
   * the heap the keys leave free, at least {@value #MIN_COPY_BUDGET_BYTES}. Beyond it, a write to
   * the filter waits until the snapshot has written the region it changes, rather than fill the
   * heap with copies.
   */
  private static long copyBudget(Keyspace keyspace) {
    long free = Runtime.getRuntime().maxMemory() - keyspace.usedBytes();
    return Math.max(MIN_COPY_BUDGET_BYTES, free / 4);
  }
}
