package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * CLIENT UNBLOCK client-id [TIMEOUT|ERROR] as Redis's clientCommand, for the commands that block
 * here (WAIT, WAITAOF): TIMEOUT answers the wait as its timeout would, ERROR with Redis's
 * -UNBLOCKED error (the connection stays open); 1 if it unblocked a client, 0 otherwise.
 */
class ClientUnblockTest {
  @Test
  void timeout_answersWaitAsItsTimeoutWould() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient waiter = new RespClient(server.port())) {
      long id = (Long) waiter.call("CLIENT", "ID");
      // no replica: without a limit this WAIT would never end
      waiter.send("WAIT", "1", "0");
      BlockedClientsTest.awaitBlockedClients(admin, "1");
      assertEquals(1L, admin.call("CLIENT", "UNBLOCK", String.valueOf(id)));
      assertEquals(0L, waiter.read());
      BlockedClientsTest.awaitBlockedClients(admin, "0");
      assertEquals(0L, admin.call("CLIENT", "UNBLOCK", String.valueOf(id), "TIMEOUT"));
      waiter.send("WAITAOF", "0", "1", "0");
      BlockedClientsTest.awaitBlockedClients(admin, "1");
      assertEquals(1L, admin.call("CLIENT", "UNBLOCK", String.valueOf(id), "timeout"));
      assertEquals(List.of(0L, 0L), waiter.read());
    }
  }

  @Test
  void error_answersUnblockedError_connectionStays() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient waiter = new RespClient(server.port())) {
      long id = (Long) waiter.call("CLIENT", "ID");
      waiter.send("WAIT", "1", "60000");
      BlockedClientsTest.awaitBlockedClients(admin, "1");
      assertEquals(1L, admin.call("CLIENT", "UNBLOCK", String.valueOf(id), "ERROR"));
      assertEquals(new Err("UNBLOCKED client unblocked via CLIENT UNBLOCK"), waiter.read());
      assertEquals(new Simple("PONG"), waiter.call("PING"));
      assertEquals("0", admin.infoField("blocked_clients"));
      assertEquals("0", admin.infoField("clients_in_timeout_table"));
    }
  }

  @Test
  void notBlockedOrUnknownClient_zero_badArguments_redisErrors() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient idle = new RespClient(server.port())) {
      long id = (Long) idle.call("CLIENT", "ID");
      assertEquals(0L, admin.call("CLIENT", "UNBLOCK", String.valueOf(id)));
      assertEquals(0L, admin.call("CLIENT", "UNBLOCK", "999999999", "ERROR"));
      assertEquals(
          new Err("ERR value is not an integer or out of range"),
          admin.call("CLIENT", "UNBLOCK", "abc"));
      assertEquals(
          new Err("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"),
          admin.call("CLIENT", "UNBLOCK", "abc", "FOO"));
      assertEquals(
          new Err(
              "ERR unknown subcommand or wrong number of arguments for 'UNBLOCK'. Try CLIENT"
                  + " HELP."),
          admin.call("CLIENT", "UNBLOCK", "1", "ERROR", "x"));
    }
  }
}
