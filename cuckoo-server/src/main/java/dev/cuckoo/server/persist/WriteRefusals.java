package dev.cuckoo.server.persist;

/**
 * What the write path decides a write's refusal from, pushed here by the parts that own each input
 * when it changes: the log (a failed write, a new generation written since), the snapshots (the
 * last background save failed or not), replication (the server's role, its link to its master, its
 * replicas' acknowledgements) and CONFIG SET (the parameters involved). The write path reads it at
 * each write and never asks those parts, as Redis's {@code processCommand} reads the server fields
 * that {@code aof.c}, {@code rdb.c} and {@code replication.c} keep up to date.
 *
 * <p>Every field is volatile and written by its one owner; a write reads the values of the moment.
 * The log's failure is taken only from the log in force ({@link #logInForce}), so that a log that
 * was turned off never refuses writes after it.
 */
public final class WriteRefusals {
  /** Redis's error for a write when too few good replicas are connected (without the dash). */
  public static final String NOREPLICAS = "NOREPLICAS Not enough good replicas to write.";

  /** Redis's error for a client's write on a read-only replica (without the dash). */
  public static final String READONLY = "READONLY You can't write against a read only replica.";

  /** Redis's MASTERDOWN error (without the dash). */
  public static final String MASTERDOWN =
      "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";

  // the log or the snapshots in force (null: neither); guarded by this, read through logging
  private Object log;
  private volatile boolean logging;
  private volatile String logFailure;
  private volatile boolean saveFailed;
  private volatile boolean stopWritesOnSaveError = true;
  private volatile boolean savePointsSet;
  // replication runs (a server without it has no replicas to count, as before its start)
  private volatile boolean replicating;
  private volatile boolean replica;
  private volatile boolean linkUp;
  // the last acknowledgement (milliseconds) of each replica online now
  private volatile long[] onlineAcks = {};
  private volatile boolean replicaReadOnly = true;
  private volatile boolean replicaServeStaleData = true;
  private volatile int minReplicasToWrite;
  private volatile int minReplicasMaxLagSeconds;

  /**
   * Returns the refusal of a command in Redis's order, without the dash, or null: for a write
   * ({@code write}) the log's MISCONF, then NOREPLICAS or READONLY; then {@code memoryRefusal} (the
   * caller's OOM, or null); then, if {@code checkMasterDown}, MASTERDOWN.
   */
  public String refusal(boolean write, String memoryRefusal, boolean checkMasterDown) {
    if (write) {
      String refusal = logRefusal();
      if (refusal == null) {
        refusal = replicationRefusal();
      }
      if (refusal != null) {
        return refusal;
      }
    }
    if (memoryRefusal != null) {
      return memoryRefusal;
    }
    return checkMasterDown && masterDown() ? MASTERDOWN : null;
  }

  /**
   * Returns the log's refusal of writes (without the dash), or null: MISCONF after a failed log
   * write, else {@link SaveStats#BGSAVE_ERROR} after a failed background save (as Redis's
   * writeCommandsDeniedByDiskError: stop-writes-on-bgsave-error on, save points set); none without
   * a log or snapshots.
   */
  public String logRefusal() {
    if (!logging) {
      return null;
    }
    String failure = logFailure;
    if (failure != null) {
      return failure;
    }
    return saveFailed && stopWritesOnSaveError && savePointsSet ? SaveStats.BGSAVE_ERROR : null;
  }

  private String replicationRefusal() {
    if (!replica) {
      int min = minReplicasToWrite;
      int maxLag = minReplicasMaxLagSeconds;
      return replicating && min > 0 && maxLag > 0 && goodReplicas(maxLag) < min ? NOREPLICAS : null;
    }
    return replicaReadOnly ? READONLY : null;
  }

  /**
   * Returns the replicas online now that acknowledged within {@code maxLag} seconds (whole ones),
   * as Redis's refreshGoodSlavesCount counts them.
   */
  public int goodReplicas(int maxLag) {
    long now = System.currentTimeMillis();
    int good = 0;
    for (long ack : onlineAcks) {
      if ((now - ack) / 1000 <= maxLag) {
        good++;
      }
    }
    return good;
  }

  /**
   * Returns true if commands without the {@code stale} flag are refused with MASTERDOWN: a replica
   * whose link is down with replica-serve-stale-data no.
   */
  public boolean masterDown() {
    return replica && !replicaServeStaleData && !linkUp;
  }

  /**
   * Returns true if this server deletes keys whose time has passed now: the log accepts writes and
   * the server is a master (a replica waits for its master's deletions).
   */
  public boolean deletesExpired() {
    return !replica && logRefusal() == null;
  }

  /**
   * Sets the log or the snapshots in force (null: neither), whose failure alone counts from now on;
   * the log then pushes its failure if it has one ({@link #logFailure}).
   */
  public synchronized void logInForce(Object log) {
    if (this.log != log) {
      this.log = log;
      logFailure = null;
      logging = log != null;
    }
  }

  /** Sets the failure of {@code log} (null: it writes again), if it is the log in force. */
  public synchronized void logFailure(Object log, String failure) {
    if (this.log == log) {
      logFailure = failure;
    }
  }

  /** Sets whether the last background save failed (none succeeded since). */
  public void saveFailed(boolean failed) {
    saveFailed = failed;
  }

  /** Sets stop-writes-on-bgsave-error and whether save points are set ({@code save}). */
  public void saveSettings(boolean stopWritesOnError, boolean savePoints) {
    stopWritesOnSaveError = stopWritesOnError;
    savePointsSet = savePoints;
  }

  /**
   * Sets replica-read-only, replica-serve-stale-data, min-replicas-to-write and
   * min-replicas-max-lag.
   */
  public void replicationSettings(
      boolean readOnly, boolean serveStaleData, int minReplicas, int maxLagSeconds) {
    replicaReadOnly = readOnly;
    replicaServeStaleData = serveStaleData;
    minReplicasToWrite = minReplicas;
    minReplicasMaxLagSeconds = maxLagSeconds;
  }

  /**
   * Sets the server's role: a replica ({@code replica}) whose link to its master is connected or
   * not ({@code linkUp}), or a master.
   */
  public void role(boolean replica, boolean linkUp) {
    replicating = true;
    this.replica = replica;
    this.linkUp = linkUp;
  }

  /** Sets the last acknowledgement time (milliseconds) of each replica online now. */
  public void onlineAcks(long[] acksMillis) {
    onlineAcks = acksMillis;
  }
}
