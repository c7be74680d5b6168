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
 * The CLUSTER command and its subcommands that read and change the cluster state. Arity and flags
 * as Redis 8 reports them (SLOTS and SHARDS gained "loading" after 7.0), docs from Redis's command
 * JSON.
 */
final class ClusterFamily {
  private ClusterFamily() {}

  /** A subcommand: admin ones are also dangerous, as Redis derives categories from flags. */
  private static CommandSpec.Builder sub(
      String name, int arity, boolean admin, String summary, String complexity, String since) {
    return command("cluster|" + name)
        .arity(arity)
        .flags(admin ? new String[] {"no_async_loading", "admin", "stale"} : new String[] {"stale"})
        .categories(admin ? new String[] {"admin", "slow", "dangerous"} : new String[] {"slow"})
        .summary(summary)
        .group("cluster")
        .since(since)
        .complexity(complexity);
  }

  /**
   * Returns the entries, bound to handlers built from {@code parts}.
   *
   * @param parts what the handlers are built from
   */
  static List<CommandSpec.Builder> entries(Families.Parts parts) {
    ClusterCommands cluster = new ClusterCommands(parts.context()::cluster);
    Argument slots = arg("slot", INTEGER).multiple();
    Argument ranges =
        block("range", arg("start-slot", INTEGER), arg("end-slot", INTEGER)).multiple();
    return List.of(
        command("cluster")
            .arity(-2)
            .categories("slow")
            .summary("A container for Redis Cluster commands.")
            .group("cluster")
            .since("3.0.0")
            .complexity("Depends on subcommand.")
            .subcommands(
                sub(
                        "addslots",
                        -3,
                        true,
                        "Assign new hash slots to receiving node",
                        "O(N) where N is the total number of hash slot arguments",
                        "3.0.0")
                    .arguments(slots)
                    .handler(cluster::addSlots),
                sub(
                        "addslotsrange",
                        -4,
                        true,
                        "Assign new hash slots to receiving node",
                        "O(N) where N is the total number of the slots between the start slot and end slot arguments.",
                        "7.0.0")
                    .arguments(ranges)
                    .handler(cluster::addSlotsRange),
                sub("bumpepoch", 2, true, "Advance the cluster config epoch", "O(1)", "3.0.0")
                    .tips("nondeterministic_output")
                    .handler(cluster::bumpEpoch),
                sub(
                        "count-failure-reports",
                        3,
                        true,
                        "Return the number of failure reports active for a given node",
                        "O(N) where N is the number of failure reports",
                        "3.0.0")
                    .tips("nondeterministic_output")
                    .arguments(arg("node-id", STRING))
                    .flags("admin", "stale")
                    .handler(cluster::countFailureReports),
                sub(
                        "countkeysinslot",
                        3,
                        false,
                        "Return the number of local keys in the specified hash slot",
                        "O(1)",
                        "3.0.0")
                    .arguments(arg("slot", INTEGER))
                    .handler(cluster::countKeysInSlot),
                sub(
                        "delslots",
                        -3,
                        true,
                        "Set hash slots as unbound in receiving node",
                        "O(N) where N is the total number of hash slot arguments",
                        "3.0.0")
                    .arguments(slots)
                    .handler(cluster::delSlots),
                sub(
                        "delslotsrange",
                        -4,
                        true,
                        "Set hash slots as unbound in receiving node",
                        "O(N) where N is the total number of the slots between the start slot and end slot arguments.",
                        "7.0.0")
                    .arguments(ranges)
                    .handler(cluster::delSlotsRange),
                sub("flushslots", 2, true, "Delete a node's own slots information", "O(1)", "3.0.0")
                    .handler(cluster::flushSlots),
                sub("forget", 3, true, "Remove a node from the nodes table", "O(1)", "3.0.0")
                    .arguments(arg("node-id", STRING))
                    .handler(cluster::forget),
                sub(
                        "getkeysinslot",
                        4,
                        false,
                        "Return local key names in the specified hash slot",
                        "O(log(N)) where N is the number of requested keys",
                        "3.0.0")
                    .tips("nondeterministic_output")
                    .arguments(arg("slot", INTEGER), arg("count", INTEGER))
                    .handler(cluster::getKeysInSlot),
                HelpCommands.entry("cluster", "cluster", "5.0.0", cluster::help),
                sub(
                        "info",
                        2,
                        false,
                        "Provides info about Redis Cluster node state",
                        "O(1)",
                        "3.0.0")
                    .tips("nondeterministic_output")
                    .handler(cluster::info),
                sub(
                        "keyslot",
                        3,
                        false,
                        "Returns the hash slot of the specified key",
                        "O(N) where N is the number of bytes in the key",
                        "3.0.0")
                    .arguments(arg("key", STRING))
                    .handler(cluster::keySlot),
                sub(
                        "links",
                        2,
                        false,
                        "Returns a list of all TCP links to and from peer nodes in cluster",
                        "O(N) where N is the total number of Cluster nodes",
                        "7.0.0")
                    .tips("nondeterministic_output")
                    .handler(cluster::links),
                sub(
                        "meet",
                        -4,
                        true,
                        "Force a node cluster to handshake with another node",
                        "O(1)",
                        "3.0.0")
                    .arguments(
                        arg("ip", STRING),
                        arg("port", INTEGER),
                        arg("cluster_bus_port", INTEGER).since("4.0.0").optional())
                    .handler(cluster::meet),
                sub("myid", 2, false, "Return the node id", "O(1)", "3.0.0").handler(cluster::myId),
                sub(
                        "nodes",
                        2,
                        false,
                        "Get Cluster config for the node",
                        "O(N) where N is the total number of Cluster nodes",
                        "3.0.0")
                    .tips("nondeterministic_output")
                    .handler(cluster::nodes),
                sub(
                        "replicas",
                        3,
                        true,
                        "List replica nodes of the specified master node",
                        "O(1)",
                        "5.0.0")
                    .tips("nondeterministic_output")
                    .arguments(arg("node-id", STRING))
                    .flags("admin", "stale")
                    .handler(cluster::replicas),
                sub(
                        "reset",
                        -2,
                        true,
                        "Reset a Redis Cluster node",
                        "O(N) where N is the number of known nodes. The command may execute a FLUSHALL as a side effect.",
                        "3.0.0")
                    .flags("admin", "stale", "noscript")
                    .arguments(
                        oneOf("hard-soft", token("hard", "HARD"), token("soft", "SOFT")).optional())
                    .handler(cluster::reset),
                sub(
                        "saveconfig",
                        2,
                        true,
                        "Forces the node to save cluster state on disk",
                        "O(1)",
                        "3.0.0")
                    .handler(cluster::saveConfig),
                sub(
                        "set-config-epoch",
                        3,
                        true,
                        "Set the configuration epoch in a new node",
                        "O(1)",
                        "3.0.0")
                    .arguments(arg("config-epoch", INTEGER))
                    .handler(cluster::setConfigEpoch),
                sub("setslot", -4, true, "Bind a hash slot to a specific node", "O(1)", "3.0.0")
                    .arguments(
                        arg("slot", INTEGER),
                        oneOf(
                            "subcommand",
                            arg("node-id", STRING).token("IMPORTING"),
                            arg("node-id", STRING).token("MIGRATING"),
                            arg("node-id", STRING).token("NODE"),
                            token("stable", "STABLE")))
                    .handler(cluster::setSlot),
                sub(
                        "shards",
                        2,
                        false,
                        "Get array of cluster slots to node mappings",
                        "O(N) where N is the total number of cluster nodes",
                        "7.0.0")
                    .tips("nondeterministic_output")
                    .flags("loading", "stale")
                    .handler(cluster::shards),
                sub(
                        "slaves",
                        3,
                        true,
                        "List replica nodes of the specified master node",
                        "O(1)",
                        "3.0.0")
                    .tips("nondeterministic_output")
                    .docFlags("deprecated")
                    .deprecatedSince("5.0.0")
                    .replacedBy("`CLUSTER REPLICAS`")
                    .arguments(arg("node-id", STRING))
                    .flags("admin", "stale")
                    .handler(cluster::replicas),
                sub(
                        "slots",
                        2,
                        false,
                        "Get array of Cluster slot to node mappings",
                        "O(N) where N is the total number of Cluster nodes",
                        "3.0.0")
                    .tips("nondeterministic_output")
                    .flags("loading", "stale")
                    .handler(cluster::slots)));
  }
}
