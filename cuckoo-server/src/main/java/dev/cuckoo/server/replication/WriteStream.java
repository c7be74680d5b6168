package dev.cuckoo.server.replication;

/**
 * What the write path tells replication: every record the log gets, in log order, and whether
 * replication refuses clients' writes now (a read-only replica, too few good replicas).
 */
public interface WriteStream {
  /** A stream that sends nothing and refuses nothing (no replication). */
  WriteStream NONE =
      new WriteStream() {
        @Override
        public long record(int db, byte[][] args) {
          return 0;
        }

        @Override
        public String refusal() {
          return null;
        }
      };

  /**
   * Takes one record run in database {@code db} (a transaction as its one record), called in log
   * order with the record's key locks held; returns the stream's offset after it (what WAIT waits
   * for).
   */
  long record(int db, byte[][] args);

  /**
   * Takes a transaction with messages published among its writes (see {@link
   * dev.cuckoo.server.persist.Transaction#addMessage}), called as {@link #record} is: {@code
   * record} is what the log gets (null if it holds no write), {@code stream} every write and
   * message in the order they ran, which replicas get inside one MULTI … EXEC (a lone message
   * alone), as Redis propagates a transaction. Returns the stream's offset after it.
   */
  default long record(
      int db, byte[][] record, java.util.List<dev.cuckoo.server.persist.Transaction.Write> stream) {
    return record == null ? 0 : record(db, record);
  }

  /**
   * Sends a command to the replicas that is not a write and is not logged (PUBLISH, SPUBLISH: as
   * Redis propagates them, so that a replica's subscribers get what is published on the master).
   */
  default void propagate(byte[][] args) {}

  /**
   * Returns, once, where the record just taken by {@link #record} stands in this master's stream
   * (logged before it, so that a restarted master knows its replication id and offset), or null if
   * it is not in a stream of its own (a replica, or a master no replica ever followed).
   */
  default dev.cuckoo.server.persist.StreamMark takeRecordMark() {
    return null;
  }

  /**
   * Returns true if this server deletes keys whose time has passed (a master); a replica waits for
   * its master's deletions and meanwhile answers as if the keys were gone.
   */
  default boolean deletesExpired() {
    return true;
  }

  /** Returns the error a client's write gets (without the dash) because of replication, or null. */
  String refusal();
}
