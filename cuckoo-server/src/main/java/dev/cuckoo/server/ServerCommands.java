package dev.cuckoo.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/** Connection, keyspace, configuration and persistence commands, answered as Redis does. */
final class ServerCommands {
  /** The Redis version this server reports (the RedisBloom 8.x behaviour it reproduces). */
  static final String REDIS_VERSION = "8.2.0";
  /** The module version reported for the bloom module (RedisBloom 8.2.0). */
  static final long MODULE_VERSION = 80200;

  private static final String SYNTAX_ERROR = "ERR syntax error";
  private static final String NOT_INTEGER = "ERR value is not an integer or out of range";
  private static final byte[] DEL = "DEL".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FLUSHALL = "FLUSHALL".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FLUSHDB = "FLUSHDB".getBytes(StandardCharsets.US_ASCII);
  /** Redis's reply to a database index outside 0..databases-1. */
  static final String DB_OUT_OF_RANGE = "ERR DB index is out of range";
  private static final int SCAN_DEFAULT_COUNT = 10;

  private final ServerContext context;
  private final Keyspace keyspace;
  private final WriteLog log;

  ServerCommands(ServerContext context, WriteLog log) {
    this.context = context;
    this.keyspace = context.keyspace();
    this.log = log;
  }

  static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static String lower(byte[] bytes) {
    return text(bytes).toLowerCase(Locale.ROOT);
  }

  /** PING [message]. */
  void ping(Session session, byte[][] args) {
    if (args.length > 2) {
      session.reply().error(CfCommands.arityError("ping"));
    } else if (args.length == 2) {
      session.reply().bulk(args[1]);
    } else {
      session.reply().simple("PONG");
    }
  }

  /** ECHO message. */
  void echo(Session session, byte[][] args) {
    session.reply().bulk(args[1]);
  }

  private boolean passwordMatches(byte[] user, byte[] password) {
    String required = context.config().requirePass();
    if (!"default".equals(lower(user))) {
      return false;
    }
    return required == null
        || MessageDigest.isEqual(required.getBytes(StandardCharsets.UTF_8), password);
  }

  /** AUTH [username] password. */
  void auth(Session session, byte[][] args) {
    Reply reply = session.reply();
    if (args.length > 3) {
      reply.error(SYNTAX_ERROR);
      return;
    }
    if (args.length == 2 && context.config().requirePass() == null) {
      reply.error("ERR AUTH <password> called without any password configured for the default"
          + " user. Are you sure your configuration is correct?");
      return;
    }
    byte[] user = args.length == 3 ? args[1] : "default".getBytes(StandardCharsets.US_ASCII);
    if (passwordMatches(user, args[args.length - 1])) {
      session.authenticate();
      reply.ok();
    } else {
      reply.error("WRONGPASS invalid username-password pair or user is disabled.");
    }
  }

  /** HELLO [protover [AUTH username password] [SETNAME clientname]]. */
  void hello(Session session, byte[][] args) {
    Reply reply = session.reply();
    long version = 0;
    if (args.length >= 2) {
      Long parsed = Numbers.parseLong(args[1]);
      if (parsed == null) {
        reply.error("ERR Protocol version is not an integer or out of range");
        return;
      }
      if (parsed < 2 || parsed > 3) {
        reply.error("NOPROTO unsupported protocol version");
        return;
      }
      version = parsed;
    }
    byte[] user = null;
    byte[] password = null;
    String clientName = null;
    for (int j = 2; j < args.length; j++) {
      int more = args.length - 1 - j;
      String option = lower(args[j]);
      if (option.equals("auth") && more >= 2) {
        user = args[j + 1];
        password = args[j + 2];
        j += 2;
      } else if (option.equals("setname") && more >= 1) {
        clientName = text(args[j + 1]);
        j++;
      } else {
        reply.error("ERR Syntax error in HELLO option '" + text(args[j]) + "'");
        return;
      }
    }
    if (user != null) {
      if (!passwordMatches(user, password)) {
        reply.error("WRONGPASS invalid username-password pair or user is disabled.");
        return;
      }
      session.authenticate();
    }
    if (!session.authenticated()) {
      reply.error("NOAUTH HELLO must be called with the client already authenticated, otherwise"
          + " the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client"
          + " and select the RESP protocol version at the same time");
      return;
    }
    if (clientName != null && !setName(session, clientName)) {
      return;
    }
    if (version != 0) {
      reply.protocol((int) version);
    }
    reply.map(7);
    reply.bulk("server");
    reply.bulk("redis");
    reply.bulk("version");
    reply.bulk(REDIS_VERSION);
    reply.bulk("proto");
    reply.integer(reply.protocol());
    reply.bulk("id");
    reply.integer(session.id());
    reply.bulk("mode");
    reply.bulk("standalone");
    reply.bulk("role");
    reply.bulk("master");
    reply.bulk("modules");
    reply.array(1);
    reply.map(4);
    reply.bulk("name");
    reply.bulk("bf");
    reply.bulk("ver");
    reply.integer(MODULE_VERSION);
    reply.bulk("path");
    reply.bulk("");
    reply.bulk("args");
    reply.array(0);
  }

