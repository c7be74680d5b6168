package dev.cuckoo.server.command;

import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;

/**
 * The HELP subcommands of OBJECT, MEMORY, CLIENT, CONFIG, COMMAND and LATENCY, answering Redis 8's
 * help texts word for word (clients and operators compare them), subcommands this server does not
 * implement included. As Redis's addReplyHelp does, each reply is an array of simple strings: a
 * line naming the command, the text, then two lines describing HELP itself.
 */
final class HelpCommands {
  /** The summary Redis gives every HELP subcommand. */
  private static final String SUMMARY = "Returns helpful text about the different subcommands.";

  /** Redis's OBJECT HELP text (object.c objectCommand). */
  private static final String[] OBJECT = {
    "ENCODING <key>",
    "    Return the kind of internal representation used in order to store the value",
    "    associated with a <key>.",
    "FREQ <key>",
    "    Return the access frequency index of the <key>. The returned integer is",
    "    proportional to the logarithm of the recent access frequency of the key.",
    "IDLETIME <key>",
    "    Return the idle time of the <key>, that is the approximated number of",
    "    seconds elapsed since the last access to the key.",
    "REFCOUNT <key>",
    "    Return the number of references of the value associated with the specified",
    "    <key>."
  };

  /** Redis's MEMORY HELP text (object.c memoryCommand). */
  private static final String[] MEMORY = {
    "DOCTOR",
    "    Return memory problems reports.",
    "MALLOC-STATS",
    "    Return internal statistics report from the memory allocator.",
    "PURGE",
    "    Attempt to purge dirty pages for reclamation by the allocator.",
    "STATS",
    "    Return information about the memory usage of the server.",
    "USAGE <key> [SAMPLES <count>]",
    "    Return memory in bytes used by <key> and its value. Nested values are",
    "    sampled up to <count> times (default: 5, 0 means sample all)."
  };

  /** Redis's CLIENT HELP text (networking.c clientCommand). */
  private static final String[] CLIENT = {
    "CACHING (YES|NO)",
    "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
    "GETREDIR",
    "    Return the client ID we are redirecting to when tracking is enabled.",
    "GETNAME",
    "    Return the name of the current connection.",
    "ID",
    "    Return the ID of the current connection.",
    "INFO",
    "    Return information about the current client connection.",
    "KILL <ip:port>",
    "    Kill connection made from <ip:port>.",
    "KILL <option> <value> [<option> <value> [...]]",
    "    Kill connections. Options are:",
    "    * ADDR (<ip:port>|<unixsocket>:0)",
    "      Kill connections made from the specified address",
    "    * LADDR (<ip:port>|<unixsocket>:0)",
    "      Kill connections made to specified local address",
    "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
    "      Kill connections by type.",
    "    * USER <username>",
    "      Kill connections authenticated by <username>.",
    "    * SKIPME (YES|NO)",
    "      Skip killing current connection (default: yes).",
    "    * ID <client-id>",
    "      Kill connections by client id.",
    "    * MAXAGE <maxage>",
    "      Kill connections older than the specified age.",
    "LIST [options ...]",
    "    Return information about client connections. Options:",
    "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
    "      Return clients of specified type.",
    "UNPAUSE",
    "    Stop the current client pause, resuming traffic.",
    "PAUSE <timeout> [WRITE|ALL]",
    "    Suspend all, or just write, clients for <timeout> milliseconds.",
    "REPLY (ON|OFF|SKIP)",
    "    Control the replies sent to the current connection.",
    "SETNAME <name>",
    "    Assign the name <name> to the current connection.",
    "SETINFO <option> <value>",
    "    Set client meta attr. Options are:",
    "    * LIB-NAME: the client lib name.",
    "    * LIB-VER: the client lib version.",
    "UNBLOCK <clientid> [TIMEOUT|ERROR]",
    "    Unblock the specified blocked client.",
    "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
    "         [OPTIN] [OPTOUT] [NOLOOP]",
    "    Control server assisted client side caching.",
    "TRACKINGINFO",
    "    Report tracking status for the current connection.",
    "NO-EVICT (ON|OFF)",
    "    Protect current client connection from eviction.",
    "NO-TOUCH (ON|OFF)",
    "    Will not touch LRU/LFU stats when this mode is on."
  };

  /** Redis's CONFIG HELP text (config.c configHelpCommand). */
  private static final String[] CONFIG = {
    "GET <pattern>",
    "    Return parameters matching the glob-like <pattern> and their values.",
    "SET <directive> <value>",
    "    Set the configuration <directive> to <value>.",
    "RESETSTAT",
    "    Reset statistics reported by the INFO command.",
    "REWRITE",
    "    Rewrite the configuration file."
  };

