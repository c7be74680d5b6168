package dev.cuckoo.server.persist;

/**
 * What INFO persistence says about snapshots, which serve as both Redis's RDB saves and its AOF
 * rewrites here: how many completed, whether the last one succeeded, how long it took, how long the
 * running one has taken, and how many failed in a row. Updated by the one thread that saves (under
 * the save lock), read by any.
 */
public final class SaveStats {
  private volatile long completed;
  private volatile boolean lastSucceeded = true;
  private volatile long lastSeconds = -1;
  private volatile long startedMillis = -1;
  private volatile long consecutiveFailures;

  /** Notes that a snapshot starts. */
  void started() {
    startedMillis = System.currentTimeMillis();
  }

  /** Notes that the snapshot that started ended, successfully or not. */
  void ended(boolean succeeded) {
    long started = startedMillis;
    lastSeconds = started < 0 ? -1 : (System.currentTimeMillis() - started) / 1000;
    startedMillis = -1;
    lastSucceeded = succeeded;
    if (succeeded) {
      completed++;
      consecutiveFailures = 0;
    } else {
      consecutiveFailures++;
    }
  }

  /** Returns the number of snapshots that completed since start (rdb_saves, aof_rewrites). */
  public long completed() {
    return completed;
  }

  /** Returns "ok", or "err" if the last snapshot failed (rdb_last_bgsave_status). */
  public String lastStatus() {
    return lastSucceeded ? "ok" : "err";
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
}
