package dev.cuckoo.server.command;

import dev.cuckoo.server.ServerConfig;
import dev.cuckoo.server.persist.SavePoints;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * CONFIG GET, SET, RESETSTAT and REWRITE over the server's and the RedisBloom module's parameters.
 */
public final class ConfigCommands {
  private static final System.Logger LOGGER = System.getLogger(ConfigCommands.class.getName());

  private final ServerContext context;
  private final CommandStatsReport commandStats;

  /** Creates the commands over the server's shared state and the per-command counters. */
  ConfigCommands(ServerContext context, CommandStatsReport commandStats) {
    this.context = context;
    this.commandStats = commandStats;
  }

  private Map<String, String> configValues() {
    ServerConfig config = context.config();
    Map<String, String> values = new LinkedHashMap<>(context.cfConfig().values());
    values.put("port", Integer.toString(context.port()));
    values.put("bind", context.bind());
    values.put("dir", config.dir().toAbsolutePath().toString());
    values.put("appendonly", context.persistence() != null ? "yes" : "no");
    values.put("appendfsync", context.appendFsync());
    values.put("save", context.savePoints().toString());
    values.put("dbfilename", config.dbFilename());
    values.put("appendfilename", config.appendFilename());
    values.put("stop-writes-on-bgsave-error", context.stopWritesOnBgsaveError() ? "yes" : "no");
    values.put("rdbcompression", "no");
    values.put("rdbchecksum", "yes");
    values.put("databases", Integer.toString(context.keyspace().databases()));
    values.put("maxclients", Long.toString(context.maxClients()));
    values.put("timeout", Integer.toString(context.timeoutSeconds()));
    values.put("proto-max-bulk-len", Long.toString(context.maxBulkLength()));
    values.put("maxmemory", Long.toString(context.maxMemory()));
    values.put("auto-aof-rewrite-percentage", Integer.toString(context.rewritePercentage()));
    values.put("auto-aof-rewrite-min-size", Long.toString(context.rewriteMinSize()));
    values.put("requirepass", context.requirePass() == null ? "" : context.requirePass());
    values.put("protected-mode", context.protectedMode() ? "yes" : "no");
    values.put("latency-tracking", context.latencyTracking() ? "yes" : "no");
    values.put(
        "latency-tracking-info-percentiles", LatencyPercentiles.text(context.latencyPercentiles()));
    values.put("slowlog-log-slower-than", Long.toString(context.slowlogLogSlowerThan()));
    values.put("slowlog-max-len", Long.toString(context.slowlogMaxLen()));
    if (context.replication() != null) {
      values.putAll(context.replication().settings().values());
    }
    return values;
  }

