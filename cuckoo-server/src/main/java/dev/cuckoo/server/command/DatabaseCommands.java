package dev.cuckoo.server.command;

import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.KeyspaceEvents;
import dev.cuckoo.server.session.Session;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Commands on a database's keys: DBSIZE, TYPE, DEL, UNLINK, EXISTS, KEYS, SCAN, FLUSHDB and
 * FLUSHALL.
 */
public final class DatabaseCommands {
  private final Keyspace keyspace;

  /** Creates the commands over the server's shared state. */
  DatabaseCommands(ServerContext context) {
    this.keyspace = context.keyspace();
  }

  private static final byte[] DEL = "DEL".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FLUSHALL = "FLUSHALL".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FLUSHDB = "FLUSHDB".getBytes(StandardCharsets.US_ASCII);
  private static final int SCAN_DEFAULT_COUNT = 10;

  /**
   * DBSIZE: the keys of the selected database (expired keys not yet deleted count, as in Redis).
   */
  void dbsize(Session session, Request request) {
    session.reply().integer(keyspace.size(session.db()));
  }

  /** TYPE key. */
  void type(Session session, Request request) {
    session.reply().simple(keyspace.read(request.key(0)) == null ? "none" : "MBbloomCF");
  }

  /** DEL key [key ...] and UNLINK key [key ...] (the same here: freeing a filter is immediate). */
  void del(Session session, Request request) {
    List<byte[]> removed = new ArrayList<>();
    removed.add(DEL);
    for (Key key : request.keys()) {
      if (keyspace.get(key) != null && keyspace.remove(key)) {
        removed.add(key.bytes());
        request.write().notify(KeyspaceEvents.GENERIC, "del", key);
      }
    }
    if (removed.size() > 1) {
      request.write().changed(removed.toArray(new byte[0][]));
    }
    session.reply().integer(removed.size() - 1);
  }

  /** EXISTS key [key ...]. */
  void exists(Session session, Request request) {
    long count = 0;
    for (Key key : request.keys()) {
      if (keyspace.read(key) != null) {
        count++;
      }
    }
    session.reply().integer(count);
  }

  /** KEYS pattern. */
  void keys(Session session, Request request) {
    byte[][] args = request.args();
    List<byte[]> matched = new ArrayList<>();
    for (Key key : keyspace.keys(session.db())) {
      if (Glob.matches(args[1], key.bytes())) {
        matched.add(key.bytes());
      }
    }
    session.reply().array(matched.size());
    for (byte[] key : matched) {
      session.reply().bulk(key);
    }
  }

  /**
   * The type names SCAN's TYPE option knows: Redis 8's own types (db.c obj_type_name) and the data
   * types its modules register (vector sets, and RedisBloom's bloom, cuckoo, count-min sketch,
   * top-k and t-digest), compared ignoring case. Only MBbloomCF matches keys here.
   */
  private static final java.util.Set<String> SCAN_TYPES =
      java.util.Set.of(
          "string",
          "list",
          "set",
          "zset",
          "hash",
          "stream",
          "vectorset",
          "mbbloom--",
          "mbbloomcf",
          "cmsk-type",
          "topk-type",
          "tdis-type");

  /**
   * Parses a SCAN cursor as Redis does (util.c string2ull): the argument up to its first NUL byte,
   * taken as a strict 64-bit integer if it is one (negative ones refused), else as C's strtoull in
   * base 10 (leading white space, a sign, digits up to 2^64 - 1; a '-' negates modulo 2^64).
   * Returns the unsigned value in a long, or null if Redis answers "invalid cursor".
   */
  static Long parseCursor(byte[] text) {
    int length = 0;
    while (length < text.length && text[length] != 0) {
      length++;
    }
    if (length == 0) {
      return null;
    }
    Long strict = Numbers.parseLong(text, length);
    if (strict != null) {
      return strict < 0 ? null : strict;
    }
    int i = 0;
    while (i < length && (text[i] == ' ' || text[i] >= '\t' && text[i] <= '\r')) {
      i++;
    }
    boolean negative = i < length && text[i] == '-';
    if (i < length && (text[i] == '+' || text[i] == '-')) {
      i++;
    }
    if (i == length) {
      return null;
    }
    long limit = Long.divideUnsigned(-1L, 10);
    long value = 0;
    for (; i < length; i++) {
      int digit = text[i] - '0';
      if (digit < 0 || digit > 9) {
        return null;
      }
      if (Long.compareUnsigned(value, limit) > 0 || value == limit && digit > 5) {
        return null;
      }
      value = value * 10 + digit;
    }
    return negative ? -value : value;
  }