  /** Redis's COMMAND HELP text (server.c commandHelpCommand). */
  private static final String[] COMMAND = {
    "(no subcommand)",
    "    Return details about all Redis commands.",
    "COUNT",
    "    Return the total number of commands in this Redis server.",
    "LIST",
    "    Return a list of all commands in this Redis server.",
    "INFO [<command-name> ...]",
    "    Return details about multiple Redis commands.",
    "    If no command names are given, documentation details for all",
    "    commands are returned.",
    "DOCS [<command-name> ...]",
    "    Return documentation details about multiple Redis commands.",
    "    If no command names are given, documentation details for all",
    "    commands are returned.",
    "GETKEYS <full-command>",
    "    Return the keys from a full Redis command.",
    "GETKEYSANDFLAGS <full-command>",
    "    Return the keys and the access flags from a full Redis command."
  };

  /** Redis's LATENCY HELP text (latency.c latencyCommand). */
  private static final String[] MODULE = {
    "LIST",
    "    Return a list of loaded modules.",
    "LOAD <path> [<arg> ...]",
    "    Load a module library from <path>, passing to it any optional arguments.",
    "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
    "    Load a module library from <path>, while passing it module configurations and optional"
        + " arguments.",
    "UNLOAD <name>",
    "    Unload a module.",
  };

  private static final String[] SLOWLOG = {
    "GET [<count>]",
    "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
    "    Entries are made of:",
    "    id, timestamp, time in microseconds, arguments array, client IP and port,",
    "    client name",
    "LEN",
    "    Return the length of the slowlog.",
    "RESET",
    "    Reset the slowlog.",
  };

  private static final String[] LATENCY = {
    "DOCTOR",
    "    Return a human readable latency analysis report.",
    "GRAPH <event>",
    "    Return an ASCII latency graph for the <event> class.",
    "HISTORY <event>",
    "    Return time-latency samples for the <event> class.",
    "LATEST",
    "    Return the latest latency samples for all events.",
    "RESET [<event> ...]",
    "    Reset latency data of one or more <event> classes.",
    "    (default: reset all data for all event classes)",
    "HISTOGRAM [COMMAND ...]",
    "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
    "    If no commands are specified then all histograms are replied."
  };

  /** Redis's PUBSUB HELP text (pubsub.c pubsubCommand). */
  private static final String[] PUBSUB = {
    "CHANNELS [<pattern>]",
    "    Return the currently active channels matching a <pattern> (default: '*').",
    "NUMPAT",
    "    Return number of subscriptions to patterns.",
    "NUMSUB [<channel> ...]",
    "    Return the number of subscribers for the specified channels, excluding",
    "    pattern subscriptions(default: no channels).",
    "SHARDCHANNELS [<pattern>]",
    "    Return the currently active shard level channels matching a <pattern> (default: '*').",
    "SHARDNUMSUB [<shardchannel> ...]",
    "    Return the number of subscribers for the specified shard level channel(s)"
  };

  private HelpCommands() {}

  /**
   * Starts the entry of a container's HELP subcommand, e.g. {@code entry("config", "server",
   * "5.0.0", HelpCommands::config)}, with what Redis's JSON files give all of them: arity 2, the
   * flags loading and stale, the category slow, {@link #SUMMARY} and complexity O(1). Where Redis's
   * entry differs the caller sets that field again (CLIENT HELP adds the flag sentinel, OBJECT HELP
   * the category keyspace).
   */
  static CommandSpec.Builder entry(
      String container, String group, String since, CommandSpec.Handler handler) {
    return CommandSpec.command(container + "|help")
        .arity(2)
        .flags("loading", "stale")
        .categories("slow")
        .summary(SUMMARY)
        .group(group)
        .since(since)
        .complexity("O(1)")
        .handler(handler);
  }

  /** OBJECT HELP. */
  static void object(Session session, Request request) {
    reply(session, "OBJECT", OBJECT);
  }

  /** MEMORY HELP. */
  static void memory(Session session, Request request) {
    reply(session, "MEMORY", MEMORY);
  }

  /** CLIENT HELP. */
  static void client(Session session, Request request) {
    reply(session, "CLIENT", CLIENT);
  }

  /** CONFIG HELP. */
  static void config(Session session, Request request) {
    reply(session, "CONFIG", CONFIG);
  }

  /** COMMAND HELP. */
  static void command(Session session, Request request) {
    reply(session, "COMMAND", COMMAND);
  }

  /** PUBSUB HELP. */
  static void pubsub(Session session, Request request) {
    reply(session, "PUBSUB", PUBSUB);
  }

  /** MODULE HELP. */
  static void module(Session session, Request request) {
    reply(session, "MODULE", MODULE);
  }

  /** SLOWLOG HELP. */
  static void slowlog(Session session, Request request) {
    reply(session, "SLOWLOG", SLOWLOG);
  }

  /** LATENCY HELP. */
  static void latency(Session session, Request request) {
    reply(session, "LATENCY", LATENCY);
  }

  /** Writes a HELP reply: the heading naming {@code command}, the lines, then HELP's own two. */
  static void reply(Session session, String command, String[] lines) {
    Reply reply = session.reply();
    reply.array(lines.length + 3);
    reply.simple(command + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    for (String line : lines) {
      reply.simple(line);
    }
    reply.simple("HELP");
    reply.simple("    Print this help.");
  }
}
