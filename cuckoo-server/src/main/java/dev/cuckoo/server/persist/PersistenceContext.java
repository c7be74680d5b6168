package dev.cuckoo.server.persist;

import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.keyspace.Keyspace;

/** What persistence reads from the running server: its settings, its keyspace, live thresholds. */
public interface PersistenceContext {
  /** Returns the server's settings (directory, fsync policy, repair). */
  Config config();

  /** Returns the keyspace that is recovered into and snapshotted. */
  Keyspace keyspace();

  /** Returns auto-aof-rewrite-percentage (0: no automatic rewrite); CONFIG SET changes it. */
  int rewritePercentage();

  /** Returns auto-aof-rewrite-min-size in bytes; CONFIG SET changes it. */
  long rewriteMinSize();

  /** Returns the server's counts and times of saves, kept across CONFIG SET appendonly. */
  SaveStats saveStats();

  /** Returns the save points in force ({@code save}); CONFIG SET changes them. */
  SavePoints savePoints();

  /** Returns {@code stop-writes-on-bgsave-error}; CONFIG SET changes it. */
  boolean stopWritesOnBgsaveError();

  /** Returns where the log pushes its failure for the write path's refusals. */
  WriteRefusals writeRefusals();

  /**
   * Called after the log forced more records to disk, on the forcing thread (possibly with the
   * log's locks held): what waits for an fsync (WAITAOF) is woken from here; nothing else must be
   * done.
   */
  default void logForced() {}
}
