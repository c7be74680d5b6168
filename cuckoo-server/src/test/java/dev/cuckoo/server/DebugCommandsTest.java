package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** DEBUG's subcommands with Redis's replies, refused unless enable-debug-command allows them. */
class DebugCommandsTest {
  private static final Simple OK = new Simple("OK");
  private static final String ZEROS = "0".repeat(40);

  private static CuckooServer debugServer() throws IOException {
    return CuckooServer.start(TestServers.memoryOnly().enableDebugCommand(true).build());
  }

  @Test
  void debug_notEnabled_refusedWithRedisText() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      Object reply = client.call("DEBUG", "SLEEP", "0");
      assertInstanceOf(Err.class, reply);
      assertTrue(
          ((Err) reply).text().startsWith("ERR DEBUG command not allowed."), reply.toString());
    }
  }

  @Test
  void debug_helpSleepLogErrorAndUnknown_answerAsRedis() throws IOException {
    try (CuckooServer server = debugServer();
        RespClient client = new RespClient(server.port())) {
      List<?> help = (List<?>) client.call("DEBUG", "HELP");
      assertEquals(
          new Simple("DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
          help.get(0));
      assertTrue(help.contains(new Simple("DIGEST-VALUE <key> [<key> ...]")), help.toString());
      assertEquals(new Simple("HELP"), help.get(help.size() - 2));
      long start = System.nanoTime();
      assertEquals(OK, client.call("DEBUG", "SLEEP", "0.2"));
      assertTrue(System.nanoTime() - start >= 190_000_000L, "slept less than 0.2 s");
      assertEquals(OK, client.call("DEBUG", "SLEEP", "0"));
      assertEquals(OK, client.call("DEBUG", "LOG", "a line"));
      assertEquals(
          new Err("WRONGTYPE made up"), client.call("DEBUG", "ERROR", "WRONGTYPE made up"));
      assertEquals(
          new Err("ERR unknown subcommand or wrong number of arguments for 'FOO'. Try DEBUG HELP."),
          client.call("DEBUG", "FOO"));
      assertEquals(
          new Err(
              "ERR unknown subcommand or wrong number of arguments for 'sleep'. Try DEBUG HELP."),
          client.call("DEBUG", "sleep"));
    }
  }

  @Test
  void debugObject_cfKey_redisFieldsAndNoSuchKey() throws IOException {
    try (CuckooServer server = debugServer();
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("CF.RESERVE", "f", "1000"));
      Object reply = client.call("DEBUG", "OBJECT", "f");
      assertInstanceOf(Simple.class, reply);
      assertTrue(
          Pattern.matches(
              "Value at:0x[0-9a-f]+ refcount:1 encoding:raw serializedlength:[1-9][0-9]* lru:\\d+"
                  + " lru_seconds_idle:\\d+",
              ((Simple) reply).text()),
          reply.toString());
      assertEquals(new Err("ERR no such key"), client.call("DEBUG", "OBJECT", "missing"));
    }
  }

  @Test
  void debugDigest_followsContentNamesDatabasesAndExpiry() throws IOException {
    try (CuckooServer one = debugServer();
        CuckooServer two = debugServer();
        RespClient a = new RespClient(one.port());
        RespClient b = new RespClient(two.port())) {
      assertEquals(new Simple(ZEROS), a.call("DEBUG", "DIGEST"));
      for (RespClient client : List.of(a, b)) {
        assertEquals(1L, client.call("CF.ADD", "f", "x"));
        assertEquals(1L, client.call("CF.ADD", "g", "y"));
      }
      Object digest = a.call("DEBUG", "DIGEST");
      assertEquals(digest, b.call("DEBUG", "DIGEST"), "same data, same digest");
      assertTrue(((Simple) digest).text().matches("[0-9a-f]{40}"), digest.toString());
      assertNotEquals(new Simple(ZEROS), digest);
      assertEquals(1L, b.call("CF.ADD", "f", "z"));
      assertNotEquals(digest, b.call("DEBUG", "DIGEST"), "content differs");
      assertEquals(1L, b.call("CF.DEL", "f", "z"));
      assertEquals(1L, a.call("CF.ADD", "f", "z"));
      assertEquals(1L, a.call("CF.DEL", "f", "z"));
      digest = a.call("DEBUG", "DIGEST");
      assertEquals(digest, b.call("DEBUG", "DIGEST"), "the same writes again");
      assertEquals(1L, b.call("EXPIRE", "g", "1000"));
      assertNotEquals(digest, b.call("DEBUG", "DIGEST"), "an expiry counts");
      assertEquals(1L, b.call("PERSIST", "g"));
      assertEquals(1L, b.call("MOVE", "g", "1"));
      assertNotEquals(digest, b.call("DEBUG", "DIGEST"), "the database counts");

      List<?> values = (List<?>) a.call("DEBUG", "DIGEST-VALUE", "f", "missing", "g");
      assertEquals(3, values.size());
      assertEquals(new Simple(ZEROS), values.get(1));
      assertNotEquals(values.get(0), values.get(2));
      assertEquals(List.of(), a.call("DEBUG", "DIGEST-VALUE"));
    }
  }

  @Test
  void debugSetActiveExpire_off_keysExpireOnlyWhenReached() throws Exception {
    try (CuckooServer server = debugServer();
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
      assertEquals(1L, client.call("CF.ADD", "f", "x"));
      assertEquals(1L, client.call("PEXPIRE", "f", "20"));
      Thread.sleep(400);
      assertEquals(1L, client.call("DBSIZE"), "not expired in the background");
      assertEquals(0L, client.call("EXISTS", "f"));
      assertEquals(1L, client.call("CF.ADD", "g", "x"));
      assertEquals(1L, client.call("PEXPIRE", "g", "20"));
      assertEquals(OK, client.call("DEBUG", "SET-ACTIVE-EXPIRE", "1"));
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (!Long.valueOf(0).equals(client.call("DBSIZE")) && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertEquals(0L, client.call("DBSIZE"), "expired in the background again");
    }
  }

  @Test
  void debugProtocol_everyTypeInResp3AndResp2() throws IOException {
    try (CuckooServer server = debugServer();
        RespClient client = new RespClient(server.port())) {
      assertEquals("Hello World", RespClient.text(client.call("DEBUG", "PROTOCOL", "string")));
      assertEquals("3.141", RespClient.text(client.call("DEBUG", "PROTOCOL", "double")));
      assertEquals(
          new Err("ERR RESP2 is not supported by this command"),
          client.call("DEBUG", "PROTOCOL", "push"));
      assertEquals(
          "Some real reply following the attribute",
          RespClient.text(client.call("DEBUG", "PROTOCOL", "attrib")));
      assertInstanceOf(Map.class, client.call("HELLO", "3"));
      assertEquals(12345L, client.call("DEBUG", "PROTOCOL", "integer"));
      assertEquals(3.141, client.call("DEBUG", "PROTOCOL", "double"));
      assertEquals(
          new BigInteger("1234567999999999999999999999999999999"),
          client.call("DEBUG", "PROTOCOL", "bignum"));
      assertEquals(null, client.call("DEBUG", "PROTOCOL", "null"));
      assertEquals(List.of(0L, 1L, 2L), client.call("DEBUG", "PROTOCOL", "array"));
      assertEquals(Set.of(0L, 1L, 2L), client.call("DEBUG", "PROTOCOL", "set"));
      assertEquals(Map.of(0L, false, 1L, true, 2L, false), client.call("DEBUG", "PROTOCOL", "map"));
      RespClient.Attributed attributed =
          (RespClient.Attributed) client.call("DEBUG", "PROTOCOL", "attrib");
      assertEquals("Some real reply following the attribute", RespClient.text(attributed.reply()));
      assertTrue(attributed.attributes().containsKey("key-popularity"), attributed.toString());
      assertInstanceOf(RespClient.Push.class, client.call("DEBUG", "PROTOCOL", "push"));
      assertEquals("Some real reply following the push reply", RespClient.text(client.read()));
      assertEquals(true, client.call("DEBUG", "PROTOCOL", "true"));
      assertEquals(false, client.call("DEBUG", "PROTOCOL", "false"));
      assertEquals(
          "txt:This is a verbatim\nstring", // the format, a colon, then the text
          RespClient.text(client.call("DEBUG", "PROTOCOL", "verbatim")));
      Object wrong = client.call("DEBUG", "PROTOCOL", "nope");
      assertTrue(
          ((Err) wrong).text().startsWith("ERR Wrong protocol type name."), wrong.toString());
    }
  }

  /* debug.c: changeReplicationId() then clearReplicationId2(). */
  @Test
  void debugChangeReplId_newIdAndNoSecondId() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer server =
            CuckooServer.start(
                TestServers.memoryOnly()
                    .enableDebugCommand(true)
                    .set("replicaof", "127.0.0.1 " + master.port())
                    .build());
        RespClient client = new RespClient(server.port())) {
      ReplicaState.awaitInSync(master.port(), server.port(), 10_000);
      assertEquals(OK, client.call("REPLICAOF", "NO", "ONE"));
      String before = client.infoField("master_replid");
      // promoted: the master's id is kept as the second one
      assertNotEquals(ZEROS, client.infoField("master_replid2"));
      assertEquals(OK, client.call("DEBUG", "CHANGE-REPL-ID"));
      String after = client.infoField("master_replid");
      assertTrue(Pattern.matches("[0-9a-f]{40}", after), after);
      assertNotEquals(before, after);
      assertEquals(ZEROS, client.infoField("master_replid2"));
      assertEquals("-1", client.infoField("second_repl_offset"));
      assertEquals(
          new Err(
              "ERR unknown subcommand or wrong number of arguments for 'CHANGE-REPL-ID'. Try"
                  + " DEBUG HELP."),
          client.call("DEBUG", "CHANGE-REPL-ID", "x"));
    }
  }
}
