package dev.cuckoo.server.persist;

import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * What SAVE, BGSAVE, the save points and a shutdown ask of durability, in either mode: {@link
 * Persistence} (the log and snapshots, {@code appendonly yes}) or {@link SnapshotOnly} (snapshots
 * alone, {@code appendonly no}).
 */
public interface Snapshots extends Closeable {
  /**
   * Writes a snapshot of every key on the calling thread (a shutdown's save).
   *
   * @throws IOException if it cannot be written; the previous snapshot is then left as it was
   */
  void save() throws IOException;

  /**
   * Starts a snapshot on the background thread and returns its outcome: null when it succeeded,
   * otherwise the error text; or returns null (no future) if a snapshot is already running.
   *
   * @param background true for BGSAVE and the save points (a failure sets {@code
   *     rdb_last_bgsave_status:err}); false for SAVE, whose client gets the error instead, and for
   *     the log's rewrites (BGREWRITEAOF, the automatic rewrite), whose failures show in {@code
   *     aof_last_bgrewrite_status} only
   */
  CompletableFuture<String> saveAsync(boolean background);

  /**
   * Starts a background snapshot (BGSAVE, a save point).
   *
   * @return false if a snapshot is already running
   */
  default boolean saveInBackground() {
    return saveAsync(true) != null;
  }

  /**
   * DEBUG RELOAD: saves a snapshot (unless {@code save} is false), then reads back what the data
   * files hold and puts it in the keyspace: in place of every key ({@code flush}), or over the keys
   * there ({@code merge}: a key read back replaces one of the same name; without it a key both hold
   * refuses the load). Runs on the calling thread while every key is locked.
   *
   * @param flushing runs, with every key locked, just before a flush empties the keyspace (as
   *     Redis's emptyData marks the watchers of the keys it removes)
   * @return null when done, otherwise the error reply (without the dash)
   */
  String reload(boolean save, boolean flush, boolean merge, Runnable flushing);

  /** Returns true while a snapshot runs. */
  boolean saving();

  /** Returns the error writes get (without the dash), or null while writes are accepted. */
  String refusal();

  /** Returns the counts and times of snapshots (INFO persistence, LASTSAVE). */
  SaveStats saveStats();
}
