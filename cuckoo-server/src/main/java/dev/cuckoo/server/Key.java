package dev.cuckoo.server;

import java.util.Arrays;

/** A key of the keyspace: an immutable byte string with a cached hash code. */
final class Key implements Comparable<Key> {
  private final byte[] bytes;
  private final int hash;

  /** Wraps the bytes (not copied: callers hand over ownership). */
  Key(byte[] bytes) {
    this.bytes = bytes;
    this.hash = Arrays.hashCode(bytes);
  }

  /** Returns the key bytes (do not modify). */
  byte[] bytes() {
    return bytes;
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Key && Arrays.equals(bytes, ((Key) other).bytes);
  }

  @Override
  public int compareTo(Key other) {
    return Arrays.compareUnsigned(bytes, other.bytes);
  }
}
