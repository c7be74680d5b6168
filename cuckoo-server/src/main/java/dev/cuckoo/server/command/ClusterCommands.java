package dev.cuckoo.server.command;

import dev.cuckoo.server.cluster.ClusterNode;
import dev.cuckoo.server.cluster.ClusterState;
import dev.cuckoo.server.cluster.HashSlots;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import java.util.List;
import java.util.function.Supplier;

/**
 * CLUSTER's subcommands: parse the request, ask the {@link ClusterState}, write Redis 7.0's reply.
 * Without cluster mode every one answers Redis's "cluster support disabled".
 */
final class ClusterCommands {
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
  ClusterCommands(Supplier<ClusterState> cluster) {
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
}
