package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * CLIENT PAUSE and UNPAUSE as Redis's: held commands get no answer until the pause ends, then run;
 * WRITE mode holds only what may change data; expired keys are not deleted meanwhile.
 */
class ClientPauseTest {
  private static final Simple OK = new Simple("OK");

  @Test
  void pauseWrite_writesWaitReadsRun_thenTheWritesRunWhenItEnds() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient writer = new RespClient(server.port());
        RespClient reader = new RespClient(server.port())) {
      assertEquals(1L, writer.call("CF.ADD", "k", "before"));
      long start = System.nanoTime();
      assertEquals(OK, admin.call("CLIENT", "PAUSE", "1500", "WRITE"));
      writer.send("CF.ADD", "k", "during");
      assertNoReplyWithin(writer, Duration.ofMillis(400));
      // reads run; the held write has not run
      assertEquals(List.of(1L, 0L), reader.call("CF.MEXISTS", "k", "before", "during"));
      // a write queued in MULTI is held too, as Redis holds it before queueing
      assertEquals(OK, reader.call("MULTI"));
      reader.send("CF.ADD", "k", "queued");
      assertEquals(1L, writer.readWithin(Duration.ofSeconds(10)));
      long heldMillis = (System.nanoTime() - start) / 1_000_000;
      assertTrue(heldMillis >= 1400, "answered after " + heldMillis + " ms");
      assertEquals(new Simple("QUEUED"), reader.read());
      assertEquals(List.of(1L), reader.call("EXEC"));
      assertEquals(
          List.of(1L, 1L, 1L), reader.call("CF.MEXISTS", "k", "before", "during", "queued"));
    }
  }

  @Test
  void pauseAll_holdsEveryClientCommand_untilItEnds() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient reader = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      long start = System.nanoTime();
      assertEquals(OK, admin.call("CLIENT", "PAUSE", "1500"));
      reader.send("PING", "held");
      assertNoReplyWithin(reader, Duration.ofMillis(300));
      // under ALL even UNPAUSE waits, as Redis holds every client command
      other.send("CLIENT", "UNPAUSE");
      assertNoReplyWithin(other, Duration.ofMillis(200));
      assertEquals("held", RespClient.text(reader.readWithin(Duration.ofSeconds(10))));
      assertTrue((System.nanoTime() - start) / 1_000_000 >= 1400);
      assertEquals(OK, other.readWithin(Duration.ofSeconds(5)));
    }
  }

  @Test
  void unpause_releasesHeldWritesAtOnce() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient writer = new RespClient(server.port())) {
      assertEquals(OK, admin.call("CLIENT", "PAUSE", "60000", "WRITE"));
      writer.send("CF.ADD", "k", "x");
      assertNoReplyWithin(writer, Duration.ofMillis(300));
      long start = System.nanoTime();
      assertEquals(OK, admin.call("CLIENT", "UNPAUSE"));
      assertEquals(1L, writer.readWithin(Duration.ofSeconds(10)));
      assertTrue((System.nanoTime() - start) / 1_000_000 < 5_000);
    }
  }

  @Test
  void pause_expiredKeyLooksGoneButIsDeletedOnlyAfter() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient client = new RespClient(server.port())) {
      assertEquals(1L, client.call("CF.ADD", "short", "x"));
      assertEquals(1L, client.call("PEXPIRE", "short", "200"));
      assertEquals(OK, admin.call("CLIENT", "PAUSE", "60000", "WRITE"));
      Thread.sleep(700);
      assertEquals(0L, client.call("EXISTS", "short"));
      // neither the expiry cycle nor the lookup deleted it: a deletion is a write
      assertEquals(1L, client.call("DBSIZE"));
      assertTrue(client.infoField("expired_keys").equals("0"));
      assertEquals(OK, admin.call("CLIENT", "UNPAUSE"));
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (!client.call("DBSIZE").equals(0L) && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertEquals(0L, client.call("DBSIZE"));
      assertEquals("1", client.infoField("expired_keys"));
    }
  }

  /**
   * As Redis's PAUSE_ACTION_REPLICA: during a pause the master sends its replicas no PING, so its
   * offset stands still and a replica can catch up to it exactly (a manual switchover).
   */
  @Test
  void pause_masterOffsetStandsStill_pingsResumeAfter() throws Exception {
    try (CuckooServer master =
            CuckooServer.start(
                TestServers.memoryOnly().set("repl-ping-replica-period", "1").build());
        CuckooServer replica =
            CuckooServer.start(
                TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + master.port()).build());
        RespClient admin = new RespClient(master.port())) {
      assertEquals(1L, admin.call("CF.ADD", "k", "x"));
      ReplicaState.awaitInSync(master.port(), replica.port(), 20_000);
      assertEquals(OK, admin.call("CLIENT", "PAUSE", "3000", "WRITE"));
      String paused = ReplicaState.info(master.port(), "master_repl_offset");
      Thread.sleep(2_200);
      // two ping periods passed: without the pause each would have moved the offset
      assertEquals(paused, ReplicaState.info(master.port(), "master_repl_offset"));
      assertTrue(
          ReplicaState.await(
              () ->
                  Long.parseLong(ReplicaState.info(master.port(), "master_repl_offset"))
                      > Long.parseLong(paused),
              10_000),
          "the master pings its replicas again after the pause");
    }
  }

  @Test
  void badArguments_answerAsRedis() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(
          new Err("ERR CLIENT PAUSE mode must be WRITE or ALL"),
          client.call("CLIENT", "PAUSE", "10", "READ"));
      assertEquals(
          new Err("ERR timeout is not an integer or out of range"),
          client.call("CLIENT", "PAUSE", "soon"));
      assertEquals(new Err("ERR timeout is negative"), client.call("CLIENT", "PAUSE", "-1"));
      assertEquals(
          new Err("ERR timeout is out of range"),
          client.call("CLIENT", "PAUSE", Long.toString(Long.MAX_VALUE)));
      assertEquals(
          new Err(
              "ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT HELP."),
          client.call("CLIENT", "PAUSE", "10", "WRITE", "x"));
      assertEquals(OK, client.call("CLIENT", "UNPAUSE"));
      assertEquals(new Simple("PONG"), client.call("PING"));
    }
  }

  private static void assertNoReplyWithin(RespClient client, Duration wait) throws IOException {
    try {
      Object reply = client.readWithin(wait);
      throw new AssertionError("answered while paused: " + reply);
    } catch (SocketTimeoutException expected) {
      // held, as it should be
    }
  }
}
