package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.INTEGER;
import static dev.cuckoo.server.command.Argument.PATTERN;
import static dev.cuckoo.server.command.Argument.STRING;
import static dev.cuckoo.server.command.Argument.arg;
import static dev.cuckoo.server.command.Argument.block;
import static dev.cuckoo.server.command.Argument.key;
import static dev.cuckoo.server.command.Argument.oneOf;
import static dev.cuckoo.server.command.Argument.token;
import static dev.cuckoo.server.command.CommandSpec.command;

import java.util.List;

/**
 * The server commands: DBSIZE, flushes, persistence, DEBUG, INFO, CONFIG, MEMORY, ROLE, TIME,
 * LATENCY, SWAPDB and COMMAND. Flags, categories and key specs as Redis 8 reports them; docs from
 * Redis's command JSON.
 */
final class ServerFamily {
  private ServerFamily() {}

  /**
   * Returns the entries, bound to handlers built from {@code parts}.
   *
   * @param parts what the handlers are built from
   */
  static List<CommandSpec.Builder> entries(Families.Parts parts) {
    ServerContext context = parts.context();
    DatabaseCommands database = new DatabaseCommands(context);
    PersistenceCommands persistence = new PersistenceCommands(context);
    CommandStatsReport commandStats = new CommandStatsReport(parts.commands()::table);
    InfoCommands info = new InfoCommands(context, commandStats);
    ConfigCommands config = new ConfigCommands(context, commandStats);
    MoveCommands moves =
        new MoveCommands(context, new ConnectionCommands(context, parts.commands()));
    KeyspaceCommands keys = new KeyspaceCommands(context.keyspace());
    CommandInfo commandInfo = new CommandInfo(parts.commands());
    DebugCommands debug = new DebugCommands(context, parts.expiryCycle());
    MemoryCommands memory = new MemoryCommands(context);
    SlowLogCommands slowLog = new SlowLogCommands(context);
    return List.of(
        command("dbsize")
            .arity(1)
            .flags("readonly", "fast")
            .categories("keyspace", "read", "fast")
            .summary("Returns the number of keys in the database.")
            .group("server")
            .since("1.0.0")
            .complexity("O(1)")
            .tips("request_policy:all_shards", "response_policy:agg_sum")
            .handler(database::dbsize),
        command("flushdb")
            .arity(-1)
            .flags("write")
            .categories("keyspace", "write", "slow", "dangerous")
            .writes(Writes.DATABASE)
            .summary("Removes all keys from the current database.")
            .group("server")
            .since("1.0.0")
            .complexity("O(N) where N is the number of keys in the selected database")
            .tips("request_policy:all_shards", "response_policy:all_succeeded")
            .history(
                "4.0.0",
                "Added the `ASYNC` flushing mode modifier.",
                "6.2.0",
                "Added the `SYNC` flushing mode modifier.")
            .arguments(
                oneOf(
                        "flush-type",
                        token("async", "ASYNC").since("4.0.0"),
                        token("sync", "SYNC").since("6.2.0"))
                    .optional())
            .handler(database::flush),
        command("flushall")
            .arity(-1)
            .flags("write")
            .categories("keyspace", "write", "slow", "dangerous")
            .writes(Writes.ALL_DATABASES)
            .summary("Removes all keys from all databases.")
            .group("server")
            .since("1.0.0")
            .complexity("O(N) where N is the total number of keys in all databases")
            .tips("request_policy:all_shards", "response_policy:all_succeeded")
            .history(
                "4.0.0",
                "Added the `ASYNC` flushing mode modifier.",
                "6.2.0",
                "Added the `SYNC` flushing mode modifier.")
            .arguments(
                oneOf(
                        "flush-type",
                        token("async", "ASYNC").since("4.0.0"),
                        token("sync", "SYNC").since("6.2.0"))
                    .optional())
            .handler(database::flush),
        command("save")
            .arity(1)
            .flags("admin", "noscript", "no_async_loading", "no_multi")
            .categories("admin", "slow", "dangerous")
            .summary("Synchronously saves the database(s) to disk.")
            .group("server")
            .since("1.0.0")
            .complexity("O(N) where N is the total number of keys in all databases")
            .handler(persistence::save),
        command("bgsave")
            .arity(-1)
            .flags("admin", "noscript", "no_async_loading")
            .categories("admin", "slow", "dangerous")
            .summary("Asynchronously saves the database(s) to disk.")
            .group("server")
            .since("1.0.0")
            .complexity("O(1)")
            .history("3.2.2", "Added the `SCHEDULE` option.")
            .arguments(token("schedule", "SCHEDULE").since("3.2.2").optional())
            .handler(persistence::bgsave),
        command("bgrewriteaof")
            .arity(1)
            .flags("admin", "noscript", "no_async_loading")
            .categories("admin", "slow", "dangerous")
            .summary("Asynchronously rewrites the append-only file to disk.")
            .group("server")
            .since("1.0.0")
            .complexity("O(1)")
            .handler(persistence::bgrewriteaof),
        command("debug")
            .arity(-2)
            .flags("admin", "noscript", "loading", "stale", "protected")
            .categories("admin", "slow", "dangerous")
            .summary("A container for debugging commands.")
            .group("server")
            .since("1.0.0")
            .complexity("Depends on subcommand.")
            .docFlags("syscmd")
            .handler(debug::debug),
        command("lastsave")
            .arity(1)
            .flags("loading", "stale", "fast")
            .categories("admin", "fast", "dangerous")
            .summary("Returns the Unix timestamp of the last successful save to disk.")
            .group("server")
            .since("1.0.0")
            .complexity("O(1)")
            .tips("nondeterministic_output")
            .handler(persistence::lastsave),
        command("shutdown")
            .arity(-1)
            .flags("admin", "noscript", "loading", "stale", "no_multi", "allow_busy")
            .categories("admin", "slow", "dangerous")
            .summary("Synchronously saves the database(s) to disk and shuts down the server.")
            .group("server")
            .since("1.0.0")
            .complexity(
                "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)")
            .history("7.0.0", "Added the `NOW`, `FORCE` and `ABORT` modifiers.")
            .arguments(
                oneOf("save-selector", token("nosave", "NOSAVE"), token("save", "SAVE")).optional(),
                token("now", "NOW").since("7.0.0").optional(),
                token("force", "FORCE").since("7.0.0").optional(),
                token("abort", "ABORT").since("7.0.0").optional())
            .handler(persistence::shutdown),
        command("info")
            .arity(-1)
            .flags("loading", "stale")
            .categories("slow", "dangerous")
            .summary("Returns information and statistics about the server.")
            .group("server")
            .since("1.0.0")
            .complexity("O(1)")
            .tips("nondeterministic_output", "request_policy:all_shards", "response_policy:special")
            .history("7.0.0", "Added support for taking multiple section arguments.")
            .arguments(arg("section", STRING).optional().multiple())
            .handler(info::info),
        command("config")
            .arity(-2)
            .categories("slow")
            .summary("A container for server configuration commands.")
            .group("server")
            .since("2.0.0")
            .complexity("Depends on subcommand.")
            .subcommands(
                command("config|get")
                    .arity(-3)
                    .flags("admin", "noscript", "loading", "stale")
                    .categories("admin", "slow", "dangerous")
                    .summary("Returns the effective values of configuration parameters.")
                    .group("server")
                    .since("2.0.0")
                    .complexity("O(N) when N is the number of configuration parameters provided")
                    .history(
                        "7.0.0",
                        "Added the ability to pass multiple pattern parameters in one call")
                    .arguments(arg("parameter", STRING).multiple())
                    .handler(config::configGet),
                command("config|set")
                    .arity(-4)
                    .flags("admin", "noscript", "loading", "stale")
                    .categories("admin", "slow", "dangerous")
                    .summary("Sets configuration parameters in-flight.")
                    .group("server")
                    .since("2.0.0")
                    .complexity("O(N) when N is the number of configuration parameters provided")
                    .tips("request_policy:all_nodes", "response_policy:all_succeeded")
                    .history("7.0.0", "Added the ability to set multiple parameters in one call.")
                    .arguments(
                        block("data", arg("parameter", STRING), arg("value", STRING)).multiple())
                    .handler(config::configSet),
                command("config|resetstat")
                    .arity(2)
                    .flags("admin", "noscript", "loading", "stale")
                    .categories("admin", "slow", "dangerous")
                    .summary("Resets the server's statistics.")
                    .group("server")
                    .since("2.0.0")
                    .complexity("O(1)")
                    .tips("request_policy:all_nodes", "response_policy:all_succeeded")
                    .handler(config::configResetStat),
                command("config|rewrite")
                    .arity(2)
                    .flags("admin", "noscript", "loading", "stale")
                    .categories("admin", "slow", "dangerous")
                    .summary("Persists the effective configuration to file.")
                    .group("server")
                    .since("2.8.0")
                    .complexity("O(1)")
                    .tips("request_policy:all_nodes", "response_policy:all_succeeded")
                    .handler(config::configRewrite),
                HelpCommands.entry("config", "server", "5.0.0", HelpCommands::config)),
        command("memory")
            .arity(-2)
            .categories("slow")
            .summary("A container for memory diagnostics commands.")
            .group("server")
            .since("4.0.0")
            .complexity("Depends on subcommand.")
            .subcommands(
                command("memory|usage")
                    .arity(-3)
                    .flags("readonly")
                    .categories("read", "slow")
                    .keys(KeySpec.one(2, "RO"))
                    .summary("Estimates the memory usage of a key.")
                    .group("server")
                    .since("4.0.0")
                    .complexity("O(N) where N is the number of samples.")
                    .arguments(key("key", 0), arg("count", INTEGER).token("SAMPLES").optional())
                    .handler(keys::memoryUsage),
                memory("memory|stats")
                    .summary("Returns details about memory usage.")
                    .complexity("O(1)")
                    .tips(
                        "nondeterministic_output",
                        "request_policy:all_shards",
                        "response_policy:special")
                    .handler(memory::stats),
                memory("memory|doctor")
                    .summary("Outputs a memory problems report.")
                    .complexity("O(1)")
                    .tips(
                        "nondeterministic_output",
                        "request_policy:all_shards",
                        "response_policy:special")
                    .handler(memory::doctor),
                memory("memory|malloc-stats")
                    .summary("Returns the allocator statistics.")
                    .complexity("Depends on how much memory is allocated, could be slow")
                    .tips(
                        "nondeterministic_output",
                        "request_policy:all_shards",
                        "response_policy:special")
                    .handler(memory::mallocStats),
                memory("memory|purge")
                    .summary("Asks the allocator to release memory.")
                    .complexity("Depends on how much memory is allocated, could be slow")
                    .tips("request_policy:all_shards", "response_policy:all_succeeded")
                    .handler(memory::purge),
                HelpCommands.entry("memory", "server", "4.0.0", HelpCommands::memory)),
        command("role")
            .arity(1)
            .flags("noscript", "loading", "stale", "fast")
            .categories("admin", "fast", "dangerous")
            .summary("Returns the replication role.")
            .group("server")
            .since("2.8.12")
            .complexity("O(1)")
            .handler(info::role),
        command("time")
            .arity(1)
            .flags("loading", "stale", "fast")
            .categories("fast")
            .summary("Returns the server time.")
            .group("server")
            .since("2.6.0")
            .complexity("O(1)")
            .tips("nondeterministic_output")
            .handler(info::time),
        command("latency")
            .arity(-2)
            .categories("slow")
            .summary("A container for latency diagnostics commands.")
            .group("server")
            .since("2.8.13")
            .complexity("Depends on subcommand.")
            .subcommands(
                latency("latency|latest", 2)
                    .summary("Returns the latest latency samples for all events.")
                    .tips(
                        "nondeterministic_output",
                        "request_policy:all_nodes",
                        "response_policy:special")
                    .handler(LatencyCommands::latest),
                latency("latency|history", 3)
                    .summary("Returns timestamp-latency samples for an event.")
                    .tips(
                        "nondeterministic_output",
                        "request_policy:all_nodes",
                        "response_policy:special")
                    .arguments(arg("event", STRING))
                    .handler(LatencyCommands::history),
                latency("latency|reset", -2)
                    .summary("Resets the latency data for one or more events.")
                    .tips("request_policy:all_nodes", "response_policy:agg_sum")
                    .arguments(arg("event", STRING).optional().multiple())
                    .handler(LatencyCommands::reset),
                latency("latency|graph", 3)
                    .summary("Returns a latency graph for an event.")
                    .tips(
                        "nondeterministic_output",
                        "request_policy:all_nodes",
                        "response_policy:special")
                    .arguments(arg("event", STRING))
                    .handler(LatencyCommands::graph),
                latency("latency|doctor", 2)
                    .summary("Returns a human-readable latency analysis report.")
                    .tips(
                        "nondeterministic_output",
                        "request_policy:all_nodes",
                        "response_policy:special")
                    .handler(LatencyCommands::doctor),
                latency("latency|histogram", -2)
                    .summary(
                        "Returns the cumulative distribution of latencies of a subset or all"
                            + " commands.")
                    .since("7.0.0")
                    .complexity(
                        "O(N) where N is the number of commands with latency information being"
                            + " retrieved.")
                    .tips(
                        "nondeterministic_output",
                        "request_policy:all_nodes",
                        "response_policy:special")
                    .arguments(arg("command", STRING).optional().multiple())
                    .handler(commandStats::histogram),
                HelpCommands.entry("latency", "server", "2.8.13", HelpCommands::latency)),
        command("module")
            .arity(-2)
            .categories("slow")
            .summary("A container for module commands.")
            .group("server")
            .since("4.0.0")
            .complexity("Depends on subcommand.")
            .subcommands(
                command("module|list")
                    .arity(2)
                    .flags("admin", "noscript")
                    .categories("admin", "slow", "dangerous")
                    .summary("Returns all loaded modules.")
                    .group("server")
                    .since("4.0.0")
                    .complexity("O(N) where N is the number of loaded modules.")
                    .tips("nondeterministic_output_order")
                    .handler(ModuleCommands::list),
                moduleLoading("module|load", -3)
                    .summary("Loads a module.")
                    .arguments(arg("path", STRING), arg("arg", STRING).optional().multiple())
                    .handler(ModuleCommands::refused),
                moduleLoading("module|loadex", -3)
                    .summary("Loads a module using extended parameters.")
                    .since("7.0.0")
                    .arguments(
                        arg("path", STRING),
                        block("configs", arg("name", STRING), arg("value", STRING))
                            .token("CONFIG")
                            .multiple()
                            .multipleToken()
                            .optional(),
                        arg("args", STRING).token("ARGS").multiple().optional())
                    .handler(ModuleCommands::refused),
                moduleLoading("module|unload", 3)
                    .summary("Unloads a module.")
                    .arguments(arg("name", STRING))
                    .handler(ModuleCommands::refused),
                HelpCommands.entry("module", "server", "5.0.0", HelpCommands::module)),
        command("slowlog")
            .arity(-2)
            .categories("slow")
            .summary("A container for slow log commands.")
            .group("server")
            .since("2.2.12")
            .complexity("Depends on subcommand.")
            .subcommands(
                slowlog("slowlog|get", -2)
                    .summary("Returns the slow log's entries.")
                    .complexity("O(N) where N is the number of entries returned")
                    .history("4.0.0", "Added client IP address, port and name to the reply.")
                    .tips("request_policy:all_nodes", "nondeterministic_output")
                    .arguments(arg("count", INTEGER).optional())
                    .handler(slowLog::get),
                slowlog("slowlog|len", 2)
                    .summary("Returns the number of entries in the slow log.")
                    .complexity("O(1)")
                    .tips(
                        "request_policy:all_nodes",
                        "response_policy:agg_sum",
                        "nondeterministic_output")
                    .handler(slowLog::len),
                slowlog("slowlog|reset", 2)
                    .summary("Clears all entries from the slow log.")
                    .complexity("O(N) where N is the number of entries in the slowlog")
                    .tips("request_policy:all_nodes", "response_policy:all_succeeded")
                    .handler(slowLog::reset),
                HelpCommands.entry("slowlog", "server", "6.2.0", HelpCommands::slowlog)
                    .summary("Show helpful text about the different subcommands")),
        command("swapdb")
            .arity(3)
            .flags("write", "fast")
            .categories("keyspace", "write", "fast", "dangerous")
            .writes(Writes.SWAPS_DATABASES)
            .summary("Swaps two Redis databases.")
            .group("server")
            .since("4.0.0")
            .complexity(
                "O(N) where N is the count of clients watching or blocking on keys from both databases.")
            .arguments(arg("index1", INTEGER), arg("index2", INTEGER))
            .handler(moves::swapDb),
        command("command")
            .arity(-1)
            .flags("loading", "stale")
            .categories("slow", "connection")
            .summary("Returns detailed information about all commands.")
            .group("server")
            .since("2.8.13")
            .complexity("O(N) where N is the total number of Redis commands")
            .tips("nondeterministic_output_order")
            .subcommands(
                command("command|count")
                    .arity(2)
                    .flags("loading", "stale")
                    .categories("slow", "connection")
                    .summary("Returns a count of commands.")
                    .group("server")
                    .since("2.8.13")
                    .complexity("O(1)")
                    .handler(commandInfo::count),
                command("command|docs")
                    .arity(-2)
                    .flags("loading", "stale")
                    .categories("slow", "connection")
                    .summary("Returns documentary information about one, multiple or all commands.")
                    .group("server")
                    .since("7.0.0")
                    .complexity("O(N) where N is the number of commands to look up")
                    .tips("nondeterministic_output_order")
                    .arguments(arg("command-name", STRING).optional().multiple())
                    .handler(commandInfo::docs),
                command("command|info")
                    .arity(-2)
                    .flags("loading", "stale")
                    .categories("slow", "connection")
                    .summary("Returns information about one, multiple or all commands.")
                    .group("server")
                    .since("2.8.13")
                    .complexity("O(N) where N is the number of commands to look up")
                    .tips("nondeterministic_output_order")
                    .history(
                        "7.0.0",
                        "Allowed to be called with no argument to get info on all commands.")
                    .arguments(arg("command-name", STRING).optional().multiple())
                    .handler(commandInfo::info),
                command("command|list")
                    .arity(-2)
                    .flags("loading", "stale")
                    .categories("slow", "connection")
                    .summary("Returns a list of command names.")
                    .group("server")
                    .since("7.0.0")
                    .complexity("O(N) where N is the total number of Redis commands")
                    .tips("nondeterministic_output_order")
                    .arguments(
                        oneOf(
                                "filterby",
                                arg("module-name", STRING).token("MODULE"),
                                arg("category", STRING).token("ACLCAT"),
                                arg("pattern", PATTERN).token("PATTERN"))
                            .token("FILTERBY")
                            .optional())
                    .handler(commandInfo::list),
                command("command|getkeys")
                    .arity(-3)
                    .flags("loading", "stale")
                    .categories("slow", "connection")
                    .summary("Extracts the key names from an arbitrary command.")
                    .group("server")
                    .since("2.8.13")
                    .complexity("O(N) where N is the number of arguments to the command")
                    .arguments(arg("command", STRING), arg("arg", STRING).optional().multiple())
                    .handler(commandInfo::getKeys),
                command("command|getkeysandflags")
                    .arity(-3)
                    .flags("loading", "stale")
                    .categories("slow", "connection")
                    .summary("Extracts the key names and access flags for an arbitrary command.")
                    .group("server")
                    .since("7.0.0")
                    .complexity("O(N) where N is the number of arguments to the command")
                    .arguments(arg("command", STRING), arg("arg", STRING).optional().multiple())
                    .handler(commandInfo::getKeysAndFlags),
                HelpCommands.entry("command", "server", "5.0.0", HelpCommands::command)
                    .flags("loading", "stale", "sentinel")
                    .categories("slow", "connection"))
            .handler(commandInfo::all));
  }

