package dev.cuckoo.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys connections WATCH, and which connections watch each: any change to a watched key (a
 * write from any connection, a deletion by expiry, a flush that removes it) marks its watchers so
 * that their next EXEC fails.
 *
 * <p>A key is registered while its stripe lock is held and touched while the writer holds it too,
 * so a write either happens before WATCH (and is not seen) or after it (and marks it). EXEC checks
 * the mark with every stripe locked.
 */
final class Watches {
  private final ConcurrentHashMap<Key, Set<Session>> watchers = new ConcurrentHashMap<>();

  /** Watches the key for the session (caller holds the key's lock). */
  void watch(Session session, Key key, boolean expiredNow) {
    if (session.watch(key, expiredNow)) {
      watchers.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(session);
    }
  }

  /** Forgets every key the session watches and clears its mark. */
  void unwatchAll(Session session) {
    for (Key key : session.unwatchAll()) {
      watchers.computeIfPresent(
          key,
          (k, set) -> {
            set.remove(session);
            return set.isEmpty() ? null : set;
          });
    }
  }

  /**
   * Marks the watchers of every key a logged write run in {@code db} changes. Whole-database
   * changes (FLUSHDB, FLUSHALL, SWAPDB) call {@link #touchDatabase} themselves before changing
   * anything, as only the keys that exist then are changed.
   */
  void touched(int db, byte[][] args) {
    if (watchers.isEmpty()) {
      return;
    }
    // whole databases: done by the command itself, before the change
    Replay.keysOf(db, args, this::touch);
  }

  /** Marks the key's watchers. */
  void touch(Key key) {
    if (watchers.isEmpty()) {
      return;
    }
    Set<Session> sessions = watchers.get(key);
    if (sessions != null) {
      for (Session session : sessions) {
        session.touchWatched();
      }
    }
  }

  /**
   * Marks the watchers of every watched key of database {@code db} (-1: every database) that exists
   * now, as a flush or swap of it changes exactly those (caller holds every lock, before the
   * change).
   */
  void touchDatabase(int db, Keyspace keyspace) {
    List<Key> affected = new ArrayList<>();
    for (Map.Entry<Key, Set<Session>> entry : watchers.entrySet()) {
      Key key = entry.getKey();
      if ((db == -1 || key.db() == db) && keyspace.get(key) != null) {
        affected.add(key);
      }
    }
    for (Key key : affected) {
      touch(key);
    }
  }

  /** Returns the number of watched keys (INFO). */
  int size() {
    return watchers.size();
  }
}
