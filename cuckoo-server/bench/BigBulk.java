import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One big request against a Redis-protocol server, and how long another client waits meanwhile.
 *
 * <p>Sends {@code ECHO <bulk of N MiB>} on one connection, reads the echoed bulk back, and prints
 * the time from the first byte sent to the last byte received. A second connection sends PING
 * after PING during that time (each after the previous PONG) and the largest PING round trip is
 * printed too: it shows whether the big request starves other clients. It is printed twice: over
 * the whole exchange, and over the PINGs answered before the last request byte was written, so
 * while the server was receiving and decoding the request (executing ECHO, which copies the
 * bulk into the reply, can only start after that).
 *
 * <p>Run as a single-file program (no build): {@code java BigBulk.java PORT [MiB]}; prints one
 * line {@code total_ms=... ping_max_ms=... ping_max_upload_ms=... pings=...}. Used by
 * {@code big-bulk.sh}.
 */
public final class BigBulk {
  private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] PONG = "+PONG\r\n".getBytes(StandardCharsets.US_ASCII);

  private BigBulk() {}

  /** Runs one measurement: {@code PORT [MiB]} (default 400 MiB) on 127.0.0.1. */
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    long size = (args.length > 1 ? Long.parseLong(args[1]) : 400) << 20;
    InetAddress host = InetAddress.getLoopbackAddress();
    AtomicBoolean uploading = new AtomicBoolean(true);
    AtomicBoolean done = new AtomicBoolean();
    long[] pingResult = new long[3]; // max round trip in ns, the same while uploading, count
    try (Socket big = new Socket(host, port); Socket pinger = new Socket(host, port)) {
      big.setTcpNoDelay(true);
      pinger.setTcpNoDelay(true);
      Thread pingThread =
          new Thread(() -> ping(pinger, uploading, done, pingResult), "pinger");
      pingThread.start();
      Thread.sleep(200); // let the pinger reach steady state before the big request starts
      long start = System.nanoTime();
      send(big.getOutputStream(), size);
      uploading.set(false);
      readEcho(new BufferedInputStream(big.getInputStream(), 1 << 16), size);
      long totalNanos = System.nanoTime() - start;
      done.set(true);
      pingThread.join();
      System.out.printf("total_ms=%d ping_max_ms=%d ping_max_upload_ms=%d pings=%d%n",
          totalNanos / 1_000_000, pingResult[0] / 1_000_000, pingResult[1] / 1_000_000,
          pingResult[2]);
    }
  }

  private static void ping(Socket socket, AtomicBoolean uploading, AtomicBoolean done,
      long[] result) {
    try {
      OutputStream out = socket.getOutputStream();
      InputStream in = socket.getInputStream();
      byte[] reply = new byte[PONG.length];
      while (!done.get()) {
        long start = System.nanoTime();
        out.write(PING);
        out.flush();
        if (in.readNBytes(reply, 0, reply.length) != reply.length) {
          throw new IOException("connection closed");
        }
        long roundTrip = System.nanoTime() - start;
        result[0] = Math.max(result[0], roundTrip);
        if (uploading.get()) {
          result[1] = Math.max(result[1], roundTrip);
        }
        result[2]++;
        if (!java.util.Arrays.equals(reply, PONG)) {
          throw new IOException("unexpected reply to PING");
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Writes ECHO with a bulk of {@code size} bytes, 1 MiB per write (bytes i % 251). */
  private static void send(OutputStream out, long size) throws IOException {
    out.write(("*2\r\n$4\r\nECHO\r\n$" + size + "\r\n").getBytes(StandardCharsets.US_ASCII));
    byte[] chunk = new byte[1 << 20];
    for (int i = 0; i < chunk.length; i++) {
      chunk[i] = (byte) (i % 251);
    }
    for (long sent = 0; sent < size; sent += chunk.length) {
      out.write(chunk, 0, (int) Math.min(chunk.length, size - sent));
    }
    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** Reads the echoed bulk and checks its length and (spot checks) its content. */
  private static void readEcho(InputStream in, long size) throws IOException {
    String header = line(in);
    if (!header.equals("$" + size)) {
      throw new IOException("unexpected reply: " + header);
    }
    byte[] chunk = new byte[1 << 20];
    for (long read = 0; read < size; ) {
      int n = in.read(chunk, 0, (int) Math.min(chunk.length, size - read));
      if (n < 0) {
        throw new IOException("connection closed after " + read + " bytes");
      }
      for (int i : new int[] {0, n - 1}) { // spot checks: a full compare would cost client CPU
        if (chunk[i] != (byte) (((read + i) % (1 << 20)) % 251)) {
          throw new IOException("wrong byte at " + (read + i));
        }
      }
      read += n;
    }
    if (!line(in).isEmpty()) {
      throw new IOException("bulk not followed by CRLF");
    }
  }

  private static String line(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != '\r') {
      if (c < 0) {
        throw new IOException("connection closed");
      }
      line.append((char) c);
    }
    in.read();
    return line.toString();
  }
}
