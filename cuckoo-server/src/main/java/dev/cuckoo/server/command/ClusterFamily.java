package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.INTEGER;
import static dev.cuckoo.server.command.Argument.STRING;
import static dev.cuckoo.server.command.Argument.arg;
import static dev.cuckoo.server.command.Argument.block;
import static dev.cuckoo.server.command.Argument.oneOf;
import static dev.cuckoo.server.command.Argument.token;
import static dev.cuckoo.server.command.CommandSpec.command;

import dev.cuckoo.server.cluster.ClusterNode;
import dev.cuckoo.server.cluster.ClusterState;
import dev.cuckoo.server.cluster.HashSlots;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;
import java.util.List;
import java.util.function.Supplier;

/**
 * The CLUSTER command and its subcommands that read and change the cluster state. Arity and flags
 * as Redis 8 reports them (SLOTS and SHARDS gained "loading" after 7.0), docs from Redis's command
 * JSON.
 *
 * <p>The handlers parse the request, ask the {@link ClusterState}, write Redis 7.0's reply. Without
 * cluster mode every one answers Redis's "cluster support disabled".
 */
final class ClusterFamily {
  private static final String DISABLED = "ERR This instance has cluster support disabled";
  private static final String BAD_SLOT = "ERR Invalid or out of range slot";

  private static final String[] HELP = {
    "ADDSLOTS <slot> [<slot> ...]",
    "    Assign slots to current node.",
    "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
    "    Assign slots which are between <start-slot> and <end-slot> to current node.",
    "BUMPEPOCH",
    "    Advance the cluster config epoch.",
    "COUNT-FAILURE-REPORTS <node-id>",
    "    Return number of failure reports for <node-id>.",
    "COUNTKEYSINSLOT <slot>",
    "    Return the number of keys in <slot>.",
    "DELSLOTS <slot> [<slot> ...]",
    "    Delete slots information from current node.",
    "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
    "    Delete slots information which are between <start-slot> and <end-slot> from current node.",
    "FAILOVER [FORCE|TAKEOVER]",
    "    Promote current replica node to being a master.",
    "FORGET <node-id>",
    "    Remove a node from the cluster.",
    "GETKEYSINSLOT <slot> <count>",
    "    Return key names stored by current node in a slot.",
    "FLUSHSLOTS",
    "    Delete current node own slots information.",
    "INFO",
    "    Return information about the cluster.",
    "KEYSLOT <key>",
    "    Return the hash slot for <key>.",
    "MEET <ip> <port> [<bus-port>]",
    "    Connect nodes into a working cluster.",
    "MYID",
    "    Return the node id.",
    "NODES",
    "    Return cluster configuration seen by node. Output format:",
    "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
    "REPLICATE <node-id>",
    "    Configure current node as replica to <node-id>.",
    "RESET [HARD|SOFT]",
    "    Reset current node (default: soft).",
    "SET-CONFIG-EPOCH <epoch>",
    "    Set config epoch of current node.",
    "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
    "    Set slot state.",
    "REPLICAS <node-id>",
    "    Return <node-id> replicas.",
    "SAVECONFIG",
    "    Force saving cluster configuration on disk.",
    "SLOTS",
    "    Return information about slots range mappings. Each range is made of:",
    "    start, end, master and replicas IP addresses, ports and ids",
    "SHARDS",
    "    Return information about slot range mappings and the nodes associated with them.",
    "LINKS",
    "    Return information about all network links between this node and its peers.",
    "    Output format is an array where each array element is a map containing attributes of a"
        + " link",
  };

  private final Supplier<ClusterState> cluster;

  /** Creates the handlers over the cluster state the server has (null without cluster mode). */
  ClusterFamily(Supplier<ClusterState> cluster) {
    this.cluster = cluster;
  }

  /** Returns the state, or writes the disabled error and returns null. */
  private ClusterState state(Session session) {
    ClusterState state = cluster.get();
    if (state == null) {
      session.reply().error(DISABLED);
    }
    return state;
  }

  /** Writes an error if there is one, else +OK. */
  private static void okOr(Reply reply, String error) {
    if (error == null) {
      reply.ok();
    } else {
      reply.error(error);
    }
  }

