package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Clients blocked as Redis counts them (blocked.c blockClient): a WAIT that has not been answered
 * and a command CLIENT PAUSE holds back (Redis's BLOCKED_POSTPONE counts too) are in INFO's
 * blocked_clients and carry the flag 'b' in CLIENT LIST until they are answered or disconnect.
 */
class BlockedClientsTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  /** Starts a replica of {@code master}. */
  private static CuckooServer replicaOf(CuckooServer master) throws IOException {
    return CuckooServer.start(
        TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + master.port()).build());
  }

  @Test
  void waitUnsatisfied_countedAndFlaggedB_untilItAnswers() throws Exception {
    try (CuckooServer server = TestServers.start();
        CuckooServer replica = replicaOf(server);
        RespClient admin = new RespClient(server.port());
        RespClient waiter = new RespClient(server.port())) {
      ReplicaState.awaitInSync(server.port(), replica.port(), 10_000);
      assertEquals(1L, waiter.call("CF.ADD", "k", "a"));
      assertEquals("0", admin.infoField("blocked_clients"));
      // the one replica acknowledges, the second never comes
      assertBlockedUntilAnswered(admin, waiter, 1L, "WAIT", "2", "1500");
    }
  }

  /*
   * replication.c waitCommand counts the replicas that acknowledged the client's last write (offset
   * 0 for a client that wrote nothing: every attached replica) and blocks when there are too few,
   * whatever the offset.
   */
  @Test
  void waitWithoutWritesOrReplicas_blocksUntilItsTimeoutAndAnswersZero() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient waiter = new RespClient(server.port())) {
      long began = System.nanoTime();
      assertBlockedUntilAnswered(admin, waiter, 0L, "WAIT", "1", "700");
      long waited = (System.nanoTime() - began) / 1_000_000;
      org.junit.jupiter.api.Assertions.assertTrue(
          waited >= 650, "answered after " + waited + " ms");
    }
  }

  @Test
  void waitAofUnsatisfied_countedAndFlaggedB_untilItAnswers() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient waiter = new RespClient(server.port())) {
      // no replica to report an fsync, and no log (appendonly no): Redis then answers 0 local
      assertBlockedUntilAnswered(
          admin, waiter, java.util.List.of(0L, 0L), "WAITAOF", "0", "1", "700");
    }
  }

  /* blocked.c disconnectAllBlockedClients, which replicationSetMaster calls. */
  @Test
  void waitBlocked_serverBecomesReplica_unblockedWithRedisErrorAndClosed() throws IOException {
    try (CuckooServer master = TestServers.start();
        CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient waiter = new RespClient(server.port());
        RespClient aofWaiter = new RespClient(server.port())) {
      waiter.send("WAIT", "1", "0");
      aofWaiter.send("WAITAOF", "0", "1", "0");
      awaitBlockedClients(admin, "2");
      assertEquals(
          new Simple("OK"), admin.call("REPLICAOF", "127.0.0.1", String.valueOf(master.port())));
      RespClient.Err unblocked =
          new RespClient.Err(
              "UNBLOCKED force unblock from blocking operation, instance state changed"
                  + " (master -> replica?)");
      assertEquals(unblocked, waiter.readWithin(PATIENCE));
      assertEquals(unblocked, aofWaiter.readWithin(PATIENCE));
      org.junit.jupiter.api.Assertions.assertTrue(
          waiter.closedByServer(), "closed after the reply");
      awaitBlockedClients(admin, "0");
    }
  }

  @Test
  void pauseWrite_heldWrite_countedAndFlaggedB_untilItRuns() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient writer = new RespClient(server.port())) {
      assertEquals(new Simple("OK"), admin.call("CLIENT", "PAUSE", "1500", "WRITE"));
      assertBlockedUntilAnswered(admin, writer, 1L, "CF.ADD", "k", "a");
    }
  }

  @Test
  void waitForever_clientDisconnects_noLongerCounted() throws Exception {
    try (CuckooServer server = TestServers.start();
        CuckooServer replica = replicaOf(server);
        RespClient admin = new RespClient(server.port())) {
      ReplicaState.awaitInSync(server.port(), replica.port(), 10_000);
      RespClient waiter = new RespClient(server.port());
      assertEquals(1L, waiter.call("CF.ADD", "k", "a"));
      waiter.send("WAIT", "2", "0");
      awaitBlockedClients(admin, "1");
      waiter.close();
      awaitBlockedClients(admin, "0");
    }
  }

  @Test
  void waitInsideMulti_answersAtOnce_neverCounted() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient client = new RespClient(server.port())) {
      assertEquals(new Simple("OK"), client.call("MULTI"));
      assertEquals(new Simple("QUEUED"), client.call("CF.ADD", "k", "a"));
      assertEquals(new Simple("QUEUED"), client.call("WAIT", "1", "0"));
      assertEquals(java.util.List.of(1L, 0L), client.call("EXEC"));
      assertEquals("0", admin.infoField("blocked_clients"));
    }
  }

  /**
   * Sends {@code command} from {@code client} and checks that it blocks: counted in INFO and
   * flagged 'b' in CLIENT LIST until it answers {@code answer}, then neither.
   */
  private static void assertBlockedUntilAnswered(
      RespClient admin, RespClient client, Object answer, Object... command) throws IOException {
    long id = (Long) client.call("CLIENT", "ID");
    client.send(command);
    awaitBlockedClients(admin, "1");
    assertEquals("b", flagsOf(admin, id));
    assertEquals(answer, client.readWithin(PATIENCE));
    assertEquals("0", admin.infoField("blocked_clients"));
    assertEquals("N", flagsOf(admin, id));
  }

  /** Polls INFO until blocked_clients reads {@code expected}, failing after {@link #PATIENCE}. */
  static void awaitBlockedClients(RespClient admin, String expected) throws IOException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    String actual = admin.infoField("blocked_clients");
    while (!actual.equals(expected) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
      actual = admin.infoField("blocked_clients");
    }
    assertEquals(expected, actual, "blocked_clients");
  }

  /** Returns the flags CLIENT LIST shows for the connection with this id. */
  private static String flagsOf(RespClient admin, long id) throws IOException {
    for (String line : RespClient.text(admin.call("CLIENT", "LIST", "ID", id)).split("\n")) {
      for (String field : line.split(" ")) {
        if (field.startsWith("flags=")) {
          return field.substring("flags=".length());
        }
      }
    }
    throw new AssertionError("no CLIENT LIST line for id " + id);
  }
}
