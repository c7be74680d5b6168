package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.cluster.HashSlots;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replica side of CLUSTER over TCP: REPLICATE makes a node the replica of another (replication
 * follows it, CLUSTER NODES, REPLICAS and SLOTS show it), FAILOVER swaps them, the errors are
 * Redis's, REPLICAOF is refused in cluster mode, and a node whose nodes.conf cannot be written
 * stops serving.
 */
class ClusterReplicaCommandsTest {
  @TempDir Path dir;

  private CuckooServer node(String name) throws Exception {
    return startNode(dir.resolve(name));
  }

  /** Starts a cluster node in memory only, with a node timeout of 1 s, in {@code nodeDir}. */
  static CuckooServer startNode(Path nodeDir) throws Exception {
    return CuckooServer.start(
        TestServers.memoryOnly()
            .dir(Files.createDirectories(nodeDir))
            .clusterEnabled(true)
            .clusterPort(SentinelCluster.freePort())
            .clusterNodeTimeout(1000)
            .build());
  }

  /** A node started from a config file (CONFIG REWRITE has a file to write). */
  private CuckooServer nodeFromFile(String name) throws Exception {
    Path nodeDir = Files.createDirectories(dir.resolve(name));
    Path file = nodeDir.resolve("cuckoo.conf");
    Files.writeString(
        file,
        String.join(
            "\n",
            "port " + TestServers.freePort(),
            "dir " + nodeDir,
            "appendonly no",
            "save \"\"",
            "cluster-enabled yes",
            "cluster-port " + SentinelCluster.freePort(),
            "cluster-node-timeout 1000",
            ""));
    return CuckooServer.start(ServerConfig.parse(file.toString()));
  }

  private static Object error(String text) {
    return new RespClient.Err(text);
  }

  private static String text(RespClient client, Object... command) throws IOException {
    Object reply = client.call(command);
    return reply instanceof RespClient.Simple simple ? simple.text() : RespClient.text(reply);
  }

  static int busPort(RespClient client) throws IOException {
    for (String line : text(client, "CLUSTER", "NODES").split("\n")) {
      if (line.contains("myself")) {
        String address = line.split(" ")[1];
        return Integer.parseInt(address.substring(address.indexOf('@') + 1));
      }
    }
    throw new AssertionError("no myself line");
  }

  private static void await(String what, ClusterFailoverTest.IoCheck condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (ClusterFailoverTest.quietly(condition)) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("not within 20 s: " + what);
  }

