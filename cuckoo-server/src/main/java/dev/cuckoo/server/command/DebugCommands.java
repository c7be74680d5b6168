package dev.cuckoo.server.command;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.persist.Snapshots;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.rdb.DumpPayload;
import dev.cuckoo.server.session.Session;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * DEBUG, Redis's command for testing the server itself, refused unless {@code
 * --enable-debug-command yes} (Redis's {@code enable-debug-command}, off by default): HELP, OOM,
 * SLEEP, LOG, ERROR, OBJECT, DIGEST, DIGEST-VALUE, SET-ACTIVE-EXPIRE, PROTOCOL, RELOAD and
 * CHANGE-REPL-ID, with Redis's replies; other subcommands answer Redis's "unknown subcommand or
 * wrong number of arguments".
 */
final class DebugCommands {
  /*
   * DIGEST follows Redis's computeDatasetDigest in its parts: a key's digest is mix(0, its name)
   * xor the value's digest, which is DIGEST-VALUE: mix(0, type: a module value, 5), then the
   * value, then xor "!!expire!!" if the key has an expiry; the dataset's digest xors the keys'
   * digests together after mixing in each non-empty database's number (big-endian). mix(d, data)
   * is d = SHA1(d xor SHA1(data)); xor(d, data) is d ^= SHA1(data). RedisBloom gives its type no
   * digest callback, so on Redis every CF value digests alike; here the value's serialized bytes
   * are mixed in, so DIGEST tells two servers whose filters differ apart (what a test comparing a
   * master with its replica wants). An empty dataset gives 40 zeros.
   */

  /** Redis's refusal when {@code enable-debug-command} does not allow the command. */
  static final String NOT_ALLOWED =
      "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you"
          + " can run it from a local connection, otherwise you need to set this option in the"
          + " configuration file, and then restart the server.";

  private static final System.Logger LOGGER = System.getLogger(DebugCommands.class.getName());

  /** Redis's OBJ_MODULE, the type mixed into a CF value's digest. */
  private static final int MODULE_TYPE = 5;

  /** The subcommands this server has, from Redis's DEBUG HELP, with their lines of it. */
  private static final String[] HELP = {
    "CHANGE-REPL-ID",
    "    Change the replication IDs of the instance.",
    "    Dangerous: should be used only for testing the replication subsystem.",
    "DIGEST",
    "    Output a hex signature representing the current DB content.",
    "DIGEST-VALUE <key> [<key> ...]",
    "    Output a hex signature of the values of all the specified keys.",
    "ERROR <string>",
    "    Return a Redis protocol error with <string> as message. Useful for clients",
    "    unit tests to simulate Redis errors.",
    "LOG <message>",
    "    Write <message> to the server log.",
    "OBJECT <key>",
    "    Show low level info about `key` and associated value.",
    "OOM",
    "    Crash the server simulating an out-of-memory error.",
    "PROTOCOL <type>",
    "    Reply with a test value of the specified type. <type> can be: string,",
    "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
    "    true, false.",
    "RELOAD [option ...]",
    "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
    "    * MERGE: conflicting keys will be loaded from RDB.",
    "    * NOFLUSH: the existing database will not be removed before load, but",
    "      conflicting keys will generate an exception and kill the server.",
    "    * NOSAVE: the database will be loaded from an existing RDB file.",
    "    Examples:",
    "    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
    "      the database.",
    "    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
    "      existing RDB file.",
    "    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
    "      file to the database.",
    "SET-ACTIVE-EXPIRE <0|1>",
    "    Setting it to 0 disables expiring keys (and hash-fields) in background ",
    "    when they are not accessed (otherwise the Redis behavior). Setting it",
    "    to 1 reenables back the default.",
    "SLEEP <seconds>",
    "    Stop the server for <seconds>. Decimals allowed."
  };

  private final ServerContext context;
  private final ExpiryCycle expiryCycle;

  DebugCommands(ServerContext context, ExpiryCycle expiryCycle) {
    this.context = context;
    this.expiryCycle = expiryCycle;
  }

  /** DEBUG subcommand [argument ...]. */
  void debug(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    if (!context.config().get(Parameters.ENABLE_DEBUG_COMMAND)) {
      reply.error(NOT_ALLOWED);
      return;
    }
    String subcommand = Args.lower(args[1]);
    switch (subcommand) {
      case "help" -> {
        if (args.length == 2) {
          HelpCommands.reply(session, "DEBUG", HELP);
          return;
        }
      }
      case "oom" -> throw new OutOfMemoryError("DEBUG OOM");
      case "sleep" -> {
        if (args.length == 3) {
          sleep(reply, args[2]);
          return;
        }
      }
      case "log" -> {
        if (args.length == 3) {
          LOGGER.log(Level.WARNING, "DEBUG LOG: {0}", Args.text(args[2]));
          reply.ok();
          return;
        }
      }
      case "error" -> {
        if (args.length == 3) {
          reply.error(Args.text(args[2]).replace('\n', ' ').replace('\r', ' '));
          return;
        }
      }
      case "object" -> {
        if (args.length == 3) {
          object(session, args[2]);
          return;
        }
      }
      case "digest" -> {
        if (args.length == 2) {
          reply.simple(HexFormat.of().formatHex(datasetDigest()));
          return;
        }
      }
      case "digest-value" -> {
        reply.array(args.length - 2);
        for (int i = 2; i < args.length; i++) {
          Key key = new Key(session.db(), args[i]);
          byte[] digest =
              context
                  .keyspace()
                  .readLocked(
                      key, filter -> filter == null ? new byte[20] : valueDigest(key, filter));
          reply.simple(HexFormat.of().formatHex(digest));
        }
        return;
      }
      case "set-active-expire" -> {
        if (args.length == 3) {
          // atoi, as Redis: anything that does not read as a non-zero number turns it off
          Long value = Numbers.parseLong(args[2]);
          expiryCycle.active(value != null && value != 0);
          reply.ok();
          return;
        }
      }
      case "protocol" -> {
        if (args.length == 3) {
          protocol(reply, Args.lower(args[2]));
          return;
        }
      }
      case "change-repl-id" -> {
        if (args.length == 2 && context.replication() != null) {
          context.replication().changeReplicationId();
          reply.ok();
          return;
        }
      }
      case "reload" -> {
        reload(reply, args);
        return;
      }
      default -> {
        // below: Redis's answer to an unknown subcommand
      }
    }
    reply.error(
        "ERR unknown subcommand or wrong number of arguments for '"
            + Args.text(args[1])
            + "'. Try DEBUG HELP.");
  }

  /**
   * DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE], as Redis's debugCommand parses it: saves the snapshot
   * (not with NOSAVE), empties the keyspace (not with NOFLUSH) and loads the data files back
   * ({@link Snapshots#reload}); the log, if any, is left as it was, so a restart restores the same
   * data.
   */
  private void reload(Reply reply, byte[][] args) {
    boolean save = true;
    boolean flush = true;
    boolean merge = false;
    for (int i = 2; i < args.length; i++) {
      switch (Args.lower(args[i])) {
        case "merge" -> merge = true;
        case "noflush" -> flush = false;
        case "nosave" -> save = false;
        default -> {
          reply.error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
          return;
        }
      }
    }
    Snapshots snapshots = context.snapshots();
    String error =
        snapshots == null
            ? "ERR Error trying to save the DB: this server keeps no data files"
            : snapshots.reload(
                save, flush, merge, () -> context.watches().touchDatabase(-1, context.keyspace()));
    if (error == null) {
      reply.ok();
    } else {
      reply.error(error);
    }
  }

  /** DEBUG SLEEP seconds: stops this connection's thread (Redis stops the whole server). */
  private static void sleep(Reply reply, byte[] seconds) {
    double value;
    try {
      value = Double.parseDouble(Args.text(seconds).trim());
    } catch (NumberFormatException e) {
      value = 0; // strtod: a text that is not a number reads as 0
    }
    long micros = (long) (value * 1_000_000);
    if (micros > 0) {
      try {
        Thread.sleep(micros / 1000, (int) (micros % 1000) * 1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    reply.ok();
  }

  /**
   * DEBUG OBJECT key, in Redis's words: the value's identity, refcount 1, encoding raw (a module
   * value), its serialized length, its LRU clock and idle seconds.
   */
  private void object(Session session, byte[] name) {
    Keyspace keyspace = context.keyspace();
    Key key = new Key(session.db(), name);
    String line =
        keyspace.readLocked(
            key,
            filter -> {
              if (filter == null) {
                return null;
              }
              long idleSeconds = keyspace.idleSeconds(key);
              // Redis's LRU clock: Unix seconds in 24 bits; a value's lru is the clock at its use
              long lru = (System.currentTimeMillis() / 1000 - idleSeconds) & ((1 << 24) - 1);
              return String.format(
                  Locale.ROOT,
                  "Value at:0x%x refcount:1 encoding:raw serializedlength:%d lru:%d"
                      + " lru_seconds_idle:%d",
                  System.identityHashCode(filter),
                  serializedLength(filter),
                  lru,
                  idleSeconds);
            });
    if (line == null) {
      session.reply().error("ERR no such key");
    } else {
      session.reply().simple(line);
    }
  }

  /**
   * Redis's serializedlength: the length of the value's RDB encoding (rdbSavedObjectLen), which is
   * the DUMP payload without its type byte, RDB version (2 bytes) and CRC64 (8 bytes); for a filter
   * too large for one payload, the length of its own serialized form.
   */
  private static long serializedLength(RedisCuckooFilter<byte[]> filter) {
    try {
      return DumpPayload.encode(filter).length - 11L;
    } catch (IllegalStateException tooLarge) {
      long[] count = new long[1];
      try {
        filter.writeTo(
            new OutputStream() {
              @Override
              public void write(int b) {
                count[0]++;
              }

              @Override
              public void write(byte[] b, int off, int len) {
                count[0] += len;
              }
            });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return count[0];
    }
  }

  /** The digest of every key and value, each key under its stripe's read lock. */
  private byte[] datasetDigest() {
    Keyspace keyspace = context.keyspace();
    byte[] dataset = new byte[20];
    for (int db = 0; db < keyspace.databases(); db++) {
      if (keyspace.size(db) == 0) {
        continue;
      }
      mix(dataset, ByteBuffer.allocate(4).putInt(db).array());
      for (Key key : keyspace.keys(db)) {
        byte[] digest =
            keyspace.readLocked(
                key,
                filter -> {
                  if (filter == null) {
                    return null;
                  }
                  byte[] keyDigest = new byte[20];
                  mix(keyDigest, key.bytes());
                  xor(keyDigest, valueDigest(key, filter));
                  return keyDigest;
                });
        if (digest != null) {
          xor(dataset, digest);
        }
      }
    }
    return dataset;
  }

  /** Returns a CF value's digest: its type, its bytes, and whether it expires. */
  private byte[] valueDigest(Key key, RedisCuckooFilter<byte[]> filter) {
    byte[] digest = new byte[20];
    mix(digest, ByteBuffer.allocate(4).putInt(MODULE_TYPE).array());
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try {
      filter.writeTo(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    mix(digest, bytes.toByteArray());
    if (context.keyspace().expireAt(key) >= 0) {
      xor(digest, sha1("!!expire!!".getBytes(StandardCharsets.US_ASCII)));
    }
    return digest;
  }

  /** digest = SHA1(digest xor SHA1(data)). */
  private static void mix(byte[] digest, byte[] data) {
    xor(digest, sha1(data));
    System.arraycopy(sha1(digest), 0, digest, 0, 20);
  }

  private static void xor(byte[] digest, byte[] other) {
    for (int i = 0; i < 20; i++) {
      digest[i] ^= other[i];
    }
  }

  private static byte[] sha1(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-1").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-1", e);
    }
  }

  /** DEBUG PROTOCOL type: Redis's test value of each reply type. */
  private static void protocol(Reply reply, String type) {
    switch (type) {
      case "string" -> reply.bulk("Hello World");
      case "integer" -> reply.integer(12345);
      case "double" -> reply.doubleValue(3.141);
      case "bignum" -> reply.bigNumber("1234567999999999999999999999999999999");
      case "null" -> reply.nullValue();
      case "array", "set" -> {
        if (type.equals("array")) {
          reply.array(3);
        } else {
          reply.set(3);
        }
        for (int i = 0; i < 3; i++) {
          reply.integer(i);
        }
      }
      case "map" -> {
        reply.map(3);
        for (int i = 0; i < 3; i++) {
          reply.integer(i);
          reply.bool(i == 1);
        }
      }
      case "attrib" -> {
        if (reply.protocol() >= 3) {
          reply.attribute(1);
          reply.bulk("key-popularity");
          reply.array(2);
          reply.bulk("key:123");
          reply.integer(90);
        }
        reply.bulk("Some real reply following the attribute");
      }
      case "push" -> {
        if (reply.protocol() < 3) {
          reply.error("ERR RESP2 is not supported by this command");
          return;
        }
        reply.push(2);
        reply.bulk("server-cpu-usage");
        reply.integer(42);
        reply.bulk("Some real reply following the push reply");
      }
      case "true" -> reply.bool(true);
      case "false" -> reply.bool(false);
      case "verbatim" -> reply.verbatimText("This is a verbatim\nstring");
      default ->
          reply.error(
              "ERR Wrong protocol type name. Please use one of the following:"
                  + " string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
    }
  }
}
