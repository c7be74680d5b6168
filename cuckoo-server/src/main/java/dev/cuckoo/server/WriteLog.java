package dev.cuckoo.server;

/** Where executed write commands are recorded for recovery (the append-only log). */
interface WriteLog {
  /** A log that records nothing (persistence disabled). */
  WriteLog NONE = args -> { };

  /**
   * Records one write command. Called while the command's key locks are held, so records of one
   * key are in the order the writes were applied.
   */
  void append(byte[][] args);
}
