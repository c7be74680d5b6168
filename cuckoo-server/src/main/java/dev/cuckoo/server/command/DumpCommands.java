package dev.cuckoo.server.command;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.CommandClock;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.KeyspaceEvents;
import dev.cuckoo.server.rdb.DumpPayload;
import dev.cuckoo.server.rdb.DumpPayloadException;
import dev.cuckoo.server.session.Session;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * DUMP and RESTORE with Redis's replies and RedisBloom's payload ({@link DumpPayload}), so keys
 * move between this server and Redis 8 with RedisBloom in both directions.
 *
 * <p>RESTORE checks in Redis's order: its options, then BUSYKEY, then the TTL, then the payload
 * (footer, then content); none of them changes anything. It is logged as Redis propagates it: a
 * relative TTL becomes an absolute one with ABSTTL, so replay and replicas give the key the same
 * expiry; a RESTORE whose absolute TTL has passed answers OK and creates nothing (with REPLACE, the
 * key it replaced is deleted and logged as DEL).
 */
final class DumpCommands {
  static final String BUSYKEY = "BUSYKEY Target key name already exists.";
  static final String INVALID_TTL = "ERR Invalid TTL value, must be >= 0";
  static final String INVALID_IDLETIME = "ERR Invalid IDLETIME value, must be >= 0";
  static final String INVALID_FREQ = "ERR Invalid FREQ value, must be >= 0 and <= 255";

  private static final byte[] ABSTTL = "ABSTTL".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DEL = "DEL".getBytes(StandardCharsets.US_ASCII);

  private final Keyspace keyspace;

  /** Creates the commands over the server's keyspace. */
  DumpCommands(ServerContext context) {
    this.keyspace = context.keyspace();
  }

  /** DUMP key: the payload, or nil for a missing key. */
  void dump(Session session, Request request) {
    Key key = request.key(0);
    Reply reply = session.reply();
    RedisCuckooFilter<byte[]> filter = keyspace.read(key);
    if (filter == null) {
      reply.nullValue();
      return;
    }
    byte[] payload = payload(reply, filter);
    if (payload != null) {
      reply.bulk(payload);
    }
  }

  /**
   * Returns the DUMP payload of a filter, or null after replying the error of a filter too large
   * for one payload (DUMP, MIGRATE).
   */
  static byte[] payload(Reply reply, RedisCuckooFilter<byte[]> filter) {
    try {
      return DumpPayload.encode(filter);
    } catch (IllegalStateException tooLarge) {
      reply.error("ERR " + tooLarge.getMessage());
      return null;
    }
  }

  /** RESTORE's options: REPLACE, ABSTTL, IDLETIME seconds (−1: none). FREQ is accepted. */
  private record Options(boolean replace, boolean absolute, long idleSeconds) {}

  /** RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]. */
  void restore(Session session, Request request) {
    Options options = options(session.reply(), request.args());
    if (options == null) {
      return;
    }
    Key key = request.key(0);
    restore(session, request, options, key, keyspace.get(key));
  }

  /** Parses the options as Redis does, or replies the error and returns null. */
  private static Options options(Reply reply, byte[][] args) {
    boolean replace = false;
    boolean absolute = false;
    long idle = -1;
    long frequency = -1;
    for (int i = 4; i < args.length; i++) {
      String option = Args.lower(args[i]);
      boolean hasValue = i + 1 < args.length;
      if (option.equals("replace")) {
        replace = true;
      } else if (option.equals("absttl")) {
        absolute = true;
      } else if (option.equals("idletime") && hasValue && frequency == -1) {
        Long value = Numbers.parseLong(args[++i]);
        if (value == null) {
          reply.error(Args.NOT_INTEGER);
          return null;
        }
        if (value < 0) {
          reply.error(INVALID_IDLETIME);
          return null;
        }
        idle = value;
      } else if (option.equals("freq") && hasValue && idle == -1) {
        Long value = Numbers.parseLong(args[++i]);
        if (value == null) {
          reply.error(Args.NOT_INTEGER);
          return null;
        }
        if (value < 0 || value > 255) {
          reply.error(INVALID_FREQ);
          return null;
        }
        frequency = value; // accepted; access frequency is not tracked (no LFU policy)
      } else {
        reply.error(Args.SYNTAX_ERROR);
        return null;
      }
    }
    return new Options(replace, absolute, idle);
  }

  private void restore(
      Session session,
      Request request,
      Options options,
      Key key,
      RedisCuckooFilter<byte[]> existing) {
    Reply reply = session.reply();
    byte[][] args = request.args();
    if (existing != null && !options.replace()) {
      reply.error(BUSYKEY);
      return;
    }
    Long ttl = Numbers.parseLong(args[2]);
    if (ttl == null) {
      reply.error(Args.NOT_INTEGER);
      return;
    }
    if (ttl < 0) {
      reply.error(INVALID_TTL);
      return;
    }
    RedisCuckooFilter<byte[]> filter;
    try {
      filter = DumpPayload.decode(args[3]);
    } catch (DumpPayloadException e) {
      reply.error(e.kind().reply());
      return;
    }
    if (!request.write().admits(key, filter.sizeInBytes())) {
      reply.error(Commands.OOM);
      return;
    }
    long expireAt = ttl;
    if (ttl != 0 && !options.absolute()) {
      long now = CommandClock.now();
      expireAt = ttl > Long.MAX_VALUE - now ? Long.MAX_VALUE : ttl + now;
    }
    if (existing != null) {
      keyspace.remove(key);
    }
    if (expireAt != 0
        && expireAt <= CommandClock.now()
        && !session.replaying()
        && !session.fromMaster()) {
      // already expired: nothing is created; a replaced key is deleted
      if (existing != null) {
        request.write().changed(new byte[][] {DEL, key.bytes()});
      }
      reply.ok();
      return;
    }
    keyspace.put(key, filter);
    if (expireAt != 0) {
      keyspace.expireAt(key, expireAt);
    }
    if (options.idleSeconds() >= 0) {
      keyspace.idleSeconds(key, options.idleSeconds());
    }
    request.write().changed(logged(args, expireAt, ttl != 0 && !options.absolute()));
    request.write().notify(KeyspaceEvents.GENERIC, "restore", key);
    reply.ok();
  }

  /** The command as logged: the TTL made absolute (with ABSTTL) when it was relative. */
  private static byte[][] logged(byte[][] args, long expireAt, boolean madeAbsolute) {
    if (!madeAbsolute) {
      return args;
    }
    byte[][] logged = Arrays.copyOf(args, args.length + 1);
    logged[2] = Long.toString(expireAt).getBytes(StandardCharsets.US_ASCII);
    logged[args.length] = ABSTTL;
    return logged;
  }
}
