package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** CLIENT LIST / INFO / KILL, NO-EVICT / NO-TOUCH and RESET over TCP, in RESP2 and RESP3. */
@ExtendWith(LeakCheck.class)
class ClientCommandsTest {
  private static final Simple OK = new Simple("OK");

  /**
   * Redis 8.2's catClientInfoString field order (redis.io CLIENT LIST, history up to 8.0, and
   * redis#13944's tot-net-in, tot-net-out, tot-cmds after io-thread).
   */
  private static final List<String> FIELDS =
      List.of(
          "id",
          "addr",
          "laddr",
          "fd",
          "name",
          "age",
          "idle",
          "flags",
          "db",
          "sub",
          "psub",
          "ssub",
          "multi",
          "watch",
          "qbuf",
          "qbuf-free",
          "argv-mem",
          "multi-mem",
          "rbs",
          "rbp",
          "obl",
          "oll",
          "omem",
          "tot-mem",
          "events",
          "cmd",
          "user",
          "redir",
          "resp",
          "lib-name",
          "lib-ver",
          "io-thread",
          "tot-net-in",
          "tot-net-out",
          "tot-cmds");

  /** Parses one CLIENT LIST line into its fields, in order. */
  private static Map<String, String> fields(String line) {
    Map<String, String> fields = new LinkedHashMap<>();
    for (String pair : line.split(" ")) {
      int eq = pair.indexOf('=');
      fields.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return fields;
  }

  /** Parses a CLIENT LIST reply (RESP2 bulk text) into one field map per line. */
  private static List<Map<String, String>> lines(Object reply) {
    String text = RespClient.text(reply);
    assertTrue(text.isEmpty() || text.endsWith("\n"), text);
    List<Map<String, String>> lines = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (!line.isEmpty()) {
        lines.add(fields(line));
      }
    }
    return lines;
  }

  private static Map<String, String> byId(List<Map<String, String>> lines, long id) {
    for (Map<String, String> line : lines) {
      if (line.get("id").equals(Long.toString(id))) {
        return line;
      }
    }
    return null;
  }

