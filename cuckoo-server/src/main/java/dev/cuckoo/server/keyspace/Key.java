package dev.cuckoo.server.keyspace;

import java.util.Arrays;

/**
 * A key of the keyspace: a database index and an immutable byte string, with a cached hash code.
 * Keys of different databases are different keys.
 *
 * <p>Not final for one reason: the keyspace stores each key as its map entry ({@code
 * Keyspace.Entry}, a Key that also holds the filter), so that a stored key costs one object, not a
 * key and an entry. A subclass must not change equality, hashing or order.
 */
public class Key implements Comparable<Key> {
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

  /** Copies the name, database and hash of {@code key} (the array is shared, not copied). */
  Key(Key key) {
    this.db = key.db;
    this.bytes = key.bytes;
    this.hash = key.hash;
  }

  /** Returns the database index. */
  public final int db() {
    return db;
  }

  /** Returns the key bytes (do not modify). */
  public final byte[] bytes() {
    return bytes;
  }

  /** Returns the same name in another database. */
  public final Key in(int otherDb) {
    return otherDb == db ? this : new Key(otherDb, bytes);
  }

  @Override
  public final int hashCode() {
    return hash;
  }

  @Override
  public final boolean equals(Object other) {
    return other instanceof Key
        && ((Key) other).db == db
        && Arrays.equals(bytes, ((Key) other).bytes);
  }

  @Override
  public final int compareTo(Key other) {
    int byDb = Integer.compare(db, other.db);
    return byDb != 0 ? byDb : Arrays.compareUnsigned(bytes, other.bytes);
  }
}