  /** Parses a slot as Redis's getSlotOrReply: -1 (error written) if not 0..16383. */
  private static int slot(Reply reply, byte[] arg) {
    Long slot = Numbers.parseLong(arg);
    if (slot == null || slot < 0 || slot >= HashSlots.SLOTS) {
      reply.error(BAD_SLOT);
      return -1;
    }
    return slot.intValue();
  }

  void help(Session session, Request request) {
    if (state(session) != null) {
      HelpCommands.reply(session, "CLUSTER", HELP);
    }
  }

  void info(Session session, Request request) {
    ClusterState state = state(session);
    if (state != null) {
      session.reply().verbatimText(state.info());
    }
  }

  void nodes(Session session, Request request) {
    ClusterState state = state(session);
    if (state != null) {
      session.reply().verbatimText(state.nodesDescription(0));
    }
  }

  void myId(Session session, Request request) {
    ClusterState state = state(session);
    if (state != null) {
      session.reply().bulk(state.myId());
    }
  }

  void meet(Session session, Request request) {
    ClusterState state = state(session);
    if (state == null) {
      return;
    }
    Reply reply = session.reply();
    if (request.argCount() > 5) {
      reply.error(Commands.unknownSubcommand("cluster", request.arg(1)));
      return;
    }
    Long port = Numbers.parseLong(request.arg(3));
    if (port == null) {
      reply.error("ERR Invalid TCP base port specified: " + Args.text(request.arg(3)));
      return;
    }
    Long cport = port + 10000;
    if (request.argCount() == 5) {
      cport = Numbers.parseLong(request.arg(4));
      if (cport == null) {
        reply.error("ERR Invalid TCP bus port specified: " + Args.text(request.arg(4)));
        return;
      }
    }
    if (!state.startHandshake(Args.text(request.arg(2)), port, cport)) {
      reply.error(
          "ERR Invalid node address specified: "
              + Args.text(request.arg(2))
              + ":"
              + Args.text(request.arg(3)));
      return;
    }
    reply.ok();
  }

  void addSlots(Session session, Request request) {
    changeSlots(session, request, false, false);
  }

  void delSlots(Session session, Request request) {
    changeSlots(session, request, true, false);
  }

  void addSlotsRange(Session session, Request request) {
    changeSlots(session, request, false, true);
  }

  void delSlotsRange(Session session, Request request) {
    changeSlots(session, request, true, true);
  }

  private void changeSlots(Session session, Request request, boolean delete, boolean ranges) {
    ClusterState state = state(session);
    if (state == null) {
      return;
    }
    Reply reply = session.reply();
    if (ranges && request.argCount() % 2 == 1) {
      reply.error(
          "ERR wrong number of arguments for 'cluster|" + Args.lower(request.arg(1)) + "' command");
      return;
    }
    int[] parsed = new int[request.argCount() - 2];
    for (int i = 2; i < request.argCount(); i++) {
      parsed[i - 2] = slot(reply, request.arg(i));
      if (parsed[i - 2] < 0) {
        return;
      }
    }
    boolean[] wanted = new boolean[HashSlots.SLOTS];
    int step = ranges ? 2 : 1;
    for (int i = 0; i < parsed.length; i += step) {
      int start = parsed[i];
      int end = ranges ? parsed[i + 1] : start;
      if (start > end) {
        reply.error("ERR start slot number " + start + " is greater than end slot number " + end);
        return;
      }
      for (int slot = start; slot <= end; slot++) {
        ClusterNode owner = state.slotOwner(slot);
        if (delete && owner == null) {
          reply.error("ERR Slot " + slot + " is already unassigned");
          return;
        }
        if (!delete && owner != null) {
          reply.error("ERR Slot " + slot + " is already busy");
          return;
        }
        if (wanted[slot]) {
          reply.error("ERR Slot " + slot + " specified multiple times");
          return;
        }
        wanted[slot] = true;
      }
    }
    okOr(reply, state.changeSlots(wanted, delete));
  }

  void flushSlots(Session session, Request request) {
    ClusterState state = state(session);
    if (state != null) {
      okOr(session.reply(), state.flushSlots());
    }
  }

