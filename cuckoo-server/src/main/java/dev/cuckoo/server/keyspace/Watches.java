package dev.cuckoo.server.keyspace;

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
public final class Watches {
  /** A connection that watches keys: it keeps its own list and is marked when one changes. */
  public interface Watcher {
    /**
     * Adds a watched key; returns false if it was watched already.
     *
     * @param expiredNow whether the key had expired when it was watched (its expiry then is no
     *     change)
     */
    boolean watch(Key key, boolean expiredNow);

    /** Forgets the watched keys and the mark; returns the keys that were watched. */
    Set<Key> unwatchAll();

    /** Marks a watched key as changed (from any thread). */
    void touchWatched();
  }

  private final ConcurrentHashMap<Key, Set<Watcher>> watchers = new ConcurrentHashMap<>();

  /** Watches the key for the session (caller holds the key's lock). */
  public void watch(Watcher session, Key key, boolean expiredNow) {
    if (session.watch(key, expiredNow)) {
      watchers.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(session);
    }
  }

  /** Forgets every key the session watches and clears its mark. */
  public void unwatchAll(Watcher session) {
    for (Key key : session.unwatchAll()) {
      watchers.computeIfPresent(
          key,
          (k, set) -> {
            set.remove(session);
            return set.isEmpty() ? null : set;
          });
    }
  }

  /** Marks the key's watchers. */
  public void touch(Key key) {
    if (watchers.isEmpty()) {
      return;
    }
    Set<Watcher> sessions = watchers.get(key);
    if (sessions != null) {
      for (Watcher session : sessions) {
        session.touchWatched();
      }
    }
  }

  /**
   * Marks the watchers of every watched key of database {@code db} (-1: every database) that exists
   * now, as a flush or swap of it changes exactly those (caller holds every lock, before the
   * change).
   */
  public void touchDatabase(int db, Keyspace keyspace) {
    List<Key> affected = new ArrayList<>();
    for (Map.Entry<Key, Set<Watcher>> entry : watchers.entrySet()) {
      Key key = entry.getKey();
      if ((db == -1 || key.db() == db) && keyspace.get(key) != null) {
        affected.add(key);
      }
    }
    for (Key key : affected) {
      touch(key);
    }
  }

  /** Returns the number of clients watching at least one key (INFO's watching_clients). */
  public int watchingClients() {
    Set<Watcher> sessions = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (Set<Watcher> watching : watchers.values()) {
      sessions.addAll(watching);
    }
    return sessions.size();
  }

  /** Returns the number of watched keys (INFO). */
  public int size() {
    return watchers.size();
  }
}