  /**
   * SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]. The cursor is a position in the unsigned
   * 32-bit key-hash order, so a key present for the whole iteration is returned exactly once
   * however the keyspace changes meanwhile; a cursor beyond that order (Redis takes any 64-bit one)
   * is past the end. Options are checked in Redis's order (db.c scanGenericCommand).
   */
  void scan(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    Long cursor = parseCursor(args[1]);
    if (cursor == null) {
      reply.error("ERR invalid cursor");
      return;
    }
    byte[] pattern = null;
    long count = SCAN_DEFAULT_COUNT;
    String type = null;
    for (int i = 2; i < args.length; ) {
      String option = Args.lower(args[i]);
      boolean valued = i + 1 < args.length;
      if (option.equals("count") && valued) {
        Long value = Numbers.parseLong(args[i + 1]);
        if (value == null) {
          reply.error(Args.NOT_INTEGER);
          return;
        }
        if (value < 1) {
          reply.error(Args.SYNTAX_ERROR);
          return;
        }
        count = value;
        i += 2;
      } else if (option.equals("match") && valued) {
        pattern = args[i + 1];
        i += 2;
      } else if (option.equals("type") && valued) {
        type = Args.lower(args[i + 1]);
        if (!SCAN_TYPES.contains(type)) {
          reply.error("ERR unknown type name '" + Args.text(args[i + 1]) + "'");
          return;
        }
        i += 2;
      } else if (option.equals("novalues")) {
        reply.error("ERR NOVALUES option can only be used in HSCAN");
        return;
      } else {
        reply.error(Args.SYNTAX_ERROR);
        return;
      }
    }
    if (Long.compareUnsigned(cursor, 1L << 32) > 0) {
      cursor = 1L << 32;
    }
    Keyspace.ScanPage scanned = keyspace.scan(session.db(), cursor, count);
    boolean typeOk = type == null || type.equals("mbbloomcf");
    List<byte[]> page = new ArrayList<>();
    for (Key key : scanned.keys()) {
      if (typeOk && (pattern == null || Glob.matches(pattern, key.bytes()))) {
        page.add(key.bytes());
      }
    }
    long next = scanned.cursor();
    reply.array(2);
    reply.bulk(Long.toString(next));
    reply.array(page.size());
    for (byte[] key : page) {
      reply.bulk(key);
    }
  }

  /** FLUSHALL / FLUSHDB [ASYNC|SYNC]. */
  void flush(Session session, Request request) {
    byte[][] args = request.args();
    if (args.length > 2) {
      session.reply().error(Args.SYNTAX_ERROR);
      return;
    }
    if (args.length == 2) {
      String mode = Args.lower(args[1]);
      if (!mode.equals("async") && !mode.equals("sync")) {
        session.reply().error(Args.SYNTAX_ERROR);
        return;
      }
    }
    boolean all = Args.lower(args[0]).equals("flushall");
    // said before the change: the WATCHes of the keys it empties are touched while they exist
    request.write().changed(new byte[][] {all ? FLUSHALL : FLUSHDB});
    if (all) {
      keyspace.clear();
    } else {
      keyspace.clear(request.db());
    }
    session.reply().ok();
  }
}