  void setSlot(Session session, Request request) {
    ClusterState state = state(session);
    if (state == null) {
      return;
    }
    Reply reply = session.reply();
    int slot = slot(reply, request.arg(2));
    if (slot < 0) {
      return;
    }
    String action = Args.lower(request.arg(3));
    boolean withNode = !action.equals("stable");
    if (request.argCount() != (withNode ? 5 : 4)
        || !List.of("migrating", "importing", "stable", "node").contains(action)) {
      reply.error("ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
      return;
    }
    okOr(reply, state.setSlot(slot, action, withNode ? Args.text(request.arg(4)) : null));
  }

  void bumpEpoch(Session session, Request request) {
    ClusterState state = state(session);
    if (state != null) {
      session.reply().simple(state.bumpEpoch());
    }
  }

  void setConfigEpoch(Session session, Request request) {
    ClusterState state = state(session);
    if (state == null) {
      return;
    }
    Long epoch = Numbers.parseLong(request.arg(2));
    if (epoch == null) {
      session.reply().error(Args.NOT_INTEGER);
      return;
    }
    okOr(session.reply(), state.setConfigEpoch(epoch));
  }

  void keySlot(Session session, Request request) {
    if (state(session) != null) {
      session.reply().integer(HashSlots.slot(request.arg(2)));
    }
  }

  void countKeysInSlot(Session session, Request request) {
    ClusterState state = state(session);
    if (state == null) {
      return;
    }
    Long slot = Numbers.parseLong(request.arg(2));
    if (slot == null) {
      session.reply().error(Args.NOT_INTEGER);
    } else if (slot < 0 || slot >= HashSlots.SLOTS) {
      session.reply().error("ERR Invalid slot");
    } else {
      session.reply().integer(state.keys().countKeysInSlot(slot.intValue()));
    }
  }

  void getKeysInSlot(Session session, Request request) {
    ClusterState state = state(session);
    if (state == null) {
      return;
    }
    Reply reply = session.reply();
    Long slot = Numbers.parseLong(request.arg(2));
    Long count = Numbers.parseLong(request.arg(3));
    if (slot == null || count == null) {
      reply.error(Args.NOT_INTEGER);
      return;
    }
    if (slot < 0 || slot >= HashSlots.SLOTS || count < 0) {
      reply.error("ERR Invalid slot or number of keys");
      return;
    }
    List<byte[]> keys =
        state.keys().keysInSlot(slot.intValue(), (int) Math.min(count, Integer.MAX_VALUE));
    reply.array(keys.size());
    for (byte[] key : keys) {
      reply.bulk(key);
    }
  }

  void forget(Session session, Request request) {
    ClusterState state = state(session);
    if (state != null) {
      okOr(session.reply(), state.forget(Args.text(request.arg(2))));
    }
  }

  void countFailureReports(Session session, Request request) {
    ClusterState state = state(session);
    if (state == null) {
      return;
    }
    int count = state.countFailureReports(Args.text(request.arg(2)));
    if (count < 0) {
      session.reply().error("ERR Unknown node " + Args.text(request.arg(2)));
    } else {
      session.reply().integer(count);
    }
  }

  void replicas(Session session, Request request) {
    ClusterState state = state(session);
    if (state == null) {
      return;
    }
    ClusterNode master = state.node(Args.text(request.arg(2)));
    if (master == null) {
      session.reply().error("ERR Unknown node " + Args.text(request.arg(2)));
      return;
    }
    if ((master.flags() & ClusterNode.SLAVE) != 0) {
      session.reply().error("ERR The specified node is not a master");
      return;
    }
    List<String> lines = state.replicaLines(master);
    session.reply().array(lines.size());
    for (String line : lines) {
      session.reply().bulk(line);
    }
  }

  void replicate(Session session, Request request) {
    ClusterState state = state(session);
    if (state != null) {
      okOr(session.reply(), state.replicate(Args.text(request.arg(2))));
    }
  }

  void failover(Session session, Request request) {
    ClusterState state = state(session);
    if (state == null) {
      return;
    }
    Reply reply = session.reply();
    if (request.argCount() > 3) {
      reply.error(Commands.unknownSubcommand("cluster", request.arg(1)));
      return;
    }
    boolean force = false;
    boolean takeover = false;
    if (request.argCount() == 3) {
      String option = Args.lower(request.arg(2));
      if (option.equals("force")) {
        force = true;
      } else if (option.equals("takeover")) {
        takeover = true;
        force = true;
      } else {
        reply.error(Args.SYNTAX_ERROR);
        return;
      }
    }
    okOr(reply, state.failover(force, takeover));
  }

  void reset(Session session, Request request) {
    ClusterState state = state(session);
    if (state == null) {
      return;
    }
    boolean hard = false;
    if (request.argCount() == 3) {
      String mode = Args.lower(request.arg(2));
      if (mode.equals("hard")) {
        hard = true;
      } else if (!mode.equals("soft")) {
        session.reply().error(Args.SYNTAX_ERROR);
        return;
      }
    } else if (request.argCount() > 3) {
      session.reply().error(Commands.unknownSubcommand("cluster", request.arg(1)));
      return;
    }
    okOr(session.reply(), state.reset(hard));
  }

  void saveConfig(Session session, Request request) {
    ClusterState state = state(session);
    if (state != null) {
      okOr(session.reply(), state.saveConfig());
    }
  }

  void slots(Session session, Request request) {
    ClusterState state = state(session);
    if (state == null) {
      return;
    }
    Reply reply = session.reply();
    List<ClusterState.SlotRange> ranges = state.slotMap();
    reply.array(ranges.size());
    for (ClusterState.SlotRange range : ranges) {
      reply.array(3 + range.replicas().size());
      reply.integer(range.start());
      reply.integer(range.end());
      nodeEntry(reply, range.master());
      for (ClusterNode replica : range.replicas()) {
        nodeEntry(reply, replica);
      }
    }
  }

  /** One node of a CLUSTER SLOTS range: ip, port, id, and a map of its other endpoints. */
  private static void nodeEntry(Reply reply, ClusterNode node) {
    reply.array(4);
    reply.bulk(node.ip());
    reply.integer(node.port());
    reply.bulk(node.name());
    reply.map(0);
  }

  void shards(Session session, Request request) {
    ClusterState state = state(session);
    if (state == null) {
      return;
    }
    Reply reply = session.reply();
    List<ClusterState.Shard> shards = state.shards();
    reply.array(shards.size());
    for (ClusterState.Shard shard : shards) {
      reply.map(2);
      reply.bulk("slots");
      reply.array(shard.slots().size() * 2);
      for (int[] range : shard.slots()) {
        reply.integer(range[0]);
        reply.integer(range[1]);
      }
      reply.bulk("nodes");
      reply.array(shard.nodes().size());
      for (ClusterNode node : shard.nodes()) {
        boolean replica = (node.flags() & ClusterNode.SLAVE) != 0;
        long offset = state.replicationOffset(node);
        reply.map(7);
        reply.bulk("id");
        reply.bulk(node.name());
        reply.bulk("port");
        reply.integer(node.port());
        reply.bulk("ip");
        reply.bulk(node.ip());
        reply.bulk("endpoint");
        reply.bulk(node.ip());
        reply.bulk("role");
        reply.bulk(replica ? "replica" : "master");
        reply.bulk("replication-offset");
        reply.integer(offset);
        reply.bulk("health");
        reply.bulk(state.failed(node) ? "fail" : replica && offset == 0 ? "loading" : "online");
      }
    }
  }

  void links(Session session, Request request) {
    ClusterState state = state(session);
    if (state == null) {
      return;
    }
    Reply reply = session.reply();
    List<ClusterState.LinkInfo> links = state.links();
    reply.array(links.size());
    for (ClusterState.LinkInfo link : links) {
      reply.map(6);
      reply.bulk("direction");
      reply.bulk(link.direction());
      reply.bulk("node");
      reply.bulk(link.node());
      reply.bulk("create-time");
      reply.integer(link.createTimeMillis());
      reply.bulk("events");
      reply.bulk(link.pendingBytes() > 0 ? "rw" : "r");
      reply.bulk("send-buffer-allocated");
      reply.integer(link.pendingBytes());
      reply.bulk("send-buffer-used");
      reply.integer(link.pendingBytes());
    }
  }

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
    ClusterFamily cluster = new ClusterFamily(parts.context()::cluster);
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
                sub(
                        "failover",
                        -2,
                        true,
                        "Forces a replica to perform a manual failover of its master",
                        "O(1)",
                        "3.0.0")
                    .arguments(
                        oneOf("options", token("force", "FORCE"), token("takeover", "TAKEOVER"))
                            .optional())
                    .handler(cluster::failover),
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
                        "replicate",
                        3,
                        true,
                        "Configure a node as replica of a master node",
                        "O(1)",
                        "3.0.0")
                    .arguments(arg("node-id", STRING))
                    .handler(cluster::replicate),
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
