package dev.cuckoo.server.keyspace;

import java.util.Arrays;

/**
 * A key of the keyspace: a database index and an immutable byte string, with a cached hash code.
 * Keys of different databases are different keys.
 */
public final class Key implements Comparable<Key> {
  private final int db;
  private final byte[] bytes;
  private final int hash;

  /** Wraps the bytes as a key of database 0 (not copied: callers hand over ownership). */
  public Key(byte[] bytes) {
    this(0, bytes);
  }

  /** Wraps the bytes as a key of database {@code db} (not copied). */
  public Key(int db, byte[] bytes) {
    this.db = db;
    this.bytes = bytes;
    this.hash = Arrays.hashCode(bytes) * 31 + db;
  }

  /** Returns the database index. */
  public int db() {
    return db;
  }

  /** Returns the key bytes (do not modify). */
  public byte[] bytes() {
    return bytes;
  }

  /** Returns the same name in another database. */
  public Key in(int otherDb) {
    return otherDb == db ? this : new Key(otherDb, bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Key
        && ((Key) other).db == db
        && Arrays.equals(bytes, ((Key) other).bytes);
  }

  @Override
  public int compareTo(Key other) {
    int byDb = Integer.compare(db, other.db);
    return byDb != 0 ? byDb : Arrays.compareUnsigned(bytes, other.bytes);
  }
}
