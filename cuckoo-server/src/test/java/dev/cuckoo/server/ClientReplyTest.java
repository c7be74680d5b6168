package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * CLIENT REPLY ON|OFF|SKIP as Redis's networking.c has it, read byte for byte from a raw socket:
 * OFF silences every reply (errors included, still counted in errorstats) until ON, which is
 * answered; SKIP silences the next command's reply only and is ignored while OFF; OFF and SKIP are
 * not answered themselves. Silenced writes are still applied and logged.
 */
class ClientReplyTest {
  /** Sends {@code commands} then PING in one write, and returns every byte up to the PONG. */
  private static String pipeline(int port, String[]... commands) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(10_000);
      ByteArrayOutputStream request = new ByteArrayOutputStream();
      for (String[] command : commands) {
        request.writeBytes(RespClient.encode((Object[]) command));
      }
      request.writeBytes(RespClient.encode("PING"));
      OutputStream out = socket.getOutputStream();
      out.write(request.toByteArray());
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      while (!received.toString(StandardCharsets.US_ASCII).endsWith("+PONG\r\n")) {
        int b = in.read();
        if (b < 0) {
          break;
        }
        received.write(b);
      }
      return received.toString(StandardCharsets.US_ASCII);
    }
  }

  private static String[] cmd(String... args) {
    return args;
  }

  @Test
  void off_silencesRepliesAndErrors_untilOn_whichIsAnswered() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port())) {
      String replies =
          pipeline(
              server.port(),
              cmd("CLIENT", "REPLY", "OFF"),
              cmd("CF.ADD", "k", "a"),
              cmd("CF.EXISTS", "k", "a"),
              cmd("NOSUCHCOMMAND"),
              cmd("CLIENT", "REPLY", "SKIP"),
              cmd("CLIENT", "REPLY", "ON"),
              cmd("CF.EXISTS", "k", "a"));
      // SKIP while OFF is ignored (Redis), so the EXISTS after ON is answered
      assertEquals("+OK\r\n:1\r\n+PONG\r\n", replies);
      assertEquals(1L, admin.call("CF.EXISTS", "k", "a"));
      assertEquals("1", errorstat(admin, "errorstat_ERR"));
    }
  }

  @Test
  void skip_silencesTheNextReplyOnly() throws IOException {
    try (CuckooServer server = TestServers.start()) {
      String replies =
          pipeline(
              server.port(),
              cmd("CLIENT", "REPLY", "SKIP"),
              cmd("CF.ADD", "k", "a"),
              cmd("CF.EXISTS", "k", "a"),
              cmd("CLIENT", "REPLY", "SKIP"),
              cmd("CLIENT", "REPLY", "FOO"),
              cmd("CLIENT", "REPLY", "FOO"),
              cmd("CLIENT", "REPLY", "SKIP"),
              cmd("SAVE"),
              cmd("CLIENT", "REPLY", "SKIP"),
              cmd("CLIENT", "REPLY", "ON"));
      // a SKIP followed by ON: ON clears the skip and is answered, as in Redis
      assertEquals(":1\r\n-ERR syntax error\r\n+OK\r\n+PONG\r\n", replies);
    }
  }

  @Test
  void silencedWrites_areLoggedAndSurviveARestart() throws IOException {
    Path dir = TestServers.freshDataDir();
    ServerConfig config = TestServers.memoryOnly().appendOnly(true).dir(dir).build();
    try (CuckooServer server = CuckooServer.start(config)) {
      String replies =
          pipeline(
              server.port(),
              cmd("CLIENT", "REPLY", "OFF"),
              cmd("CF.ADD", "k", "a"),
              cmd("CF.ADD", "k", "b"),
              cmd("CLIENT", "REPLY", "ON"),
              cmd("CLIENT", "REPLY", "SKIP"),
              cmd("CF.ADD", "k", "c"),
              cmd("CF.ADD", "k", "d"));
      assertEquals("+OK\r\n:1\r\n+PONG\r\n", replies);
    }
    try (CuckooServer server = CuckooServer.start(config);
        RespClient client = new RespClient(server.port())) {
      for (String item : new String[] {"a", "b", "c", "d"}) {
        assertEquals(1L, client.call("CF.EXISTS", "k", item), item);
      }
    }
  }

  /** Returns the count of an INFO errorstats line ({@code name:count=N}). */
  private static String errorstat(RespClient client, String name) throws IOException {
    for (String line : RespClient.text(client.call("INFO", "errorstats")).split("\r\n")) {
      if (line.startsWith(name + ":count=")) {
        return line.substring(name.length() + ":count=".length());
      }
    }
    throw new AssertionError("no errorstats line " + name);
  }
}
