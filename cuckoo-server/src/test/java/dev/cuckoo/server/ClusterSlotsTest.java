package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cuckoo.server.cluster.HashSlots;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

/**
 * A cluster of three cuckoo-servers (in this process, on free loopback ports) created by {@code
 * redis-cli --cluster create}, driven by redis-cli, JedisCluster, Lettuce's cluster client and
 * plain connections: the slot check's redirects and refusals with Redis's texts. Skips without
 * redis-cli, except under {@code CI=true}, where it fails ({@code .ci/run} installs it).
 */
class ClusterSlotsTest {
  private static final long NODE_TIMEOUT_MILLIS = 5000;

  @TempDir static Path dir;

  private static Path cli;
  private static final List<CuckooServer> servers = new ArrayList<>();
  private static int[] ports;

  @BeforeAll
  static void createCluster() throws Exception {
    cli = redisCli();
    ports = new int[3];
    for (int i = 0; i < 3; i++) {
      ports[i] = start("node-" + i).port();
    }
    String create =
        run(
            "--cluster",
            "create",
            "127.0.0.1:" + ports[0],
            "127.0.0.1:" + ports[1],
            "127.0.0.1:" + ports[2],
            "--cluster-yes");
    assertTrue(create.contains("[OK] All 16384 slots covered."), create);
    for (int port : ports) {
      await("cluster_state:ok on " + port, () -> info(port).contains("cluster_state:ok"));
    }
  }

  @AfterAll
  static void stopCluster() {
    for (CuckooServer server : servers) {
      server.close();
    }
    servers.clear();
  }

  static Path redisCli() {
    for (String candidate : List.of("/usr/bin/redis-cli", "/usr/local/bin/redis-cli")) {
      Path path = Paths.get(candidate);
      if (Files.isExecutable(path)) {
        return path;
      }
    }
    if ("true".equals(System.getenv("CI"))) {
      fail("redis-cli is not installed, and CI must run the cluster tests (.ci/run installs it)");
    }
    assumeTrue(false, "redis-cli not installed: the cluster slot tests are skipped");
    return null;
  }

  private static CuckooServer start(String name) throws IOException {
    Path nodeDir = Files.createDirectories(dir.resolve(name));
    CuckooServer server =
        CuckooServer.start(
            TestServers.memoryOnly()
                .port(TestServers.freePort())
                .dir(nodeDir)
                .clusterEnabled(true)
                .clusterPort(freePort())
                .clusterNodeTimeout(NODE_TIMEOUT_MILLIS)
                .build());
    servers.add(server);
    return server;
  }

