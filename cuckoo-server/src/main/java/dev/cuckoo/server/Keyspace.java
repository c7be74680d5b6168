package dev.cuckoo.server;

import dev.cuckoo.ScalableCuckooFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The database: key names mapped to cuckoo filters, guarded by striped locks.
 *
 * <p>Execution model: commands run on the network thread that read them. A command on one key
 * holds that key's stripe lock for its whole execution, including its append-log record, so each
 * command is atomic. Stripes are read-write locks: commands that only read a filter (CF.EXISTS,
 * CF.MEXISTS, CF.COUNT, CF.INFO, CF.DEBUG, CF.SCANDUMP, TYPE) share the read lock, so lookups on
 * one key proceed on several threads at once, while writers hold the write lock alone and the log holds the writes of one key in the order they were applied.
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
  private final ReentrantReadWriteLock[] stripes = new ReentrantReadWriteLock[STRIPES];

  /** Creates an empty keyspace. */
  Keyspace() {
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantReadWriteLock();
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

  /** Returns the exclusive lock guarding the key (for commands that may change it). */
  Lock lockFor(Key key) {
    return stripes[stripeOf(key)].writeLock();
  }

  /** Returns the shared lock guarding the key (for commands that only read it). */
  Lock readLockFor(Key key) {
    return stripes[stripeOf(key)].readLock();
  }

  /** Locks every stripe, in ascending order. */
  void lockAll() {
    for (ReentrantReadWriteLock lock : stripes) {
      lock.writeLock().lock();
    }
  }

  /** Unlocks every stripe. */
  void unlockAll() {
    for (int i = STRIPES - 1; i >= 0; i--) {
      stripes[i].writeLock().unlock();
    }
  }

  /** Locks the stripes of the keys in ascending stripe order and returns them for unlocking. */
  Lock[] lockKeys(Key[] keys) {
    boolean[] needed = new boolean[STRIPES];
    int count = 0;
    for (Key key : keys) {
      int stripe = stripeOf(key);
      if (!needed[stripe]) {
        needed[stripe] = true;
        count++;
      }
    }
    Lock[] locked = new Lock[count];
    int n = 0;
    for (int i = 0; i < STRIPES; i++) {
      if (needed[i]) {
        Lock lock = stripes[i].writeLock();
        lock.lock();
        locked[n++] = lock;
      }
    }
    return locked;
  }

  /** Unlocks locks taken by {@link #lockKeys}. */
  static void unlock(Lock[] locked) {
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
