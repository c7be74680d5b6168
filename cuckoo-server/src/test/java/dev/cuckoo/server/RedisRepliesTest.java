package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Replies around the CF.* commands that differed from Redis 8's, each pinned to what Redis's source
 * answers (the file and function are named where the behaviour is not obvious).
 */
class RedisRepliesTest {
  private static final Simple OK = new Simple("OK");
  private static final Simple QUEUED = new Simple("QUEUED");

  /*
   * Redis (server.c processCommand) checks arity before running anything and refuses through
   * rejectCommand, which for EXEC calls execCommandAbort (multi.c): the transaction is discarded
   * (if there is one) and the reply is "-EXECABORT Transaction discarded because of: <reason>",
   * outside MULTI too. NOAUTH is refused the same way.
   */
  @Test
  void exec_wrongArity_answersExecAbortAndDiscardsTheTransaction() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      Err abort =
          new Err(
              "EXECABORT Transaction discarded because of: wrong number of arguments for 'exec'"
                  + " command");
      assertEquals(abort, client.call("EXEC", "x"), "outside MULTI");

      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("CF.ADD", "k", "a"));
      assertEquals(abort, client.call("EXEC", "x"), "inside MULTI");
      assertEquals(new Err("ERR EXEC without MULTI"), client.call("EXEC"), "MULTI was discarded");
      assertEquals(0L, client.call("EXISTS", "k"), "nothing queued ran");
      assertEquals(OK, client.call("MULTI"), "a new transaction can start");
      assertEquals(List.of(), client.call("EXEC"));
    }
  }

  @Test
  void exec_beforeAuth_answersExecAbortWithNoAuth() throws IOException {
    try (CuckooServer server =
            CuckooServer.start(TestServers.memoryOnly().requirePass("s3cret").build());
        RespClient client = new RespClient(server.port())) {
      assertEquals(
          new Err("EXECABORT Transaction discarded because of: NOAUTH Authentication required."),
          client.call("EXEC"));
      assertEquals(new Err("NOAUTH Authentication required."), client.call("MULTI"));
    }
  }
}
