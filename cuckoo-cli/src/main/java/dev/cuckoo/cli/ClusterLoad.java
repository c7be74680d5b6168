package dev.cuckoo.cli;

import dev.cuckoo.server.cluster.HashSlots;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Loads commands for one key into a Redis Cluster, as a cluster client does: to the master that
 * serves the key's hash slot in the map {@code CLUSTER SLOTS} gives, following {@code -MOVED} (the
 * map is read again and the command goes to the new owner) and {@code -ASK} (that one command goes
 * to the node named, after {@code ASKING}) while slots move. Counts what each node accepted.
 */
final class ClusterLoad implements AutoCloseable {
  /** More redirections than this for one command mean the cluster is not settling: stop. */
  private static final int MAX_REDIRECTS = 16;

  /** A node's address. */
  record Node(String host, int port) {
    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  /** What one node accepted. */
  static final class Tally {
    long commands;
    long bytes;
  }

  private final String password;
  private final int timeoutMillis;
  private final Map<Node, RespClient> connections = new LinkedHashMap<>();
  private final Map<Node, Tally> tallies = new LinkedHashMap<>();
  private final Node[] owners = new Node[HashSlots.SLOTS];
  private long moved;
  private long asked;

  /**
   * Connects to {@code seed} and reads the slot map.
   *
   * @throws IOException if the node cannot be reached or is not in cluster mode
   */
  ClusterLoad(Node seed, String password, int timeoutMillis) throws IOException {
    this.password = password;
    this.timeoutMillis = timeoutMillis;
    readSlotMap(seed);
  }

  /** Reads {@code CLUSTER SLOTS} from {@code node} into the map. */
  private void readSlotMap(Node node) throws IOException {
    Object reply;
    try {
      reply = connection(node).call("CLUSTER", "SLOTS");
    } catch (RespClient.ErrorReply e) {
      throw new CliException(
          node + " answered CLUSTER SLOTS with '" + e.getMessage() + "': is it a cluster node?");
    }
    if (!(reply instanceof List<?> ranges)) {
      throw new CliException("unexpected CLUSTER SLOTS reply from " + node);
    }
    java.util.Arrays.fill(owners, null);
    for (Object range : ranges) {
      if (!(range instanceof List<?> fields)
          || fields.size() < 3
          || !(fields.get(0) instanceof Long start)
          || !(fields.get(1) instanceof Long end)
          || !(fields.get(2) instanceof List<?> master)
          || master.size() < 2
          || !(master.get(1) instanceof Long port)
          || start < 0
          || end >= HashSlots.SLOTS
          || start > end) {
        throw new CliException("unexpected CLUSTER SLOTS range from " + node + ": " + range);
      }
      Object host = master.get(0);
      String name =
          host instanceof byte[] bytes
              ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8)
              : String.valueOf(host);
      // an empty host (no announced address) means the node that answered, as clients read it
      Node owner = new Node(name.isEmpty() ? node.host() : name, port.intValue());
      for (long slot = start; slot <= end; slot++) {
        owners[(int) slot] = owner;
      }
    }
  }

  private RespClient connection(Node node) throws IOException {
    RespClient client = connections.get(node);
    if (client == null) {
      client = new RespClient(node.host(), node.port(), timeoutMillis);
      try {
        if (password != null) {
          client.call("AUTH", password);
        }
      } catch (IOException e) {
        client.close();
        throw e;
      }
      connections.put(node, client);
    }
    return client;
  }

  /**
   * Sends one command for {@code key} to the master of its slot and returns the reply, following
   * redirections.
   *
   * @throws RespClient.ErrorReply if a node answers another error
   * @throws IOException if a connection fails
   */
  Object send(byte[] key, byte[]... command) throws IOException {
    int slot = HashSlots.slot(key);
    Node target = owners[slot];
    if (target == null) {
      throw new CliException("no node serves hash slot " + slot + " (of key '" + text(key) + "')");
    }
    boolean asking = false;
    for (int redirect = 0; redirect <= MAX_REDIRECTS; redirect++) {
      RespClient client = connection(target);
      try {
        if (asking) {
          client.call("ASKING");
        }
        Object reply = client.call(command);
        Tally tally = tallies.computeIfAbsent(target, node -> new Tally());
        tally.commands++;
        for (byte[] argument : command) {
          tally.bytes += argument.length;
        }
        return reply;
      } catch (RespClient.ErrorReply e) {
        String error = e.getMessage();
        if (error.startsWith("MOVED ")) {
          moved++;
          Node to = address(error, target);
          readSlotMap(to);
          target = owners[slot] != null ? owners[slot] : to;
          asking = false;
        } else if (error.startsWith("ASK ")) {
          asked++;
          target = address(error, target);
          asking = true;
        } else {
          throw new RespClient.ErrorReply(target + ": " + error);
        }
      }
    }
    throw new CliException(
        "key '" + text(key) + "': more than " + MAX_REDIRECTS + " redirections; is a slot moving?");
  }

  /** Parses the address of {@code MOVED slot host:port} / {@code ASK slot host:port}. */
  private static Node address(String error, Node from) {
    String[] parts = error.split(" ");
    int colon = parts.length == 3 ? parts[2].lastIndexOf(':') : -1;
    if (colon < 0) {
      throw new CliException(from + " answered '" + error + "', which names no node");
    }
    String host = parts[2].substring(0, colon);
    try {
      return new Node(
          host.isEmpty() ? from.host() : host, Integer.parseInt(parts[2].substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new CliException(from + " answered '" + error + "', which names no node");
    }
  }

  /** Returns what each node accepted, in the order they were first written to. */
  Map<Node, Tally> tallies() {
    return tallies;
  }

  /** Returns how many {@code -MOVED} and {@code -ASK} replies were followed. */
  long[] redirects() {
    return new long[] {moved, asked};
  }

  /** Returns the nodes the slot map names as masters. */
  List<Node> masters() {
    List<Node> masters = new ArrayList<>();
    for (Node node : owners) {
      if (node != null && !masters.contains(node)) {
        masters.add(node);
      }
    }
    return masters;
  }

  private static String text(byte[] bytes) {
    return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    IOException first = null;
    for (RespClient client : connections.values()) {
      try {
        client.close();
      } catch (IOException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    connections.clear();
    if (first != null) {
      throw first;
    }
  }
}
