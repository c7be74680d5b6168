package dev.cuckoo.server.persist;

import dev.cuckoo.server.keyspace.Key;

/**
 * What the log needs to know about the writes it records, answered by the command table: which keys
 * a record changes and whether it moves data between keys. Recovery, the undo after a failed log
 * write and the log's snapshot rule read it; nothing here lists commands itself.
 */
public interface RecordRules {
  /** Receives the keys a logged command changes (see {@link #keysOf}). */
  @FunctionalInterface
  interface KeySink {
    /** Takes one key the command changes. */
    void key(Key key);

    /**
     * Takes a database whose every key the command changes (-1: every database); ignored unless
     * overridden (a flush or swap then locks and handles everything itself).
     */
    default void database(int db) {}
  }

  /**
   * Hands {@code sink} the keys a logged command run in database {@code db} changes (a transaction
   * record: the keys of each of its writes).
   */
  void keysOf(int db, byte[][] args, KeySink sink);

  /**
   * Returns true if a logged command moves data between keys (or is a transaction holding one): its
   * effect on one key depends on another key's state, so it is replayed whole or not at all, and
   * never runs while a snapshot is being written.
   */
  boolean movesData(byte[][] args);
}
