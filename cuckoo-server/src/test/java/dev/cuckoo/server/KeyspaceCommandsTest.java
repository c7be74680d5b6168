package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.command.KeyspaceCommands;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** RANDOMKEY, TOUCH, MEMORY USAGE, OBJECT, ROLE and TIME over TCP, in RESP2 and RESP3. */
@ExtendWith(LeakCheck.class)
class KeyspaceCommandsTest {
  private static final Err SYNTAX = new Err("ERR syntax error");

  @Test
  void randomKey_emptyOrFilled_nullOrAnExistingKey() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertNull(client.call("RANDOMKEY"));
      client.call("CF.ADD", "a", "x");
      client.call("CF.ADD", "b", "x");
      for (int i = 0; i < 20; i++) {
        assertTrue(Set.of("a", "b").contains(RespClient.text(client.call("RANDOMKEY"))));
      }
      client.call("FLUSHALL");
      client.call("HELLO", "3");
      assertNull(client.call("RANDOMKEY"));
    }
  }

  @Test
  void touch_existingMissingAndRepeatedKeys_countsExistingOnes() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.call("CF.ADD", "a", "x");
      assertEquals(2L, client.call("TOUCH", "a", "a", "nokey"));
      assertEquals(0L, client.call("TOUCH", "nokey"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'touch' command"), client.call("TOUCH"));
    }
  }

  @Test
  void memoryUsage_filterAndMissingKey_theKeysShareOfUsedMemoryOrNull() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.call("CF.RESERVE", "f", "1000");
      String memory = RespClient.text(client.call("INFO", "memory"));
      int start = memory.indexOf("used_memory_filters:") + "used_memory_filters:".length();
      long keysBytes = Long.parseLong(memory.substring(start, memory.indexOf('\r', start)));
      // the only key: all the keys' part of used_memory
      assertEquals(keysBytes, client.call("MEMORY", "USAGE", "f"));
      assertEquals(
          client.call("MEMORY", "USAGE", "f"), client.call("MEMORY", "USAGE", "f", "SAMPLES", "0"));
      assertNull(client.call("MEMORY", "USAGE", "nokey"));
      assertEquals(
          new Err("ERR value is not an integer or out of range"),
          client.call("MEMORY", "USAGE", "f", "SAMPLES", "x"));
      assertEquals(SYNTAX, client.call("MEMORY", "USAGE", "f", "SAMPLES", "-1"));
      assertEquals(SYNTAX, client.call("MEMORY", "USAGE", "f", "SAMPLES"));
      assertEquals(SYNTAX, client.call("MEMORY", "USAGE", "f", "FOO"));
      assertEquals(
          new Err("ERR unknown subcommand 'FOO'. Try MEMORY HELP."), client.call("MEMORY", "FOO"));
    }
  }

  @Test
  void object_filterAndMissingKey_answersAsRedisForModuleValues() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.call("CF.ADD", "f", "x");
      assertEquals("raw", RespClient.text(client.call("OBJECT", "ENCODING", "f")));
      assertEquals(1L, client.call("OBJECT", "REFCOUNT", "f"));
      assertEquals(new Err(KeyspaceCommands.NO_LFU), client.call("OBJECT", "FREQ", "f"));
      assertNull(client.call("OBJECT", "ENCODING", "nokey"));
      assertNull(client.call("OBJECT", "FREQ", "nokey"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'object|encoding' command"),
          client.call("OBJECT", "ENCODING", "f", "g"));
    }
  }

  @Test
  void roleAndTime_resp2AndResp3_answerAsRedisMaster() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      for (String protocol : List.of("2", "3")) {
        client.call("HELLO", protocol);
        List<?> role = (List<?>) client.call("ROLE");
        assertEquals("master", RespClient.text(role.get(0)));
        assertEquals(0L, role.get(1));
        assertEquals(List.of(), role.get(2));
        List<?> time = (List<?>) client.call("TIME");
        long seconds = Long.parseLong(RespClient.text(time.get(0)));
        long micros = Long.parseLong(RespClient.text(time.get(1)));
        assertTrue(Math.abs(seconds - System.currentTimeMillis() / 1000) <= 2, "" + seconds);
        assertTrue(micros >= 0 && micros < 1_000_000, "" + micros);
      }
    }
  }

  @Test
  void commandInfo_newCommands_listArityFlagsAndKeys() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      List<?> infos =
          (List<?>)
              client.call(
                  "COMMAND",
                  "INFO",
                  "touch",
                  "memory|usage",
                  "object|encoding",
                  "randomkey",
                  "role",
                  "time");
      List<?> touch = (List<?>) infos.get(0);
      assertEquals("touch", RespClient.text(touch.get(0)));
      assertEquals(
          List.of(-2L, 1L, -1L, 1L),
          List.of(touch.get(1), touch.get(3), touch.get(4), touch.get(5)));
      List<?> usage = (List<?>) infos.get(1);
      assertEquals(
          List.of(-3L, 2L, 2L, 1L),
          List.of(usage.get(1), usage.get(3), usage.get(4), usage.get(5)));
      for (Object info : infos) {
        assertInstanceOf(List.class, info);
      }
      List<?> docs = (List<?>) client.call("COMMAND", "DOCS", "object");
      assertEquals("object", RespClient.text(docs.get(0)));
    }
  }
}
