package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failover in a cluster of redis-servers and cuckoo-servers, each kind voting for the other's
 * replica. First a redis-server master fails over to its redis-server replica while cuckoo-servers
 * vote: three masters (redis-server, two cuckoo-servers) made by {@code redis-cli --cluster
 * create}, a redis-server replica added with {@code --cluster add-node --cluster-slave}; the redis
 * master is SIGKILLed. The quorum is two of the three masters, so the election succeeds only if
 * both cuckoo-servers flag the master FAIL with it and grant their votes in Redis's format;
 * afterwards the cuckoo-servers serve the new slot map and say cluster_state:ok, and {@code
 * --cluster check} is clean. Then a cuckoo-server master dies and its cuckoo-server replica needs
 * the vote of the new redis-server master. Skips without redis-server, except under {@code
 * CI=true}.
 */
class ClusterMixedFailoverTest {
  private static final long NODE_TIMEOUT_MILLIS = 1000;

  @TempDir Path dir;

  @Test
  void mastersKilled_theOtherKindVotes_replicasElected() throws Exception {
    ClusterNodes.tool("redis-server");
    ClusterNodes.tool("redis-cli");
    List<ClusterNodes.Kind> kinds =
        List.of(
            ClusterNodes.Kind.REDIS,
            ClusterNodes.Kind.CUCKOO,
            ClusterNodes.Kind.CUCKOO,
            ClusterNodes.Kind.REDIS,
            ClusterNodes.Kind.CUCKOO);
    try (ClusterNodes cluster = ClusterNodes.start(kinds, dir, NODE_TIMEOUT_MILLIS)) {
      ClusterNodes.Node redisMaster = cluster.node(0);
      ClusterNodes.Node redisReplica = cluster.node(3);
      String create =
          ClusterNodes.cli(
              "--cluster",
              "create",
              "127.0.0.1:" + redisMaster.port(),
              "127.0.0.1:" + cluster.node(1).port(),
              "127.0.0.1:" + cluster.node(2).port(),
              "--cluster-yes");
      assertTrue(create.contains("[OK] All 16384 slots covered."), create);
      String masterId = ClusterNodes.myLine(redisMaster)[0];
      ClusterNodes.cli(
          "--cluster",
          "add-node",
          "127.0.0.1:" + redisReplica.port(),
          "127.0.0.1:" + redisMaster.port(),
          "--cluster-slave",
          "--cluster-master-id",
          masterId);
      ClusterNodes.Node cuckooMaster = cluster.node(1);
      ClusterNodes.Node cuckooReplica = cluster.node(4);
      String cuckooMasterId = ClusterNodes.myLine(cuckooMaster)[0];
      ClusterNodes.cli(
          "--cluster",
          "add-node",
          "127.0.0.1:" + cuckooReplica.port(),
          "127.0.0.1:" + redisMaster.port(),
          "--cluster-slave",
          "--cluster-master-id",
          cuckooMasterId);
      await("every node ok", cluster::allOk);
      await(
          "the redis replica follows the redis master",
          () ->
              ClusterFailoverTest.quietly(
                  () ->
                      ClusterNodes.text(redisReplica, "INFO", "replication")
                          .contains("master_link_status:up")));
      String replicaId = ClusterNodes.myLine(redisReplica)[0];
      for (ClusterNodes.Node cuckoo : List.of(cluster.node(1), cluster.node(2))) {
        await(
            "cuckoo node " + cuckoo.index() + " sees the redis replica of the redis master",
            () ->
                ClusterFailoverTest.quietly(
                    () -> {
                      String[] line = ClusterNodes.clusterNodes(cuckoo).get(replicaId);
                      return line != null && line[2].equals("slave") && line[3].equals(masterId);
                    }));
      }
      String[] masterSlots = ClusterNodes.myLine(redisMaster);

      cluster.kill(redisMaster);
      await(
          "the redis replica is elected",
          () ->
              ClusterFailoverTest.quietly(
                  () -> ClusterNodes.myLine(redisReplica)[2].equals("myself,master")));
      await("every running node ok", cluster::allOk);
      for (ClusterNodes.Node cuckoo : List.of(cluster.node(1), cluster.node(2))) {
        String[] line = ClusterNodes.clusterNodes(cuckoo).get(replicaId);
        assertEquals(
            "master", line[2], "the new master as cuckoo node " + cuckoo.index() + " sees it");
        assertEquals(masterSlots[8], line[8], "it serves the old master's slots");
        assertTrue(
            ClusterNodes.clusterNodes(cuckoo).get(masterId)[2].equals("master,fail"),
            "the old master is fail");
        assertTrue(
            cluster.log(cuckoo).contains("Failover auth granted to " + replicaId),
            "cuckoo node " + cuckoo.index() + " voted");
      }
      assertClean(cluster.node(1));

      // then a cuckoo master dies: its cuckoo replica needs the votes of the new redis master and
      // of the other cuckoo master
      await(
          "the cuckoo replica follows its master",
          () ->
              ClusterFailoverTest.quietly(
                  () ->
                      ClusterNodes.text(cuckooReplica, "INFO", "replication")
                          .contains("master_link_status:up")));
      String cuckooReplicaId = ClusterNodes.myLine(cuckooReplica)[0];
      cluster.kill(cuckooMaster);
      await(
          "the cuckoo replica is elected",
          () ->
              ClusterFailoverTest.quietly(
                  () -> ClusterNodes.myLine(cuckooReplica)[2].equals("myself,master")));
      await("every running node ok again", cluster::allOk);
      assertEquals(
          "master",
          ClusterNodes.clusterNodes(redisReplica).get(cuckooReplicaId)[2],
          "redis-server sees the cuckoo replica as the master");
      assertTrue(
          cluster.log(redisReplica).contains("Failover auth granted to " + cuckooReplicaId),
          "redis-server voted for the cuckoo replica");
      assertClean(redisReplica);
    }
  }

  private static void assertClean(ClusterNodes.Node node) throws Exception {
    String check = ClusterNodes.check(node);
    assertTrue(check.contains("[OK] All nodes agree about slots configuration."), check);
    assertTrue(check.contains("[OK] All 16384 slots covered."), check);
    assertFalse(check.contains("[ERR]"), check);
  }

  private static void await(String what, BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("not within 30 s: " + what);
  }
}
