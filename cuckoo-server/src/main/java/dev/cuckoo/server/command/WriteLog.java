package dev.cuckoo.server.command;

import dev.cuckoo.server.persist.Transaction;

/** Where executed write commands are recorded for recovery (the append-only log). */
public interface WriteLog {
  /** A log that records nothing and refuses nothing (persistence disabled). */
  WriteLog NONE =
      new WriteLog() {
        @Override
        public long append(int db, byte[][] args) {
          return 0;
        }

        @Override
        public String refusal() {
          return null;
        }
      };

  /**
   * Records one write command run in database {@code db} and returns its sequence number (0 if
   * nothing is recorded). Called while the command's key locks are held, so records of one key are
   * in the order the writes were applied.
   */
  long append(int db, byte[][] args);

  /**
   * Returns the error that write commands get instead of running (without the leading dash), or
   * null while writes are accepted. Checked with the key's lock held, before a write changes
   * anything.
   */
  String refusal();

  /**
   * Called for every write a client makes, with its keys still locked, before it is logged (WATCH
   * invalidation).
   */
  default void touched(int db, byte[][] args) {}

  /**
   * Records a write the session made (not while replaying): appends it and notes its number in the
   * session, or, while a transaction runs, adds it to the transaction's single record.
   */
  default void record(Session session, byte[][] args) {
    if (session.replaying()) {
      return;
    }
    touched(session.db(), args);
    Transaction transaction = session.transaction();
    if (transaction != null) {
      transaction.add(session.db(), args);
    } else {
      session.logged(append(session.db(), args));
    }
  }

  /**
   * Logs the writes gathered in {@code transaction} as one record (a single write as itself), so
   * that recovery applies all of them or none (never while replaying).
   *
   * @param db the database the transaction began in
   */
  default void recordAll(Session session, int db, Transaction transaction) {
    java.util.List<Transaction.Write> writes = transaction.writes();
    if (session.replaying() || writes.isEmpty()) {
      return;
    }
    if (writes.size() == 1) {
      session.logged(append(writes.get(0).db, writes.get(0).args));
    } else {
      session.logged(append(db, transaction.encode()));
    }
  }

  /**
   * Answers the session's write with the refusal and returns true if writes are refused now (never
   * while replaying).
   */
  default boolean refuses(Session session) {
    if (session.replaying()) {
      return false;
    }
    String refusal = refusal();
    if (refusal != null) {
      session.reply().error(refusal);
      return true;
    }
    return false;
  }
}
