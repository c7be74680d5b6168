package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A cluster of node processes on free loopback ports, each in a directory of its own:
 * cuckoo-servers (child JVMs on the test class path) or Debian's redis-server, started, SIGKILLed
 * and restarted on the same ports with the same files, and driven by redis-cli --cluster. Tests of
 * failover and the failover figures use the same code for both kinds.
 */
final class ClusterNodes implements AutoCloseable {
  /** What a node is. */
  enum Kind {
    CUCKOO,
    REDIS
  }

  /** One node: what it is, its client and bus ports and its directory. */
  record Node(int index, Kind kind, int port, int busPort, Path dir) {}

  private final long nodeTimeoutMillis;
  private final List<Node> nodes = new ArrayList<>();
  private final Map<Integer, Process> processes = new HashMap<>();

  private ClusterNodes(long nodeTimeoutMillis) {
    this.nodeTimeoutMillis = nodeTimeoutMillis;
  }

  /**
   * Starts {@code count} nodes of a kind in directories under {@code root} and waits until each
   * answers CLUSTER MYID.
   */
  static ClusterNodes start(Kind kind, Path root, int count, long nodeTimeoutMillis)
      throws Exception {
    return start(java.util.Collections.nCopies(count, kind), root, nodeTimeoutMillis);
  }

  /** Starts one node of each kind listed, in that order (a mixed cluster). */
  static ClusterNodes start(List<Kind> kinds, Path root, long nodeTimeoutMillis) throws Exception {
    ClusterNodes cluster = new ClusterNodes(nodeTimeoutMillis);
    try {
      for (int i = 0; i < kinds.size(); i++) {
        Node node =
            new Node(
                i,
                kinds.get(i),
                freePort(),
                freePort(),
                Files.createDirectories(root.resolve("node-" + i)));
        cluster.nodes.add(node);
        cluster.launch(node);
      }
      for (Node node : cluster.nodes) {
        cluster.awaitAnswering(node);
      }
    } catch (Exception | AssertionError e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  /** Returns the path of a tool from PATH's usual places; skips (fails under CI) if missing. */
  static Path tool(String name) {
    for (String dir : List.of("/usr/bin", "/usr/local/bin")) {
      Path path = Paths.get(dir, name);
      if (Files.isExecutable(path)) {
        return path;
      }
    }
    if ("true".equals(System.getenv("CI"))) {
      fail(
          name
              + " is not installed, and CI must run the cluster failover tests (.ci/run installs it)");
    }
    assumeTrue(false, name + " not installed: the cluster failover test is skipped");
    return null;
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  List<Node> nodes() {
    return nodes;
  }

  Node node(int index) {
    return nodes.get(index);
  }

  /** Returns the node that listens on {@code port}. */
  Node byPort(int port) {
    for (Node node : nodes) {
      if (node.port() == port) {
        return node;
      }
    }
    throw new AssertionError("no node on port " + port);
  }

  /** Returns whether a node's process runs. */
  boolean alive(Node node) {
    Process process = processes.get(node.index());
    return process != null && process.isAlive();
  }

  private void launch(Node node) throws IOException {
    List<String> command = new ArrayList<>();
    if (node.kind() == Kind.CUCKOO) {
      command.addAll(
          List.of(
              Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
              "-Xmx192m",
              "-XX:TieredStopAtLevel=1",
              "-XX:+UseSerialGC",
              "-cp",
              System.getProperty("java.class.path"),
              CuckooServer.class.getName(),
              "--port",
              Integer.toString(node.port()),
              "--bind",
              "127.0.0.1",
              "--dir",
              node.dir().toString(),
              "--cluster-enabled",
              "yes",
              "--cluster-port",
              Integer.toString(node.busPort()),
              "--cluster-node-timeout",
              Long.toString(nodeTimeoutMillis),
              "--appendonly",
              "yes",
              "--appendfsync",
              "everysec",
              "--save",
              ""));
    } else {
      Path config = node.dir().resolve("redis.conf");
      Files.writeString(
          config,
          String.join(
              "\n",
              "port " + node.port(),
              "cluster-port " + node.busPort(),
              "bind 127.0.0.1",
              "protected-mode no",
              "daemonize no",
              "save \"\"",
              "appendonly yes",
              "dir " + node.dir(),
              "logfile " + node.dir().resolve("redis.log"),
              "cluster-enabled yes",
              "cluster-config-file nodes.conf",
              "cluster-node-timeout " + nodeTimeoutMillis,
              ""),
          StandardCharsets.UTF_8);
      command.addAll(List.of(tool("redis-server").toString(), config.toString()));
    }
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(node.dir().resolve("stdout.log").toFile()))
            .start();
    processes.put(node.index(), process);
  }

  private void awaitAnswering(Node node) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (!alive(node)) {
        throw new AssertionError("node " + node.index() + " exited: " + log(node));
      }
      try {
        String id = text(node, "CLUSTER", "MYID");
        if (id != null && id.length() == 40) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(20);
    }
    throw new AssertionError("node " + node.index() + " did not answer in 60 s: " + log(node));
  }

  /** Returns what a node printed (and, for redis-server, logged). */
  String log(Node node) {
    StringBuilder text = new StringBuilder();
    for (String file : List.of("stdout.log", "redis.log")) {
      Path path = node.dir().resolve(file);
      if (Files.exists(path)) {
        try {
          text.append(Files.readString(path, StandardCharsets.UTF_8));
        } catch (IOException e) {
          text.append("(").append(e).append(")");
        }
      }
    }
    return text.toString();
  }

  /** Kills a node with SIGKILL and waits until it is gone. */
  void kill(Node node) throws Exception {
    Process process = processes.get(node.index());
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new AssertionError("node " + node.index() + " survived SIGKILL for 10 s");
    }
  }

