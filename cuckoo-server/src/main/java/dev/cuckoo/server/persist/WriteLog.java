package dev.cuckoo.server.persist;

/**
 * The log as the write path sees it: where executed write commands are recorded for recovery, and
 * what says when the replies acknowledging them may go out. {@link Persistence} is it; only the
 * write path calls it, since that is where a write is decided, recorded and announced.
 */
public interface WriteLog {
  /** A log that records nothing, refuses nothing and acknowledges everything (persistence off). */
  WriteLog NONE =
      new WriteLog() {
        @Override
        public long append(int db, byte[][] args) {
          return 0;
        }

        @Override
        public long append(int db, byte[][] args, StreamMark mark) {
          return 0;
        }

        @Override
        public String refusal() {
          return null;
        }

        @Override
        public boolean commit(long firstLsn, long lastLsn) {
          return true;
        }

        @Override
        public boolean acknowledged(long lsn) {
          return true;
        }
      };

  /**
   * Records one write command run in database {@code db} and returns its sequence number (0 if
   * nothing is recorded). Called while the command's key locks are held, so records of one key are
   * in the order the writes were applied.
   */
  long append(int db, byte[][] args);

  /**
   * Records the stream mark {@code mark} (if not null: where the record stands in the replication
   * stream, see {@link StreamMark}) and then one write command run in database {@code db}, in the
   * same log write, as {@link #append(int, byte[][])} does; returns the record's sequence number.
   */
  long append(int db, byte[][] args, StreamMark mark);

  /**
   * Returns the error that write commands get instead of running (without the leading dash), or
   * null while writes are accepted. Checked with the key's lock held, before a write changes
   * anything.
   */
  String refusal();

  /**
   * Makes the writes of records {@code firstLsn..lastLsn} durable per the fsync policy; called
   * before a batch of replies that acknowledges them is sent.
   *
   * @return true if they are acknowledged; false if they were undone after a log failure
   */
  boolean commit(long firstLsn, long lastLsn);

  /**
   * Returns true if record {@code lsn} is acknowledged: durable per the fsync policy and not undone
   * after a log failure.
   */
  boolean acknowledged(long lsn);
}
