package dev.cuckoo.examples.logstore;

/** One record read from the log: a put or a tombstone, and the offset where it starts. */
final class LogRecord {
  static final byte TYPE_PUT = 1;
  static final byte TYPE_DELETE = 2;

  private final long offset;
  private final byte type;
  private final byte[] key;
  private final byte[] value;

  LogRecord(long offset, byte type, byte[] key, byte[] value) {
    this.offset = offset;
    this.type = type;
    this.key = key;
    this.value = value;
  }

  /** Returns the file offset of the record's first byte. */
  long offset() {
    return offset;
  }

  /** Returns true for a tombstone (a delete), false for a put. */
  boolean isTombstone() {
    return type == TYPE_DELETE;
  }

  /** Returns the key (not copied). */
  byte[] key() {
    return key;
  }

  /** Returns the value (not copied); empty for a tombstone. */
  byte[] value() {
    return value;
  }
}
