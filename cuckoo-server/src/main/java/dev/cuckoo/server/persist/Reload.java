package dev.cuckoo.server.persist;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;

/**
 * Puts keys read back from the data files into the live keyspace: the last step of DEBUG RELOAD and
 * of rebuilding keys after a failed log write. The caller holds every key's lock.
 */
final class Reload {
  private static final System.Logger LOGGER = System.getLogger(Reload.class.getName());

  /** Redis's DEBUG RELOAD reply when the data read back cannot be loaded. */
  static final String LOAD_ERROR = "ERR Error trying to load the snapshot, check server logs.";

  /** The DEBUG RELOAD reply when the snapshot cannot be written first. */
  static final String SAVE_ERROR = "ERR Error trying to save the DB, check server logs.";

  private Reload() {}

  /**
   * Ends DEBUG RELOAD once the files were read into {@code loaded}: puts its keys into {@code
   * target} ({@link #into}), unless NOFLUSH without MERGE finds a key both hold; returns the error
   * reply then, otherwise null. {@code flushing} runs just before a flush empties {@code target}
   * (the caller marks the watchers of the keys about to go).
   */
  static String apply(
      Keyspace target, Keyspace loaded, boolean flush, boolean merge, Runnable flushing) {
    if (!flush && !merge) {
      Key conflict = conflict(target, loaded);
      if (conflict != null) {
        LOGGER.log(
            System.Logger.Level.WARNING,
            "DEBUG RELOAD NOFLUSH: the snapshot holds a key the database holds too (db {0});"
                + " nothing was loaded (MERGE lets the snapshot's keys replace them)",
            conflict.db());
        return LOAD_ERROR;
      }
    }
    if (flush) {
      flushing.run();
    }
    into(target, loaded, flush);
    LOGGER.log(System.Logger.Level.INFO, "DB reloaded by DEBUG RELOAD");
    return null;
  }

  /**
   * Returns a key {@code loaded} and {@code target} both hold, or null if none: DEBUG RELOAD
   * NOFLUSH without MERGE refuses such a load (Redis stops the server on it).
   */
  static Key conflict(Keyspace target, Keyspace loaded) {
    for (Key key : loaded.entries().keySet()) {
      if (target.stored(key) != null) {
        return key;
      }
    }
    return null;
  }

  /**
   * Copies every key of {@code loaded} into {@code target}, replacing a key of the same name;
   * {@code flush} first empties {@code target}.
   */
  static void into(Keyspace target, Keyspace loaded, boolean flush) {
    if (flush) {
      target.clear();
    }
    for (Key key : loaded.entries().keySet()) {
      copy(target, loaded, key);
    }
  }

  /** Makes {@code key} in {@code target} what it is in {@code loaded} (removed if absent there). */
  static void copy(Keyspace target, Keyspace loaded, Key key) {
    RedisCuckooFilter<byte[]> filter = loaded.stored(key);
    if (filter == null) {
      target.remove(key);
      return;
    }
    target.put(key, filter);
    long expireAt = loaded.expireAt(key);
    if (expireAt == Keyspace.NO_EXPIRY) {
      target.persist(key);
    } else {
      target.expireAt(key, expireAt);
    }
  }
}
