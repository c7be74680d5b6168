package dev.cuckoo.server.keyspace;

import dev.cuckoo.RedisCuckooFilter;
import java.util.concurrent.locks.Lock;

/**
 * The keyspace's part of one write, from its locks to its end: the stripe locks it holds, the
 * filter of the key it may open for writing (found under those locks, with its size then), whether
 * some key had an expiry time and the memory in use then. {@link Keyspace#beginWrite} fills it;
 * {@link #end} counts the size change of the filter the write opened and releases the locks.
 *
 * <p>So a write asks the keyspace once, at its start, for everything it needs of it, and ends here
 * once: the write path decides the refusal from {@link #usedBytes}, deletes expired keys only if
 * {@link #hadExpiries}, and the handler gets its key's filter through the write scope. One is
 * reused write after write (the write scope holds it); nothing of it outlives {@link #end}.
 */
public final class KeyspaceWrite {
  // filled by Keyspace.beginWrite (same package), cleared by end()
  // the locks held: one stripe's, or several in ascending stripe order; null: none
  Lock one;
  Lock[] several;
  // where the opened filter's size change is counted
  MemoryCount memory;
  // the key a write may open (null: none), its stored entry and filter (null: absent or expired)
  Key openable;
  Keyspace.Entry entry;
  RedisCuckooFilter<byte[]> filter;
  long filterBytes;
  // the access clock when the write began: an opened key is counted as accessed then
  int clock;
  long usedBytes;
  boolean hadExpiries;

  /** Creates an empty one, for {@link Keyspace#beginWrite} to fill. */
  public KeyspaceWrite() {}

  /** Returns the key the write may open for writing, or null if it opens none. */
  public Key openable() {
    return openable;
  }

  /**
   * Returns the filter stored under {@link #openable} when the write began, or null if there was
   * none (or it had expired).
   */
  public RedisCuckooFilter<byte[]> filter() {
    return filter;
  }

  /**
   * Returns the heap bytes the keyspace counted when the write began ({@link Keyspace#usedBytes}).
   */
  public long usedBytes() {
    return usedBytes;
  }

  /** Returns true if some key had an expiry time when the write began. */
  public boolean hadExpiries() {
    return hadExpiries;
  }

  /**
   * Ends the write: if it opened its key ({@code opened}) and the key still holds the filter it
   * found, counts the key as accessed and the filter's size change (a filter another one replaced
   * was counted by {@link Keyspace#put}); then releases the locks, last taken first.
   */
  public void end(boolean opened) {
    try {
      if (opened && filter != null && entry.filter == filter) {
        if (entry.accessed != clock) {
          entry.accessed = clock;
        }
        memory.add(filter.sizeInBytes() - filterBytes);
      }
    } finally {
      if (one != null) {
        one.unlock();
      } else if (several != null) {
        Keyspace.unlock(several);
      }
      one = null;
      several = null;
      memory = null;
      openable = null;
      entry = null;
      filter = null;
    }
  }
}
