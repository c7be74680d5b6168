package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Real Redis Sentinels (Debian's {@code redis-sentinel}) on free loopback ports, each with its own
 * temporary directory and config file, monitoring one master under one name.
 *
 * <p>{@link #start} skips the calling test (a JUnit assumption) when {@code redis-sentinel} is not
 * installed, except under {@code CI=true}, where it fails: CI installs it ({@code .ci/run}). The
 * master and its replicas are whatever the test runs (in-process {@link CuckooServer}s, or {@link
 * ChildServer}s a test can SIGKILL); the sentinels only need the master's port. Queries go through
 * {@link RespClient} in RESP2; {@link #close} stops every sentinel and deletes its files.
 */
final class SentinelCluster implements AutoCloseable {
  /** Sentinel timings short enough for tests; Redis's defaults are 30 s and 3 min. */
  record Timing(long downAfterMillis, long failoverTimeoutMillis) {
    /** One second to subjective down, ten seconds per failover attempt. */
    static final Timing FAST = new Timing(1000, 10_000);

    /**
     * For tests that need exactly one failover: after a switch a sentinel must have a PONG from the
     * new master within down-after-milliseconds of making its link (sentinel.c: the link's
     * act_ping_time starts then), or it sees it down and fails over again; one second was missed
     * once on a busy two-core host (a second failover, to the other replica).
     */
    static final Timing ONE_FAILOVER = new Timing(2500, 10_000);
  }

  /** A condition {@link #await} polls; it may query the sentinels or the servers. */
  @FunctionalInterface
  interface Check {
    /** Returns true once the awaited state is reached. */
    boolean holds() throws IOException;
  }

  /** One sentinel process. */
  record Sentinel(Process process, int port, Path dir) {
    /** Returns what the sentinel logged so far (its logfile). */
    String log() throws IOException {
      Path log = dir.resolve("sentinel.log");
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }
  }

  private final String masterName;
  private final List<Sentinel> sentinels;

  private SentinelCluster(String masterName, List<Sentinel> sentinels) {
    this.masterName = masterName;
    this.sentinels = sentinels;
  }

  /** Returns the redis-sentinel executable on the PATH, or null. */
  static Path executable() {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "redis-sentinel");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /** Skips the test without redis-sentinel, or fails it under CI; returns the executable. */
  static Path requireExecutable() {
    Path executable = executable();
    if (executable == null && "true".equals(System.getenv("CI"))) {
      fail(
          "redis-sentinel is not installed, and CI must run the Sentinel tests (.ci/run installs it)");
    }
    assumeTrue(executable != null, "redis-sentinel not installed");
    return executable;
  }

  /** Returns a free loopback port (closed again: a sentinel binds it right after). */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /**
   * Starts {@code count} sentinels monitoring the master at 127.0.0.1:{@code masterPort} under
   * {@code masterName} with the given quorum, and waits until each answers PING.
   */
  static SentinelCluster start(
      int count, String masterName, int masterPort, int quorum, Timing timing)
      throws IOException, InterruptedException {
    return start(count, masterName, masterPort, quorum, timing, List.of());
  }

  /**
   * Starts sentinels as {@link #start(int, String, int, int, Timing)} does, with more lines in each
   * config file after the monitor line, e.g. {@code sentinel auth-pass mymaster secret}.
   */
  static SentinelCluster start(
      int count,
      String masterName,
      int masterPort,
      int quorum,
      Timing timing,
      List<String> configLines)
      throws IOException, InterruptedException {
    Path executable = requireExecutable();
    List<Sentinel> started = new ArrayList<>();
    SentinelCluster cluster = new SentinelCluster(masterName, started);
    try {
      for (int i = 0; i < count; i++) {
        // a port found free may be taken before the sentinel binds it: try another one
        for (int attempt = 1; ; attempt++) {
          Sentinel sentinel =
              launch(executable, masterName, masterPort, quorum, timing, configLines);
          started.add(sentinel);
          if (awaitAnswer(sentinel)) {
            break;
          }
          if (attempt == 3) {
            throw new IOException("redis-sentinel exited three times (its output is above)");
          }
          started.remove(sentinel);
          deleteFiles(sentinel);
        }
      }
      return cluster;
    } catch (IOException | RuntimeException | InterruptedException | Error e) {
      cluster.close();
      throw e;
    }
  }

  private static Sentinel launch(
      Path executable,
      String masterName,
      int masterPort,
      int quorum,
      Timing timing,
      List<String> configLines)
      throws IOException {
    Path dir = Files.createTempDirectory("sentinel");
    int port = freePort();
    Path config = dir.resolve("sentinel.conf");
    Files.writeString(
        config,
        String.join(
            "\n",
            "port " + port,
            "bind 127.0.0.1",
            "protected-mode no",
            "daemonize no",
            "dir " + dir,
            "logfile " + dir.resolve("sentinel.log"),
            "sentinel resolve-hostnames no",
            "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " " + quorum,
            "sentinel down-after-milliseconds " + masterName + " " + timing.downAfterMillis(),
            "sentinel failover-timeout " + masterName + " " + timing.failoverTimeoutMillis(),
            "sentinel parallel-syncs " + masterName + " 1",
            String.join("\n", configLines),
            ""),
        StandardCharsets.UTF_8);
    Process process =
        new ProcessBuilder(executable.toString(), config.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("stdout.log").toFile())
            .start();
    return new Sentinel(process, port, dir);
  }

  /**
   * Waits until the sentinel answers SENTINEL MYID (so it is this sentinel, not whatever else took
   * its port); returns false if it exited (it could not bind its port, say).
   *
   * @throws IOException if it neither answers nor exits within 10 s
   */
  private static boolean awaitAnswer(Sentinel sentinel) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (!sentinel.process().isAlive()) {
        System.err.println(
            "redis-sentinel exited with "
                + sentinel.process().exitValue()
                + ":\n"
                + Files.readString(sentinel.dir().resolve("stdout.log"))
                + sentinel.log());
        return false;
      }
      try (RespClient client = new RespClient(sentinel.port())) {
        Object id = client.call("SENTINEL", "MYID");
        if (id instanceof byte[] bytes && bytes.length == 40 && sentinel.process().isAlive()) {
          return true;
        }
      } catch (IOException notYet) {
        Thread.sleep(20);
      }
    }
    throw new IOException("redis-sentinel did not answer within 10 s:\n" + sentinel.log());
  }

  /** Returns the sentinels, in start order. */
  List<Sentinel> sentinels() {
    return sentinels;
  }

  /** Sends a command to sentinel {@code index} on a fresh connection and returns the reply. */
  Object call(int index, Object... command) throws IOException {
    try (RespClient client = new RespClient(sentinels.get(index).port())) {
      return client.call(command);
    }
  }

  /** Returns a flat key-value reply (RESP2 array of pairs) as a map of texts. */
  static Map<String, String> pairs(Object reply) {
    List<?> flat = (List<?>) reply;
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      map.put(RespClient.text(flat.get(i)), RespClient.text(flat.get(i + 1)));
    }
    return map;
  }

  private List<Map<String, String>> instances(int index, String subcommand) throws IOException {
    List<Map<String, String>> instances = new ArrayList<>();
    for (Object instance : (List<?>) call(index, "SENTINEL", subcommand, masterName)) {
      instances.add(pairs(instance));
    }
    return instances;
  }

  /** SENTINEL get-master-addr-by-name: "ip:port" as sentinel {@code index} sees it, or null. */
  String masterAddress(int index) throws IOException {
    Object reply = call(index, "SENTINEL", "get-master-addr-by-name", masterName);
    if (reply == null) {
      return null;
    }
    List<?> address = (List<?>) reply;
    return RespClient.text(address.get(0)) + ":" + RespClient.text(address.get(1));
  }

  /** SENTINEL master: the master's state as sentinel {@code index} sees it (flags, num-slaves…). */
  Map<String, String> master(int index) throws IOException {
    return pairs(call(index, "SENTINEL", "master", masterName));
  }

  /** SENTINEL replicas: one map per replica sentinel {@code index} knows. */
  List<Map<String, String>> replicas(int index) throws IOException {
    return instances(index, "replicas");
  }

  /** SENTINEL sentinels: one map per other sentinel sentinel {@code index} knows. */
  List<Map<String, String>> otherSentinels(int index) throws IOException {
    return instances(index, "sentinels");
  }

  /**
   * Waits until {@code condition} holds, checking every 100 ms; a check that fails with an {@link
   * IOException} counts as not yet holding. Fails with {@code what} and every sentinel's log if it
   * does not within {@code timeout}.
   */
  void await(Duration timeout, String what, Check condition)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    IOException lastError = null;
    while (System.nanoTime() < deadline) {
      try {
        if (condition.holds()) {
          return;
        }
      } catch (IOException e) {
        // a sentinel that reconfigures a server closes its normal clients (CLIENT KILL TYPE
        // normal), which may be the connection this check asked on: ask again
        lastError = e;
      }
      Thread.sleep(100);
    }
    StringBuilder logs = new StringBuilder();
    if (lastError != null) {
      logs.append("last error: ").append(lastError).append('\n');
    }
    for (Sentinel sentinel : sentinels) {
      logs.append("--- sentinel on port ").append(sentinel.port()).append('\n');
      logs.append(sentinel.log());
    }
    fail("within " + timeout + ": " + what + "\n" + logs);
  }

  /**
   * Waits until every sentinel sees {@code replicas} replicas of the master (num-slaves) and knows
   * every other sentinel (num-other-sentinels).
   */
  void awaitReplicasAndPeers(int replicas, Duration timeout)
      throws IOException, InterruptedException {
    String slaves = Integer.toString(replicas);
    String others = Integer.toString(sentinels.size() - 1);
    await(
        timeout,
        "every sentinel sees " + slaves + " replicas and the " + others + " other sentinels",
        () -> {
          for (int i = 0; i < sentinels.size(); i++) {
            Map<String, String> seen = master(i);
            if (!slaves.equals(seen.get("num-slaves"))
                || !others.equals(seen.get("num-other-sentinels"))) {
              return false;
            }
          }
          return true;
        });
  }

  /** Waits until every sentinel knows every other one (num-other-sentinels), through hello. */
  void awaitDiscovery(Duration timeout) throws IOException, InterruptedException {
    String others = Integer.toString(sentinels.size() - 1);
    await(
        timeout,
        "every sentinel knows the " + others + " others through __sentinel__:hello",
        () -> {
          for (int i = 0; i < sentinels.size(); i++) {
            if (!others.equals(master(i).get("num-other-sentinels"))) {
              return false;
            }
          }
          return true;
        });
  }

  /** Stops every sentinel (SIGTERM, then SIGKILL after 5 s) and deletes its files. */
  @Override
  public void close() throws IOException {
    for (Sentinel sentinel : sentinels) {
      sentinel.process().destroy();
    }
    for (Sentinel sentinel : sentinels) {
      try {
        if (!sentinel.process().waitFor(5, TimeUnit.SECONDS)) {
          sentinel.process().destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        sentinel.process().destroyForcibly();
      }
      deleteFiles(sentinel);
    }
  }

  private static void deleteFiles(Sentinel sentinel) throws IOException {
    try (Stream<Path> files = Files.walk(sentinel.dir())) {
      for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(file);
      }
    }
  }
}
