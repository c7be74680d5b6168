package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.tls.Tls;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a TLS port does with clients that do not finish a handshake: random bytes, plaintext,
 * handshakes cut short and closed, and half-open connections that send part of a ClientHello and
 * wait. The server answers none of them, closes each (the half-open ones at the handshake timeout),
 * keeps serving real clients meanwhile, counts no connection once they are gone, and holds a
 * bounded amount of heap per waiting connection. The seed is printed so a failure replays.
 */
@ExtendWith(LeakCheck.class)
class TlsFuzzTest {
  /** Heap a half-open TLS connection may hold on the server (measured: about 9 KiB). */
  private static final long MAX_HEAP_PER_CONNECTION = 64 * 1024;

  @Test
  void randomBytesTruncatedAndHalfOpenHandshakes_closedWithoutCrashOrLeak() throws Exception {
    fuzz(100, 40);
  }

  @Test
  @Tag("slow")
  void thousandHalfOpenHandshakes_boundedAndClosed() throws Exception {
    fuzz(1000, 200);
  }

  private static void fuzz(int halfOpen, int closedEarly) throws Exception {
    long seed = System.nanoTime();
    System.out.println("TlsFuzzTest seed " + seed);
    Random random = new Random(seed);
    TestCertificates certificates = TestCertificates.get();
    byte[] hello = clientHello(certificates.clientContext("client"));
    try (CuckooServer server =
            CuckooServer.start(certificates.tlsOnly().set("maxclients", "5000").build());
        RespClient admin = new RespClient(certificates.connect(server.tlsPort(), "client"))) {
      int port = server.tlsPort();
      // garbage, plaintext and handshakes cut short, each closed by the client at once
      for (int i = 0; i < closedEarly; i++) {
        byte[] bytes =
            switch (i % 4) {
              case 0 -> randomBytes(random, 1 + random.nextInt(4096));
              case 1 -> tlsHeaderThenGarbage(random);
              case 2 ->
                  "PING\r\n*1\r\n$4\r\nPING\r\n"
                      .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
              default -> Arrays.copyOf(hello, 1 + random.nextInt(hello.length - 1));
            };
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
          socket.getOutputStream().write(bytes);
          socket.getOutputStream().flush();
        }
      }
      // half-open: part of a ClientHello, then silence
      System.gc();
      long heapBefore = usedHeap();
      List<Socket> waiting = new ArrayList<>();
      try {
        for (int i = 0; i < halfOpen; i++) {
          Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
          socket.getOutputStream().write(hello, 0, 1 + random.nextInt(hello.length - 1));
          socket.getOutputStream().flush();
          waiting.add(socket);
        }
        // the server serves a real client meanwhile
        assertEquals(new RespClient.Simple("PONG"), admin.call("PING"));
        assertTrue(
            ReplicaState.await(() -> clients(admin) >= halfOpen, 10_000),
            "the half-open connections were not all accepted: " + clients(admin));
        System.gc();
        long perConnection = (usedHeap() - heapBefore) / halfOpen;
        System.out.println(
            "TlsFuzzTest: "
                + halfOpen
                + " half-open TLS connections, ~"
                + perConnection
                + " bytes of heap each");
        assertTrue(
            perConnection < MAX_HEAP_PER_CONNECTION,
            perConnection + " bytes of heap per half-open connection");
        long deadline = System.currentTimeMillis() + Tls.HANDSHAKE_TIMEOUT_MILLIS + 15_000;
        for (Socket socket : waiting) {
          assertTrue(closedByServer(socket, deadline), "a half-open connection stayed open");
        }
      } finally {
        for (Socket socket : waiting) {
          socket.close();
        }
      }
      assertTrue(
          ReplicaState.await(() -> clients(admin) == 1, 10_000),
          "connections left after the fuzz: " + clients(admin));
      assertEquals(1L, admin.call("CF.ADD", "after-fuzz", "x"));
    }
  }

  private static long clients(RespClient admin) throws IOException {
    for (String line : RespClient.text(admin.call("INFO", "clients")).split("\r\n")) {
      if (line.startsWith("connected_clients:")) {
        return Long.parseLong(line.substring("connected_clients:".length()));
      }
    }
    return -1;
  }

  private static long usedHeap() {
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }

  /** Returns true once the server closed the socket without sending a byte, before the deadline. */
  private static boolean closedByServer(Socket socket, long deadline) throws IOException {
    InputStream in = socket.getInputStream();
    while (System.currentTimeMillis() < deadline) {
      socket.setSoTimeout((int) Math.max(1, Math.min(1000, deadline - System.currentTimeMillis())));
      try {
        int read = in.read();
        // the server may answer a partial ClientHello with an alert before closing
        while (read >= 0) {
          read = in.read();
        }
        return true;
      } catch (SocketTimeoutException stillOpen) {
        // wait on
      } catch (IOException reset) {
        return true;
      }
    }
    return false;
  }

  private static byte[] randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  /** A TLS handshake record header with a random length, then random bytes. */
  private static byte[] tlsHeaderThenGarbage(Random random) {
    byte[] bytes = randomBytes(random, 5 + random.nextInt(2048));
    bytes[0] = 0x16;
    bytes[1] = 0x03;
    bytes[2] = (byte) random.nextInt(4);
    return bytes;
  }

  /** Returns the bytes of a real ClientHello record as the JDK's client sends it. */
  private static byte[] clientHello(SSLContext context) throws Exception {
    SSLEngine engine = context.createSSLEngine("localhost", 0);
    engine.setUseClientMode(true);
    ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    engine.wrap(ByteBuffer.allocate(0), out);
    out.flip();
    byte[] hello = new byte[out.remaining()];
    out.get(hello);
    return hello;
  }
}
