package dev.cuckoo.server.command;

import dev.cuckoo.server.keyspace.CommandClock;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.KeyspaceEvents;
import dev.cuckoo.server.session.Session;
import java.nio.charset.StandardCharsets;

/**
 * Key expiry: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT (with NX, XX, GT, LT), TTL, PTTL, EXPIRETIME,
 * PEXPIRETIME and PERSIST, answered as Redis 8 answers them. An expiry is logged as PEXPIREAT with
 * the absolute time, as Redis logs it, so a restart neither extends nor shortens it; an expiry time
 * already past deletes the key and is logged as DEL.
 */
public final class ExpiryCommands {
  private static final byte[] PEXPIREAT = "PEXPIREAT".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DEL = "DEL".getBytes(StandardCharsets.US_ASCII);
  private static final int NX = 1;
  private static final int XX = 2;
  private static final int GT = 4;
  private static final int LT = 8;

  private final Keyspace keyspace;

  /** Creates the commands over the server's keyspace. */
  ExpiryCommands(ServerContext context) {
    this.keyspace = context.keyspace();
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
      request.write().changed(new byte[][] {DEL, key.bytes()});
      request.write().notify(KeyspaceEvents.GENERIC, "del", key);
    } else {
      keyspace.expireAt(key, when);
      request.write().notify(KeyspaceEvents.GENERIC, "expire", key);
      request
          .write()
          .changed(
              new byte[][] {
                PEXPIREAT, key.bytes(), Long.toString(when).getBytes(StandardCharsets.US_ASCII)
              });
    }
    reply.integer(1);
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
    long result;
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
    session.reply().integer(result);
  }

  /** PERSIST key: 1 if an expiry was removed, 0 if the key is missing or has none. */
  void persist(Session session, Request request) {
    Key key = request.key(0);
    if (keyspace.get(key) == null || !keyspace.persist(key)) {
      session.reply().integer(0);
      return;
    }
    request.write().changed();
    request.write().notify(KeyspaceEvents.GENERIC, "persist", key);
    session.reply().integer(1);
  }
}