  @Test
  void replicate_thenFailover_rolesAndDataAsRedis() throws Exception {
    try (CuckooServer master = node("master");
        CuckooServer replica = nodeFromFile("replica");
        RespClient m = new RespClient(master.port());
        RespClient r = new RespClient(replica.port())) {
      String masterId = text(m, "CLUSTER", "MYID");
      String replicaId = text(r, "CLUSTER", "MYID");
      assertEquals(
          error("ERR REPLICAOF not allowed in cluster mode."),
          r.call("REPLICAOF", "127.0.0.1", "1"));
      assertEquals(
          error("ERR You should send CLUSTER FAILOVER to a replica"),
          r.call("CLUSTER", "FAILOVER"));
      assertEquals(error("ERR syntax error"), r.call("CLUSTER", "FAILOVER", "SOON"));
      assertEquals(error("ERR Can't replicate myself"), r.call("CLUSTER", "REPLICATE", replicaId));
      assertEquals(
          error("ERR Unknown node " + "0".repeat(40)),
          r.call("CLUSTER", "REPLICATE", "0".repeat(40)));
      assertEquals("OK", text(m, "CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
      // a master serves once its cluster state is ok (Redis's writable delay after a start)
      await(
          "the master's cluster state is ok",
          () -> text(m, "CLUSTER", "INFO").contains("cluster_state:ok"));
      assertEquals(1L, m.call("CF.ADD", "f", "before"), "a key written before the replica came");
      assertEquals("OK", text(r, "CLUSTER", "MEET", "127.0.0.1", master.port(), busPort(m)));
      await("the replica knows the master", () -> text(r, "CLUSTER", "NODES").contains(masterId));
      await("the master knows the replica", () -> text(m, "CLUSTER", "NODES").contains(replicaId));
      assertEquals(
          error("ERR To set a master the node must be empty and without assigned slots."),
          m.call("CLUSTER", "REPLICATE", replicaId));
      assertEquals("OK", text(r, "CLUSTER", "REPLICATE", masterId));
      await(
          "the replica follows the master",
          () -> text(r, "INFO", "replication").contains("master_link_status:up"));
      assertTrue(
          text(r, "CLUSTER", "NODES").contains("myself,slave " + masterId),
          text(r, "CLUSTER", "NODES"));
      await(
          "the master lists its replica",
          () -> ((List<?>) m.call("CLUSTER", "REPLICAS", masterId)).size() == 1);
      assertEquals(
          error("ERR I can only replicate a master, not a replica."),
          m.call("CLUSTER", "REPLICATE", replicaId));
      assertEquals(1L, m.call("CF.ADD", "f", "after"));
      assertEquals(1L, m.call("CF.ADD", "g", "after"));
      assertEquals(1L, m.call("WAIT", "1", "5000"));
      // the replica's slot index holds the key of the full copy and the key of the stream
      for (String key : List.of("f", "g")) {
        String slot = Integer.toString(HashSlots.slot(key.getBytes(StandardCharsets.UTF_8)));
        assertEquals(1L, r.call("CLUSTER", "COUNTKEYSINSLOT", slot), key);
        assertEquals(1, ((List<?>) r.call("CLUSTER", "GETKEYSINSLOT", slot, "10")).size(), key);
      }
      // a cluster replica follows by nodes.conf: CONFIG REWRITE writes no replicaof line, so the
      // node starts again from its file
      assertEquals("OK", text(r, "CONFIG", "REWRITE"));
      Path conf = dir.resolve("replica").resolve("cuckoo.conf");
      String rewritten = Files.readString(conf);
      assertTrue(rewritten.contains("cluster-enabled yes"), rewritten);
      assertTrue(
          rewritten.lines().noneMatch(line -> line.matches("(?i)\\s*(replicaof|slaveof)\\b.*")),
          rewritten);
      assertTrue(ServerConfig.parse(conf.toString()).cluster().enabled());
      await(
          "CLUSTER SLOTS names the replica beside the master",
          () -> ((List<?>) ((List<?>) m.call("CLUSTER", "SLOTS")).get(0)).size() == 4);
      await("both nodes ok", () -> text(r, "CLUSTER", "INFO").contains("cluster_state:ok"));

      assertEquals("OK", text(r, "CLUSTER", "FAILOVER"));
      await(
          "the manual failover swapped the roles",
          () ->
              text(r, "CLUSTER", "NODES").contains("myself,master")
                  && text(m, "CLUSTER", "NODES").contains("myself,slave " + replicaId));
      assertEquals(1L, r.call("CF.EXISTS", "f", "before"));
      assertEquals(1L, r.call("CF.EXISTS", "f", "after"));
      await(
          "the old master follows the new one",
          () -> text(m, "INFO", "replication").contains("master_link_status:up"));
      assertEquals(1L, r.call("CF.ADD", "f", "swapped"));
      assertEquals(1L, r.call("WAIT", "1", "5000"));
    }
  }

  @Test
  void nodesConfNotWritable_nodeStopsServing() throws Exception {
    CuckooServer server = node("stuck");
    try (RespClient client = new RespClient(server.port())) {
      assertEquals("OK", text(client, "CLUSTER", "ADDSLOTS", "1"));
      // nodes.conf can no longer be replaced: a non-empty directory stands in its place
      Path conf = dir.resolve("stuck").resolve("nodes.conf");
      Files.delete(conf);
      Files.createDirectories(conf.resolve("in-the-way"));
      Object reply;
      try {
        reply = client.call("CLUSTER", "ADDSLOTS", "2");
      } catch (IOException closedMeanwhile) {
        reply = null; // the node may stop before it answers
      }
      assertTrue(
          reply == null
              || reply.equals(error("ERR can't update cluster config file: the node is stopping")),
          "the change is not acknowledged: " + reply);
    } finally {
      await("the node stopped serving", () -> !canConnect(server.port()));
      server.close();
    }
  }

  private static boolean canConnect(int port) {
    try (RespClient client = new RespClient(port)) {
      client.call("PING");
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
