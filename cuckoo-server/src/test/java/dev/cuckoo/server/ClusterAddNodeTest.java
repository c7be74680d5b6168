package dev.cuckoo.server;

import static dev.cuckoo.server.ClusterSlotsTest.await;
import static dev.cuckoo.server.ClusterSlotsTest.freePort;
import static dev.cuckoo.server.ClusterSlotsTest.reply;
import static dev.cuckoo.server.ClusterSlotsTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code redis-cli --cluster add-node} both ways between cuckoo-servers and Debian's redis-server
 * 7.0: the tool copies functions with FUNCTION DUMP / LIST / RESTORE, then meets the new node; the
 * cluster then checks clean from either side. Skips without redis-cli, except under {@code
 * CI=true}.
 */
class ClusterAddNodeTest {
  @TempDir Path dir;

  private final List<Process> processes = new ArrayList<>();
  private final List<CuckooServer> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    for (Process process : processes) {
      process.destroyForcibly();
    }
    for (CuckooServer server : servers) {
      server.close();
    }
  }

  private int startCuckoo(String name) throws Exception {
    CuckooServer server =
        CuckooServer.start(
            TestServers.memoryOnly()
                .port(TestServers.freePort())
                .dir(Files.createDirectories(dir.resolve(name)))
                .clusterEnabled(true)
                .clusterPort(freePort())
                .clusterNodeTimeout(5000)
                .build());
    servers.add(server);
    return server.port();
  }

  private int startRedis(Path cli, String name) throws Exception {
    Path nodeDir = Files.createDirectories(dir.resolve(name));
    int port = freePort();
    Process process =
        new ProcessBuilder(
                cli.resolveSibling("redis-server").toString(),
                "--port",
                Integer.toString(port),
                "--cluster-port",
                Integer.toString(freePort()),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                nodeDir.toString(),
                "--cluster-enabled",
                "yes",
                "--cluster-node-timeout",
                "5000")
            .redirectErrorStream(true)
            .redirectOutput(nodeDir.resolve("redis.log").toFile())
            .start();
    processes.add(process);
    await("redis-server answers on " + port, () -> reply(port, "PING").equals("PONG"));
    return port;
  }

  /** Runs redis-cli; returns its output whatever its exit status. */
  private static String output(Path cli, String... args) throws java.io.IOException {
    List<String> command = new ArrayList<>(List.of(cli.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      process.destroy();
    }
  }

  /** Makes {@code port} a one-master cluster, adds {@code newPort}, checks from both. */
  private static void addNode(Path cli, int port, int newPort) throws Exception {
    // redis-cli creates clusters of three masters or more: one master takes every slot itself
    assertEquals("OK", reply(port, "CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
    await("cluster_state:ok", () -> reply(port, "CLUSTER", "INFO").contains("cluster_state:ok"));
    String added = run(cli, "--cluster", "add-node", "127.0.0.1:" + newPort, "127.0.0.1:" + port);
    assertTrue(added.contains(">>> Send FUNCTION RESTORE to 127.0.0.1:" + newPort), added);
    assertTrue(added.contains("[OK] New node added correctly."), added);
    for (int node : new int[] {port, newPort}) {
      await(
          "both nodes connected, seen from " + node,
          () -> reply(node, "CLUSTER", "NODES").split("connected").length == 3);
    }
    for (int node : new int[] {port, newPort}) {
      await(
          "cluster_state:ok on " + node,
          () -> reply(node, "CLUSTER", "INFO").contains("cluster_state:ok"));
      String[] check = {""};
      try {
        await(
            "redis-cli --cluster check clean from " + node,
            () -> {
              check[0] = output(cli, "--cluster", "check", "127.0.0.1:" + node);
              return check[0].contains("[OK] All nodes agree about slots configuration.")
                  && check[0].contains("[OK] All 16384 slots covered.");
            });
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "; last check:\n" + check[0], e);
      }
    }
    // the new master serves one key's slot once it has been given that slot
    String slot = reply(port, "CLUSTER", "KEYSLOT", "moved-here");
    String newId = reply(newPort, "CLUSTER", "MYID");
    assertEquals("OK", reply(newPort, "CLUSTER", "SETSLOT", slot, "NODE", newId));
    assertEquals("OK", reply(port, "CLUSTER", "SETSLOT", slot, "NODE", newId));
    assertEquals("-MOVED " + slot + " 127.0.0.1:" + newPort, reply(port, "EXISTS", "moved-here"));
    assertEquals("0", reply(newPort, "EXISTS", "moved-here"));
  }

  @Test
  void redisServer_addedToACuckooCluster_getsFunctionsAndJoins() throws Exception {
    Path cli = ClusterSlotsTest.redisCli();
    int cuckoo = startCuckoo("cuckoo");
    int redis = startRedis(cli, "redis");
    addNode(cli, cuckoo, redis);
  }

  @Test
  void cuckooServer_addedToARedisCluster_restoresFunctionsAndJoins() throws Exception {
    Path cli = ClusterSlotsTest.redisCli();
    int redis = startRedis(cli, "redis");
    int cuckoo = startCuckoo("cuckoo");
    addNode(cli, redis, cuckoo);
    try (RespClient client = new RespClient(redis)) {
      assertEquals(
          new String(FunctionCommandsTest.EMPTY_LIBRARY, StandardCharsets.ISO_8859_1),
          new String((byte[]) client.call("FUNCTION", "DUMP"), StandardCharsets.ISO_8859_1));
    }
  }
}
