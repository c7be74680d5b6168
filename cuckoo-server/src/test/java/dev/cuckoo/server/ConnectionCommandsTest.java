package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Connection and keyspace commands, authentication, limits and malformed input over TCP. */
@ExtendWith(LeakCheck.class)
class ConnectionCommandsTest {
  private static final Simple OK = new Simple("OK");

  @Test
  void connectionCommands_answerLikeRedis() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(new Simple("PONG"), client.call("PING"));
      assertEquals("hi", RespClient.text(client.call("PING", "hi")));
      assertEquals("x y", RespClient.text(client.call("ECHO", "x y")));
      assertEquals(OK, client.call("SELECT", "0"));
      assertEquals(OK, client.call("SELECT", "15"));
      assertEquals(new Err("ERR DB index is out of range"), client.call("SELECT", "16"));
      assertEquals(new Err("ERR DB index is out of range"), client.call("SELECT", "-1"));
      assertEquals(OK, client.call("SELECT", "0"));
      assertEquals(
          new Err("ERR value is not an integer or out of range"), client.call("SELECT", "x"));
      assertEquals(OK, client.call("CLIENT", "SETINFO", "LIB-NAME", "test"));
      assertEquals(OK, client.call("CLIENT", "SETINFO", "lib-ver", "1.0"));
      assertEquals(
          new Err("ERR Unrecognized option 'foo'"), client.call("CLIENT", "SETINFO", "foo", "x"));
      assertEquals(null, client.call("CLIENT", "GETNAME"));
      assertEquals(OK, client.call("CLIENT", "SETNAME", "me"));
      assertEquals("me", RespClient.text(client.call("CLIENT", "GETNAME")));
      assertEquals(
          new Err("ERR Client names cannot contain spaces, newlines or special" + " characters."),
          client.call("CLIENT", "SETNAME", "a b"));
      assertEquals(
          new Err("ERR unknown subcommand 'nope'. Try CLIENT HELP."),
          client.call("CLIENT", "nope"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'client|setname' command"),
          client.call("CLIENT", "SETNAME"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'client' command"), client.call("CLIENT"));
      assertEquals(
          new Err("ERR unknown command 'GET', with args beginning with: 'k' "),
          client.call("GET", "k"));
      assertEquals(
          new Err("ERR unknown command 'nosuch', with args beginning with: "),
          client.call("nosuch"));
      assertEquals(new Err("NOPROTO unsupported protocol version"), client.call("HELLO", "4"));
      assertEquals(
          new Err("ERR Protocol version is not an integer or out of range"),
          client.call("HELLO", "x"));
      List<?> hello2 = (List<?>) client.call("HELLO", "2", "SETNAME", "viahello");
      assertEquals("proto", RespClient.text(hello2.get(4)));
      assertEquals(2L, hello2.get(5));
      assertEquals("viahello", RespClient.text(client.call("CLIENT", "GETNAME")));
      Map<?, ?> hello3 = (Map<?, ?>) client.call("HELLO", "3");
      assertEquals(3L, hello3.get("proto"));
      assertEquals(Boolean.TRUE, client.call("CF.ADD", "k", "v"));
      assertEquals(
          new Err(
              "ERR AUTH <password> called without any password configured for"
                  + " the default user. Are you sure your configuration is correct?"),
          client.call("AUTH", "pw"));
      assertEquals(OK, client.call("QUIT"));
      assertTrue(client.closedByServer());
    }
  }

  @Test
  void keyspaceCommands_typeDelExistsKeysScanFlush() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      for (int i = 0; i < 250; i++) {
        assertEquals(1L, client.call("CF.ADD", "key:" + i, "x"));
      }
      assertEquals(250L, client.call("DBSIZE"));
      assertEquals(new Simple("MBbloomCF"), client.call("TYPE", "key:1"));
      assertEquals(new Simple("none"), client.call("TYPE", "nokey"));
      assertEquals(3L, client.call("EXISTS", "key:1", "key:1", "key:2", "nokey"));
      assertEquals(2L, client.call("DEL", "key:1", "key:2", "nokey"));
      assertEquals(10, ((List<?>) client.call("KEYS", "key:1?")).size());
      assertEquals(248, ((List<?>) client.call("KEYS", "*")).size());
      Set<String> seen = new HashSet<>();
      String cursor = "0";
      do {
        List<?> page = (List<?>) client.call("SCAN", cursor, "COUNT", "17");
        cursor = RespClient.text(page.get(0));
        for (Object key : (List<?>) page.get(1)) {
          assertTrue(seen.add(RespClient.text(key)), "returned twice: " + RespClient.text(key));
        }
      } while (!cursor.equals("0"));
      assertEquals(248, seen.size());
      List<?> matched = (List<?>) client.call("SCAN", "0", "MATCH", "key:3", "COUNT", "1000");
      assertEquals(List.of("key:3"), texts((List<?>) matched.get(1)));
      assertEquals(new Err("ERR invalid cursor"), client.call("SCAN", "x"));
      assertEquals(new Err("ERR syntax error"), client.call("SCAN", "0", "FOO", "1"));
      assertEquals(OK, client.call("FLUSHDB"));
      assertEquals(0L, client.call("DBSIZE"));
      assertInstanceOf(Long.class, client.call("LASTSAVE"));
      String info = RespClient.text(client.call("INFO", "server"));
      assertTrue(info.contains("redis_version:8.2.0"), info);
      assertTrue(((Long) client.call("COMMAND", "COUNT")) > 30);
      List<?> docs = (List<?>) client.call("COMMAND", "DOCS", "cf.reserve");
      assertEquals("cf.reserve", RespClient.text(docs.get(0)));
      List<?> infoReply = (List<?>) client.call("COMMAND", "INFO", "cf.add", "nosuch");
      assertEquals(3L, ((List<?>) infoReply.get(0)).get(1));
      assertEquals(null, infoReply.get(1));
    }
  }

  private static List<String> texts(List<?> replies) {
    List<String> out = new ArrayList<>();
    for (Object reply : replies) {
      out.add(RespClient.text(reply));
    }
    return out;
  }

  @Test
  void requirePass_everyCommandNeedsAuth_wrongPassword() throws IOException {
    try (CuckooServer server =
            CuckooServer.start(TestServers.memoryOnly().requirePass("s3cret").build());
        RespClient client = new RespClient(server.port())) {
      assertEquals(new Err("NOAUTH Authentication required."), client.call("CF.ADD", "k", "v"));
      assertEquals(new Err("NOAUTH Authentication required."), client.call("PING"));
      assertEquals(
          new Err("ERR unknown command 'nosuch', with args beginning with: "),
          client.call("nosuch"));
      assertTrue(((Err) client.call("HELLO", "3")).text().startsWith("NOAUTH HELLO must be"));
      assertEquals(
          new Err("WRONGPASS invalid username-password pair or user is disabled."),
          client.call("AUTH", "wrong"));
      assertEquals(
          new Err("WRONGPASS invalid username-password pair or user is disabled."),
          client.call("AUTH", "other", "s3cret"));
      assertEquals(OK, client.call("AUTH", "s3cret"));
      assertEquals(1L, client.call("CF.ADD", "k", "v"));
      try (RespClient second = new RespClient(server.port())) {
        Map<?, ?> hello = (Map<?, ?>) second.call("HELLO", "3", "AUTH", "default", "s3cret");
        assertEquals(3L, hello.get("proto"));
        assertEquals(Boolean.TRUE, second.call("CF.EXISTS", "k", "v"));
      }
    }
  }

  @Test
  void malformedFrames_errorAndClose_serverKeepsServing() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient healthy = new RespClient(server.port())) {
      String[] bad = {
        "*-5\r\n*1\r\n$-7\r\n",
        "*2147483648\r\n",
        "*1\r\n$4294967296\r\n",
        "*1\r\n+OK\r\n",
        "\"unbalanced\r\n",
        "*2\r\n$1\r\na\r\n$garbage\r\n"
      };
      for (String frame : bad) {
        try (RespClient client = new RespClient(server.port())) {
          client.sendRaw(frame.getBytes(StandardCharsets.ISO_8859_1));
          Object reply = client.read();
          assertTrue(
              reply instanceof Err && ((Err) reply).text().startsWith("ERR Protocol error"),
              frame + " -> " + reply);
          assertTrue(client.closedByServer(), frame);
        }
        assertEquals(new Simple("PONG"), healthy.call("PING"));
      }
      try (RespClient client = new RespClient(server.port())) {
        client.sendRaw(
            "*3\r\n$6\r\nCF.ADD\r\n$1\r\nk\r\n$100\r\nhalf".getBytes(StandardCharsets.ISO_8859_1));
      }
      try (RespClient client = new RespClient(server.port())) {
        client.sendRaw("*1000000\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.ISO_8859_1));
      }
      assertEquals(0L, healthy.call("EXISTS", "k"));
      assertEquals(new Simple("PONG"), healthy.call("PING"));
    }
  }

  @Test
  void largeRequest_chunkOf36MiB_accepted() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("CF.RESERVE", "cf", "1024"));
      byte[] big = new byte[36 * 1024 * 1024];
      assertEquals(big.length, ((byte[]) client.call("ECHO", big)).length);
      assertEquals(new Err("Couldn't load chunk!"), client.call("CF.LOADCHUNK", "cf", "3", big));
    }
  }

  /** RedisBloom's test_counter_overflow_with_large_number_of_items: 65535 sub-filters. */
  @Test
  @org.junit.jupiter.api.Tag("slow")
  void largeRequest_insertOf140000Copies_reachesSubFilterCap() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("CF.RESERVE", "cf", "2", "BUCKETSIZE", "1", "EXPANSION", "1"));
      Object[] args = new Object[3 + 140_000];
      args[0] = "CF.INSERT";
      args[1] = "cf";
      args[2] = "ITEMS";
      for (int i = 3; i < args.length; i++) {
        args[i] = "1";
      }
      client.send(args);
      List<?> results = (List<?>) client.readWithin(java.time.Duration.ofMinutes(30));
      assertEquals(140_000, results.size());
      assertEquals(
          131_070,
          results.stream().filter(r -> r.equals(1L)).count(),
          "RedisBloom stops at 65535 sub-filters of 2 slots");
      assertEquals(140_000 - 131_070, results.stream().filter(r -> r.equals(-1L)).count());
    }
  }

  @Test
  void pipelining_repliesInRequestOrder() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      StringBuilder batch = new StringBuilder();
      for (int i = 0; i < 2000; i++) {
        batch.append(
            new String(RespClient.encode("CF.ADD", "p", "item" + i), StandardCharsets.ISO_8859_1));
        batch.append(new String(RespClient.encode("ECHO", "n" + i), StandardCharsets.ISO_8859_1));
      }
      client.sendRaw(batch.toString().getBytes(StandardCharsets.ISO_8859_1));
      for (int i = 0; i < 2000; i++) {
        assertEquals(1L, client.read(), "request " + i);
        assertEquals("n" + i, RespClient.text(client.read()));
      }
    }
  }

  @Test
  void idleTimeout_closesSilentClientOnly() throws Exception {
    try (CuckooServer server =
            CuckooServer.start(TestServers.memoryOnly().timeoutSeconds(1).build());
        RespClient idle = new RespClient(server.port());
        RespClient busy = new RespClient(server.port())) {
      assertEquals(new Simple("PONG"), idle.call("PING"));
      for (int i = 0; i < 8; i++) {
        Thread.sleep(250);
        assertEquals(new Simple("PONG"), busy.call("PING"));
      }
      assertTrue(idle.closedByServer());
      assertEquals(new Simple("PONG"), busy.call("PING"));
    }
  }

  @Test
  void maxClients_extraConnectionRefusedWithError() throws IOException {
    try (CuckooServer server = CuckooServer.start(TestServers.memoryOnly().maxClients(1).build());
        RespClient first = new RespClient(server.port())) {
      assertEquals(new Simple("PONG"), first.call("PING"));
      try (RespClient second = new RespClient(server.port())) {
        assertEquals(new Err("ERR max number of clients reached"), second.read());
        assertTrue(second.closedByServer());
      }
      assertEquals(new Simple("PONG"), first.call("PING"));
    }
  }
}
