package dev.cuckoo.server.migrate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The source's side of MIGRATE against scripted targets: retries, SELECT, partial answers. */
class TransferTest {
  private static final byte[] PAYLOAD = {1, 2, 3};

  /**
   * A target that answers each connection's pipelined commands (sent in one write) with {@code
   * replies} at once, then closes the connection if {@code closeAfter}.
   */
  private static void target(
      ServerSocket server, AtomicInteger connections, List<String> replies, boolean closeAfter) {
    Thread thread =
        new Thread(
            () -> {
              try {
                while (true) {
                  Socket socket = server.accept();
                  connections.incrementAndGet();
                  InputStream in = socket.getInputStream();
                  if (in.read() < 0) {
                    continue;
                  }
                  Thread.sleep(50);
                  in.readNBytes(in.available());
                  OutputStream out = socket.getOutputStream();
                  out.write(
                      (String.join("\r\n", replies) + "\r\n").getBytes(StandardCharsets.UTF_8));
                  out.flush();
                  if (closeAfter) {
                    socket.close();
                  }
                }
              } catch (IOException | InterruptedException stopped) {
                // the test is over
              }
            });
    thread.setDaemon(true);
    thread.start();
  }

  private static Transfer.Batch batch(int port, int keys, String password) {
    List<byte[]> restores =
        java.util.stream.IntStream.range(0, keys)
            .mapToObj(i -> Transfer.restore(false, ("k" + i).getBytes(), 0, PAYLOAD, false))
            .toList();
    return new Transfer.Batch(
        "127.0.0.1",
        Integer.toString(port),
        0,
        2000,
        null,
        password == null ? null : password.getBytes(StandardCharsets.UTF_8),
        restores);
  }

  @Test
  void run_cachedConnectionClosedByTheTarget_retriedOnceOnANewOne() throws Exception {
    AtomicInteger connections = new AtomicInteger();
    try (ServerSocket server = new ServerSocket(0);
        TargetSockets sockets = new TargetSockets()) {
      target(server, connections, List.of("+OK", "+OK"), true);
      Transfer.Outcome first = Transfer.run(sockets, batch(server.getLocalPort(), 1, null));
      assertNull(first.error());
      assertEquals(1, sockets.size(), "kept for the next MIGRATE");
      Thread.sleep(100);
      // the target closed that connection: the next exchange fails to read, and tries again
      Transfer.Outcome second = Transfer.run(sockets, batch(server.getLocalPort(), 1, null));
      assertNull(second.error(), "answered on a new connection");
      assertArrayEquals(new boolean[] {true}, second.restored());
      assertEquals(2, connections.get());
    }
  }

  @Test
  void run_errorOnAuth_noKeyAcknowledged_targetsErrorAnswered() throws Exception {
    AtomicInteger connections = new AtomicInteger();
    try (ServerSocket server = new ServerSocket(0);
        TargetSockets sockets = new TargetSockets()) {
      target(
          server,
          connections,
          List.of("-WRONGPASS invalid username-password pair", "-NOAUTH x", "-NOAUTH x", "+OK"),
          false);
      Transfer.Outcome outcome = Transfer.run(sockets, batch(server.getLocalPort(), 2, "pw"));
      assertEquals(
          "ERR Target instance replied with error: WRONGPASS invalid username-password pair",
          outcome.error());
      assertArrayEquals(new boolean[] {false, false}, outcome.restored());
    }
  }

  @Test
  void run_oneRestoreRefused_theOthersAcknowledged() throws Exception {
    AtomicInteger connections = new AtomicInteger();
    try (ServerSocket server = new ServerSocket(0);
        TargetSockets sockets = new TargetSockets()) {
      target(
          server,
          connections,
          List.of("+OK", "+OK", "-BUSYKEY Target key name already exists.", "+OK"),
          false);
      Transfer.Outcome outcome = Transfer.run(sockets, batch(server.getLocalPort(), 3, null));
      assertEquals(
          "ERR Target instance replied with error: BUSYKEY Target key name already exists.",
          outcome.error());
      assertArrayEquals(new boolean[] {true, false, true}, outcome.restored());
    }
  }
}
