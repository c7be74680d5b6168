package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * MONITOR as Redis's monitorCommand and replicationFeedMonitors: a line per command any client ran,
 * in the database it left selected, with the client's address, arguments quoted and escaped as
 * sdscatrepr, admin commands left out, passwords redacted; RESET ends it.
 */
class MonitorTest {
  private static final Pattern LINE =
      Pattern.compile("(\\d+)\\.(\\d{6}) \\[(\\d+) (127\\.0\\.0\\.1:\\d+)\\] (.*)");

  @Test
  void monitor_otherClientsCommands_fedAsRedisWritesThem() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient monitor = new RespClient(server.port());
        RespClient client = new RespClient(server.port())) {
      assertEquals(new Simple("OK"), monitor.call("MONITOR"));
      String addr = RespClient.text(client.call("CLIENT", "INFO")).split(" ")[1].substring(5);
      long before = System.currentTimeMillis() / 1000;
      byte[] item = "a\nb\u0001\"\\".getBytes(StandardCharsets.ISO_8859_1);
      assertEquals(1L, client.call("CF.ADD", "k", item));
      assertEquals(new Simple("OK"), client.call("SELECT", "2"));
      assertTrue(client.call("AUTH", "secret") instanceof Err);
      client.call("CONFIG", "GET", "port");
      assertEquals(new Simple("OK"), client.call("MULTI"));
      client.call("PING");
      assertEquals(List.of(new Simple("PONG")), client.call("EXEC"));
      // the CLIENT INFO above came first
      assertEquals("[0 " + addr + "] \"CLIENT\" \"INFO\"", fed(monitor, before));
      assertEquals(
          "[0 " + addr + "] \"CF.ADD\" \"k\" \"a\\nb\\x01\\\"\\\\\"", fed(monitor, before));
      assertEquals("[2 " + addr + "] \"SELECT\" \"2\"", fed(monitor, before));
      assertEquals("[2 " + addr + "] \"AUTH\" \"(redacted)\"", fed(monitor, before));
      // CONFIG GET is an admin command: not fed
      assertEquals("[2 " + addr + "] \"MULTI\"", fed(monitor, before));
      assertEquals("[2 " + addr + "] \"PING\"", fed(monitor, before));
      assertEquals("[2 " + addr + "] \"EXEC\"", fed(monitor, before));
      String list = RespClient.text(client.call("CLIENT", "LIST"));
      assertTrue(list.contains(" flags=O ") && list.contains(" cmd=monitor "), list);
    }
  }

  @Test
  void reset_endsMonitoring_andMonitorInsideExecRefused() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient monitor = new RespClient(server.port());
        RespClient client = new RespClient(server.port())) {
      assertEquals(new Simple("OK"), monitor.call("MONITOR"));
      client.call("PING", "one");
      assertTrue(fed(monitor, 0).endsWith("\"PING\" \"one\""));
      monitor.send("RESET");
      assertEquals(new Simple("RESET"), monitor.read());
      client.call("PING", "two");
      assertEquals(new Simple("PONG"), monitor.call("PING"));
      String list = RespClient.text(client.call("CLIENT", "LIST"));
      assertTrue(!list.contains(" flags=O "), list);
      assertEquals(new Simple("OK"), client.call("MULTI"));
      assertEquals(new Simple("QUEUED"), client.call("MONITOR"));
      assertEquals(
          List.of(new Err("ERR MONITOR isn't allowed for DENY BLOCKING client")),
          client.call("EXEC"));
    }
  }

  @Test
  void closedMonitor_noLongerFed() throws IOException, InterruptedException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      try (RespClient monitor = new RespClient(server.port())) {
        assertEquals(new Simple("OK"), monitor.call("MONITOR"));
      }
      long deadline = System.nanoTime() + 5_000_000_000L;
      String list;
      do {
        Thread.sleep(10);
        list = RespClient.text(client.call("CLIENT", "LIST"));
      } while (list.lines().count() > 1 && System.nanoTime() < deadline);
      assertEquals(1, list.lines().count(), list);
      assertEquals(new Simple("PONG"), client.call("PING"));
    }
  }

  /**
   * On a replica the master's writes are fed, and logged in SLOWLOG, with the master's address, as
   * Redis prints its master client's ip:port (replicationFeedMonitors, getClientPeerId).
   */
  @Test
  void monitorAndSlowlog_onReplica_nameTheMasterForAppliedWrites() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer replica =
            CuckooServer.start(
                TestServers.memoryOnly()
                    .set("replicaof", "127.0.0.1 " + master.port())
                    .set("slowlog-log-slower-than", "0")
                    .build());
        RespClient monitor = new RespClient(replica.port());
        RespClient writer = new RespClient(master.port())) {
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      assertEquals(new Simple("OK"), monitor.call("MONITOR"));
      long before = System.currentTimeMillis() / 1000;
      assertEquals(1L, writer.call("CF.ADD", "k", "v"));
      String fromMaster = "[0 127.0.0.1:" + master.port() + "] ";
      String line;
      do {
        line = fed(monitor, before);
        assertTrue(line.startsWith(fromMaster), line);
      } while (!line.endsWith(" \"k\" \"v\""));
      try (RespClient admin = new RespClient(replica.port())) {
        String logged = null;
        for (Object entry : (List<?>) admin.call("SLOWLOG", "GET", "-1")) {
          List<?> fields = (List<?>) entry;
          List<?> args = (List<?>) fields.get(3);
          if ("cf.add".equalsIgnoreCase(RespClient.text(args.get(0)))) {
            logged = RespClient.text(fields.get(4));
          }
        }
        assertEquals("127.0.0.1:" + master.port(), logged);
      }
    }
  }

  /**
   * On a replica the master's SELECTs run as commands, as in Redis, whose master client runs them
   * through call(): a monitor sees each where the stream changes database, with the database it
   * selected, between the writes.
   */
  @Test
  void monitor_onReplica_showsTheMastersSelectBetweenWritesToDatabases() throws Exception {
    try (CuckooServer master =
            CuckooServer.start(
                TestServers.memoryOnly().set("repl-ping-replica-period", "3600").build());
        CuckooServer replica =
            CuckooServer.start(
                TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + master.port()).build());
        RespClient monitor = new RespClient(replica.port());
        RespClient writer = new RespClient(master.port())) {
      // attached first: the stream's first SELECT comes with these writes, not with those watched
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      for (String db : List.of("0", "3")) {
        writer.call("SELECT", db);
        for (String key : List.of("a", "b", "c", "d")) {
          writer.call("CF.RESERVE", key, "100");
        }
      }
      writer.call("SELECT", "0");
      assertEquals(1L, writer.call("CF.ADD", "a", "1"));
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      assertEquals(new Simple("OK"), monitor.call("MONITOR"));
      long before = System.currentTimeMillis() / 1000;
      assertEquals(1L, writer.call("CF.ADD", "a", "2"));
      writer.call("SELECT", "3");
      assertEquals(1L, writer.call("CF.ADD", "b", "3"));
      assertEquals(1L, writer.call("CF.ADD", "c", "4"));
      writer.call("SELECT", "0");
      assertEquals(1L, writer.call("CF.ADD", "d", "5"));
      String from = " 127.0.0.1:" + master.port() + "] ";
      List<String> expected =
          List.of(
              "[0" + from + "\"CF.ADD\" \"a\" \"2\"",
              "[3" + from + "\"SELECT\" \"3\"",
              "[3" + from + "\"CF.ADD\" \"b\" \"3\"",
              "[3" + from + "\"CF.ADD\" \"c\" \"4\"",
              "[0" + from + "\"SELECT\" \"0\"",
              "[0" + from + "\"CF.ADD\" \"d\" \"5\"");
      List<String> seen = new java.util.ArrayList<>();
      for (int i = 0; i < expected.size(); i++) {
        seen.add(fed(monitor, before));
      }
      assertEquals(expected, seen);
    }
  }

  /** Reads the next fed line, checks its time and returns what follows the time. */
  private static String fed(RespClient monitor, long notBeforeSeconds) throws IOException {
    Object reply = monitor.read();
    assertTrue(reply instanceof Simple, String.valueOf(reply));
    String line = ((Simple) reply).text();
    Matcher matcher = LINE.matcher(line);
    assertTrue(matcher.matches(), line);
    long seconds = Long.parseLong(matcher.group(1));
    assertTrue(seconds >= notBeforeSeconds && seconds <= System.currentTimeMillis() / 1000 + 1);
    return line.substring(line.indexOf(' ') + 1);
  }
}