  static int freePort() throws IOException {
    try (java.net.ServerSocket socket =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** Runs redis-cli with these arguments; returns its output, failing if it exits with an error. */
  static String run(String... args) throws Exception {
    return run(cli, args);
  }

  /**
   * Runs {@code cli} with these arguments; returns its output, failing if it exits with an error.
   */
  static String run(Path cli, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(cli.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(process.waitFor(60, TimeUnit.SECONDS), "redis-cli did not finish: " + output);
    assertEquals(0, process.exitValue(), output);
    return output;
  }

  @FunctionalInterface
  interface IoCheck {
    boolean test() throws IOException;
  }

  static void await(String what, IoCheck condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      try {
        if (condition.test()) {
          return;
        }
      } catch (IOException notYet) {
        // retried until the deadline
      }
      Thread.sleep(100);
    }
    throw new AssertionError("not within 20 s: " + what);
  }

  private static String info(int port) throws IOException {
    return reply(port, "CLUSTER", "INFO");
  }

  /** Sends one command on a new connection; returns its reply as text, errors as "-text". */
  static String reply(int port, Object... command) throws IOException {
    try (RespClient client = new RespClient(port)) {
      return text(client.call(command));
    }
  }

  static String text(Object reply) {
    if (reply instanceof RespClient.Err err) {
      return "-" + err.text();
    }
    if (reply instanceof RespClient.Simple simple) {
      return simple.text();
    }
    if (reply instanceof Long number) {
      return number.toString();
    }
    return RespClient.text(reply);
  }

  /** Returns the index of the node that serves the slot of {@code key}. */
  private static int ownerOf(String key) throws IOException {
    int slot = HashSlots.slot(key.getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < ports.length; i++) {
      String moved = reply(ports[i], "CF.EXISTS", key, "probe");
      if (!moved.startsWith("-MOVED")) {
        return i;
      }
      assertEquals("-MOVED " + slot, moved.substring(0, moved.lastIndexOf(' ')));
    }
    throw new AssertionError("no node serves " + key);
  }

  private static String nodeId(int index) throws IOException {
    return reply(ports[index], "CLUSTER", "MYID");
  }

  @Test
  void clusterCheck_afterCreate_isClean() throws Exception {
    String check = run("--cluster", "check", "127.0.0.1:" + ports[1]);
    assertTrue(check.contains("[OK] All nodes agree about slots configuration."), check);
    assertTrue(check.contains("[OK] All 16384 slots covered."), check);
  }

  @Test
  void redisCliFollowingRedirects_addsOnTheOwner_andPlainClientsAreMoved() throws Exception {
    String key = "cli-filter";
    int owner = ownerOf(key);
    int other = (owner + 1) % 3;
    String moved = reply(ports[other], "CF.ADD", key, "a");
    assertEquals(
        "-MOVED "
            + HashSlots.slot(key.getBytes(StandardCharsets.UTF_8))
            + " 127.0.0.1:"
            + ports[owner],
        moved);
    assertEquals("1", run("-c", "-p", Integer.toString(ports[other]), "CF.ADD", key, "a").trim());
    assertEquals("1", reply(ports[owner], "CF.EXISTS", key, "a"));
  }

  @Test
  void jedisClusterClient_thousandsOfFilters_reachEveryNode() throws Exception {
    Set<HostAndPort> seeds = Set.of(new HostAndPort("127.0.0.1", ports[0]));
    int filters = 2000;
    try (RedisClusterClient cluster = RedisClusterClient.create(seeds)) {
      for (int i = 0; i < filters; i++) {
        assertEquals("OK", cluster.cfReserve("jedis:" + i, 100));
        assertTrue(cluster.cfAdd("jedis:" + i, "item-" + i));
      }
      for (int i = 0; i < filters; i++) {
        assertTrue(cluster.cfExists("jedis:" + i, "item-" + i), "jedis:" + i);
      }
    }
    long total = 0;
    for (int port : ports) {
      long keys = Long.parseLong(reply(port, "DBSIZE"));
      assertTrue(keys > 0, "node " + port + " holds no key");
      total += keys;
    }
    assertTrue(total >= filters, "keys over the nodes: " + total);
  }

  /** A RedisBloom command name for Lettuce's dispatch. */
  record Cf(String text) implements ProtocolKeyword {
    static final Cf RESERVE = new Cf("CF.RESERVE");
    static final Cf ADD = new Cf("CF.ADD");
    static final Cf EXISTS = new Cf("CF.EXISTS");

    @Override
    public byte[] getBytes() {
      return text.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public String toString() {
      return text;
    }
  }

  /**
   * redis-py's RedisCluster (Debian's python3-redis) with a slot map that names one node for every
   * slot: it follows each MOVED, which that node counts, and every filter ends on its owner.
   */
  @Test
  void redisPyClusterClient_thousandsOfFilters_followMoved() throws Exception {
    int filters = 3000;
    long movedBefore = movedErrors(ports[0]);
    String output =
        RedisPyTest.runScript(
            dir, "redis_py_cluster.py", 120, Integer.toString(ports[0]), Integer.toString(filters));
    assertEquals("PASS", output.strip(), output);
    long moved = movedErrors(ports[0]) - movedBefore;
    // about two thirds of the filters' slots are the other nodes'; each is redirected once
    assertTrue(moved >= filters / 2, "MOVED answered by the seed node: " + moved);
    for (int port : ports) {
      assertTrue(Long.parseLong(reply(port, "DBSIZE")) > filters / 4, "node " + port);
    }
  }

  /** Returns how many MOVED errors a node has answered (INFO errorstats). */
  private static long movedErrors(int port) throws IOException {
    for (String line : reply(port, "INFO", "errorstats").split("\r\n")) {
      if (line.startsWith("errorstat_MOVED:count=")) {
        return Long.parseLong(line.substring("errorstat_MOVED:count=".length()));
      }
    }
    return 0;
  }

  @Test
  void lettuceClusterClient_thousandsOfFilters_followTheSlotMap() throws Exception {
    io.lettuce.core.cluster.RedisClusterClient client =
        io.lettuce.core.cluster.RedisClusterClient.create(
            RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(ports[2])
                .withTimeout(Duration.ofSeconds(10))
                .build());
    try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
      RedisAdvancedClusterAsyncCommands<String, String> redis = connection.async();
      StringCodec codec = StringCodec.UTF8;
      int filters = 1000;
      // the first filters one at a time: every node's connection is open before the rest are sent
      // without waiting
      int warmUp = 100;
      for (int i = 0; i < warmUp; i++) {
        String key = "lettuce:" + i;
        assertEquals(
            "OK",
            connection
                .sync()
                .dispatch(
                    Cf.RESERVE,
                    new StatusOutput<>(codec),
                    new CommandArgs<>(codec).addKey(key).add(100)));
      }
      List<RedisFuture<String>> reserved = new ArrayList<>();
      List<RedisFuture<Boolean>> added = new ArrayList<>();
      for (int i = 0; i < filters; i++) {
        String key = "lettuce:" + i;
        if (i >= warmUp) {
          reserved.add(
              redis.dispatch(
                  Cf.RESERVE,
                  new StatusOutput<>(codec),
                  new CommandArgs<>(codec).addKey(key).add(100)));
        }
        added.add(
            redis.dispatch(
                Cf.ADD, new BooleanOutput<>(codec), new CommandArgs<>(codec).addKey(key).add("x")));
      }
      for (RedisFuture<String> reply : reserved) {
        assertEquals("OK", reply.get(10, TimeUnit.SECONDS));
      }
      for (RedisFuture<Boolean> reply : added) {
        assertTrue(reply.get(10, TimeUnit.SECONDS));
      }
      List<RedisFuture<Boolean>> found = new ArrayList<>();
      for (int i = 0; i < filters; i++) {
        found.add(
            redis.dispatch(
                Cf.EXISTS,
                new BooleanOutput<>(codec),
                new CommandArgs<>(codec).addKey("lettuce:" + i).add("x")));
      }
      for (int i = 0; i < filters; i++) {
        assertTrue(found.get(i).get(10, TimeUnit.SECONDS), "lettuce:" + i);
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void multiKeyCommands_acrossSlots_areCrossSlotEvenForMissingKeys() throws Exception {
    String crossSlot = "-CROSSSLOT Keys in request don't hash to the same slot";
    for (int port : ports) {
      assertEquals(crossSlot, reply(port, "EXISTS", "nope-a", "nope-b"));
      assertEquals(crossSlot, reply(port, "DEL", "nope-a", "nope-b"));
    }
    int owner = ownerOf("{tag}1");
    assertEquals("0", reply(ports[owner], "EXISTS", "{tag}1", "{tag}2"));
  }

  @Test
  void transactions_queuedCommandsAreChecked_andExecChecksTheirKeysTogether() throws Exception {
    int owner = ownerOf("{tx}a");
    int other = (owner + 1) % 3;
    try (RespClient client = new RespClient(ports[other])) {
      assertEquals("OK", text(client.call("MULTI")));
      assertTrue(text(client.call("CF.ADD", "{tx}a", "x")).startsWith("-MOVED "));
      assertTrue(text(client.call("EXEC")).startsWith("-EXECABORT"));
    }
    // two keys this node serves, in two slots: each queues, EXEC refuses them together
    String second = null;
    for (int i = 0; second == null; i++) {
      String candidate = "tx-" + i;
      if (HashSlots.slot(candidate.getBytes(StandardCharsets.UTF_8))
              != HashSlots.slot("{tx}a".getBytes(StandardCharsets.UTF_8))
          && ownerOf(candidate) == owner) {
        second = candidate;
      }
    }
    try (RespClient client = new RespClient(ports[owner])) {
      assertEquals("OK", text(client.call("MULTI")));
      assertEquals("QUEUED", text(client.call("CF.ADD", "{tx}a", "x")));
      assertEquals("QUEUED", text(client.call("CF.ADD", second, "x")));
      assertEquals(
          "-CROSSSLOT Keys in request don't hash to the same slot", text(client.call("EXEC")));
      assertEquals("-ERR EXEC without MULTI", text(client.call("EXEC")));
    }
    assertEquals("0", reply(ports[owner], "EXISTS", "{tx}a"));
  }

  @Test
  void migratingAndImportingSlots_askAskingAndTryAgain_asRedis() throws Exception {
    int source = ownerOf("{mig}x");
    int target = (source + 1) % 3;
    int slot = HashSlots.slot("{mig}x".getBytes(StandardCharsets.UTF_8));
    String slotText = Integer.toString(slot);
    assertEquals("1", reply(ports[source], "CF.ADD", "{mig}x", "a"));
    assertEquals(
        "OK", reply(ports[target], "CLUSTER", "SETSLOT", slotText, "IMPORTING", nodeId(source)));
    assertEquals(
        "OK", reply(ports[source], "CLUSTER", "SETSLOT", slotText, "MIGRATING", nodeId(target)));
    try {
      // the source serves the keys it still has, asks for those it no longer has
      assertEquals("1", reply(ports[source], "CF.EXISTS", "{mig}x", "a"));
      String ask = "-ASK " + slot + " 127.0.0.1:" + ports[target];
      assertEquals(ask, reply(ports[source], "CF.EXISTS", "{mig}y", "a"));
      assertEquals(
          "-TRYAGAIN Multiple keys request during rehashing of slot",
          reply(ports[source], "EXISTS", "{mig}x", "{mig}y"));
      try (RespClient client = new RespClient(ports[target])) {
        String moved = "-MOVED " + slot + " 127.0.0.1:" + ports[source];
        assertEquals(moved, text(client.call("CF.ADD", "{mig}y", "a")));
        assertEquals("OK", text(client.call("ASKING")));
        assertEquals("1", text(client.call("CF.ADD", "{mig}y", "a")));
        // ASKING counted for one command only
        assertEquals(moved, text(client.call("CF.EXISTS", "{mig}y", "a")));
        assertEquals("OK", text(client.call("ASKING")));
        assertEquals(
            "-TRYAGAIN Multiple keys request during rehashing of slot",
            text(client.call("EXISTS", "{mig}y", "{mig}z")));
      }
      assertEquals("1", reply(ports[target], "CLUSTER", "COUNTKEYSINSLOT", slotText));
    } finally {
      try (RespClient client = new RespClient(ports[target])) {
        client.call("ASKING");
        client.call("DEL", "{mig}y");
      }
      reply(ports[source], "CLUSTER", "SETSLOT", slotText, "STABLE");
      reply(ports[target], "CLUSTER", "SETSLOT", slotText, "STABLE");
    }
    assertEquals("1", reply(ports[source], "CF.EXISTS", "{mig}x", "a"));
  }

  @Test
  void keysInSlot_countAndList_theSlotsKeysOnly() throws Exception {
    int owner = ownerOf("{few}0");
    int slot = HashSlots.slot("{few}0".getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < 5; i++) {
      assertEquals("1", reply(ports[owner], "CF.ADD", "{few}" + i, "a"));
    }
    assertEquals("5", reply(ports[owner], "CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)));
    try (RespClient client = new RespClient(ports[owner])) {
      Object keys = client.call("CLUSTER", "GETKEYSINSLOT", Integer.toString(slot), "3");
      assertEquals(3, ((List<?>) keys).size());
      for (Object key : (List<?>) keys) {
        assertTrue(RespClient.text(key).startsWith("{few}"), RespClient.text(key));
      }
    }
  }

  @Test
  void databases_onlyZeroInClusterMode() throws Exception {
    assertEquals("OK", reply(ports[0], "SELECT", "0"));
    assertEquals("-ERR SELECT is not allowed in cluster mode", reply(ports[0], "SELECT", "1"));
    assertEquals("-ERR SWAPDB is not allowed in cluster mode", reply(ports[0], "SWAPDB", "0", "1"));
    int owner = ownerOf("move-me");
    assertEquals(
        "-ERR MOVE is not allowed in cluster mode", reply(ports[owner], "MOVE", "move-me", "1"));
    assertEquals(
        "-ERR Copying to another database is not allowed in cluster mode",
        reply(ports[owner], "COPY", "move-me", "move-me", "DB", "1"));
  }

  @Test
  void loneNode_clusterDownTexts_followCoverageAndReadsWhenDown() throws Exception {
    int port = start("lone").port();
    assertEquals("-CLUSTERDOWN Hash slot not served", reply(port, "CF.ADD", "k", "a"));
    assertEquals("OK", reply(port, "CLUSTER", "ADDSLOTSRANGE", "0", "8191"));
    String low = null;
    String high = null;
    for (int i = 0; low == null || high == null; i++) {
      String key = "k" + i;
      if (HashSlots.slot(key.getBytes(StandardCharsets.UTF_8)) < 8192) {
        low = low == null ? key : low;
      } else {
        high = high == null ? key : high;
      }
    }
    assertEquals("-CLUSTERDOWN Hash slot not served", reply(port, "CF.ADD", high, "a"));
    assertEquals("-CLUSTERDOWN The cluster is down", reply(port, "CF.ADD", low, "a"));
    assertEquals("OK", reply(port, "CONFIG", "SET", "cluster-require-full-coverage", "no"));
    await("half-covered lone node ok", () -> info(port).contains("cluster_state:ok"));
    assertEquals("1", reply(port, "CF.ADD", low, "a"));
    assertEquals("OK", reply(port, "CONFIG", "SET", "cluster-require-full-coverage", "yes"));
    await("lone node down again", () -> info(port).contains("cluster_state:fail"));
    assertEquals("-CLUSTERDOWN The cluster is down", reply(port, "CF.EXISTS", low, "a"));
    assertEquals("OK", reply(port, "CONFIG", "SET", "cluster-allow-reads-when-down", "yes"));
    assertEquals("1", reply(port, "CF.EXISTS", low, "a"));
    assertEquals(
        "-CLUSTERDOWN The cluster is down and only accepts read commands",
        reply(port, "CF.ADD", low, "b"));
    assertEquals("PONG", reply(port, "PING"));
  }
}
