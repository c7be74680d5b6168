package dev.cuckoo.server.command;

import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * Commands on a database's keys: DBSIZE, TYPE, DEL, UNLINK, EXISTS, KEYS, SCAN, FLUSHDB and
 * FLUSHALL.
 */
public final class DatabaseCommands {
  private final ServerContext context;
  private final Keyspace keyspace;
  private final WriteLog log;

  /** Creates the commands over the server's shared state and write log. */
  DatabaseCommands(ServerContext context, WriteLog log) {
    this.context = context;
    this.keyspace = context.keyspace();
    this.log = log;
  }

  private static final byte[] DEL = "DEL".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FLUSHALL = "FLUSHALL".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FLUSHDB = "FLUSHDB".getBytes(StandardCharsets.US_ASCII);
  private static final int SCAN_DEFAULT_COUNT = 10;

  /**
   * DBSIZE: the keys of the selected database (expired keys not yet deleted count, as in Redis).
   */
  void dbsize(Session session, byte[][] args) {
    session.reply().integer(keyspace.size(session.db()));
  }

  /** TYPE key. */
  void type(Session session, byte[][] args) {
    Key key = session.key(args[1]);
    Lock lock = keyspace.readLockFor(key);
    lock.lock();
    try {
      session.reply().simple(keyspace.get(key) == null ? "none" : "MBbloomCF");
    } finally {
      lock.unlock();
    }
  }

  private static Key[] keysOf(Session session, byte[][] args) {
    Key[] keys = new Key[args.length - 1];
    for (int i = 1; i < args.length; i++) {
      keys[i - 1] = session.key(args[i]);
    }
    return keys;
  }

  /** DEL key [key ...] and UNLINK key [key ...] (the same here: freeing a filter is immediate). */
  void del(Session session, byte[][] args) {
    Key[] keys = keysOf(session, args);
    Lock[] locks = keyspace.lockKeys(keys);
    try {
      if (log.refuses(session)) {
        return;
      }
      List<byte[]> removed = new ArrayList<>();
      removed.add(DEL);
      for (Key key : keys) {
        if (keyspace.get(key) != null && keyspace.remove(key)) {
          removed.add(key.bytes());
        }
      }
      if (removed.size() > 1) {
        log.record(session, removed.toArray(new byte[0][]));
      }
      session.reply().integer(removed.size() - 1);
    } finally {
      Keyspace.unlock(locks);
    }
  }

  /** EXISTS key [key ...]. */
  void exists(Session session, byte[][] args) {
    Key[] keys = keysOf(session, args);
    Lock[] locks = keyspace.lockKeys(keys);
    try {
      long count = 0;
      for (Key key : keys) {
        if (keyspace.get(key) != null) {
          count++;
        }
      }
      session.reply().integer(count);
    } finally {
      Keyspace.unlock(locks);
    }
  }

  /** KEYS pattern. */
  void keys(Session session, byte[][] args) {
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

  private static long scanOrder(Key key) {
    return key.hashCode() & 0xffffffffL;
  }

  /**
   * SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]. The cursor is a position in the unsigned
   * 32-bit key-hash order, so a key present for the whole iteration is returned exactly once
   * however the keyspace changes meanwhile.
   */
  void scan(Session session, byte[][] args) {
    Reply reply = session.reply();
    Long cursor = Numbers.parseLong(args[1]);
    if (cursor == null || cursor < 0 || cursor > (1L << 32)) {
      reply.error("ERR invalid cursor");
      return;
    }
    byte[] pattern = null;
    long count = SCAN_DEFAULT_COUNT;
    String type = null;
    for (int i = 2; i < args.length; i += 2) {
      String option = Args.lower(args[i]);
      if (i + 1 >= args.length) {
        reply.error(Args.SYNTAX_ERROR);
        return;
      }
      if (option.equals("match")) {
        pattern = args[i + 1];
      } else if (option.equals("count")) {
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
      } else if (option.equals("type")) {
        type = Args.lower(args[i + 1]);
      } else {
        reply.error(Args.SYNTAX_ERROR);
        return;
      }
    }
    List<Key> candidates = new ArrayList<>();
    for (Key key : keyspace.keys(session.db())) {
      if (scanOrder(key) >= cursor) {
        candidates.add(key);
      }
    }
    candidates.sort(Comparator.comparingLong(DatabaseCommands::scanOrder));
    List<byte[]> page = new ArrayList<>();
    long next = 0;
    int taken = 0;
    for (int i = 0; i < candidates.size(); i++) {
      Key key = candidates.get(i);
      if (taken >= count && scanOrder(key) != scanOrder(candidates.get(i - 1))) {
        next = scanOrder(candidates.get(i - 1)) + 1;
        break;
      }
      taken++;
      boolean typeOk = type == null || type.equals("mbbloomcf");
      if (typeOk && (pattern == null || Glob.matches(pattern, key.bytes()))) {
        page.add(key.bytes());
      }
    }
    reply.array(2);
    reply.bulk(Long.toString(next));
    reply.array(page.size());
    for (byte[] key : page) {
      reply.bulk(key);
    }
  }

  /** FLUSHALL / FLUSHDB [ASYNC|SYNC]. */
  void flush(Session session, byte[][] args) {
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
    keyspace.lockAll();
    try {
      if (log.refuses(session)) {
        return;
      }
      context.watches().touchDatabase(all ? -1 : session.db(), keyspace);
      if (all) {
        keyspace.clear();
      } else {
        keyspace.clear(session.db());
      }
      log.record(session, new byte[][] {all ? FLUSHALL : FLUSHDB});
    } finally {
      keyspace.unlockAll();
    }
    session.reply().ok();
  }
}
