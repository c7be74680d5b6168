package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Per-client buffers as Redis 7/8 report and limit them (networking.c catClientInfoString,
 * checkClientOutputBufferLimits, readQueryFromClient; server.c clientsCron): CLIENT LIST's qbuf,
 * argv-mem, multi-mem, omem and tot-mem, INFO's mem_clients_normal, client_recent_max_*_buffer and
 * clients_in_timeout_table, and the clients closed at client-output-buffer-limit or
 * client-query-buffer-limit, logged and counted as Redis does.
 */
class ClientBuffersTest {
  // held, so that the handlers the tests add stay on the logger the server's class uses
  private static final java.util.logging.Logger LIMITS_LOG =
      java.util.logging.Logger.getLogger("dev.cuckoo.server.command.BufferLimits");
  private static final Simple OK = new Simple("OK");
  private static final long PATIENCE_MILLIS = 10_000;

  /** Returns a CLIENT LIST line's fields by name. */
  private static Map<String, String> fields(String line) {
    Map<String, String> fields = new HashMap<>();
    for (String pair : line.trim().split(" ")) {
      int equals = pair.indexOf('=');
      fields.put(pair.substring(0, equals), pair.substring(equals + 1));
    }
    return fields;
  }

  /** Returns the fields of a client's CLIENT LIST line, or null once it is gone. */
  private static Map<String, String> client(RespClient admin, long id) throws IOException {
    String text = RespClient.text(admin.call("CLIENT", "LIST", "ID", id));
    return text.isBlank() ? null : fields(text);
  }

  private static long number(Map<String, String> fields, String name) {
    return Long.parseLong(fields.get(name));
  }

  private static long info(RespClient client, String field) throws IOException {
    return Long.parseLong(client.infoField(field));
  }

  /** A client whose socket takes little before the server's writes to it back up. */
  private static RespClient smallWindowClient(int port) throws IOException {
    Socket socket = new Socket();
    socket.setReceiveBufferSize(4096);
    socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    return new RespClient(socket);
  }

  private static byte[] header(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] filled(int length) {
    byte[] bytes = new byte[length];
    Arrays.fill(bytes, (byte) 'x');
    return bytes;
  }

