package dev.cuckoo.server.command;

import dev.cuckoo.server.keyspace.CommandClock;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.keyspace.TtlAverages;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * Key expiry: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT (with NX, XX, GT, LT), TTL, PTTL, EXPIRETIME,
 * PEXPIRETIME and PERSIST, answered as Redis 8 answers them. An expiry is logged as PEXPIREAT with
 * the absolute time, as Redis logs it, so a restart neither extends nor shortens it; an expiry time
 * already past deletes the key and is logged as DEL.
 */
public final class ExpiryCommands {
  // DEBUG SET-ACTIVE-EXPIRE 0 turns the background cycle off
  private volatile boolean activeExpire = true;
  private static final byte[] PEXPIREAT = "PEXPIREAT".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DEL = "DEL".getBytes(StandardCharsets.US_ASCII);
  private static final int NX = 1;
  private static final int XX = 2;
  private static final int GT = 4;
  private static final int LT = 8;
  private static final int EXPIRY_KEYS_PER_LOOP = 20;
  private static final int EXPIRY_ACCEPTABLE_STALE_PERCENT = 10;

  private final ServerContext context;
  private final Keyspace keyspace;
  private final WritePath writes;
  // where the active expiry cycle goes on in each database (only the cycle's thread uses them)
  private final Map<Integer, Iterator<Key>> expiryCursors = new HashMap<>();

  /** Creates the commands over the server's keyspace and write log. */
  ExpiryCommands(ServerContext context, WritePath writes) {
    this.context = context;
    this.keyspace = context.keyspace();
    this.writes = writes;
  }

  /** EXPIRE key seconds [NX|XX|GT|LT]. */
  void expire(Session session, Request request) {
    expire(session, request, CommandClock.now(), 1000);
  }

  /** PEXPIRE key milliseconds [NX|XX|GT|LT]. */
  void pexpire(Session session, Request request) {
    expire(session, request, CommandClock.now(), 1);
  }

  /** EXPIREAT key unix-time-seconds [NX|XX|GT|LT]. */
  void expireAt(Session session, Request request) {
    expire(session, request, 0, 1000);
  }

  /** PEXPIREAT key unix-time-milliseconds [NX|XX|GT|LT]. */
  void pexpireAt(Session session, Request request) {
    expire(session, request, 0, 1);
  }

  private void expire(Session session, Request request, long base, long unitMillis) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    int flags = 0;
    for (int i = 3; i < args.length; i++) {
      String option = Args.lower(args[i]);
      switch (option) {
        case "nx":
          flags |= NX;
          break;
        case "xx":
          flags |= XX;
          break;
        case "gt":
          flags |= GT;
          break;
        case "lt":
          flags |= LT;
          break;
        default:
          reply.error("ERR Unsupported option " + Args.text(args[i]));
          return;
      }
    }
    if ((flags & NX) != 0 && (flags & (XX | GT | LT)) != 0) {
      reply.error("ERR NX and XX, GT or LT options at the same time are not compatible");
      return;
    }
    if ((flags & GT) != 0 && (flags & LT) != 0) {
      reply.error("ERR GT and LT options at the same time are not compatible");
      return;
    }
    Long given = Numbers.parseLong(args[2]);
    if (given == null) {
      reply.error("ERR value is not an integer or out of range");
      return;
    }
    long when;
    try {
      when = Math.addExact(Math.multiplyExact(given, unitMillis), base);
    } catch (ArithmeticException e) {
      reply.error("ERR invalid expire time in '" + Args.lower(args[0]) + "' command");
      return;
    }
    Key key = request.key(0);
    Lock lock = keyspace.lockFor(key);
    lock.lock();
    try {
      if (writes.refuses(session)) {
        return;
      }
      if (keyspace.get(key) == null) {
        reply.integer(0);
        return;
      }
      long current = keyspace.expireAt(key);
      boolean none = current == Keyspace.NO_EXPIRY;
      if ((flags & NX) != 0 && !none
          || (flags & XX) != 0 && none
          || (flags & GT) != 0 && (none || when <= current)
          || (flags & LT) != 0 && !none && when >= current) {
        reply.integer(0);
        return;
      }
      if (when <= CommandClock.now() && !session.replaying()) {
        keyspace.remove(key);
        writes.record(session, new byte[][] {DEL, key.bytes()});
      } else {
        keyspace.expireAt(key, when);
        writes.record(
            session,
            new byte[][] {
              PEXPIREAT, key.bytes(), Long.toString(when).getBytes(StandardCharsets.US_ASCII)
            });
      }
      reply.integer(1);
    } finally {
      lock.unlock();
    }
  }

  /** TTL key: seconds left (rounded), -1 without expiry, -2 for a missing key. */
  void ttl(Session session, Request request) {
    timeToLive(session, request, false, false);
  }

  /** PTTL key: milliseconds left, -1 without expiry, -2 for a missing key. */
  void pttl(Session session, Request request) {
    timeToLive(session, request, true, false);
  }

  /** EXPIRETIME key: the expiry as Unix seconds, -1 without expiry, -2 for a missing key. */
  void expireTime(Session session, Request request) {
    timeToLive(session, request, false, true);
  }

  /** PEXPIRETIME key: the expiry as Unix milliseconds, -1 without expiry, -2 if missing. */
  void pexpireTime(Session session, Request request) {
    timeToLive(session, request, true, true);
  }

  private void timeToLive(Session session, Request request, boolean millis, boolean absolute) {
    Key key = request.key(0);
    Lock lock = keyspace.readLockFor(key);
    lock.lock();
    long result;
    try {
      if (keyspace.read(key) == null) {
        result = -2;
      } else {
        long at = keyspace.expireAt(key);
        if (at == Keyspace.NO_EXPIRY) {
          result = -1;
        } else {
          long value = Math.max(0, absolute ? at : at - CommandClock.now());
          // Redis's (ttl + 500) / 1000 on a ttl >= 0 compiles to unsigned arithmetic: EXPIRETIME of
          // PEXPIREAT 2^63 - 1 is 9223372036854776, not an overflowed negative
          result = millis ? value : Long.divideUnsigned(value + 500, 1000);
        }
      }
    } finally {
      lock.unlock();
    }
    session.reply().integer(result);
  }

  /** PERSIST key: 1 if an expiry was removed, 0 if the key is missing or has none. */
  void persist(Session session, Request request) {
    Key key = request.key(0);
    Lock lock = keyspace.lockFor(key);
    lock.lock();
    try {
      if (writes.refuses(session)) {
        return;
      }
      if (keyspace.get(key) == null || !keyspace.persist(key)) {
        session.reply().integer(0);
        return;
      }
      writes.record(session, request);
      session.reply().integer(1);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Turns the background expiry on or off (DEBUG SET-ACTIVE-EXPIRE): off, an expired key is deleted
   * only when a command reaches it.
   */
  void activeExpire(boolean on) {
    activeExpire = on;
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
  void expireCycle(long budgetMillis) {
    if (!activeExpire) {
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
      return deleteIfExpired(key);
    } finally {
      CommandClock.exit();
      lock.unlock();
    }
  }

  /**
   * Deletes the key if its expiry has passed and logs a DEL (caller holds the key's lock); returns
   * true if it did. The DEL is not one of a client's writes: nothing waits for it, and a later
   * record of the key is behind it in the log.
   */
  boolean deleteIfExpired(Key key) {
    if (!keyspace.isExpired(key) || !writes.accepting()) {
      return false;
    }
    keyspace.remove(key);
    context.expiredKeys().incrementAndGet();
    byte[][] del = {DEL, key.bytes()};
    writes.expired(key, del);
    return true;
  }
}
