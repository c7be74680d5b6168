package dev.cuckoo.server.command;

import dev.cuckoo.server.keyspace.Key;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keys held by a write whose end comes later: MIGRATE serializes its keys, waits for the target off
 * the network threads, and deletes them only then. While a key is held, another connection's write
 * of it waits (the write path asks it to run again on {@link Hold#released}), so no write can land
 * between the serialization and the delete and be lost with it; in Redis nothing runs at all while
 * MIGRATE blocks the server. Reads go on and see the key until it is deleted.
 *
 * <p>Holds are placed and released with the keys' locks held or by their owner's write, so a write
 * that took a key's lock sees every hold placed before it. Thread-safe.
 */
final class KeyHolds {
  /** A hold of some keys by one connection. */
  static final class Hold {
    private final long owner;
    private final List<Key> keys;
    private final CompletableFuture<Void> released = new CompletableFuture<>();

    private Hold(long owner, List<Key> keys) {
      this.owner = owner;
      this.keys = keys;
    }

    /** Returns the connection that holds the keys. */
    long owner() {
      return owner;
    }

    /** Returns what completes when the hold is released. */
    CompletableFuture<Void> released() {
      return released;
    }
  }

  private final ConcurrentHashMap<Key, Hold> held = new ConcurrentHashMap<>();

  /** Holds {@code keys} for connection {@code owner} (their locks held) and returns the hold. */
  Hold hold(long owner, List<Key> keys) {
    Hold hold = new Hold(owner, List.copyOf(keys));
    for (Key key : hold.keys) {
      held.put(key, hold);
    }
    return hold;
  }

  /** Releases a hold: the writes that waited for its keys run again. */
  void release(Hold hold) {
    for (Key key : hold.keys) {
      held.remove(key, hold);
    }
    hold.released.complete(null);
  }

  /**
   * Returns what a write of connection {@code session} to {@code keys} waits for (a hold of another
   * connection on one of them), or null if it may run now; with {@code keys} null, a write of whole
   * databases, any hold of another connection.
   */
  CompletableFuture<Void> blocking(long session, Key[] keys) {
    if (held.isEmpty()) {
      return null;
    }
    if (keys == null) {
      for (Hold hold : held.values()) {
        if (hold.owner != session) {
          return hold.released;
        }
      }
      return null;
    }
    for (Key key : keys) {
      Hold hold = held.get(key);
      if (hold != null && hold.owner != session) {
        return hold.released;
      }
    }
    return null;
  }

  /** Returns the number of keys held (INFO and tests). */
  int size() {
    return held.size();
  }
}
