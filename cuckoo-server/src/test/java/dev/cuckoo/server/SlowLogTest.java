package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SLOWLOG as Redis's slowlog.c answers it: entries of commands that ran at least
 * slowlog-log-slower-than microseconds, newest first, with id, time, duration, arguments (shortened
 * and redacted), the client's address and name.
 */
class SlowLogTest {
  private static final Simple OK = new Simple("OK");

  @Test
  void get_everyCommandLogged_entriesNewestFirstWithClientAddressAndName() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("CONFIG", "SET", "slowlog-log-slower-than", "0"));
      assertEquals(OK, client.call("CLIENT", "SETNAME", "tester"));
      long before = System.currentTimeMillis() / 1000;
      long sent = System.nanoTime();
      assertEquals(1L, client.call("CF.ADD", "k", "x"));
      long roundTripMicros = (System.nanoTime() - sent) / 1000;
      List<?> entries = (List<?>) client.call("SLOWLOG", "GET", "2");
      assertEquals(2, entries.size());
      List<?> newest = (List<?>) entries.get(0);
      assertEquals(6, newest.size());
      assertEquals(List.of("CF.ADD", "k", "x"), texts(newest.get(3)));
      long at = (Long) newest.get(1);
      assertTrue(at >= before && at <= System.currentTimeMillis() / 1000 + 1, "time " + at);
      // the command's own time: within the client's round trip for it
      long micros = (Long) newest.get(2);
      assertTrue(micros >= 0 && micros <= roundTripMicros, micros + " of " + roundTripMicros);
      String addr = RespClient.text(client.call("CLIENT", "INFO")).split(" ")[1];
      assertEquals("addr=" + RespClient.text(newest.get(4)), addr);
      assertEquals("tester", RespClient.text(newest.get(5)));
      List<?> older = (List<?>) entries.get(1);
      assertEquals(List.of("CLIENT", "SETNAME", "tester"), texts(older.get(3)));
      assertEquals((Long) older.get(0) + 1, (Long) newest.get(0), "ids count up");
    }
  }

  @Test
  void lenResetAndMaxLen_keepTheNewestEntries() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("CONFIG", "SET", "slowlog-log-slower-than", "0"));
      assertEquals(OK, client.call("CONFIG", "SET", "slowlog-max-len", "3"));
      for (int i = 0; i < 5; i++) {
        client.call("PING", "p" + i);
      }
      assertEquals(3L, client.call("SLOWLOG", "LEN"));
      List<?> entries = (List<?>) client.call("SLOWLOG", "GET", "-1");
      assertEquals(List.of("SLOWLOG", "LEN"), texts(((List<?>) entries.get(0)).get(3)));
      assertEquals(List.of("PING", "p4"), texts(((List<?>) entries.get(1)).get(3)));
      assertEquals(List.of("PING", "p3"), texts(((List<?>) entries.get(2)).get(3)));
      assertEquals(OK, client.call("SLOWLOG", "RESET"));
      // as in Redis, the RESET itself is logged once it ran
      assertEquals(1L, client.call("SLOWLOG", "LEN"));
      assertEquals(OK, client.call("CONFIG", "SET", "slowlog-max-len", "0"));
      assertEquals(0L, client.call("SLOWLOG", "LEN"));
      assertEquals(OK, client.call("CONFIG", "SET", "slowlog-max-len", "128"));
      assertEquals(OK, client.call("CONFIG", "SET", "slowlog-log-slower-than", "-1"));
      assertEquals(OK, client.call("SLOWLOG", "RESET"));
      client.call("PING");
      assertEquals(0L, client.call("SLOWLOG", "LEN"));
      assertEquals(
          List.of("slowlog-log-slower-than", "-1", "slowlog-max-len", "128"),
          texts(client.call("CONFIG", "GET", "slowlog*")));
    }
  }

  @Test
  void exec_logsTheCommandsItRanNotItself() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("CONFIG", "SET", "slowlog-log-slower-than", "0"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(new Simple("QUEUED"), client.call("CF.ADD", "a", "1"));
      assertEquals(new Simple("QUEUED"), client.call("CF.ADD", "b", "2"));
      assertEquals(List.of(1L, 1L), client.call("EXEC"));
      List<?> entries = (List<?>) client.call("SLOWLOG", "GET", "3");
      assertEquals(List.of("CF.ADD", "b", "2"), texts(((List<?>) entries.get(0)).get(3)));
      assertEquals(List.of("CF.ADD", "a", "1"), texts(((List<?>) entries.get(1)).get(3)));
      assertEquals(List.of("MULTI"), texts(((List<?>) entries.get(2)).get(3)));
    }
  }

  @Test
  void get_longArgumentsAndPasswords_shortenedAndRedacted() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("CONFIG", "SET", "slowlog-log-slower-than", "0"));
      String item = "i".repeat(200);
      assertEquals(1L, client.call("CF.ADD", "long", item));
      List<Object> insert = new ArrayList<>(List.of("CF.INSERT", "many", "ITEMS"));
      for (int i = 0; i < 40; i++) {
        insert.add("e" + i);
      }
      client.call(insert.toArray());
      assertTrue(client.call("AUTH", "secret-password") instanceof Err);
      client.call("HELLO", "2", "AUTH", "default", "other-secret", "SETNAME", "auth");
      List<?> entries = (List<?>) client.call("SLOWLOG", "GET", "4");
      assertEquals(
          List.of("HELLO", "2", "AUTH", "(redacted)", "(redacted)", "SETNAME", "auth"),
          texts(((List<?>) entries.get(0)).get(3)));
      assertEquals(List.of("AUTH", "(redacted)"), texts(((List<?>) entries.get(1)).get(3)));
      List<String> many = texts(((List<?>) entries.get(2)).get(3));
      assertEquals(32, many.size());
      assertEquals("e27", many.get(30));
      assertEquals("... (12 more arguments)", many.get(31));
      assertEquals(
          List.of("CF.ADD", "long", "i".repeat(128) + "... (72 more bytes)"),
          texts(((List<?>) entries.get(3)).get(3)));
    }
  }

  @Test
  void badArguments_answerAsRedis() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      Err count = new Err("ERR count should be greater than or equal to -1");
      assertEquals(count, client.call("SLOWLOG", "GET", "-2"));
      assertEquals(count, client.call("SLOWLOG", "GET", "ten"));
      assertEquals(
          new Err(
              "ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG HELP."),
          client.call("SLOWLOG", "get", "1", "2"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'slowlog|len' command"),
          client.call("SLOWLOG", "LEN", "1"));
      assertEquals(
          new Err("ERR unknown subcommand 'nope'. Try SLOWLOG HELP."),
          client.call("SLOWLOG", "nope"));
      Object refused = client.call("CONFIG", "SET", "slowlog-max-len", "-1");
      assertTrue(
          refused instanceof Err err
              && err.text()
                  .startsWith(
                      "ERR CONFIG SET failed (possibly related to argument 'slowlog-max-len')"),
          String.valueOf(refused));
      List<?> help = (List<?>) client.call("SLOWLOG", "HELP");
      assertEquals(
          new Simple("SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
          help.get(0));
      assertEquals(12, help.size());
    }
  }

  private static List<String> texts(Object array) {
    List<String> texts = new ArrayList<>();
    for (Object item : (List<?>) array) {
      texts.add(RespClient.text(item));
    }
    return texts;
  }
}
