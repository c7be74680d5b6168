package dev.cuckoo.server.replication;

/**
 * What the write path tells replication: every record the log gets, in log order, and the messages
 * published (PUBLISH, SPUBLISH), which replicas get but the log does not. Whether replication
 * refuses clients' writes is not asked here: replication pushes its part of that to the write
 * path's {@link dev.cuckoo.server.persist.WriteRefusals}.
 */
public interface WriteStream {
  /** A stream that sends nothing (no replication). */
  WriteStream NONE =
      new WriteStream() {
        @Override
        public void record(int db, byte[][] args, StreamPosition position) {
          position.set(0, null);
        }
      };

  /**
   * Takes one record run in database {@code db} (a transaction as its one record), called in log
   * order with the record's key locks held; sets {@code position} to the stream's offset after it
   * (what WAIT waits for) and, for a master with a stream of its own, where the record stands in it
   * (logged before it, so that a restarted master knows its replication id and offset).
   */
  void record(int db, byte[][] args, StreamPosition position);

  /**
   * Takes a transaction with messages published among its writes (see {@link
   * dev.cuckoo.server.persist.Transaction#addMessage}), called as {@link #record} is: {@code
   * record} is what the log gets (null if it holds no write), {@code stream} every write and
   * message in the order they ran, which replicas get inside one MULTI … EXEC (a lone message
   * alone), as Redis propagates a transaction. Sets {@code position} as {@link #record} does.
   */
  default void record(
      int db,
      byte[][] record,
      java.util.List<dev.cuckoo.server.persist.Transaction.Write> stream,
      StreamPosition position) {
    if (record == null) {
      position.set(0, null);
    } else {
      record(db, record, position);
    }
  }

  /**
   * Sends a command to the replicas that is not a write and is not logged (PUBLISH, SPUBLISH: as
   * Redis propagates them, so that a replica's subscribers get what is published on the master).
   */
  default void propagate(byte[][] args) {}
}