  @Test
  void bigCommandStillArriving_showsInQbufArgvMemAndInfo_untilItRuns() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient sender = new RespClient(server.port())) {
      long id = (Long) sender.call("CLIENT", "ID");
      long overheadBefore = info(admin, "used_memory_overhead");
      // CF.ADD key <200000 bytes>, of which only the first half is sent
      sender.sendRaw(header("*3\r\n$6\r\nCF.ADD\r\n$3\r\nkey\r\n$200000\r\n"));
      sender.sendRaw(filled(100_000));
      assertTrue(
          ReplicaState.await(() -> number(client(admin, id), "qbuf") == 100_000, PATIENCE_MILLIS),
          "the half that arrived is held: " + client(admin, id));
      Map<String, String> line = client(admin, id);
      // the arguments already whole: "CF.ADD" and "key"
      assertEquals(9, number(line, "argv-mem"), line.toString());
      assertEquals(
          100_000, number(line, "qbuf-free"), "the argument's array has room for the rest");
      assertTrue(number(line, "tot-mem") >= 200_009, line.toString());
      assertEquals(0, number(line, "omem"), line.toString());
      assertTrue(
          ReplicaState.await(
              () -> info(admin, "client_recent_max_input_buffer") >= 200_000, PATIENCE_MILLIS),
          "INFO's recent maximum input: " + admin.infoField("client_recent_max_input_buffer"));
      assertTrue(
          ReplicaState.await(() -> info(admin, "mem_clients_normal") >= 200_000, PATIENCE_MILLIS),
          "INFO's mem_clients_normal: " + admin.infoField("mem_clients_normal"));
      long overheadDuring = info(admin, "used_memory_overhead");
      assertTrue(
          overheadDuring - overheadBefore >= 190_000,
          "used_memory counts the clients' buffers: " + overheadBefore + " -> " + overheadDuring);
      // the rest arrives: the command runs and its buffers are gone
      sender.sendRaw(filled(100_000));
      sender.sendRaw(header("\r\n"));
      assertEquals(1L, sender.read());
      line = client(admin, id);
      assertEquals(0, number(line, "qbuf"), line.toString());
      assertEquals(0, number(line, "argv-mem"), line.toString());
      assertTrue(
          ReplicaState.await(() -> info(admin, "mem_clients_normal") < 100_000, PATIENCE_MILLIS),
          "INFO's mem_clients_normal after: " + admin.infoField("mem_clients_normal"));
    }
  }

  @Test
  void clientInfo_argvMemIsTheRunningCommand_multiMemTheQueuedOnes() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      long id = (Long) client.call("CLIENT", "ID");
      // as Redis: the running command's arguments, "client" and "info"
      assertEquals(10, number(fields(RespClient.text(client.call("CLIENT", "INFO"))), "argv-mem"));
      assertEquals(OK, client.call("MULTI"));
      byte[] item = filled(1000);
      for (int i = 0; i < 3; i++) {
        assertEquals(new Simple("QUEUED"), client.call("CF.ADD", "k", item));
      }
      // in MULTI, CLIENT INFO is queued too: ask from another connection
      try (RespClient admin = new RespClient(server.port())) {
        Map<String, String> line = client(admin, id);
        // Redis's queueMultiCommand: the arguments' bytes and a pointer per argument
        assertEquals(3 * (6 + 1 + 1000 + 3 * 8), number(line, "multi-mem"), line.toString());
        assertEquals(OK, client.call("DISCARD"));
        assertEquals(0, number(client(admin, id), "multi-mem"));
      }
    }
  }

  @Test
  void queryBufferPastItsLimit_closesTheClient_logsAndCounts() throws Exception {
    List<String> log = ReplicationSyncTest.capture(LIMITS_LOG.getName());
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient sender = new RespClient(server.port())) {
      assertEquals(OK, admin.call("CONFIG", "SET", "client-query-buffer-limit", "1mb"));
      assertEquals(0, info(admin, "client_query_buffer_limit_disconnections"));
      sender.sendRaw(header("*3\r\n$6\r\nCF.ADD\r\n$3\r\nkey\r\n$3000000\r\n"));
      try {
        sender.sendRaw(filled(1_500_000));
      } catch (IOException e) {
        // the server closed the connection before it took everything
      }
      assertTrue(sender.closedByServerAfterReadingAll(), "closed past 1 MiB of query buffer");
      assertEquals(1, info(admin, "client_query_buffer_limit_disconnections"));
      assertTrue(
          log.stream()
              .anyMatch(
                  text ->
                      text.startsWith("Closing client that reached max query buffer length: id=")
                          && text.contains("(qbuf initial bytes: \"xxxx")),
          log.toString());
      assertEquals(
          new Err(
              "ERR CONFIG SET failed (possibly related to argument 'client-query-buffer-limit')"
                  + " - argument must be between 1048576 and 9223372036854775807 inclusive"),
          admin.call("CONFIG", "SET", "client-query-buffer-limit", "1000"));
    }
  }

  @Test
  void subscriberNotReading_omemGrows_thenThePubsubLimitClosesIt() throws Exception {
    List<String> log = ReplicationSyncTest.capture(LIMITS_LOG.getName());
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient subscriber = smallWindowClient(server.port())) {
      assertEquals(OK, admin.call("CONFIG", "SET", "client-output-buffer-limit", "pubsub 4mb 0 0"));
      long id = (Long) subscriber.call("CLIENT", "ID");
      subscriber.send("SUBSCRIBE", "c");
      subscriber.read();
      byte[] payload = filled(64 * 1024);
      long firstSeen = 0;
      long grown = 0;
      for (int published = 0; published < 2048 && grown == 0; published++) {
        if ((Long) admin.call("PUBLISH", "c", payload) == 0) {
          break;
        }
        Map<String, String> line = client(admin, id);
        long omem = line == null ? 0 : number(line, "omem");
        if (firstSeen == 0 && omem > 0) {
          firstSeen = omem;
        } else if (firstSeen > 0 && omem > firstSeen) {
          grown = omem;
          long seen = firstSeen;
          assertTrue(
              ReplicaState.await(
                  () -> info(admin, "client_recent_max_output_buffer") >= seen, 3_000),
              "recent maximum output " + admin.infoField("client_recent_max_output_buffer"));
        }
      }
      assertTrue(grown > firstSeen && firstSeen > 0, "omem " + firstSeen + " then " + grown);
      long receivers = 1;
      for (int published = 0; receivers > 0 && published < 2048; published++) {
        receivers = (Long) admin.call("PUBLISH", "c", payload);
      }
      assertEquals(0, receivers, "the subscriber was closed");
      assertTrue(subscriber.closedByServerAfterReadingAll());
      assertEquals(1, info(admin, "client_output_buffer_limit_disconnections"));
      assertTrue(
          log.stream()
              .anyMatch(
                  text ->
                      text.startsWith("Client id=" + id + " ")
                          && text.contains(" flags=P ")
                          && text.endsWith(
                              " scheduled to be closed ASAP for overcoming of output buffer"
                                  + " limits.")),
          log.toString());
    }
  }

  @Test
  void monitorNotReading_isANormalClient_closedAtTheNormalLimit() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient monitor = smallWindowClient(server.port())) {
      long id = (Long) monitor.call("CLIENT", "ID");
      assertEquals(OK, monitor.call("MONITOR"));
      assertEquals(OK, admin.call("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0"));
      byte[] item = filled(4000);
      boolean closed = false;
      for (int round = 0; round < 5000 && !closed; round++) {
        admin.call("CF.EXISTS", "k", item);
        closed = round % 16 == 0 && client(admin, id) == null;
      }
      assertTrue(closed, "the monitor was closed");
      assertEquals(1, info(admin, "client_output_buffer_limit_disconnections"));
      assertTrue(monitor.closedByServerAfterReadingAll());
    }
  }

  @Test
  void clientNotReading_omemVisible_thenClosedAfterTheSoftLimitsSeconds() throws Exception {
    List<String> log = ReplicationSyncTest.capture(LIMITS_LOG.getName());
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient reader = smallWindowClient(server.port())) {
      long id = (Long) reader.call("CLIENT", "ID");
      byte[] big = filled(100_000);
      Thread sender =
          new Thread(
              () -> {
                try {
                  for (int i = 0; i < 60; i++) {
                    reader.send("ECHO", big);
                  }
                } catch (IOException e) {
                  // closed by the server, as expected
                }
              });
      sender.setDaemon(true);
      sender.start();
      assertTrue(
          ReplicaState.await(
              () -> {
                Map<String, String> line = client(admin, id);
                return line != null && number(line, "omem") > 0 && number(line, "oll") > 0;
              },
              PATIENCE_MILLIS),
          "replies wait in the channel: " + client(admin, id));
      assertTrue(client(admin, id) != null, "no limit by default for normal clients");
      long began = System.nanoTime();
      assertEquals(
          OK, admin.call("CONFIG", "SET", "client-output-buffer-limit", "normal 0 16kb 1"));
      assertTrue(
          ReplicaState.await(() -> client(admin, id) == null, PATIENCE_MILLIS),
          "closed once past the soft limit for more than a second");
      long waitedMillis = (System.nanoTime() - began) / 1_000_000;
      assertTrue(waitedMillis >= 1_000, "the soft limit's second ran out first: " + waitedMillis);
      assertEquals(OK, admin.call("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0"));
      assertEquals(1, info(admin, "client_output_buffer_limit_disconnections"));
      assertTrue(
          log.stream()
              .anyMatch(
                  text ->
                      text.startsWith("Client id=" + id + " ")
                          && text.endsWith(" closed for overcoming of output buffer limits.")),
          log.toString());
      sender.join(PATIENCE_MILLIS);
      assertFalse(sender.isAlive());
    }
  }

  @Test
  void waitWithATimeout_isInTheTimeoutTable_waitWithoutOneIsNot() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port());
        RespClient timed = new RespClient(server.port());
        RespClient forever = new RespClient(server.port())) {
      assertEquals(0, info(admin, "clients_in_timeout_table"));
      timed.send("WAIT", "1", "1500");
      assertTrue(
          ReplicaState.await(() -> info(admin, "blocked_clients") == 1, PATIENCE_MILLIS),
          "WAIT blocks");
      assertEquals(1, info(admin, "clients_in_timeout_table"));
      long foreverId = (Long) forever.call("CLIENT", "ID");
      forever.send("WAIT", "1", "0");
      assertTrue(
          ReplicaState.await(() -> info(admin, "blocked_clients") == 2, PATIENCE_MILLIS),
          "WAIT 1 0 blocks too");
      assertEquals(1, info(admin, "clients_in_timeout_table"), "WAIT 1 0 has no timeout");
      assertEquals(0L, timed.read());
      assertEquals(0, info(admin, "clients_in_timeout_table"));
      assertEquals(1, info(admin, "blocked_clients"));
      assertEquals(1L, admin.call("CLIENT", "KILL", "ID", foreverId));
      assertTrue(
          ReplicaState.await(() -> info(admin, "blocked_clients") == 0, PATIENCE_MILLIS),
          "the killed client is no longer blocked");
    }
  }

  @Test
  void outputBufferLimit_setsTheClassesItNames_andGetShowsAllThree() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port())) {
      assertEquals(
          OK, admin.call("CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 512kb 5"));
      assertEquals(
          OK, admin.call("CONFIG", "SET", "client-output-buffer-limit", "replica 512mb 128mb 30"));
      assertEquals(
          List.of(
              "client-output-buffer-limit",
              "normal 0 0 0 slave 536870912 134217728 30 pubsub 1048576 524288 5"),
          ((List<?>) admin.call("CONFIG", "GET", "client-output-buffer-limit"))
              .stream().map(RespClient::text).toList());
      assertEquals(
          new Err(
              "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit')"
                  + " - Invalid client class specified in buffer limit configuration."),
          admin.call("CONFIG", "SET", "client-output-buffer-limit", "master 1 1 1"));
    }
  }
}