  /** Starts a killed node again on its ports with its files, and waits until it answers. */
  void restart(Node node) throws Exception {
    launch(node);
    awaitAnswering(node);
  }

  // ---------------------------------------------------------------- commands

  /** Sends one command on a new connection and returns the reply. */
  static Object call(Node node, Object... command) throws IOException {
    try (RespClient client = new RespClient(node.port())) {
      return client.call(command);
    }
  }

  /** Sends one command; returns a bulk or simple reply as text, an error as "-text". */
  static String text(Node node, Object... command) throws IOException {
    Object reply = call(node, command);
    if (reply instanceof RespClient.Simple simple) {
      return simple.text();
    }
    if (reply instanceof RespClient.Err err) {
      return "-" + err.text();
    }
    return RespClient.text(reply);
  }

  /** CLUSTER NODES as the fields of each line by node id. */
  static Map<String, String[]> clusterNodes(Node node) throws IOException {
    Map<String, String[]> byId = new HashMap<>();
    for (String line : text(node, "CLUSTER", "NODES").split("\n")) {
      if (!line.isBlank()) {
        String[] fields = line.trim().split(" ");
        byId.put(fields[0], fields);
      }
    }
    return byId;
  }

  /** Returns this node's own CLUSTER NODES line. */
  static String[] myLine(Node node) throws IOException {
    for (String[] fields : clusterNodes(node).values()) {
      if (fields[2].startsWith("myself")) {
        return fields;
      }
    }
    throw new AssertionError("no myself line on node " + node.index());
  }

  /** Returns whether a node answers cluster_state:ok. */
  static boolean stateOk(Node node) {
    try {
      return text(node, "CLUSTER", "INFO").contains("cluster_state:ok");
    } catch (IOException e) {
      return false;
    }
  }

  /** Returns whether every running node answers cluster_state:ok. */
  boolean allOk() {
    for (Node node : nodes) {
      if (alive(node) && !stateOk(node)) {
        return false;
      }
    }
    return true;
  }

  // ---------------------------------------------------------------- redis-cli --cluster

  /** Runs redis-cli with these arguments; returns its output, failing if it exits with an error. */
  static String cli(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(tool("redis-cli").toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("redis-cli did not finish: " + output);
    }
    if (process.exitValue() != 0) {
      throw new AssertionError("redis-cli " + String.join(" ", args) + " failed:\n" + output);
    }
    return output;
  }

  /** redis-cli --cluster create of every node, with one replica per master. */
  String create() throws Exception {
    List<String> args = new ArrayList<>(List.of("--cluster", "create"));
    for (Node node : nodes) {
      args.add("127.0.0.1:" + node.port());
    }
    args.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
    return cli(args.toArray(new String[0]));
  }

  /** redis-cli --cluster check through a node; returns its output. */
  static String check(Node node) throws Exception {
    return cli("--cluster", "check", "127.0.0.1:" + node.port());
  }

  @Override
  public void close() {
    for (Process process : processes.values()) {
      process.destroyForcibly();
    }
    for (Process process : processes.values()) {
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
