package dev.cuckoo.server.command;

/**
 * Where executed write commands are recorded for recovery (the append-only log). Only {@link
 * WritePath} calls it: that is where a write is decided, recorded and announced.
 */
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
}
