package dev.cuckoo.server.command;

import dev.cuckoo.server.ServerConfig;
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
  private final ServerContext context;

  /** Creates the commands over the server's shared state. */
  ConfigCommands(ServerContext context) {
    this.context = context;
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
    values.put("databases", Integer.toString(context.keyspace().databases()));
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

  private static boolean isServerParameter(String name) {
    return name.equals("maxmemory")
        || name.equals("auto-aof-rewrite-percentage")
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
      String name = Args.lower(args[i]);
      if (!CfConfig.isParameter(name) && !isServerParameter(name)) {
        reply.error(
            "ERR Unknown option or number of arguments for CONFIG SET - '"
                + Args.text(args[i])
                + "'");
        return;
      }
    }
    List<String> cfNames = new ArrayList<>();
    List<String> cfValues = new ArrayList<>();
    Map<String, Long> server = new LinkedHashMap<>();
    for (int i = 2; i < args.length; i += 2) {
      String name = Args.lower(args[i]);
      String value = Args.text(args[i + 1]);
      if (isServerParameter(name)) {
        Long number =
            name.equals("auto-aof-rewrite-percentage")
                ? Numbers.parseLong(value)
                : Numbers.parseMemory(value);
        if (number == null
            || number < 0
            || (name.equals("auto-aof-rewrite-percentage") && number > Integer.MAX_VALUE)) {
          reply.error(
              "ERR CONFIG SET failed (possibly related to argument '"
                  + name
                  + "') - "
                  + (name.equals("auto-aof-rewrite-percentage")
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
    Map.Entry<Integer, String> error =
        context.cfConfig().setAll(cfNames.toArray(new String[0]), cfValues.toArray(new String[0]));
    if (error != null) {
      reply.error(
          "ERR CONFIG SET failed (possibly related to argument '"
              + cfNames.get(error.getKey())
              + "') - "
              + error.getValue());
      return;
    }
    server.forEach(
        (name, value) -> {
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
