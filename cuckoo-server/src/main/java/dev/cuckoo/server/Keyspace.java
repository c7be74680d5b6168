package dev.cuckoo.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The database: key names mapped to cuckoo filters, guarded by striped locks.
 *
 * <p>Execution model: commands run on the network thread that read them. A command on one key
 * holds that key's stripe lock for its whole execution, including its append-log record, so each
 * command is atomic and the log holds the writes of one key in the order they were applied.
 * Commands on several keys lock their stripes in ascending stripe order; commands on the whole
 * database (FLUSHALL, KEYS, SCAN, DBSIZE, SAVE) lock every stripe in that order, so no lock order
 * cycle exists. Commands of one connection run in order on one thread, so pipelined replies come
 * back in request order. Different keys proceed in parallel on different threads.
 */
final class Keyspace {
  /** Number of lock stripes (a power of two). */
  static final int STRIPES = 256;

  private final ConcurrentHashMap<Key, ScalableCuckooFilter<byte[]>> filters =
      new ConcurrentHashMap<>();
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

  /** Creates an empty keyspace. */
  Keyspace() {
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
  }

  /** Returns the stripe index of a key. */
  static int stripeOf(Key key) {
    int h = key.hashCode();
    h ^= h >>> 16;
    h *= 0x45d9f3b;
    h ^= h >>> 16;
    return h & (STRIPES - 1);
  }

  /** Returns the lock guarding the key. */
  ReentrantLock lockFor(Key key) {
    return stripes[stripeOf(key)];
  }

  /** Locks every stripe, in ascending order. */
  void lockAll() {
    for (ReentrantLock lock : stripes) {
      lock.lock();
    }
  }

  /** Unlocks every stripe. */
  void unlockAll() {
    for (int i = STRIPES - 1; i >= 0; i--) {
      stripes[i].unlock();
    }
  }

  /** Locks the stripes of the keys in ascending stripe order and returns them for unlocking. */
  ReentrantLock[] lockKeys(Key[] keys) {
    boolean[] needed = new boolean[STRIPES];
    int count = 0;
    for (Key key : keys) {
      int stripe = stripeOf(key);
      if (!needed[stripe]) {
        needed[stripe] = true;
        count++;
      }
    }
    ReentrantLock[] locked = new ReentrantLock[count];
    int n = 0;
    for (int i = 0; i < STRIPES; i++) {
      if (needed[i]) {
        stripes[i].lock();
        locked[n++] = stripes[i];
      }
    }
    return locked;
  }

  /** Unlocks locks taken by {@link #lockKeys}. */
  static void unlock(ReentrantLock[] locked) {
    for (int i = locked.length - 1; i >= 0; i--) {
      locked[i].unlock();
    }
  }

  /** Returns the filter stored under the key, or null (caller holds the key's lock). */
  ScalableCuckooFilter<byte[]> get(Key key) {
    return filters.get(key);
  }

  /** Stores a filter under the key (caller holds the key's lock). */
  void put(Key key, ScalableCuckooFilter<byte[]> filter) {
    filters.put(key, filter);
  }

  /** Removes the key; returns true if it existed (caller holds the key's lock). */
  boolean remove(Key key) {
    return filters.remove(key) != null;
  }

  /** Returns the number of keys. */
  int size() {
    return filters.size();
  }

  /** Removes every key (caller holds every lock). */
  void clear() {
    filters.clear();
  }

  /** Returns a snapshot of the keys (consistent if the caller holds every lock). */
  List<Key> keys() {
    return new ArrayList<>(filters.keySet());
  }

  /** Returns the live entry view (caller holds every lock while iterating). */
  Map<Key, ScalableCuckooFilter<byte[]>> entries() {
    return filters;
  }

  /** Returns the heap footprint of every filter, in bytes (approximate while writes run). */
  long usedBytes() {
    long total = 0;
    for (ScalableCuckooFilter<byte[]> filter : filters.values()) {
      total += filter.sizeInBytes();
    }
    return total;
  }
}