  @Test
  void clientList_twoConnections_showEachOnesCmdDbAndName() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient first = new RespClient(server.port());
        RespClient second = new RespClient(server.port())) {
      long firstId = (Long) first.call("CLIENT", "ID");
      long secondId = (Long) second.call("CLIENT", "ID");
      assertEquals(OK, first.call("CLIENT", "SETNAME", "alpha"));
      assertEquals(1L, first.call("CF.ADD", "k", "v"));
      assertEquals(OK, second.call("CLIENT", "SETINFO", "LIB-NAME", "tester"));
      List<Map<String, String>> lines = lines(second.call("CLIENT", "LIST"));
      assertEquals(2, lines.size());
      // in id order, as Redis lists server.clients (ids are given as connections become
      // active on their event loops, so the two sockets may get them in either order)
      assertEquals(
          List.of(Math.min(firstId, secondId), Math.max(firstId, secondId)),
          List.of(Long.parseLong(lines.get(0).get("id")), Long.parseLong(lines.get(1).get("id"))));
      Map<String, String> one = byId(lines, firstId);
      Map<String, String> two = byId(lines, secondId);
      assertEquals(FIELDS, new ArrayList<>(one.keySet()));
      assertEquals(FIELDS, new ArrayList<>(two.keySet()));
      assertEquals("alpha", one.get("name"));
      assertEquals("cf.add", one.get("cmd"));
      assertEquals("", two.get("name"));
      assertEquals("client|list", two.get("cmd"));
      assertEquals("tester", two.get("lib-name"));
      assertEquals("3", one.get("tot-cmds"));
      assertEquals("2", two.get("tot-cmds"));
      for (Map<String, String> line : lines) {
        assertEquals("0", line.get("db"));
        assertEquals("N", line.get("flags"));
        assertEquals("-1", line.get("multi"));
        assertEquals("0", line.get("watch"));
        assertEquals("default", line.get("user"));
        assertEquals("-1", line.get("redir"));
        assertEquals("2", line.get("resp"));
        assertTrue(line.get("addr").startsWith("127.0.0.1:"), line.get("addr"));
        assertEquals("127.0.0.1:" + server.port(), line.get("laddr"));
      }
      assertFalse(one.get("addr").equals(two.get("addr")));
      assertFalse(one.get("fd").equals(two.get("fd")));
      assertTrue(Integer.parseInt(one.get("fd")) > 2, one.get("fd"));
    }
  }

  @Test
  void clientList_refusedRequests_countedWithTheCommandTheLookupFound() throws IOException {
    // Redis's processCommand sets lastcmd to what lookupCommand found before checking it, and
    // commandProcessed counts every request, refused or not
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port());
        RespClient observer = new RespClient(server.port())) {
      long id = (Long) client.call("CLIENT", "ID");
      assertTrue(client.call("NOSUCHCOMMAND", "x") instanceof Err);
      Map<String, String> line = lines(observer.call("CLIENT", "LIST", "ID", id)).get(0);
      assertEquals("NULL", line.get("cmd"));
      assertEquals("2", line.get("tot-cmds"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'cf.add' command"),
          client.call("CF.ADD", "k"));
      line = lines(observer.call("CLIENT", "LIST", "ID", id)).get(0);
      assertEquals("cf.add", line.get("cmd"));
      assertEquals("3", line.get("tot-cmds"));
      assertTrue(client.call("CLIENT", "NOSUCHSUBCOMMAND") instanceof Err);
      line = lines(observer.call("CLIENT", "LIST", "ID", id)).get(0);
      assertEquals("NULL", line.get("cmd"));
      assertEquals("4", line.get("tot-cmds"));
      assertTrue(client.call("CLIENT", "SETNAME") instanceof Err);
      line = lines(observer.call("CLIENT", "LIST", "ID", id)).get(0);
      assertEquals("client|setname", line.get("cmd"));
      assertEquals("5", line.get("tot-cmds"));
    }
  }

  @Test
  void clientList_afterExec_countsQueuedCommandsOnceAndShowsExec() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port());
        RespClient observer = new RespClient(server.port())) {
      long id = (Long) client.call("CLIENT", "ID");
      assertEquals(OK, client.call("MULTI"));
      client.call("CF.ADD", "k", "a");
      client.call("CF.EXISTS", "k", "a");
      assertEquals(List.of(1L, 1L), client.call("EXEC"));
      Map<String, String> line = lines(observer.call("CLIENT", "LIST", "ID", id)).get(0);
      assertEquals("exec", line.get("cmd"));
      assertEquals("5", line.get("tot-cmds"));
    }
  }

  @Test
  void clientInfo_resp2BulkResp3Verbatim_describesThisConnection() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      long id = (Long) client.call("CLIENT", "ID");
      String info = RespClient.text(client.call("CLIENT", "INFO"));
      assertTrue(info.endsWith("\n") && info.indexOf('\n') == info.length() - 1, info);
      Map<String, String> fields = fields(info.substring(0, info.length() - 1));
      assertEquals(FIELDS, new ArrayList<>(fields.keySet()));
      assertEquals(Long.toString(id), fields.get("id"));
      assertEquals("client|info", fields.get("cmd"));
      assertEquals("2", fields.get("resp"));
      client.call("HELLO", "3");
      String verbatim = RespClient.text(client.call("CLIENT", "INFO"));
      assertTrue(verbatim.startsWith("txt:id=" + id + " "), verbatim);
      assertEquals("3", fields(verbatim.substring(4).trim()).get("resp"));
      String list = RespClient.text(client.call("CLIENT", "LIST"));
      assertTrue(list.startsWith("txt:id=" + id + " "), list);
    }
  }

  @Test
  void clientList_typeAndIdFilters_andTheirErrors() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient first = new RespClient(server.port());
        RespClient second = new RespClient(server.port())) {
      long firstId = (Long) first.call("CLIENT", "ID");
      long secondId = (Long) second.call("CLIENT", "ID");
      assertEquals(2, lines(second.call("CLIENT", "LIST", "TYPE", "normal")).size());
      assertEquals(2, lines(second.call("CLIENT", "LIST", "type", "NORMAL")).size());
      for (String type : List.of("master", "replica", "slave", "pubsub")) {
        assertEquals("", RespClient.text(second.call("CLIENT", "LIST", "TYPE", type)));
      }
      List<Map<String, String>> one = lines(second.call("CLIENT", "LIST", "ID", firstId));
      assertEquals(1, one.size());
      assertEquals(Long.toString(firstId), one.get(0).get("id"));
      List<Map<String, String>> both =
          lines(second.call("CLIENT", "LIST", "ID", secondId, "999999", firstId));
      assertEquals(
          List.of(Long.toString(secondId), Long.toString(firstId)),
          List.of(both.get(0).get("id"), both.get(1).get("id")));
      assertEquals(
          new Err("ERR Unknown client type 'bogus'"),
          second.call("CLIENT", "LIST", "TYPE", "bogus"));
      assertEquals(
          new Err("ERR Invalid client ID"), second.call("CLIENT", "LIST", "ID", firstId, "x"));
      assertEquals(new Err("ERR syntax error"), second.call("CLIENT", "LIST", "foo"));
      assertEquals(new Err("ERR syntax error"), second.call("CLIENT", "LIST", "TYPE"));
      assertEquals(
          new Err("ERR syntax error"), second.call("CLIENT", "LIST", "TYPE", "normal", "x"));
    }
  }

  @Test
  void clientKill_byId_closesTheOtherConnectionAndCountsIt() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient victim = new RespClient(server.port());
        RespClient killer = new RespClient(server.port())) {
      long victimId = (Long) victim.call("CLIENT", "ID");
      assertEquals(1L, victim.call("CF.ADD", "k", "v"));
      assertEquals(1L, killer.call("CLIENT", "KILL", "ID", victimId));
      assertTrue(victim.closedByServer());
      assertEquals(0L, killer.call("CLIENT", "KILL", "ID", victimId));
      List<Map<String, String>> left = lines(killer.call("CLIENT", "LIST"));
      assertEquals(1, left.size());
      assertEquals(new Simple("PONG"), killer.call("PING"));
    }
  }

  @Test
  void clientKill_victimWithAnUnreadReply_getsTheWholeReplyThenEof() throws IOException {
    // a reply larger than the socket buffers: part of it is still queued when the kill comes
    byte[] payload = new byte[8 * 1024 * 1024];
    java.util.Arrays.fill(payload, (byte) 'p');
    try (CuckooServer server = TestServers.start();
        RespClient victim = new RespClient(server.port());
        RespClient killer = new RespClient(server.port())) {
      long victimId = (Long) victim.call("CLIENT", "ID");
      victim.send("PING", payload);
      // wait (bounded only by the socket timeout) until the victim's PING has run
      while (!lines(killer.call("CLIENT", "LIST", "ID", victimId))
          .get(0)
          .get("cmd")
          .equals("ping")) {
        Thread.onSpinWait();
      }
      assertEquals(1L, killer.call("CLIENT", "KILL", "ID", victimId));
      assertTrue(java.util.Arrays.equals(payload, (byte[]) victim.read()));
      assertTrue(victim.closedByServer());
    }
  }

  @Test
  void clientKill_oldForm_okOrNoSuchClient_andMayKillTheCaller() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient victim = new RespClient(server.port());
        RespClient killer = new RespClient(server.port())) {
      String victimInfo = RespClient.text(victim.call("CLIENT", "INFO"));
      String victimAddr = fields(victimInfo.trim()).get("addr");
      assertEquals(OK, killer.call("CLIENT", "KILL", victimAddr));
      assertTrue(victim.closedByServer());
      assertEquals(new Err("ERR No such client"), killer.call("CLIENT", "KILL", victimAddr));
      String ownAddr = fields(RespClient.text(killer.call("CLIENT", "INFO")).trim()).get("addr");
      assertEquals(OK, killer.call("CLIENT", "KILL", ownAddr));
      assertTrue(killer.closedByServer());
    }
  }

  @Test
  void clientKill_skipMe_sparesTheCallerUnlessNo() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient other = new RespClient(server.port());
        RespClient caller = new RespClient(server.port())) {
      assertEquals(new Simple("PONG"), other.call("PING"));
      String callerInfo = RespClient.text(caller.call("CLIENT", "INFO"));
      String laddr = fields(callerInfo.trim()).get("laddr");
      assertEquals(0L, caller.call("CLIENT", "KILL", "TYPE", "pubsub"));
      assertEquals(0L, caller.call("CLIENT", "KILL", "MAXAGE", "100000"));
      assertEquals(1L, caller.call("CLIENT", "KILL", "LADDR", laddr, "USER", "default"));
      assertTrue(other.closedByServer());
      assertEquals(new Simple("PONG"), caller.call("PING"));
      assertEquals(0L, caller.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"));
      assertEquals(1L, caller.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "no"));
      assertTrue(caller.closedByServer());
    }
  }

  @Test
  void clientKill_badFilters_answerRedisErrors() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      Err idError = new Err("ERR client-id should be greater than 0");
      assertEquals(idError, client.call("CLIENT", "KILL", "ID", "0"));
      assertEquals(idError, client.call("CLIENT", "KILL", "ID", "x"));
      assertEquals(
          new Err("ERR Unknown client type 'bogus'"),
          client.call("CLIENT", "KILL", "TYPE", "bogus"));
      assertEquals(
          new Err("ERR No such user 'nobody'"), client.call("CLIENT", "KILL", "USER", "nobody"));
      Err syntax = new Err("ERR syntax error");
      assertEquals(syntax, client.call("CLIENT", "KILL", "SKIPME", "maybe"));
      assertEquals(syntax, client.call("CLIENT", "KILL", "ID", "1", "SKIPME"));
      assertEquals(syntax, client.call("CLIENT", "KILL", "NAME", "x"));
      assertEquals(
          new Err("ERR maxage is not an integer or out of range"),
          client.call("CLIENT", "KILL", "MAXAGE", "x"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'client|kill' command"),
          client.call("CLIENT", "KILL"));
      assertEquals(new Simple("PONG"), client.call("PING"));
    }
  }

  @Test
  void clientKill_maxAgeZeroOrNegative_refusedAndKillsNobody() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient caller = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      assertEquals(new Simple("PONG"), other.call("PING"));
      Err notPositive = new Err("ERR maxage should be greater than 0");
      assertEquals(notPositive, caller.call("CLIENT", "KILL", "MAXAGE", "0"));
      assertEquals(notPositive, caller.call("CLIENT", "KILL", "MAXAGE", "-5"));
      assertEquals(notPositive, caller.call("CLIENT", "KILL", "TYPE", "normal", "MAXAGE", "0"));
      assertEquals(new Simple("PONG"), other.call("PING"));
      assertEquals(2L, caller.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "no"));
      assertTrue(other.closedByServer());
    }
  }

  @Test
  void clientNoEvictNoTouch_showAsFlags() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("CLIENT", "NO-EVICT", "on"));
      assertEquals("e", fields(RespClient.text(client.call("CLIENT", "INFO")).trim()).get("flags"));
      assertEquals(OK, client.call("CLIENT", "NO-TOUCH", "ON"));
      assertEquals(
          "eT", fields(RespClient.text(client.call("CLIENT", "INFO")).trim()).get("flags"));
      assertEquals(OK, client.call("CLIENT", "NO-EVICT", "off"));
      assertEquals("T", fields(RespClient.text(client.call("CLIENT", "INFO")).trim()).get("flags"));
      assertEquals(new Err("ERR syntax error"), client.call("CLIENT", "NO-TOUCH", "maybe"));
    }
  }

  @Test
  void reset_withPassword_backToResp2NoNameAndAuthRequired() throws IOException {
    try (CuckooServer server =
            CuckooServer.start(TestServers.memoryOnly().requirePass("s3cret").build());
        RespClient client = new RespClient(server.port())) {
      assertEquals(new Simple("RESET"), client.call("RESET"));
      assertEquals(OK, client.call("AUTH", "s3cret"));
      assertTrue(client.call("HELLO", "3") instanceof Map);
      assertEquals(OK, client.call("CLIENT", "SETNAME", "named"));
      assertEquals(OK, client.call("CLIENT", "SETINFO", "LIB-NAME", "lib"));
      assertEquals(OK, client.call("CLIENT", "NO-EVICT", "on"));
      assertEquals(OK, client.call("CLIENT", "NO-TOUCH", "on"));
      assertEquals(Boolean.TRUE, client.call("CF.ADD", "k", "v"));
      assertEquals(new Simple("RESET"), client.call("RESET"));
      assertEquals(new Err("NOAUTH Authentication required."), client.call("PING"));
      assertEquals(new Err("NOAUTH Authentication required."), client.call("CF.EXISTS", "k", "v"));
      assertEquals(OK, client.call("AUTH", "s3cret"));
      assertEquals(1L, client.call("CF.EXISTS", "k", "v"));
      assertEquals(null, client.call("CLIENT", "GETNAME"));
      Map<String, String> info = fields(RespClient.text(client.call("CLIENT", "INFO")).trim());
      assertEquals("2", info.get("resp"));
      assertEquals("", info.get("name"));
      assertEquals("N", info.get("flags"));
      assertEquals("0", info.get("db"));
      assertEquals("lib", info.get("lib-name"));
    }
  }

  @Test
  void reset_withoutPassword_staysAuthenticated() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.call("HELLO", "3");
      assertEquals(Boolean.TRUE, client.call("CF.ADD", "k", "v"));
      assertEquals(new Simple("RESET"), client.call("RESET"));
      assertEquals(1L, client.call("CF.EXISTS", "k", "v"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'reset' command"), client.call("RESET", "x"));
      List<?> info = (List<?>) ((List<?>) client.call("COMMAND", "INFO", "reset")).get(0);
      assertEquals(1L, info.get(1));
      List<Object> flags = new ArrayList<>((List<?>) info.get(2));
      assertEquals(
          List.of(
              new Simple("noscript"),
              new Simple("loading"),
              new Simple("stale"),
              new Simple("fast"),
              new Simple("no_auth"),
              new Simple("allow_busy")),
          flags);
    }
  }
}
