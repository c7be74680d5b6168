package dev.cuckoo.server.command;

import dev.cuckoo.server.keyspace.CommandClock;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.keyspace.TtlAverages;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * Active expiry: the periodic sweep that deletes keys whose time has passed, each deletion a write
 * of nobody's command that the {@link WritePath} records as DEL.
 */
final class ExpiryCycle {
  private static final int EXPIRY_KEYS_PER_LOOP = 20;
  private static final int EXPIRY_ACCEPTABLE_STALE_PERCENT = 10;

  private final ServerContext context;
  private final Keyspace keyspace;
  private final WritePath writes;
  // where the cycle goes on in each database (only the cycle's thread uses them)
  private final Map<Integer, Iterator<Key>> expiryCursors = new HashMap<>();

  // DEBUG SET-ACTIVE-EXPIRE 0 turns the cycle off
  private volatile boolean active = true;

  /**
   * Turns the cycle on or off (DEBUG SET-ACTIVE-EXPIRE): off, an expired key is deleted only when a
   * command reaches it.
   */
  void active(boolean on) {
    active = on;
  }

  /** Creates the cycle over the server's keyspace and its write path. */
  ExpiryCycle(ServerContext context, WritePath writes) {
    this.context = context;
    this.keyspace = context.keyspace();
    this.writes = writes;
  }

  /**
   * The active expiry cycle (every 100 ms), paced as Redis's activeExpireCycle (expire.c) with its
   * default effort: per database it looks at 20 keys with an expiry, continuing from where the last
   * cycle stopped, deletes those whose time has passed (each logged as DEL) and looks at 20 more
   * while more than 10% of those looked at had expired. So, as in Redis, a few expired keys among
   * many live ones are reclaimed over several cycles and count in DBSIZE and INFO keyspace until
   * then (while invisible to every command), and a mass expiry is reclaimed at once. The unexpired
   * keys it looks at feed INFO's avg_ttl estimate ({@link TtlAverages}). Stops after {@code
   * budgetMillis}; does nothing while writes are refused.
   */
  void run(long budgetMillis) {
    if (!active) {
      return;
    }
    TtlAverages ttlAverages = keyspace.ttlAverages();
    long start = System.nanoTime();
    // keys looked at and deleted by this cycle, for INFO's expired_stale_perc
    long[] totals = new long[2];
    boolean stopped = false;
    for (int db = 0; db < keyspace.databases() && !stopped; db++) {
      if (keyspace.expiring(db) == 0) {
        expiryCursors.remove(db);
        ttlAverages.clear(db);
        continue;
      }
      stopped = expireIn(db, start, budgetMillis, totals);
    }
    // stopped by its budget, not because writes are refused (a replica expires nothing)
    boolean capped = stopped && writes.accepting();
    if (totals[0] > 0 || capped) {
      context.expiryStats().cycle(totals[0], totals[1], System.nanoTime() - start, capped);
    }
  }

  /**
   * Runs the cycle's loops over one database; returns true if the cycle must stop: its time budget
   * is spent or writes are refused.
   */
  private boolean expireIn(int db, long start, long budgetMillis, long[] totals) {
    // the milliseconds left of the unexpired keys looked at, for INFO's avg_ttl
    long millisLeft = 0;
    long unexpired = 0;
    int loopsWithUnexpired = 0;
    boolean repeat;
    do {
      if (System.nanoTime() - start > budgetMillis * 1_000_000L || !writes.accepting()) {
        keyspace.ttlAverages().record(db, millisLeft, unexpired, loopsWithUnexpired);
        return true;
      }
      Iterator<Key> cursor =
          expiryCursors.computeIfAbsent(db, unused -> keyspace.keysWithExpiry().iterator());
      long now = System.currentTimeMillis();
      long unexpiredBefore = unexpired;
      int sampled = 0;
      int expired = 0;
      boolean done = false;
      while (sampled < EXPIRY_KEYS_PER_LOOP) {
        if (!cursor.hasNext()) {
          expiryCursors.remove(db);
          done = true;
          break;
        }
        Key key = cursor.next();
        if (key.db() == db) {
          sampled++;
          long at = keyspace.expireAt(key);
          if (at == Keyspace.NO_EXPIRY) {
            continue;
          }
          if (at > now) {
            millisLeft += at - now;
            unexpired++;
          } else if (expireIfDue(key)) {
            expired++;
          }
        }
      }
      totals[0] += sampled;
      totals[1] += expired;
      if (unexpired > unexpiredBefore) {
        loopsWithUnexpired++;
      }
      repeat = !done && expired * 100 / sampled > EXPIRY_ACCEPTABLE_STALE_PERCENT;
    } while (repeat);
    keyspace.ttlAverages().record(db, millisLeft, unexpired, loopsWithUnexpired);
    return false;
  }

  private boolean expireIfDue(Key key) {
    Lock lock = keyspace.lockFor(key);
    lock.lock();
    CommandClock.enter();
    try {
      return writes.deleteIfExpired(key);
    } finally {
      CommandClock.exit();
      lock.unlock();
    }
  }
}
