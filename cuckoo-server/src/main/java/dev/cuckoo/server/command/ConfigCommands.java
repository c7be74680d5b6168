package dev.cuckoo.server.command;

import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.Parameter;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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

  /**
   * CONFIG GET pattern [pattern ...]: a pattern without glob characters names one parameter (an
   * alias or an older name too, answered under the name asked for); a glob matches Redis's names
   * and aliases, as Redis 7's configGetCommand.
   */
  void configGet(Session session, Request request) {
    byte[][] args = request.args();
    Config config = context.config();
    Map<String, String> listed = config.listed();
    Map<String, String> matched = new LinkedHashMap<>();
    for (int i = 2; i < args.length; i++) {
      String pattern = Args.lower(args[i]);
      if (pattern.indexOf('*') < 0 && pattern.indexOf('?') < 0 && pattern.indexOf('[') < 0) {
        Parameter<?> parameter = Parameters.find(pattern);
        if (parameter != null) {
          matched.putIfAbsent(pattern, config.text(parameter));
        }
        continue;
      }
      byte[] glob = pattern.getBytes(StandardCharsets.UTF_8);
      for (Map.Entry<String, String> entry : listed.entrySet()) {
        if (Glob.matches(glob, entry.getKey().getBytes(StandardCharsets.UTF_8))) {
          matched.putIfAbsent(entry.getKey(), entry.getValue());
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
   * CONFIG SET name value [name value ...], as Redis's configSetCommand: the parameter table checks
   * every name (unknown, immutable, protected, repeated), then every value, and only then applies
   * them all ({@link Config#set}).
   */
  void configSet(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    if (args.length % 2 != 0) {
      reply.error(Args.SYNTAX_ERROR);
      return;
    }
    List<String> names = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (int i = 2; i < args.length; i += 2) {
      names.add(Args.text(args[i]));
      values.add(Args.text(args[i + 1]));
    }
    String error = context.config().set(names, values);
    if (error != null) {
      reply.error(error);
      return;
    }
    reply.ok();
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
    java.nio.file.Path file = context.config().file();
    if (file == null) {
      session.reply().error("ERR The server is running without a config file");
      return;
    }
    java.util.Map<String, String> current =
        new java.util.LinkedHashMap<>(context.config().fileValues());
    if (context.cluster() != null) {
      // as Redis: a cluster replica follows its master by nodes.conf (CLUSTER REPLICATE), and a
      // replicaof line would stop the node from starting
      current.put(Parameters.REPLICAOF.name(), null);
    }
    try {
      ConfigRewrite.rewriteFile(
          file,
          current,
          new Config().fileValues(),
          // as Redis: with an aclfile the users live there and the file's user lines go
          context.config().get(Parameters.ACLFILE) == null ? context.acl().lines() : List.of());
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