  private static boolean validName(String name) {
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < '!' || c > '~') {
        return false;
      }
    }
    return true;
  }

  private boolean setName(Session session, String name) {
    if (!validName(name)) {
      session.reply().error(
          "ERR Client names cannot contain spaces, newlines or special characters.");
      return false;
    }
    session.name(name.isEmpty() ? null : name);
    return true;
  }

  /** CLIENT SETNAME name. */
  void clientSetName(Session session, byte[][] args) {
    if (setName(session, text(args[2]))) {
      session.reply().ok();
    }
  }

  /** CLIENT GETNAME. */
  void clientGetName(Session session, byte[][] args) {
    if (session.name() == null) {
      session.reply().nullValue();
    } else {
      session.reply().bulk(session.name());
    }
  }

  /** CLIENT SETINFO LIB-NAME|LIB-VER value. */
  void clientSetInfo(Session session, byte[][] args) {
    Reply reply = session.reply();
    String attribute = lower(args[2]);
    String value = text(args[3]);
    if (!attribute.equals("lib-name") && !attribute.equals("lib-ver")) {
      reply.error("ERR Unrecognized option '" + text(args[2]) + "'");
      return;
    }
    if (!validName(value)) {
      reply.error("ERR " + attribute + " cannot contain spaces, newlines or special characters.");
      return;
    }
    if (attribute.equals("lib-name")) {
      session.libName(value);
    } else {
      session.libVersion(value);
    }
    reply.ok();
  }

  /** CLIENT ID. */
  void clientId(Session session, byte[][] args) {
    session.reply().integer(session.id());
  }

  /** SELECT index: one of the {@code --databases} databases (16 by default). */
  void select(Session session, byte[][] args) {
    Long index = Numbers.parseLong(args[1]);
    if (index == null || index != (int) (long) index) {
      session.reply().error(NOT_INTEGER);
    } else if (index < 0 || index >= keyspace.databases()) {
      session.reply().error(DB_OUT_OF_RANGE);
    } else {
      session.db((int) (long) index);
      session.reply().ok();
    }
  }

  /**
   * Returns the database index an argument names, or -1 after answering with Redis's error (not
   * an integer; out of range).
   */
  int databaseIndex(Session session, byte[] arg) {
    Long index = Numbers.parseLong(arg);
    if (index == null || index != (int) (long) index) {
      session.reply().error(NOT_INTEGER);
      return -1;
    }
    if (index < 0 || index >= keyspace.databases()) {
      session.reply().error(DB_OUT_OF_RANGE);
      return -1;
    }
    return (int) (long) index;
  }

  /** DBSIZE: the keys of the selected database (expired keys not yet deleted count, as in Redis). */
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
   * SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]. The cursor is a position in the
   * unsigned 32-bit key-hash order, so a key present for the whole iteration is returned exactly
   * once however the keyspace changes meanwhile.
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
      String option = lower(args[i]);
      if (i + 1 >= args.length) {
        reply.error(SYNTAX_ERROR);
        return;
      }
      if (option.equals("match")) {
        pattern = args[i + 1];
      } else if (option.equals("count")) {
        Long value = Numbers.parseLong(args[i + 1]);
        if (value == null) {
          reply.error(NOT_INTEGER);
          return;
        }
        if (value < 1) {
          reply.error(SYNTAX_ERROR);
          return;
        }
        count = value;
      } else if (option.equals("type")) {
        type = lower(args[i + 1]);
      } else {
        reply.error(SYNTAX_ERROR);
        return;
      }
    }
    List<Key> candidates = new ArrayList<>();
    for (Key key : keyspace.keys(session.db())) {
      if (scanOrder(key) >= cursor) {
        candidates.add(key);
      }
    }
    candidates.sort(Comparator.comparingLong(ServerCommands::scanOrder));
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
      session.reply().error(SYNTAX_ERROR);
      return;
    }
    if (args.length == 2) {
      String mode = lower(args[1]);
      if (!mode.equals("async") && !mode.equals("sync")) {
        session.reply().error(SYNTAX_ERROR);
        return;
      }
    }
    boolean all = lower(args[0]).equals("flushall");
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

  /** SAVE. */
  void save(Session session, byte[][] args) {
    Persistence persistence = context.persistence();
    if (persistence == null) {
      session.reply().ok();
      return;
    }
    if (session.replaying()) {
      session.reply().ok();
      return;
    }
    // the snapshot runs on the persistence thread: this event loop's other connections go on
    java.util.concurrent.CompletableFuture<String> done = persistence.saveAsync();
    if (done == null) {
      session.reply().error("ERR Background save already in progress");
      return;
    }
    session.defer(done.thenApply(error -> reply -> {
      if (error == null) {
        reply.ok();
      } else {
        reply.error("ERR " + error);
      }
    }));
  }

  /** BGSAVE [SCHEDULE]. */
  void bgsave(Session session, byte[][] args) {
    if (args.length > 2 || (args.length == 2 && !lower(args[1]).equals("schedule"))) {
      session.reply().error(SYNTAX_ERROR);
      return;
    }
    Persistence persistence = context.persistence();
    if (persistence != null && !persistence.saveInBackground()) {
      session.reply().error("ERR Background save already in progress");
      return;
    }
    session.reply().simple("Background saving started");
  }

  /** LASTSAVE. */
  void lastsave(Session session, byte[][] args) {
    Persistence persistence = context.persistence();
    session.reply().integer(persistence == null
        ? context.startMillis() / 1000 : persistence.lastSaveSeconds());
  }

  /** SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE]: no reply; the server stops. */
  void shutdown(Session session, byte[][] args) {
    boolean save = true;
    for (int i = 1; i < args.length; i++) {
      String option = lower(args[i]);
      if (option.equals("nosave")) {
        save = false;
      } else if (!option.equals("save") && !option.equals("now") && !option.equals("force")) {
        session.reply().error(SYNTAX_ERROR);
        return;
      }
    }
    session.requestClose();
    boolean saveFinal = save;
    Thread stopper = new Thread(() -> context.shutdown().accept(saveFinal), "cuckoo-shutdown");
    stopper.start();
  }

  /** QUIT. */
  void quit(Session session, byte[][] args) {
    session.reply().ok();
    session.requestClose();
  }

  private Map<String, String> configValues() {
    ServerConfig config = context.config();
    Map<String, String> values = new LinkedHashMap<>(context.cfConfig().values());
    values.put("port", Integer.toString(context.port()));
    values.put("bind", config.bind());
    values.put("dir", config.dir().toAbsolutePath().toString());
    values.put("appendonly", config.appendOnly() ? "yes" : "no");
    values.put("appendfsync", config.fsync().name().toLowerCase(Locale.ROOT));
    values.put("save", "");
    values.put("databases", Integer.toString(keyspace.databases()));
    values.put("maxclients", Integer.toString(config.maxClients()));
    values.put("timeout", Integer.toString(config.timeoutSeconds()));
    values.put("proto-max-bulk-len", Long.toString(config.maxBulkLength()));
    values.put("maxmemory", Long.toString(context.maxMemory()));
    values.put("auto-aof-rewrite-percentage", Integer.toString(context.rewritePercentage()));
    values.put("auto-aof-rewrite-min-size", Long.toString(context.rewriteMinSize()));
    values.put("requirepass", config.requirePass() == null ? "" : config.requirePass());
    values.put("protected-mode", config.protectedMode() ? "yes" : "no");
    return values;
  }

  /** CONFIG GET pattern [pattern ...]. */
  void configGet(Session session, byte[][] args) {
    Map<String, String> matched = new LinkedHashMap<>();
    for (Map.Entry<String, String> entry : configValues().entrySet()) {
      byte[] name = entry.getKey().getBytes(StandardCharsets.UTF_8);
      for (int i = 2; i < args.length; i++) {
        if (Glob.matches(lower(args[i]).getBytes(StandardCharsets.UTF_8), name)) {
          matched.put(entry.getKey(), entry.getValue());
          break;
        }
      }
    }
    Reply reply = session.reply();
    reply.map(matched.size());
    for (Map.Entry<String, String> entry : matched.entrySet()) {
      reply.bulk(entry.getKey());
      reply.bulk(entry.getValue());
    }
  }

  private static boolean isServerParameter(String name) {
    return name.equals("maxmemory") || name.equals("auto-aof-rewrite-percentage")
        || name.equals("auto-aof-rewrite-min-size");
  }

  /**
   * CONFIG SET name value [name value ...]: the cf-* parameters, maxmemory and the automatic
   * rewrite thresholds. All values are checked before any is applied.
   */
  void configSet(Session session, byte[][] args) {
    Reply reply = session.reply();
    if ((args.length - 2) % 2 != 0) {
      reply.error(CfCommands.arityError("config|set"));
      return;
    }
    for (int i = 2; i < args.length; i += 2) {
      String name = lower(args[i]);
      if (!CfConfig.isParameter(name) && !isServerParameter(name)) {
        reply.error("ERR Unknown option or number of arguments for CONFIG SET - '"
            + text(args[i]) + "'");
        return;
      }
    }
    List<String> cfNames = new ArrayList<>();
    List<String> cfValues = new ArrayList<>();
    Map<String, Long> server = new LinkedHashMap<>();
    for (int i = 2; i < args.length; i += 2) {
      String name = lower(args[i]);
      String value = text(args[i + 1]);
      if (isServerParameter(name)) {
        Long number = name.equals("auto-aof-rewrite-percentage")
            ? Numbers.parseLong(value) : Numbers.parseMemory(value);
        if (number == null || number < 0
            || (name.equals("auto-aof-rewrite-percentage") && number > Integer.MAX_VALUE)) {
          reply.error("ERR CONFIG SET failed (possibly related to argument '" + name
              + "') - " + (name.equals("auto-aof-rewrite-percentage")
                  ? "argument couldn't be parsed into an integer"
                  : "argument must be a memory value"));
          return;
        }
        server.put(name, number);
      } else {
        cfNames.add(name);
        cfValues.add(value);
      }
    }
    Map.Entry<Integer, String> error = context.cfConfig().setAll(
        cfNames.toArray(new String[0]), cfValues.toArray(new String[0]));
    if (error != null) {
      reply.error("ERR CONFIG SET failed (possibly related to argument '"
          + cfNames.get(error.getKey()) + "') - " + error.getValue());
      return;
    }
    server.forEach((name, value) -> {
      if (name.equals("maxmemory")) {
        context.maxMemory(value);
      } else if (name.equals("auto-aof-rewrite-percentage")) {
        context.rewritePercentage((int) (long) value);
      } else {
        context.rewriteMinSize(value);
      }
    });
    reply.ok();
  }

  /** CONFIG RESETSTAT. */
  void configResetStat(Session session, byte[][] args) {
    context.totalCommands().reset();
    context.totalConnections().set(0);
    session.reply().ok();
  }

  /** CONFIG REWRITE: not supported (settings come from flags and the config file). */
  void configRewrite(Session session, byte[][] args) {
    session.reply().error("ERR The server is running without a config file");
  }
}