  /** Starts a MEMORY subcommand without keys: Redis gives them no flags but the category slow. */
  private static CommandSpec.Builder memory(String name) {
    return command(name).arity(2).categories("slow").group("server").since("4.0.0");
  }

  /** Starts MODULE LOAD, LOADEX or UNLOAD: Redis gives them the same flags and categories. */
  private static CommandSpec.Builder moduleLoading(String name, int arity) {
    return admin(name, arity, "4.0.0", "admin", "noscript", "no_async_loading", "protected")
        .complexity("O(1)");
  }

  /** Starts a SLOWLOG subcommand: Redis gives them all the same flags, categories and version. */
  private static CommandSpec.Builder slowlog(String name, int arity) {
    return admin(name, arity, "2.2.12", "admin", "loading", "stale");
  }

  /** Starts a LATENCY subcommand: Redis gives them all the same flags, categories and version. */
  private static CommandSpec.Builder latency(String name, int arity) {
    return admin(name, arity, "2.8.13", "admin", "noscript", "loading", "stale").complexity("O(1)");
  }

  /**
   * Starts an admin command of the server group: Redis puts every command with the admin flag in
   * the categories admin, slow and dangerous.
   */
  private static CommandSpec.Builder admin(String name, int arity, String since, String... flags) {
    return command(name)
        .arity(arity)
        .flags(flags)
        .categories("admin", "slow", "dangerous")
        .group("server")
        .since(since);
  }
}
