package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoo.server.CuckooServer;
import dev.cuckoo.server.LeakCheck;
import dev.cuckoo.server.RespClient;
import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import dev.cuckoo.server.TestServers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** COMMAND GETKEYS / GETKEYSANDFLAGS and the key specs of COMMAND INFO, RESP2 and RESP3. */
@ExtendWith(LeakCheck.class)
class CommandKeysTest {
  private static List<String> texts(Object reply) {
    List<String> out = new ArrayList<>();
    for (Object item : (List<?>) reply) {
      out.add(RespClient.text(item));
    }
    return out;
  }

  private static List<Simple> simples(String... texts) {
    List<Simple> out = new ArrayList<>();
    for (String text : texts) {
      out.add(new Simple(text));
    }
    return out;
  }

  @Test
  void getKeys_delCfAndSubcommands_returnTheKeyArguments() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(
          List.of("a", "b", "c"), texts(client.call("COMMAND", "GETKEYS", "DEL", "a", "b", "c")));
      assertEquals(List.of("k"), texts(client.call("COMMAND", "GETKEYS", "cf.add", "k", "item")));
      assertEquals(
          List.of("k"),
          texts(client.call("COMMAND", "GETKEYS", "CF.INSERT", "k", "ITEMS", "a", "b")));
      assertEquals(
          List.of("k"),
          texts(client.call("COMMAND", "GETKEYS", "MEMORY", "USAGE", "k", "SAMPLES", "5")));
      assertEquals(List.of("x", "y"), texts(client.call("COMMAND", "GETKEYS", "EXISTS", "x", "y")));
      assertEquals(List.of("t"), texts(client.call("COMMAND", "GETKEYS", "TYPE", "t")));
    }
  }

  @Test
  void getKeys_badCommandLines_answerRedisErrors() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      Err noKeys = new Err("ERR The command has no key arguments");
      assertEquals(noKeys, client.call("COMMAND", "GETKEYS", "PING"));
      assertEquals(noKeys, client.call("COMMAND", "GETKEYS", "KEYS", "*"));
      assertEquals(noKeys, client.call("COMMAND", "GETKEYS", "CLIENT", "LIST"));
      assertEquals(noKeys, client.call("COMMAND", "GETKEYS", "MEMORY"));
      assertEquals(noKeys, client.call("COMMAND", "GETKEYSANDFLAGS", "PING", "x"));
      Err invalid = new Err("ERR Invalid command specified");
      assertEquals(invalid, client.call("COMMAND", "GETKEYS", "NOSUCH", "k"));
      assertEquals(invalid, client.call("COMMAND", "GETKEYS", "MEMORY", "NOSUCH", "k"));
      Err arity = new Err("ERR Invalid number of arguments specified for command");
      assertEquals(arity, client.call("COMMAND", "GETKEYS", "CF.ADD", "k"));
      assertEquals(arity, client.call("COMMAND", "GETKEYS", "TYPE", "a", "b"));
      assertEquals(
          new Err("ERR Invalid arguments specified for command"),
          client.call("COMMAND", "GETKEYS", "CF.COMPACT"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'command|getkeys' command"),
          client.call("COMMAND", "GETKEYS"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'command|getkeysandflags'" + " command"),
          client.call("COMMAND", "GETKEYSANDFLAGS"));
    }
  }

  @Test
  void getKeysAndFlags_resp2ArraysResp3Sets() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      List<?> del = (List<?>) client.call("COMMAND", "GETKEYSANDFLAGS", "DEL", "a", "b");
      assertEquals(2, del.size());
      List<?> first = (List<?>) del.get(0);
      assertEquals("a", RespClient.text(first.get(0)));
      assertEquals(simples("RM", "delete"), first.get(1));
      assertEquals("b", RespClient.text(((List<?>) del.get(1)).get(0)));
      List<?> exists =
          (List<?>)
              ((List<?>) client.call("COMMAND", "GETKEYSANDFLAGS", "CF.EXISTS", "k", "i")).get(0);
      assertEquals(simples("RO"), exists.get(1));
      client.call("HELLO", "3");
      List<?> add =
          (List<?>)
              ((List<?>) client.call("COMMAND", "GETKEYSANDFLAGS", "CF.ADD", "k", "i")).get(0);
      assertEquals(Set.of(new Simple("RW")), add.get(1));
      List<?> compact =
          (List<?>) ((List<?>) client.call("COMMAND", "GETKEYSANDFLAGS", "CF.COMPACT", "k")).get(0);
      assertEquals(new LinkedHashSet<>(simples("RW", "access", "update")), compact.get(1));
    }
  }

  /** The RESP2 key-spec map of a single range spec, flattened as Redis sends it. */
  private static List<Object> rangeSpec2(List<Simple> flags, long index, long lastKey) {
    return List.of(
        "flags",
        flags,
        "begin_search",
        List.of("type", "index", "spec", List.of("index", index)),
        "find_keys",
        List.of("type", "range", "spec", List.of("lastkey", lastKey, "keystep", 1L, "limit", 0L)));
  }

  /** Turns byte[] into String recursively so replies compare with equals. */
  private static Object plain(Object reply) {
    if (reply instanceof byte[]) {
      return RespClient.text(reply);
    }
    if (reply instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      for (Object item : list) {
        out.add(plain(item));
      }
      return out;
    }
    if (reply instanceof Set<?> set) {
      Set<Object> out = new LinkedHashSet<>();
      for (Object item : set) {
        out.add(plain(item));
      }
      return out;
    }
    if (reply instanceof Map<?, ?> map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      map.forEach((key, value) -> out.put(plain(key), plain(value)));
      return out;
    }
    return reply;
  }

  @Test
  void commandInfo_keySpecs_derivedFromPositionsWithRedisFlags() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      List<?> infos =
          (List<?>)
              plain(
                  client.call(
                      "COMMAND",
                      "INFO",
                      "del",
                      "cf.add",
                      "memory|usage",
                      "ping",
                      "cf.scandump",
                      "touch"));
      assertEquals(
          List.of(rangeSpec2(simples("RM", "delete"), 1, -1)), ((List<?>) infos.get(0)).get(8));
      assertEquals(List.of(rangeSpec2(simples("RW"), 1, 0)), ((List<?>) infos.get(1)).get(8));
      assertEquals(List.of(rangeSpec2(simples("RO"), 2, 0)), ((List<?>) infos.get(2)).get(8));
      assertEquals(List.of(), ((List<?>) infos.get(3)).get(8));
      assertEquals(List.of(rangeSpec2(simples("RW"), 1, 0)), ((List<?>) infos.get(4)).get(8));
      assertEquals(List.of(rangeSpec2(simples("RO"), 1, -1)), ((List<?>) infos.get(5)).get(8));
      client.call("HELLO", "3");
      List<?> del = (List<?>) ((List<?>) plain(client.call("COMMAND", "INFO", "del"))).get(0);
      Set<?> specs = (Set<?>) del.get(8);
      assertEquals(1, specs.size());
      assertEquals(Set.of("request_policy:multi_shard", "response_policy:agg_sum"), del.get(7));
      assertEquals(Set.of(), del.get(9));
      Map<?, ?> spec = (Map<?, ?>) specs.iterator().next();
      assertEquals(new LinkedHashSet<>(simples("RM", "delete")), spec.get("flags"));
      assertEquals(Map.of("type", "index", "spec", Map.of("index", 1L)), spec.get("begin_search"));
      assertEquals(
          Map.of("type", "range", "spec", Map.of("lastkey", -1L, "keystep", 1L, "limit", 0L)),
          spec.get("find_keys"));
    }
  }

  @Test
  void legacyRange_fromKeySpecs_asRedisDerivesIt() {
    CommandSpec rename =
        CommandSpec.command("rename")
            .keys(KeySpec.one(1, "RW", "access", "delete"), KeySpec.one(2, "OW", "update"))
            .build();
    assertEquals(List.of(1, 2, 1), List.of(rename.firstKey(), rename.lastKey(), rename.keyStep()));
    List<KeySpecs.KeyPosition> keys = KeySpecs.find(rename.keySpecs(), 3);
    assertEquals(
        List.of(
            new KeySpecs.KeyPosition(1, List.of("RW", "access", "delete")),
            new KeySpecs.KeyPosition(2, List.of("OW", "update"))),
        keys);
    CommandSpec del = CommandSpec.command("del").keys(KeySpec.range(1, -1, 1, "RM")).build();
    assertEquals(List.of(1, -1, 1), List.of(del.firstKey(), del.lastKey(), del.keyStep()));
    CommandSpec usage = CommandSpec.command("memory|usage").keys(KeySpec.one(2, "RO")).build();
    assertEquals(List.of(2, 2, 1), List.of(usage.firstKey(), usage.lastKey(), usage.keyStep()));
    CommandSpec none = CommandSpec.command("ping").build();
    assertEquals(List.of(0, 0, 0), List.of(none.firstKey(), none.lastKey(), none.keyStep()));
  }

  @Test
  void keySpecs_find_followsRedisRangeRules() {
    KeySpec everyOther = new KeySpec(List.of("RW"), 1, -1, 2, 0);
    List<Integer> positions = new ArrayList<>();
    for (KeySpecs.KeyPosition key : KeySpecs.find(List.of(everyOther), 6)) {
      positions.add(key.position());
    }
    assertEquals(List.of(1, 3, 5), positions);
    KeySpec halves = new KeySpec(List.of("RO"), 1, -1, 1, 2);
    positions.clear();
    for (KeySpecs.KeyPosition key : KeySpecs.find(List.of(halves), 5)) {
      positions.add(key.position());
    }
    assertEquals(List.of(1, 2), positions);
    assertEquals(List.of(), KeySpecs.find(List.of(KeySpec.one(2, "OW")), 2));
  }
}
