package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONFIG SET port, bind and appendonly at run time, as Redis's config.c applies them (updatePort,
 * applyBind, updateAppendonly): the listener moves, or stays where it was with Redis's error; the
 * log is turned on with a fresh snapshot, or off.
 */
class ConfigSetAtRunTimeTest {
  private static final Simple OK = new Simple("OK");
  private static final Simple PONG = new Simple("PONG");

  @TempDir Path dir;

  private static Err configFailed(String name, String reason) {
    return new Err(
        "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + reason);
  }

  private static String configValue(RespClient client, String name) throws IOException {
    return RespClient.text(((List<?>) client.call("CONFIG", "GET", name)).get(1));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static boolean accepts(String host, int port) {
    try (Socket socket = new Socket(host, port)) {
      return socket.isConnected();
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void configSetPort_freePort_movesTheListenerAndKeepsConnections() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      int old = server.port();
      int port = freePort();
      assertEquals(OK, client.call("CONFIG", "SET", "port", Integer.toString(port)));
      assertEquals(Integer.toString(port), configValue(client, "port"));
      assertEquals(port, server.port());
      assertEquals(PONG, client.call("PING"), "a connection made before stays");
      assertThrows(ConnectException.class, () -> new RespClient(old).close(), "old port closed");
      try (RespClient moved = new RespClient(port)) {
        assertEquals(PONG, moved.call("PING"));
        assertEquals(Integer.toString(port), moved.infoField("tcp_port"));
      }
    }
  }

  @Test
  void configSetPort_portInUse_answersRedisErrorAndKeepsTheOldListener() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port());
        ServerSocket taken = new ServerSocket(0)) {
      int old = server.port();
      assertEquals(
          configFailed("port", "Unable to listen on this port. Check server logs."),
          client.call(
              "CONFIG", "SET", "port", Integer.toString(taken.getLocalPort()), "timeout", "7"));
      assertEquals(Integer.toString(old), configValue(client, "port"));
      assertEquals("0", configValue(client, "timeout"), "a failed SET applies nothing");
      try (RespClient again = new RespClient(old)) {
        assertEquals(PONG, again.call("PING"), "the old port listens again");
      }
      assertEquals(
          configFailed("port", "argument must be between 0 and 65535 inclusive"),
          client.call("CONFIG", "SET", "port", "65536"));
    }
  }

  @Test
  void configSetBind_otherLoopbackAddress_listensThereOnly() throws IOException {
    try (CuckooServer server =
            CuckooServer.start(TestServers.memoryOnly().bind("127.0.0.1").build());
        RespClient client = new RespClient(server.port())) {
      int port = server.port();
      assertEquals(OK, client.call("CONFIG", "SET", "bind", "127.0.0.2"));
      assertEquals("127.0.0.2", configValue(client, "bind"));
      assertTrue(accepts("127.0.0.2", port), "listening on the new address");
      assertTrue(!accepts("127.0.0.1", port), "not on the old one");

      // TEST-NET-1 (RFC 5737) is no address of this host
      assertEquals(
          configFailed("bind", "Failed to bind to specified addresses."),
          client.call("CONFIG", "SET", "bind", "192.0.2.1"));
      assertEquals("127.0.0.2", configValue(client, "bind"));
      assertTrue(accepts("127.0.0.2", port), "the old address listens again");
    }
  }

  @Test
  void bind_severalAddresses_listensOnEachAndMovesThemTogether() throws IOException {
    try (CuckooServer server =
            CuckooServer.start(TestServers.memoryOnly().bind("127.0.0.1 127.0.0.2").build());
        RespClient client = new RespClient(server.port())) {
      int port = server.port();
      assertTrue(accepts("127.0.0.1", port), "first address");
      assertTrue(accepts("127.0.0.2", port), "second address, same port");
      assertEquals("127.0.0.1 127.0.0.2", configValue(client, "bind"));

      assertEquals(OK, client.call("CONFIG", "SET", "bind", "127.0.0.1 127.0.0.3"));
      assertTrue(accepts("127.0.0.3", port), "the new address");
      assertTrue(!accepts("127.0.0.2", port), "not the dropped one");
      assertEquals(
          configFailed("bind", "Too many bind addresses specified."),
          client.call("CONFIG", "SET", "bind", "127.0.0.1 ".repeat(17).trim()));
      // one address this host lacks fails the whole list; the old list listens again
      assertEquals(
          configFailed("bind", "Failed to bind to specified addresses."),
          client.call("CONFIG", "SET", "bind", "127.0.0.4 192.0.2.1"));
      assertTrue(accepts("127.0.0.3", port), "the old addresses listen again");
      assertTrue(!accepts("127.0.0.4", port), "nothing left on the failed list's first address");
      assertEquals("127.0.0.1 127.0.0.3", configValue(client, "bind"));
    }
  }

  @Test
  void bind_dashedAddressThisHostLacks_isSkipped() throws IOException {
    // TEST-NET-1 (RFC 5737) is no address of this host: optional with "-", fatal without
    try (CuckooServer server =
            CuckooServer.start(TestServers.memoryOnly().bind("127.0.0.1 -192.0.2.1").build());
        RespClient client = new RespClient(server.port())) {
      assertEquals(PONG, client.call("PING"));
    }
    assertThrows(
        IOException.class,
        () -> CuckooServer.start(TestServers.memoryOnly().bind("127.0.0.1 192.0.2.1").build()));
  }

  /** Starts a server over a copy of the data directory as it is now and runs {@code check}. */
  private void restartFromCopy(String name, ThrowingCheck check) throws Exception {
    Path copy = dir.resolveSibling(dir.getFileName() + "-" + name);
    Files.createDirectories(copy);
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Files.copy(file, copy.resolve(file.getFileName()));
      }
    }
    try (CuckooServer restarted =
            CuckooServer.start(TestServers.memoryOnly().appendOnly(true).dir(copy).build());
        RespClient client = new RespClient(restarted.port())) {
      check.run(client);
    }
  }

  @FunctionalInterface
  private interface ThrowingCheck {
    void run(RespClient client) throws Exception;
  }

  /*
   * config.c updateAppendonly: yes starts the log with a rewrite of the data as it is (aof.c
   * startAppendOnly), no stops logging (stopAppendOnly); INFO aof_enabled follows.
   */
  @Test
  void configSetAppendonly_onThenOff_snapshotsThenLogsThenStopsLogging() throws Exception {
    try (CuckooServer server = CuckooServer.start(TestServers.memoryOnly().dir(dir).build());
        RespClient client = new RespClient(server.port())) {
      client.call("CF.ADD", "k", "before");
      assertEquals("0", client.infoField("aof_enabled"));
      assertEquals(OK, client.call("CONFIG", "SET", "appendonly", "yes", "appendfsync", "always"));
      assertEquals("yes", configValue(client, "appendonly"));
      assertEquals("1", client.infoField("aof_enabled"));
      assertTrue(Files.exists(dir.resolve("dump.cuckoo")), "a snapshot of the keys as they were");
      client.call("CF.ADD", "k", "logged");
      restartFromCopy(
          "on",
          copy -> {
            assertEquals(1L, copy.call("CF.EXISTS", "k", "before"), "from the snapshot");
            assertEquals(1L, copy.call("CF.EXISTS", "k", "logged"), "from the log");
          });

      assertEquals(OK, client.call("CONFIG", "SET", "appendonly", "no"));
      assertEquals("no", configValue(client, "appendonly"));
      assertEquals("0", client.infoField("aof_enabled"));
      client.call("CF.ADD", "k", "unlogged");
      restartFromCopy(
          "off",
          copy -> {
            assertEquals(1L, copy.call("CF.EXISTS", "k", "logged"));
            assertEquals(0L, copy.call("CF.EXISTS", "k", "unlogged"), "no longer logged");
          });
      assertEquals(OK, client.call("CONFIG", "SET", "appendonly", "no"), "already off");
    }
  }

  @Test
  void configSetAppendonly_dataDirectoryUnwritable_answersRedisErrorAndStaysOff() throws Exception {
    Path data = dir.resolve("data");
    try (CuckooServer server = CuckooServer.start(TestServers.memoryOnly().dir(data).build());
        RespClient client = new RespClient(server.port())) {
      // the data directory (empty: nothing saved) becomes a file
      Files.delete(data);
      Files.writeString(data, "x");
      assertEquals(
          configFailed("appendonly", "Unable to turn on AOF. Check server logs."),
          client.call("CONFIG", "SET", "appendonly", "yes"));
      assertEquals("no", configValue(client, "appendonly"));
      assertEquals(1L, client.call("CF.ADD", "k", "a"), "writes go on");
    }
  }

  @Test
  void configSetSave_savePoints_appliedOrRedisError() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("CONFIG", "SET", "save", "3600 1"));
      assertEquals("3600 1", configValue(client, "save"));
      assertEquals(
          configFailed("save", "Invalid save parameters"),
          client.call("CONFIG", "SET", "save", "3600 x"));
      assertEquals("3600 1", configValue(client, "save"));
    }
  }
}
