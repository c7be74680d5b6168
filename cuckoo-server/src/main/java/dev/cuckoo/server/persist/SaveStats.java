package dev.cuckoo.server.persist;

import java.util.concurrent.atomic.LongAdder;

/**
 * What INFO persistence, LASTSAVE and the save points read about snapshots, which serve as both
 * Redis's RDB saves and its AOF rewrites here: the changes since the last successful save and its
 * time, how many completed, whether the last background one succeeded, how long it took, how long
 * the running one has taken, and how many failed in a row. One per server, kept across CONFIG SET
 * appendonly; updated by the one thread that saves (under the save lock), read by any.
 *
 * <p>As Redis's rdb.c: a save that succeeds sets the status to ok, one run in the background that
 * fails sets it to err, and a failed foreground save (SAVE, a shutdown's) leaves it as it was (its
 * caller gets the error).
 */
public final class SaveStats {
  /**
   * Redis's error for writes after a failed background save with {@code stop-writes-on-bgsave-error
   * yes} (server.c, {@code shared.bgsaveerr}), without the dash.
   */
  public static final String BGSAVE_ERROR =
      "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to"
          + " disk. Commands that may modify the data set are disabled, because this instance is"
          + " configured to report errors during writes if RDB snapshotting fails"
          + " (stop-writes-on-bgsave-error option). Please check the Redis logs for details about"
          + " the RDB error.";

  private final LongAdder changes = new LongAdder();
  private volatile long changesAtStart;
  private volatile long lastSaveSeconds = System.currentTimeMillis() / 1000;
  private volatile long lastTrySeconds;
  private volatile long completed;
  private volatile boolean lastSucceeded = true;
  private volatile long lastSeconds = -1;
  private volatile long startedMillis = -1;
  private volatile long consecutiveFailures;
  private final WriteRefusals refusals;

  /**
   * Creates the statistics of a server whose failed background saves refuse writes through {@code
   * refusals}.
   */
  public SaveStats(WriteRefusals refusals) {
    this.refusals = refusals;
  }

  /** Counts one write (rdb_changes_since_last_save). */
  public void changed() {
    changes.increment();
  }

  /** Notes that a snapshot starts; {@code background} if no client waits for it (BGSAVE). */
  void started(boolean background) {
    startedMillis = System.currentTimeMillis();
    changesAtStart = changes.sum();
    if (background) {
      lastTrySeconds = startedMillis / 1000;
    }
  }

  /** Notes that the snapshot that started ended, successfully or not. */
  void ended(boolean succeeded, boolean background) {
    long started = startedMillis;
    long now = System.currentTimeMillis();
    lastSeconds = started < 0 ? -1 : (now - started) / 1000;
    startedMillis = -1;
    if (succeeded) {
      // the writes made while it ran may be missing from it: they still count (Redis's
      // dirty - dirty_before_bgsave)
      changes.add(-changesAtStart);
      lastSaveSeconds = now / 1000;
      lastSucceeded = true;
      completed++;
      consecutiveFailures = 0;
    } else {
      lastSucceeded &= !background;
      consecutiveFailures++;
    }
    refusals.saveFailed(!lastSucceeded);
  }

  /** Returns the number of writes since the last successful save (rdb_changes_since_last_save). */
  public long changesSinceSave() {
    return changes.sum();
  }

  /** Returns the Unix time of the last successful save, or of the start (LASTSAVE). */
  public long lastSaveSeconds() {
    return lastSaveSeconds;
  }

  /** Returns the Unix time the last background save was tried (0: never). */
  public long lastTrySeconds() {
    return lastTrySeconds;
  }

  /** Returns the number of snapshots that completed since start (rdb_saves, aof_rewrites). */
  public long completed() {
    return completed;
  }

  /** Returns "ok", or "err" if the last background snapshot failed (rdb_last_bgsave_status). */
  public String lastStatus() {
    return lastSucceeded ? "ok" : "err";
  }

  /** Returns true if the last background snapshot failed and none succeeded since. */
  public boolean lastFailed() {
    return !lastSucceeded;
  }

  /** Returns the seconds the last snapshot took, -1 before the first (rdb_last_bgsave_time_sec). */
  public long lastSeconds() {
    return lastSeconds;
  }

  /** Returns the seconds the running snapshot has taken, -1 if none runs. */
  public long currentSeconds() {
    long started = startedMillis;
    return started < 0 ? -1 : (System.currentTimeMillis() - started) / 1000;
  }

  /** Returns the snapshots that failed since the last one that succeeded. */
  public long consecutiveFailures() {
    return consecutiveFailures;
  }

  /**
   * Returns {@link #BGSAVE_ERROR} if writes are refused for a failed background save (as Redis's
   * writeCommandsDeniedByDiskError: stop-writes-on-bgsave-error on, save points set, the last
   * background save failed), otherwise null.
   */
  public String refusal(boolean stopWritesOnError, SavePoints points) {
    return stopWritesOnError && !points.isEmpty() && !lastSucceeded ? BGSAVE_ERROR : null;
  }

  /**
   * Returns the save point that fires now ("C changes in S seconds"), or null (see {@link
   * SavePoints}).
   */
  public String due(SavePoints points, long nowSeconds) {
    return points.due(
        changes.sum(), nowSeconds - lastSaveSeconds, nowSeconds - lastTrySeconds, !lastSucceeded);
  }
}
