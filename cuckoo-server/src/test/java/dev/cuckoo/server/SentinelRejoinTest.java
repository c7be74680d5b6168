package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real Redis Sentinels (Debian's redis-sentinel) fail over a cuckoo-server master (a child JVM,
 * SIGKILLed) whose writes were all WAIT-confirmed by both replicas and which was quiet since: it
 * holds nothing the promoted replica lacks, so restarted on its address it rejoins as a replica
 * with +CONTINUE (a partial resynchronization), and the promoted replica copies nothing in full.
 */
class SentinelRejoinTest {
  private static final String MASTER = "mymaster";

  @TempDir Path dir;

  @Test
  void quietMasterKilled_restarted_rejoinsPromotedReplicaWithPartialResync() throws Exception {
    ChildServer master = ChildServer.startNamed(dir, "a");
    int masterPort = master.port();
    List<ChildServer> servers = new ArrayList<>(List.of(master));
    try (CuckooServer b =
            CuckooServer.start(
                TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + masterPort).build());
        CuckooServer c =
            CuckooServer.start(
                TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + masterPort).build());
        SentinelCluster sentinels =
            SentinelCluster.start(3, MASTER, masterPort, 2, SentinelCluster.Timing.ONE_FAILOVER)) {
      sentinels.awaitReplicasAndPeers(2, Duration.ofSeconds(40));
      try (RespClient client = new RespClient(masterPort)) {
        for (int batch = 0; batch < 10; batch++) {
          for (int i = 0; i < 50; i++) {
            client.call("CF.ADD", "k", "item" + batch + "-" + i);
          }
          assertEquals(2L, client.call("WAIT", 2, 5000), "batch " + batch);
        }
        client.call("SELECT", 2);
        client.call("CF.ADD", "in2", "x");
        assertEquals(2L, client.call("WAIT", 2, 5000));
      }
      ReplicaState.awaitInSync(masterPort, b.port(), 10_000);
      ReplicaState.awaitInSync(masterPort, c.port(), 10_000);
      master.kill();
      sentinels.await(
          Duration.ofSeconds(30),
          "the sentinels name a new master",
          () -> !sentinels.masterAddress(0).equals("127.0.0.1:" + masterPort));
      String address = sentinels.masterAddress(0);
      int promoted = Integer.parseInt(address.substring(address.indexOf(':') + 1));

      ChildServer restarted =
          ChildServer.startNamed(dir, "a", "--port", Integer.toString(masterPort));
      servers.add(restarted);
      sentinels.await(
          Duration.ofSeconds(60),
          "the old master rejoins as a replica of the new one",
          () ->
              "slave".equals(ReplicaState.info(masterPort, "role"))
                  && Integer.toString(promoted).equals(ReplicaState.info(masterPort, "master_port"))
                  && "up".equals(ReplicaState.info(masterPort, "master_link_status")));
      ReplicaState.awaitInSync(promoted, masterPort, 30_000);
      String log = restarted.output();
      assertTrue(log.contains("Master accepted a Partial Resynchronization"), log);
      assertFalse(log.contains("Full resync from master"), log);
      assertEquals("0", ReplicaState.stat(promoted, "sync_full"), log);
      assertEquals(ReplicaState.of(promoted, 3), ReplicaState.of(masterPort, 3));
    } finally {
      for (ChildServer server : servers) {
        server.close();
      }
    }
  }
}
