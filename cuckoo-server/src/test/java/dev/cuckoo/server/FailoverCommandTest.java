package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * FAILOVER, Redis 6.2's coordinated failover between a master and its replica: the errors and their
 * order as replication.c's failoverCommand, the hand-over with nothing lost (the old master
 * continues as the new one's replica with +CONTINUE), writes held back while the master waits, and
 * ABORT or a timeout giving the master back.
 */
class FailoverCommandTest {
  private static CuckooServer replicaOf(int port) throws IOException {
    return CuckooServer.start(
        TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + port).build());
  }

  private static final RespClient.Simple OK = new RespClient.Simple("OK");

  private static String error(Object reply) {
    return assertInstanceOf(RespClient.Err.class, reply, String.valueOf(reply)).text();
  }

  @Test
  void failover_badRequests_answerRedisErrorsInItsOrder() throws Exception {
    try (CuckooServer master = TestServers.start();
        RespClient client = new RespClient(master.port())) {
      assertEquals("ERR syntax error", error(client.call("FAILOVER", "SOON")));
      assertEquals("ERR syntax error", error(client.call("FAILOVER", "FORCE", "FORCE")));
      assertEquals(
          "ERR FAILOVER timeout must be greater than 0",
          error(client.call("FAILOVER", "TIMEOUT", "0")));
      assertEquals(
          "ERR value is not an integer or out of range",
          error(client.call("FAILOVER", "TO", "127.0.0.1", "port")));
      assertEquals("ERR No failover in progress.", error(client.call("FAILOVER", "ABORT")));
      assertEquals("ERR FAILOVER requires connected replicas.", error(client.call("FAILOVER")));
      assertEquals("no-failover", ReplicaState.info(master.port(), "master_failover_state"));
      try (CuckooServer replica = replicaOf(master.port());
          RespClient onReplica = new RespClient(replica.port())) {
        ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
        assertEquals(
            "ERR FAILOVER with force option requires both a timeout and target HOST and IP.",
            error(client.call("FAILOVER", "FORCE", "TIMEOUT", "100")));
        assertEquals(
            "ERR FAILOVER target HOST and PORT is not a replica.",
            error(client.call("FAILOVER", "TO", "127.0.0.1", master.port())));
        assertEquals(
            "ERR FAILOVER is not valid when server is a replica.",
            error(onReplica.call("FAILOVER")));
        assertEquals(
            "ERR PSYNC FAILOVER replid must match my replid.",
            error(
                onReplica.call(
                    "PSYNC", "0123456789012345678901234567890123456789", "1", "FAILOVER")));
        assertEquals(
            "ERR PSYNC FAILOVER can't be sent to a master.",
            error(client.call("PSYNC", "?", "-1", "FAILOVER")));
        // none of them started anything
        assertEquals("no-failover", ReplicaState.info(master.port(), "master_failover_state"));
        assertEquals(1L, client.call("CF.ADD", "still", "writable"));
      }
    }
  }

  @Test
  void failover_toCaughtUpReplica_swapsRolesAndKeepsEveryWrite() throws Exception {
    try (CuckooServer first = TestServers.start();
        CuckooServer second = replicaOf(first.port());
        RespClient onFirst = new RespClient(first.port());
        RespClient onSecond = new RespClient(second.port())) {
      ReplicaState.fill(first.port(), "f", 50, 20);
      ReplicaState.awaitInSync(first.port(), second.port(), 10_000);
      ReplicaState.awaitOnline(first.port(), second.port(), 10_000);
      assertEquals(
          OK, (onFirst.call("FAILOVER", "TO", "127.0.0.1", second.port(), "TIMEOUT", 5000)));
      assertTrue(
          ReplicaState.await(
              () ->
                  "master".equals(ReplicaState.info(second.port(), "role"))
                      && "slave".equals(ReplicaState.info(first.port(), "role"))
                      && "up".equals(ReplicaState.info(first.port(), "master_link_status")),
              10_000),
          "roles swapped: first " + ReplicaState.info(first.port(), "role"));
      assertEquals("no-failover", ReplicaState.info(first.port(), "master_failover_state"));
      assertEquals(String.valueOf(second.port()), ReplicaState.info(first.port(), "master_port"));
      // the old master continued the new master's stream: no full copy
      assertEquals("1", ReplicaState.stat(second.port(), "sync_partial_ok"));
      assertEquals("0", ReplicaState.stat(second.port(), "sync_full"));
      assertEquals(ReplicaState.of(first.port(), 1), ReplicaState.of(second.port(), 1));
      assertEquals(1L, onSecond.call("CF.EXISTS", "f49", "i19"));
      // the new master takes writes and streams them to the old one
      assertEquals(1L, onSecond.call("CF.ADD", "after", "x"));
      ReplicaState.awaitInSync(second.port(), first.port(), 10_000);
      assertEquals(1L, onFirst.call("CF.EXISTS", "after", "x"));
      assertTrue(error(onFirst.call("CF.ADD", "after", "y")).startsWith("READONLY"));
    }
  }

  @Test
  void failover_replicaBehind_holdsWritesUntilAbortOrTimeout() throws Exception {
    try (CuckooServer master = TestServers.start();
        LinkProxy proxy = new LinkProxy(master.port());
        CuckooServer replica = replicaOf(proxy.port());
        RespClient admin = new RespClient(master.port());
        RespClient writer = new RespClient(master.port())) {
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      // the replica's link crawls: what the master writes now stays unacknowledged
      proxy.throttle(16);
      ReplicaState.fill(master.port(), "slow", 5, 50);
      assertEquals(OK, (admin.call("FAILOVER")));
      assertEquals("waiting-for-sync", ReplicaState.info(master.port(), "master_failover_state"));
      assertEquals(
          "ERR FAILOVER already in progress.", error(admin.call("FAILOVER", "TIMEOUT", "10")));
      assertEquals(
          "ERR REPLICAOF not allowed while failing over.",
          error(admin.call("REPLICAOF", "127.0.0.1", "1")));
      // a write waits, unanswered, while reads go on
      writer.send("CF.ADD", "held", "x");
      assertThrows(
          SocketTimeoutException.class,
          () -> writer.readWithin(Duration.ofMillis(300)),
          "a write ran during the failover");
      assertEquals(0L, admin.call("CF.EXISTS", "held", "x"));
      // CLIENT UNPAUSE does not end the failover's hold
      assertEquals(OK, (admin.call("CLIENT", "UNPAUSE")));
      assertThrows(
          SocketTimeoutException.class,
          () -> writer.readWithin(Duration.ofMillis(200)),
          "CLIENT UNPAUSE released the write");
      assertEquals(OK, (admin.call("FAILOVER", "ABORT")));
      assertEquals(1L, writer.readWithin(Duration.ofSeconds(5)));
      assertEquals("no-failover", ReplicaState.info(master.port(), "master_failover_state"));
      assertEquals("master", ReplicaState.info(master.port(), "role"));

      // a timeout without FORCE gives up by itself, and the master stays a master
      assertEquals(OK, (admin.call("FAILOVER", "TIMEOUT", "300")));
      assertTrue(
          ReplicaState.await(
              () -> "no-failover".equals(ReplicaState.info(master.port(), "master_failover_state")),
              5_000),
          "the failover did not time out");
      assertEquals("master", ReplicaState.info(master.port(), "role"));
      assertEquals(1L, admin.call("CF.ADD", "held", "y"));
      assertEquals(List.of(1L, 1L), admin.call("CF.MEXISTS", "held", "x", "y"));
    }
  }

  @Test
  void failover_inClusterMode_pointsToClusterFailover() throws Exception {
    try (CuckooServer node =
            CuckooServer.start(
                TestServers.memoryOnly()
                    .dir(TestServers.freshDataDir())
                    .clusterEnabled(true)
                    .clusterPort(SentinelCluster.freePort())
                    .build());
        RespClient client = new RespClient(node.port())) {
      assertEquals(
          "ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.",
          error(client.call("FAILOVER")));
    }
  }
}
