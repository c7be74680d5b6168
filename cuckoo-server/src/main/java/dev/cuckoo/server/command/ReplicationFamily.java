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
 * The replication commands: REPLICAOF, SLAVEOF, REPLCONF, PSYNC, SYNC, WAIT and WAITAOF (ROLE is
 * with the server commands). Flags, categories and docs as Redis 8 reports them.
 */
final class ReplicationFamily {
  private ReplicationFamily() {}

  /** REPLICAOF and its older name SLAVEOF: the same command under two names. */
  private static CommandSpec.Builder replicaOf(
      String name, ReplicationCommands replication, Argument hostPort) {
    return command(name)
        .arity(3)
        .flags("admin", "noscript", "stale", "no_async_loading")
        .categories("admin", "slow", "dangerous")
        .group("server")
        .complexity("O(1)")
        .arguments(hostPort)
        .handler(replication::replicaOf);
  }

  /**
   * Returns the entries, bound to handlers built from {@code parts}.
   *
   * @param parts what the handlers are built from
   */
  static List<CommandSpec.Builder> entries(Families.Parts parts) {
    ReplicationCommands replication =
        new ReplicationCommands(parts.commands(), parts.context(), parts.writes());
    Argument hostPort =
        oneOf(
            "args",
            block("host-port", arg("host", STRING), arg("port", INTEGER)),
            block("no-one", token("no", "NO"), token("one", "ONE")));
    return List.of(
        replicaOf("replicaof", replication, hostPort)
            .summary("Configures a server as replica of another, or promotes it to a master.")
            .since("5.0.0"),
        replicaOf("slaveof", replication, hostPort)
            .summary(
                "Sets a Redis server as a replica of another, or promotes it to being a master.")
            .since("1.0.0")
            .docFlags("deprecated")
            .deprecatedSince("5.0.0")
            .replacedBy("`REPLICAOF`"),
        command("replconf")
            .arity(-1)
            .flags("admin", "noscript", "loading", "stale", "allow_busy")
            .categories("admin", "slow", "dangerous")
            .summary("An internal command for configuring the replication stream.")
            .group("server")
            .since("3.0.0")
            .complexity("O(1)")
            .docFlags("syscmd")
            .handler(replication::replconf),
        command("psync")
            .arity(-3)
            .flags("admin", "noscript", "no_async_loading", "no_multi")
            .categories("admin", "slow", "dangerous")
            .summary("An internal command used in replication.")
            .group("server")
            .since("2.8.0")
            .complexity("")
            .arguments(arg("replicationid", STRING), arg("offset", INTEGER))
            .handler(replication::psync),
        command("sync")
            .arity(1)
            .flags("admin", "noscript", "no_async_loading", "no_multi")
            .categories("admin", "slow", "dangerous")
            .summary("An internal command used in replication.")
            .group("server")
            .since("1.0.0")
            .complexity("")
            .handler(replication::sync),
        command("wait")
            .arity(3)
            .flags("blocking")
            .categories("slow", "blocking", "connection")
            .tips("request_policy:all_shards", "response_policy:agg_min")
            .summary(
                "Blocks until the asynchronous replication of all preceding write commands sent by"
                    + " the connection is completed.")
            .group("generic")
            .since("3.0.0")
            .complexity("O(1)")
            .arguments(arg("numreplicas", INTEGER), arg("timeout", INTEGER))
            .handler(replication::waitFor),
        command("waitaof")
            .arity(4)
            .flags("blocking")
            .categories("slow", "blocking", "connection")
            .tips("request_policy:all_shards", "response_policy:agg_min")
            .summary(
                "Blocks until all of the preceding write commands sent by the connection are"
                    + " written to the append-only file of the master and/or replicas.")
            .group("generic")
            .since("7.2.0")
            .complexity("O(1)")
            .arguments(
                arg("numlocal", INTEGER), arg("numreplicas", INTEGER), arg("timeout", INTEGER))
            .handler(replication::waitAof));
  }
}