  /** CONFIG GET pattern [pattern ...]. */
  void configGet(Session session, Request request) {
    byte[][] args = request.args();
    Map<String, String> matched = new LinkedHashMap<>();
    for (Map.Entry<String, String> entry : configValues().entrySet()) {
      byte[] name = entry.getKey().getBytes(StandardCharsets.UTF_8);
      for (int i = 2; i < args.length; i++) {
        if (Glob.matches(Args.lower(args[i]).getBytes(StandardCharsets.UTF_8), name)) {
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

  /**
   * Returns why CONFIG SET refuses a parameter whatever its value, as Redis's config.c words it
   * (databases, appendfilename and rdbchecksum are IMMUTABLE_CONFIG; dir and dbfilename are
   * PROTECTED_CONFIG and enable-protected-configs is off by default), or null.
   */
  private static String refusal(String name) {
    switch (name) {
      case "databases":
      case "appendfilename":
      case "rdbchecksum":
        return "can't set immutable config";
      case "dir":
      case "dbfilename":
        return "can't set protected config";
      default:
        return null;
    }
  }

  /**
   * Checks a value of a server parameter as Redis's config.c does (numbers by string2ll or memtoull
   * within the parameter's bounds, yes/no, enumerations), returning the error text after Redis's
   * "CONFIG SET failed (possibly related to argument ...) - ", or null if the value may be applied.
   * Parameters this server sets only at start-up take their current value and nothing else.
   */
  private String check(String name, String value, Map<String, String> current) {
    switch (name) {
      case "maxmemory":
        return Numbers.parseMemory(value) == null ? "argument must be a memory value" : null;
      case "auto-aof-rewrite-min-size":
        return Numbers.parseMemory(value) == null ? "argument must be a memory value" : null;
      case "proto-max-bulk-len":
        // Redis's bound is 2^63 - 1; requests here are held in one buffer of at most 2^31 - 64
        return bounded(Numbers.parseMemory(value), 1 << 20, Integer.MAX_VALUE - 64, true);
      case "auto-aof-rewrite-percentage":
      case "timeout":
        return bounded(Numbers.parseLong(value), 0, Integer.MAX_VALUE, false);
      case "maxclients":
        return bounded(Numbers.parseLong(value), 1, 0xffffffffL, false);
      case "port":
        return bounded(Numbers.parseLong(value), 0, 65535, false);
      case "protected-mode":
      case "latency-tracking":
      case "stop-writes-on-bgsave-error":
        return yesNo(value) == null ? "argument must be 'yes' or 'no'" : null;
      case "rdbcompression":
        Boolean compress = yesNo(value);
        if (compress == null) {
          return "argument must be 'yes' or 'no'";
        }
        return compress ? ServerConfig.Builder.fixedReason(name) : null;
      case "latency-tracking-info-percentiles":
        return LatencyPercentiles.error(value);
      case "slowlog-log-slower-than":
        return bounded(Numbers.parseLong(value), -1, Long.MAX_VALUE, false);
      case "slowlog-max-len":
        return bounded(Numbers.parseLong(value), 0, Long.MAX_VALUE, false);
      case "appendonly":
        return yesNo(value) == null ? "argument must be 'yes' or 'no'" : null;
      case "appendfsync":
        String policy = value.toLowerCase(Locale.ROOT);
        if (!policy.equals("always") && !policy.equals("everysec") && !policy.equals("no")) {
          return "argument(s) must be one of the following: always, everysec, no";
        }
        return null;
      case "bind":
        if (ServerConfig.bindAddresses(value) > 16) {
          return "Too many bind addresses specified.";
        }
        return ServerConfig.checkBind(value) != null
            ? "Failed to bind to specified addresses."
            : null;
      case "save":
        try {
          SavePoints.parse(value);
          return null;
        } catch (IllegalArgumentException e) {
          return e.getMessage();
        }
      default:
        return context.replication() != null
            ? context.replication().settings().check(name, value)
            : null;
    }
  }

  private static String bounded(Long number, long min, long max, boolean memory) {
    if (number == null) {
      return memory
          ? "argument must be a memory value"
          : "argument couldn't be parsed into an integer";
    }
    if (number < min || number > max) {
      return "argument must be between " + min + " and " + max + " inclusive";
    }
    return null;
  }

  private static Boolean yesNo(String value) {
    String lower = value.toLowerCase(Locale.ROOT);
    return lower.equals("yes") ? Boolean.TRUE : lower.equals("no") ? Boolean.FALSE : null;
  }

  /** Applies a server parameter's value that {@link #check} accepted. */
  private void apply(String name, String value) {
    switch (name) {
      case "maxmemory":
        context.maxMemory(Numbers.parseMemory(value));
        break;
      case "auto-aof-rewrite-min-size":
        context.rewriteMinSize(Numbers.parseMemory(value));
        break;
      case "auto-aof-rewrite-percentage":
        context.rewritePercentage((int) (long) Numbers.parseLong(value));
        break;
      case "proto-max-bulk-len":
        context.maxBulkLength(Numbers.parseMemory(value));
        break;
      case "timeout":
        context.timeoutSeconds((int) (long) Numbers.parseLong(value));
        break;
      case "maxclients":
        context.maxClients(Numbers.parseLong(value));
        break;
      case "requirepass":
        context.requirePass(value.isEmpty() ? null : value);
        break;
      case "protected-mode":
        context.protectedMode(yesNo(value));
        break;
      case "latency-tracking":
        context.latencyTracking(yesNo(value));
        break;
      case "save":
        context.savePoints(SavePoints.parse(value));
        break;
      case "stop-writes-on-bgsave-error":
        context.stopWritesOnBgsaveError(yesNo(value));
        break;
      case "latency-tracking-info-percentiles":
        context.latencyPercentiles(LatencyPercentiles.parse(value));
        break;
      case "slowlog-log-slower-than":
        context.slowlogLogSlowerThan(Numbers.parseLong(value));
        break;
      case "slowlog-max-len":
        context.slowlogMaxLen(Numbers.parseLong(value));
        break;
      case "appendfsync":
        String policy = value.toLowerCase(Locale.ROOT);
        context.appendFsync(policy);
        if (context.persistence() != null) {
          context.persistence().fsync(ServerConfig.Fsync.valueOf(policy.toUpperCase(Locale.ROOT)));
        }
        break;
      default:
        // rdbcompression: check accepted only its one value; port, bind, appendonly: applyServer
        if (context.replication() != null) {
          context.replication().settings().apply(name, value);
        }
        break;
    }
  }

  /**
   * CONFIG SET name value [name value ...], as Redis's configSetCommand: every parameter CONFIG GET
   * lists but databases (immutable) and dir (protected). Names are checked first (the first
   * unknown, immutable, protected or repeated one fails the command), then every value, and only
   * then is any applied. maxclients and maxmemory apply at once; timeout, proto-max-bulk-len,
   * requirepass and protected-mode apply to connections made afterwards (a cleared requirepass also
   * frees connections that never authenticated).
   */
  void configSet(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    if (args.length % 2 != 0) {
      reply.error(Args.SYNTAX_ERROR);
      return;
    }
    Map<String, String> current = configValues();
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (int i = 2; i < args.length; i += 2) {
      String name = Args.lower(args[i]);
      if (!current.containsKey(name)) {
        reply.error(
            "ERR Unknown option or number of arguments for CONFIG SET - '"
                + Args.text(args[i])
                + "'");
        return;
      }
      String refusal = refusal(name);
      if (refusal == null && !seen.add(name)) {
        refusal = "duplicate parameter";
      }
      if (refusal != null) {
        reply.error(failed(Args.text(args[i]), refusal));
        return;
      }
    }
    List<String> cfNames = new ArrayList<>();
    List<String> cfValues = new ArrayList<>();
    for (int i = 2; i < args.length; i += 2) {
      String name = Args.lower(args[i]);
      String value = Args.text(args[i + 1]);
      if (CfConfig.isParameter(name)) {
        cfNames.add(name);
        cfValues.add(value);
        continue;
      }
      String error = check(name, value, current);
      if (error != null) {
        reply.error(failed(name, error));
        return;
      }
    }
    String serverError = applyServer(args, current);
    if (serverError != null) {
      reply.error(serverError);
      return;
    }
    Map.Entry<Integer, String> error =
        context.cfConfig().setAll(cfNames.toArray(new String[0]), cfValues.toArray(new String[0]));
    if (error != null) {
      reply.error(failed(cfNames.get(error.getKey()), error.getValue()));
      return;
    }
    for (int i = 2; i < args.length; i += 2) {
      String name = Args.lower(args[i]);
      if (!CfConfig.isParameter(name)) {
        apply(name, Args.text(args[i + 1]));
      }
    }
    reply.ok();
  }

  /**
   * Applies port, bind and appendonly of a CONFIG SET whose values were all checked, before any
   * other parameter, as Redis's apply functions (config.c updatePort, applyBind, updateAppendonly):
   * the listener moves to the new address, the log is turned on or off. Returns Redis's error if
   * one cannot be applied, having put the listener back; null if all were.
   */
  private String applyServer(byte[][] args, Map<String, String> current) {
    String bind = current.get("bind");
    String port = current.get("port");
    String moved = null;
    Boolean appendOnly = null;
    for (int i = 2; i < args.length; i += 2) {
      String name = Args.lower(args[i]);
      String value = Args.text(args[i + 1]).trim();
      switch (name) {
        case "bind" -> {
          moved = value.equals(bind) ? moved : "bind";
          bind = value;
        }
        case "port" -> {
          moved = value.equals(port) || moved != null ? moved : "port";
          port = Long.toString(Numbers.parseLong(value));
        }
        case "appendonly" -> appendOnly = yesNo(value);
        default -> {}
      }
    }
    ServerControls controls = context.controls();
    if (moved != null) {
      if (!controls.listen(bind, Integer.parseInt(port))) {
        return failed(
            moved,
            moved.equals("bind")
                ? "Failed to bind to specified addresses."
                : "Unable to listen on this port. Check server logs.");
      }
      context.bind(bind);
    }
    if (appendOnly != null && !controls.appendOnly(appendOnly)) {
      if (moved != null) {
        context.bind(current.get("bind"));
        controls.listen(current.get("bind"), Integer.parseInt(current.get("port")));
      }
      return failed("appendonly", "Unable to turn on AOF. Check server logs.");
    }
    if (appendOnly != null && appendOnly) {
      context
          .persistence()
          .fsync(ServerConfig.Fsync.valueOf(context.appendFsync().toUpperCase(Locale.ROOT)));
    }
    if (appendOnly != null && context.replication() != null) {
      // a WAITAOF waiting for a local fsync gets its error once the log is off
      context.replication().fsyncMoved();
    }
    return null;
  }

  private static String failed(String name, String error) {
    return "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + error;
  }

  /** CONFIG RESETSTAT. */
  void configResetStat(Session session, Request request) {
    context.totalCommands().reset();
    context.totalConnections().set(0);
    commandStats.reset();
    context.errorStats().reset();
    context.expiredKeys().set(0);
    context.expiryStats().reset();
    context.keyspace().resetLookupCounts();
    context.traffic().reset();
    session.reply().ok();
  }

  /**
   * CONFIG REWRITE: writes the current settings into the config file the server was started with
   * ({@link ConfigRewrite}); Redis's errors without a config file and when the file cannot be
   * rewritten.
   */
  void configRewrite(Session session, Request request) {
    java.nio.file.Path file = context.config().configFile();
    if (file == null) {
      session.reply().error("ERR The server is running without a config file");
      return;
    }
    try {
      ConfigRewrite.rewriteFile(
          file,
          context.currentConfig().optionValues(),
          ServerConfig.builder().build().optionValues());
    } catch (java.io.IOException | IllegalArgumentException e) {
      LOGGER.log(System.Logger.Level.WARNING, "CONFIG REWRITE failed: " + reason(e));
      session.reply().error("ERR Rewriting config file: " + reason(e));
      return;
    }
    LOGGER.log(System.Logger.Level.INFO, "CONFIG REWRITE executed with success.");
    session.reply().ok();
  }

  /** Returns why a rewrite failed, in strerror's words where Java has a type for the cause. */
  private static String reason(Exception e) {
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "Permission denied";
    }
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "No such file or directory";
    }
    return String.valueOf(e.getMessage());
  }
}
