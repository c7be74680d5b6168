package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Real Redis Sentinels (Debian's redis-sentinel) fail a cuckoo-server master over to one of its
 * replicas: the other replica follows the promoted one without a full copy, and every write WAIT
 * confirmed on a replica is on the new master.
 */
class SentinelFailoverTest {
  private static final String MASTER = "mymaster";

  @Test
  void masterDies_sentinelsPromoteAReplica_waitConfirmedWritesKept() throws Exception {
    CuckooServer master = TestServers.start();
    try (CuckooServer first =
            CuckooServer.start(
                TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + master.port()).build());
        CuckooServer second =
            CuckooServer.start(
                TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + master.port()).build());
        SentinelCluster sentinels =
            SentinelCluster.start(3, MASTER, master.port(), 2, SentinelCluster.Timing.FAST)) {
      ReplicaState.awaitInSync(master.port(), first.port(), 10_000);
      ReplicaState.awaitInSync(master.port(), second.port(), 10_000);
      assertTrue(
          ReplicaState.await(() -> sentinels.replicas(0).size() == 2, 30_000),
          "the sentinels found both replicas");
      List<String> confirmed = new ArrayList<>();
      try (RespClient client = new RespClient(master.port())) {
        for (int i = 0; i < 200; i++) {
          client.call("CF.ADD", "k", "item" + i);
          if (Long.valueOf(1).compareTo((Long) client.call("WAIT", 1, 1000)) <= 0) {
            confirmed.add("item" + i);
          }
        }
      }
      assertEquals(200, confirmed.size());
      long killed = System.nanoTime();
      master.close();
      Set<String> replicaPorts =
          Set.of(Integer.toString(first.port()), Integer.toString(second.port()));
      assertTrue(
          ReplicaState.await(
              () -> {
                String address = sentinels.masterAddress(0);
                return address != null && replicaPorts.contains(address.split(":")[1]);
              },
              60_000),
          "failed over: " + sentinels.masterAddress(0));
      long failoverMillis = (System.nanoTime() - killed) / 1_000_000;
      int promoted = Integer.parseInt(sentinels.masterAddress(0).split(":")[1]);
      int other = promoted == first.port() ? second.port() : first.port();
      assertEquals("master", ReplicaState.info(promoted, "role"));
      assertTrue(
          ReplicaState.await(
              () ->
                  Integer.toString(promoted).equals(ReplicaState.info(other, "master_port"))
                      && "up".equals(ReplicaState.info(other, "master_link_status")),
              60_000),
          "the other replica follows the promoted one");
      try (RespClient client = new RespClient(promoted)) {
        for (String item : confirmed) {
          assertEquals(1L, client.call("CF.EXISTS", "k", item), item);
        }
        assertEquals(1L, client.call("CF.ADD", "k", "after"));
      }
      ReplicaState.awaitInSync(promoted, other, 10_000);
      assertEquals(ReplicaState.of(promoted, 1), ReplicaState.of(other, 1));
      // PSYNC2: the other replica continued from its offset under the old id, no full copy
      assertEquals("0", ReplicaState.stat(promoted, "sync_full"));
      assertEquals("1", ReplicaState.stat(promoted, "sync_partial_ok"));
      System.out.println(
          "SentinelFailoverTest: failover in "
              + failoverMillis
              + " ms, "
              + confirmed.size()
              + " WAIT-confirmed writes, 0 lost");
    } finally {
      master.close();
    }
  }
}
