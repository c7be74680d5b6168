package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What the command table's entries decide: WATCH after module writes, MULTI queueing, COMMAND. */
@ExtendWith(LeakCheck.class)
class CommandTableTest {
  private static final Simple OK = new Simple("OK");
  private static final Simple QUEUED = new Simple("QUEUED");

  /** WATCHes the write's key, runs the write on another connection, then MULTI PING EXEC. */
  private static Object execAfter(RespClient watcher, RespClient other, Object... write)
      throws IOException {
    assertEquals(OK, watcher.call("WATCH", write[1]));
    other.call(write);
    return execPing(watcher);
  }

  /** Runs MULTI PING EXEC and returns EXEC's reply (null if a watched key changed). */
  private static Object execPing(RespClient watcher) throws IOException {
    assertEquals(OK, watcher.call("MULTI"));
    assertEquals(QUEUED, watcher.call("PING"));
    return watcher.call("EXEC");
  }

  @Test
  void watch_cfWriteThatChangesNothing_execAbortsAsInRedis() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient watcher = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      assertEquals(1L, other.call("CF.ADD", "f", "a"));
      assertEquals(OK, other.call("CF.RESERVE", "full", "2", "BUCKETSIZE", "1", "EXPANSION", "0"));
      Object added;
      int item = 0;
      do {
        added = other.call("CF.ADD", "full", "item" + item++);
      } while (!(added instanceof Err) && item < 100);
      assertEquals(new Err("Filter is full"), added);
      Object[][] writes = {
        {"CF.DEL", "k", "nope"},
        {"CF.DEL", "f", "nope"},
        {"CF.ADDNX", "f", "a"},
        {"CF.INSERTNX", "f", "ITEMS", "a"},
        {"CF.RESERVE", "f", "100"},
        {"CF.INSERT", "missing", "NOCREATE", "ITEMS", "a"},
        {"CF.ADD", "full", "another"},
        {"CF.LOADCHUNK", "f", "1", "not a header"},
      };
      for (Object[] write : writes) {
        assertNull(execAfter(watcher, other, write), List.of(write).toString());
      }
    }
  }

  @Test
  void watch_coreWritesReachingTheWatchedKey_execAborts() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient watcher = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      assertEquals(1L, other.call("CF.ADD", "p", "a"));
      assertEquals(1L, other.call("EXPIRE", "p", "100"));
      assertNull(execAfter(watcher, other, "PERSIST", "p"), "PERSIST of the watched key");

      assertEquals(1L, other.call("CF.ADD", "src", "a"));
      assertEquals(OK, watcher.call("WATCH", "dst"));
      assertEquals(OK, other.call("RENAME", "src", "dst"));
      assertNull(execPing(watcher), "RENAME onto the watched key");

      assertEquals(OK, watcher.call("SELECT", "1"));
      assertEquals(OK, watcher.call("WATCH", "m"));
      assertEquals(1L, other.call("CF.ADD", "m", "a"));
      assertEquals(1L, other.call("MOVE", "m", "1"));
      assertNull(execPing(watcher), "MOVE into the watched key's database");
    }
  }

  @Test
  void watch_readsAndRefusalsBeforeTheKeyIsOpened_leaveTheTransaction() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient watcher = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      assertEquals(1L, other.call("CF.ADD", "f", "a"));
      List<Simple> pong = List.of(new Simple("PONG"));
      assertEquals(pong, execAfter(watcher, other, "CF.EXISTS", "f", "a"));
      assertEquals(pong, execAfter(watcher, other, "CF.RESERVE", "f", "notanumber"));
      assertEquals(pong, execAfter(watcher, other, "DEL", "nosuchkey"));
    }
  }

  @Test
  void multi_helpSubcommands_areQueuedNotRefused() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("MULTI"));
      for (String container : List.of("OBJECT", "MEMORY", "CLIENT", "CONFIG", "COMMAND")) {
        assertEquals(QUEUED, client.call(container, "HELP"), container);
      }
      assertEquals(QUEUED, client.call("PING"));
      List<?> replies = assertInstanceOf(List.class, client.call("EXEC"));
      assertEquals(6, replies.size());
      assertEquals(new Simple("PONG"), replies.get(5));
    }
  }

  @Test
  void commandInfoAndDocs_carryRedisTipsComplexityAndArguments() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.call("HELLO", "3");
      List<?> dbsize = (List<?>) ((List<?>) client.call("COMMAND", "INFO", "dbsize")).get(0);
      assertEquals(
          java.util.Set.of("request_policy:all_shards", "response_policy:agg_sum"),
          java.util.Set.copyOf(
              ((java.util.Collection<?>) dbsize.get(7)).stream().map(RespClient::text).toList()));
      Map<?, ?> docs = (Map<?, ?>) client.call("COMMAND", "DOCS", "cf.insert");
      Map<?, ?> insert = (Map<?, ?>) docs.values().iterator().next();
      assertEquals("module", RespClient.text(insert.get("group")));
      assertEquals("bf", RespClient.text(insert.get("module")));
      assertTrue(RespClient.text(insert.get("complexity")).startsWith("O(n * (k + i))"));
      List<?> arguments = (List<?>) insert.get("arguments");
      assertEquals(5, arguments.size());
      Map<?, ?> nocreate = (Map<?, ?>) arguments.get(2);
      assertEquals("NOCREATE", RespClient.text(nocreate.get("token")));
      assertEquals("pure-token", RespClient.text(nocreate.get("type")));
    }
  }

  /**
   * Every container's HELP subcommand documents and reports what Redis's {@code
   * src/commands/<container>-help.json} gives it: summary, since, group and complexity in COMMAND
   * DOCS; arity, flags and ACL categories in COMMAND INFO (SLOWLOG HELP keeps Redis's older
   * summary, CLIENT and COMMAND HELP the flag sentinel, which COMMAND INFO hides).
   */
  @Test
  void commandDocsAndInfo_helpSubcommands_matchRedisEntries() throws IOException {
    String returns = "Returns helpful text about the different subcommands.";
    Map<String, String> expected = new java.util.LinkedHashMap<>();
    expected.put("client", returns + " 5.0.0 connection 2 loading,stale slow,connection");
    expected.put("command", returns + " 5.0.0 server 2 loading,stale slow,connection");
    expected.put("config", returns + " 5.0.0 server 2 loading,stale slow");
    expected.put("latency", returns + " 2.8.13 server 2 loading,stale slow");
    expected.put("memory", returns + " 4.0.0 server 2 loading,stale slow");
    expected.put("module", returns + " 5.0.0 server 2 loading,stale slow");
    expected.put("object", returns + " 6.2.0 generic 2 loading,stale keyspace,slow");
    expected.put("pubsub", returns + " 6.2.0 pubsub 2 loading,stale slow");
    expected.put("script", returns + " 5.0.0 scripting 2 loading,stale slow,scripting");
    expected.put(
        "slowlog",
        "Show helpful text about the different subcommands 6.2.0 server 2 loading,stale slow");
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.call("HELLO", "3");
      Map<String, String> actual = new java.util.LinkedHashMap<>();
      for (String container : expected.keySet()) {
        String name = container + "|help";
        Map<?, ?> docs = (Map<?, ?>) client.call("COMMAND", "DOCS", name);
        Map<?, ?> doc = (Map<?, ?>) docs.values().iterator().next();
        List<?> info = (List<?>) ((List<?>) client.call("COMMAND", "INFO", name)).get(0);
        List<String> flags =
            ((java.util.Collection<?>) info.get(2)).stream().map(f -> ((Simple) f).text()).toList();
        List<String> categories =
            ((java.util.Collection<?>) info.get(6))
                .stream().map(c -> ((Simple) c).text().substring(1)).toList();
        actual.put(
            container,
            String.join(
                " ",
                RespClient.text(doc.get("summary")),
                RespClient.text(doc.get("since")),
                RespClient.text(doc.get("group")),
                String.valueOf(info.get(1)),
                String.join(",", flags),
                String.join(",", categories)));
        assertEquals("O(1)", RespClient.text(doc.get("complexity")), name);
      }
      assertEquals(expected, actual);
    }
  }

  /**
   * COMMAND INFO never shows the flags Redis's addReplyFlagsForCommand hides (sentinel,
   * only_sentinel, may_replicate, protected), in any command or subcommand.
   */
  @Test
  void commandList_filterBy_modulePatternAndCategoryAsRedis() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      List<String> all = texts(client.call("COMMAND", "LIST"));
      assertTrue(all.contains("client|kill") && all.contains("cf.add"), all.toString());
      List<String> cf = texts(client.call("COMMAND", "LIST", "FILTERBY", "PATTERN", "cf.*"));
      assertEquals(14, cf.size(), cf.toString());
      assertTrue(cf.stream().allMatch(name -> name.startsWith("cf.")), cf.toString());
      assertEquals(
          new java.util.TreeSet<>(cf),
          new java.util.TreeSet<>(
              texts(client.call("COMMAND", "LIST", "FILTERBY", "MODULE", "BF"))));
      assertEquals(
          new java.util.TreeSet<>(cf),
          new java.util.TreeSet<>(
              texts(client.call("COMMAND", "LIST", "filterby", "aclcat", "Cuckoo"))));
      assertEquals(
          List.of("client|kill"),
          texts(client.call("COMMAND", "LIST", "FILTERBY", "PATTERN", "CLIENT|K*")));
      assertEquals(List.of(), texts(client.call("COMMAND", "LIST", "FILTERBY", "ACLCAT", "nope")));
      assertEquals(List.of(), texts(client.call("COMMAND", "LIST", "FILTERBY", "MODULE", "nope")));
      List<String> fast = texts(client.call("COMMAND", "LIST", "FILTERBY", "ACLCAT", "fast"));
      assertTrue(fast.contains("cf.reserve") && !fast.contains("cf.add"), fast.toString());
      Err syntax = new Err("ERR syntax error");
      assertEquals(syntax, client.call("COMMAND", "LIST", "FILTERBY", "FOO", "x"));
      assertEquals(syntax, client.call("COMMAND", "LIST", "FILTERBY", "PATTERN"));
      assertEquals(syntax, client.call("COMMAND", "LIST", "FILTERBY", "PATTERN", "a", "b"));
      assertEquals(syntax, client.call("COMMAND", "LIST", "BOGUS"));
    }
  }

  @Test
  void commandInfo_watchKeySpec_readOnlyAsRedis() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      List<?> watch = (List<?>) ((List<?>) client.call("COMMAND", "INFO", "watch")).get(0);
      List<?> keySpec = (List<?>) ((List<?>) watch.get(8)).get(0);
      int flagsAt = texts(keySpec).indexOf("flags");
      assertEquals(List.of("RO"), texts(keySpec.get(flagsAt + 1)), keySpec.toString());
    }
  }

  private static List<String> texts(Object reply) {
    List<String> texts = new java.util.ArrayList<>();
    for (Object item : (List<?>) reply) {
      texts.add(
          item instanceof List<?>
              ? item.toString()
              : item instanceof Simple simple ? simple.text() : RespClient.text(item));
    }
    return texts;
  }

  @Test
  void commandInfo_everyCommand_showsNoFlagRedisHides() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      List<String> hidden = List.of("sentinel", "only_sentinel", "may_replicate", "protected");
      List<?> commands = (List<?>) client.call("COMMAND");
      assertTrue(commands.size() > 50, "commands: " + commands.size());
      List<String> shown = new java.util.ArrayList<>();
      for (Object command : commands) {
        collectHiddenFlags((List<?>) command, hidden, shown);
      }
      assertEquals(List.of(), shown);
    }
  }

  private static void collectHiddenFlags(List<?> info, List<String> hidden, List<String> shown) {
    String name = RespClient.text(info.get(0));
    for (Object flag : (List<?>) info.get(2)) {
      if (hidden.contains(((Simple) flag).text())) {
        shown.add(name + ":" + ((Simple) flag).text());
      }
    }
    for (Object sub : (List<?>) info.get(9)) {
      collectHiddenFlags((List<?>) sub, hidden, shown);
    }
  }
}
