package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.INTEGER;
import static dev.cuckoo.server.command.Argument.STRING;
import static dev.cuckoo.server.command.Argument.arg;
import static dev.cuckoo.server.command.Argument.block;
import static dev.cuckoo.server.command.Argument.oneOf;
import static dev.cuckoo.server.command.Argument.token;
import static dev.cuckoo.server.command.CommandSpec.command;

import java.util.List;

/**
 * The connection commands: PING, ECHO, HELLO, AUTH, QUIT, SELECT, CLIENT and RESET. Flags,
 * categories and key specs as Redis 8 reports them; docs from Redis's command JSON.
 */
final class ConnectionFamily {
  private ConnectionFamily() {}

  /**
   * Returns the entries, bound to handlers built from {@code parts}.
   *
   * @param parts what the handlers are built from
   */
  static List<CommandSpec.Builder> entries(Families.Parts parts) {
    ConnectionCommands connection = new ConnectionCommands(parts.context(), parts.commands());
    ClientCommands clients = new ClientCommands(parts.context());
    return List.of(
        command("ping")
            .arity(-1)
            .flags("fast")
            .categories("fast", "connection")
            .summary("Returns the server's liveliness response.")
            .group("connection")
            .since("1.0.0")
            .complexity("O(1)")
            .tips("request_policy:all_shards", "response_policy:all_succeeded")
            .arguments(arg("message", STRING).optional())
            .allowedWhileSubscribed()
            .handler(connection::ping),
        command("echo")
            .arity(2)
            .flags("loading", "stale", "fast")
            .categories("fast", "connection")
            .summary("Returns the given string.")
            .group("connection")
            .since("1.0.0")
            .complexity("O(1)")
            .arguments(arg("message", STRING))
            .handler(connection::echo),
        command("readonly")
            .arity(1)
            .flags("loading", "stale", "fast")
            .categories("fast", "connection")
            .summary("Enables read-only queries for a connection to a Redis Cluster replica node.")
            .group("cluster")
            .since("3.0.0")
            .complexity("O(1)")
            .handler(connection::readOnly),
        command("readwrite")
            .arity(1)
            .flags("loading", "stale", "fast")
            .categories("fast", "connection")
            .summary("Enables read-write queries for a connection to a Reids Cluster replica node.")
            .group("cluster")
            .since("3.0.0")
            .complexity("O(1)")
            .handler(connection::readWrite),
        command("asking")
            .arity(1)
            .flags("fast")
            .categories("fast", "connection")
            .summary("Signals that a cluster client is following an -ASK redirect.")
            .group("cluster")
            .since("3.0.0")
            .complexity("O(1)")
            .handler(connection::asking),
        command("hello")
            .arity(-1)
            .flags("noscript", "loading", "stale", "fast", "no_auth", "allow_busy")
            .categories("fast", "connection")
            .summary("Handshakes with the Redis server.")
            .group("connection")
            .since("6.0.0")
            .complexity("O(1)")
            .history(
                "6.2.0",
                "`protover` made optional; when called without arguments the command reports the current connection's context.")
            .arguments(
                block(
                        "arguments",
                        arg("protover", INTEGER),
                        block("auth", arg("username", STRING), arg("password", STRING))
                            .token("AUTH")
                            .optional(),
                        arg("clientname", STRING).token("SETNAME").optional())
                    .optional())
            .handler(connection::hello),
        command("auth")
            .arity(-2)
            .flags("noscript", "loading", "stale", "fast", "no_auth", "allow_busy")
            .categories("fast", "connection")
            .summary("Authenticates the connection.")
            .group("connection")
            .since("1.0.0")
            .complexity("O(N) where N is the number of passwords defined for the user")
            .history("6.0.0", "Added ACL style (username and password).")
            .arguments(arg("username", STRING).since("6.0.0").optional(), arg("password", STRING))
            .handler(connection::auth),
        command("quit")
            .arity(-1)
            .flags("noscript", "loading", "stale", "fast", "no_auth", "allow_busy")
            .categories("fast", "connection")
            .runsInsideMulti()
            .allowedWhileSubscribed()
            .summary("Closes the connection.")
            .group("connection")
            .since("1.0.0")
            .complexity("O(1)")
            .docFlags("deprecated")
            .deprecatedSince("7.2.0")
            .replacedBy("just closing the connection")
            .handler(connection::quit),
        command("select")
            .arity(2)
            .flags("loading", "stale", "fast")
            .categories("fast", "connection")
            .summary("Changes the selected database.")
            .group("connection")
            .since("1.0.0")
            .complexity("O(1)")
            .arguments(arg("index", INTEGER))
            .handler(connection::select),
        command("client")
            .arity(-2)
            .categories("slow")
            .summary("A container for client connection commands.")
            .group("connection")
            .since("2.4.0")
            .complexity("Depends on subcommand.")
            .subcommands(
                command("client|setinfo")
                    .arity(4)
                    .flags("noscript", "loading", "stale")
                    .categories("slow", "connection")
                    .summary("Sets information specific to the client or connection.")
                    .group("connection")
                    .since("7.2.0")
                    .complexity("O(1)")
                    .tips("request_policy:all_nodes", "response_policy:all_succeeded")
                    .arguments(
                        oneOf(
                            "attr",
                            arg("libname", STRING).token("lib-name"),
                            arg("libver", STRING).token("lib-ver")))
                    .handler(connection::clientSetInfo),
                command("client|setname")
                    .arity(3)
                    .flags("noscript", "loading", "stale")
                    .categories("slow", "connection")
                    .summary("Sets the connection name.")
                    .group("connection")
                    .since("2.6.9")
                    .complexity("O(1)")
                    .tips("request_policy:all_nodes", "response_policy:all_succeeded")
                    .arguments(arg("connection-name", STRING))
                    .handler(connection::clientSetName),
                command("client|getname")
                    .arity(2)
                    .flags("noscript", "loading", "stale")
                    .categories("slow", "connection")
                    .summary("Returns the name of the connection.")
                    .group("connection")
                    .since("2.6.9")
                    .complexity("O(1)")
                    .handler(connection::clientGetName),
                command("client|id")
                    .arity(2)
                    .flags("noscript", "loading", "stale")
                    .categories("slow", "connection")
                    .summary("Returns the unique client ID of the connection.")
                    .group("connection")
                    .since("5.0.0")
                    .complexity("O(1)")
                    .handler(connection::clientId),
                command("client|getredir")
                    .arity(2)
                    .flags("noscript", "loading", "stale")
                    .categories("slow", "connection")
                    .summary(
                        "Returns the client ID to which the connection's tracking notifications"
                            + " are redirected.")
                    .group("connection")
                    .since("6.0.0")
                    .complexity("O(1)")
                    .handler(connection::clientGetRedir),
                command("client|info")
                    .arity(2)
                    .flags("noscript", "loading", "stale")
                    .categories("slow", "connection")
                    .summary("Returns information about the connection.")
                    .group("connection")
                    .since("6.2.0")
                    .complexity("O(1)")
                    .tips("nondeterministic_output")
                    .handler(clients::info),
                command("client|list")
                    .arity(-2)
                    .flags("admin", "noscript", "loading", "stale")
                    .categories("admin", "slow", "dangerous", "connection")
                    .summary("Lists open connections.")
                    .group("connection")
                    .since("2.4.0")
                    .complexity("O(N) where N is the number of client connections")
                    .tips("nondeterministic_output")
                    .history(
                        "2.8.12",
                        "Added unique client `id` field.",
                        "5.0.0",
                        "Added optional `TYPE` filter.",
                        "6.0.0",
                        "Added `user` field.",
                        "6.2.0",
                        "Added `argv-mem`, `tot-mem`, `laddr` and `redir` fields and the optional `ID` filter.",
                        "7.0.0",
                        "Added `resp`, `multi-mem`, `rbs` and `rbp` fields.",
                        "7.0.3",
                        "Added `ssub` field.")
                    .arguments(
                        oneOf(
                                "client-type",
                                token("normal", "normal"),
                                token("master", "master"),
                                token("replica", "replica"),
                                token("pubsub", "pubsub"))
                            .token("TYPE")
                            .since("5.0.0")
                            .optional(),
                        arg("client-id", INTEGER).token("ID").since("6.2.0").optional().multiple())
                    .handler(clients::list),
                command("client|pause")
                    .arity(-3)
                    .flags("admin", "noscript", "loading", "stale", "sentinel")
                    .categories("admin", "slow", "dangerous", "connection")
                    .summary("Suspends commands processing.")
                    .group("connection")
                    .since("3.0.0")
                    .complexity("O(1)")
                    .history(
                        "6.2.0", "`CLIENT PAUSE WRITE` mode added along with the `mode` option.")
                    .arguments(
                        arg("timeout", INTEGER),
                        oneOf("mode", token("write", "WRITE"), token("all", "ALL"))
                            .since("6.2.0")
                            .optional())
                    .handler(clients::pause),
                command("client|unpause")
                    .arity(2)
                    .flags("admin", "noscript", "loading", "stale", "sentinel")
                    .categories("admin", "slow", "dangerous", "connection")
                    .summary("Resumes processing commands from paused clients.")
                    .group("connection")
                    .since("6.2.0")
                    .complexity("O(N) Where N is the number of paused clients")
                    .handler(clients::unpause),
                command("client|kill")
                    .arity(-3)
                    .flags("admin", "noscript", "loading", "stale")
                    .categories("admin", "slow", "dangerous", "connection")
                    .summary("Terminates open connections.")
                    .group("connection")
                    .since("2.4.0")
                    .complexity("O(N) where N is the number of client connections")
                    .history(
                        "2.8.12",
                        "Added new filter format.",
                        "2.8.12",
                        "`ID` option.",
                        "3.2.0",
                        "Added `master` type in for `TYPE` option.",
                        "5.0.0",
                        "Replaced `slave` `TYPE` with `replica`. `slave` still supported for backward compatibility.",
                        "6.2.0",
                        "`LADDR` option.",
                        "7.4.0",
                        "`MAXAGE` option.")
                    .arguments(
                        oneOf(
                            "filter",
                            arg("old-format", STRING).display("ip:port").deprecatedSince("2.8.12"),
                            oneOf(
                                    "new-format",
                                    arg("client-id", INTEGER)
                                        .token("ID")
                                        .since("2.8.12")
                                        .optional(),
                                    oneOf(
                                            "client-type",
                                            token("normal", "normal"),
                                            token("master", "master").since("3.2.0"),
                                            token("slave", "slave"),
                                            token("replica", "replica").since("5.0.0"),
                                            token("pubsub", "pubsub"))
                                        .token("TYPE")
                                        .since("2.8.12")
                                        .optional(),
                                    arg("username", STRING).token("USER").optional(),
                                    arg("addr", STRING).token("ADDR").display("ip:port").optional(),
                                    arg("laddr", STRING)
                                        .token("LADDR")
                                        .display("ip:port")
                                        .since("6.2.0")
                                        .optional(),
                                    oneOf("skipme", token("yes", "YES"), token("no", "NO"))
                                        .token("SKIPME")
                                        .optional(),
                                    arg("maxage", INTEGER)
                                        .token("MAXAGE")
                                        .since("7.4.0")
                                        .optional())
                                .multiple()))
                    .handler(clients::kill),
                command("client|no-evict")
                    .arity(3)
                    .flags("admin", "noscript", "loading", "stale")
                    .categories("admin", "slow", "dangerous", "connection")
                    .summary("Sets the client eviction mode.")
                    .group("connection")
                    .since("7.0.0")
                    .complexity("O(1)")
                    .arguments(oneOf("enabled", token("on", "ON"), token("off", "OFF")))
                    .handler(clients::flag),
                command("client|reply")
                    .arity(3)
                    .flags("noscript", "loading", "stale", "sentinel")
                    .categories("slow", "connection")
                    .summary("Instructs the server whether to reply to commands.")
                    .group("connection")
                    .since("3.2.0")
                    .complexity("O(1)")
                    .arguments(
                        oneOf(
                            "action",
                            token("on", "ON"),
                            token("off", "OFF"),
                            token("skip", "SKIP")))
                    .handler(clients::reply),
                command("client|unblock")
                    .arity(-3)
                    .flags("admin", "noscript", "loading", "stale", "sentinel")
                    .categories("admin", "slow", "dangerous", "connection")
                    .summary(
                        "Unblocks a client blocked by a blocking command from a different"
                            + " connection.")
                    .group("connection")
                    .since("5.0.0")
                    .complexity("O(log N) where N is the number of client connections")
                    .arguments(
                        arg("client-id", INTEGER),
                        oneOf("unblock-type", token("timeout", "TIMEOUT"), token("error", "ERROR"))
                            .optional())
                    .handler(clients::unblock),
                command("client|no-touch")
                    .arity(3)
                    .flags("noscript", "loading", "stale")
                    .categories("slow", "connection")
                    .summary(
                        "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.")
                    .group("connection")
                    .since("7.2.0")
                    .complexity("O(1)")
                    .arguments(oneOf("enabled", token("on", "ON"), token("off", "OFF")))
                    .handler(clients::flag),
                HelpCommands.entry("client", "connection", "5.0.0", HelpCommands::client)
                    .flags("loading", "stale", "sentinel")
                    .categories("slow", "connection")),
        command("reset")
            .arity(1)
            .flags("noscript", "loading", "stale", "fast", "no_auth", "allow_busy")
            .categories("fast", "connection")
            .runsInsideMulti()
            .allowedWhileSubscribed()
            .summary("Resets the connection.")
            .group("connection")
            .since("6.2.0")
            .complexity("O(1)")
            .handler(clients::reset),
        command("monitor")
            .arity(1)
            .flags("admin", "noscript", "loading", "stale")
            .categories("admin", "slow", "dangerous")
            .summary("Listens for all requests received by the server in real-time.")
            .group("server")
            .since("1.0.0")
            .handler(clients::monitor));
  }
}
