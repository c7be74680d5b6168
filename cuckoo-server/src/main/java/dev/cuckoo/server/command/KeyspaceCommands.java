package dev.cuckoo.server.command;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;

/**
 * Read-only commands about keys that clients and tools use beside CF.*: RANDOMKEY, TOUCH, MEMORY
 * USAGE and OBJECT ENCODING/FREQ/REFCOUNT, with Redis's replies for a module type.
 */
public final class KeyspaceCommands {
  /** Redis's OBJECT FREQ error while the maxmemory policy is not an LFU one (always here). */
  public static final String NO_LFU =
      "ERR An LFU maxmemory policy is not selected, access frequency"
          + " not tracked. Please note that when switching between policies at runtime LRU and LFU"
          + " data will take some time to adjust.";

  private final Keyspace keyspace;

  /** Creates the commands over the keyspace. */
  KeyspaceCommands(Keyspace keyspace) {
    this.keyspace = keyspace;
  }

  /**
   * RANDOMKEY: a random live key of the selected database ({@link Keyspace#randomKey}), or null
   * when it has none.
   */
  void randomKey(Session session, Request request) {
    Key key = keyspace.randomKey(session.db());
    if (key == null) {
      session.reply().nullValue();
    } else {
      session.reply().bulk(key.bytes());
    }
  }

  /** TOUCH key [key ...]: the number of the given keys that exist (a repeated key counts again). */
  void touch(Session session, Request request) {
    long count = 0;
    for (Key key : request.keys()) {
      if (keyspace.read(key) != null) {
        count++;
      }
    }
    session.reply().integer(count);
  }

  /** Returns the key's filter, read without counting as an access, or null. */
  private RedisCuckooFilter<byte[]> filter(Key key) {
    return keyspace.readWithoutTouch(key);
  }

  /** Returns the heap bytes of the key with its filter ({@link Keyspace#usageBytes}), or -1. */
  private long usageBytes(Key key) {
    return keyspace.get(key) == null ? -1 : keyspace.usageBytes(key);
  }

  /**
   * MEMORY USAGE key [SAMPLES count]: the heap bytes of the key, its filter and its expiry time
   * ({@link Keyspace#usageBytes}); null for a missing key. SAMPLES is checked as Redis checks it
   * and otherwise ignored (a filter's size is exact).
   */
  void memoryUsage(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    for (int i = 3; i < args.length; i++) {
      if (!Args.lower(args[i]).equals("samples") || i + 1 >= args.length) {
        reply.error("ERR syntax error");
        return;
      }
      Long samples = Numbers.parseLong(args[++i]);
      if (samples == null) {
        reply.error("ERR value is not an integer or out of range");
        return;
      }
      if (samples < 0) {
        reply.error("ERR syntax error");
        return;
      }
    }
    long bytes = usageBytes(request.key(0));
    if (bytes < 0) {
      reply.nullValue();
    } else {
      reply.integer(bytes);
    }
  }

  /** OBJECT ENCODING key: {@code raw}, the encoding of every module value; null if missing. */
  void objectEncoding(Session session, Request request) {
    if (filter(request.key(0)) == null) {
      session.reply().nullValue();
    } else {
      session.reply().bulk("raw");
    }
  }

  /** OBJECT REFCOUNT key: 1 (module values are never shared); null if missing. */
  void objectRefcount(Session session, Request request) {
    if (filter(request.key(0)) == null) {
      session.reply().nullValue();
    } else {
      session.reply().integer(1);
    }
  }

  /** OBJECT FREQ key: null if missing, else Redis's error (the policy is always noeviction). */
  void objectFreq(Session session, Request request) {
    if (filter(request.key(0)) == null) {
      session.reply().nullValue();
    } else {
      session.reply().error(NO_LFU);
    }
  }

  /**
   * OBJECT IDLETIME key: seconds since the key was last looked up (with a one-second clock, as
   * Redis's); null if missing. OBJECT itself does not count as a lookup.
   */
  void objectIdleTime(Session session, Request request) {
    long idle = keyspace.idleSeconds(request.key(0));
    if (idle < 0) {
      session.reply().nullValue();
    } else {
      session.reply().integer(idle);
    }
  }
}
