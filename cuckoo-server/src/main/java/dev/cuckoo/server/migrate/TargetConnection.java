package dev.cuckoo.server.migrate;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * A connection to a MIGRATE target with Redis's synchronous I/O: each write and each reply line
 * waits at most the call's timeout ({@code syncio.c}), on a non-blocking socket, so a target that
 * accepts and never reads or answers cannot hold the caller longer.
 *
 * <p>As Redis's blocking connect, {@link #open} fails only when no socket can be made for the
 * address (a host that does not resolve): a connection the target refuses, or one that does not
 * complete in time, opens and fails at its first write, which is why Redis answers "writing" for a
 * closed port. Not thread-safe: one migration uses it at a time.
 */
public final class TargetConnection implements AutoCloseable {
  /** The longest reply line read (Redis reads into 1 KiB; longer lines are cut there). */
  private static final int MAX_LINE = 64 * 1024;

  private static final int SHOWN_LINE = 1023;

  private final SocketChannel channel;
  private final Selector selector;
  private final ByteBuffer input = ByteBuffer.allocate(16 * 1024).flip();
  // why the connect did not complete (thrown at the first write), or null
  private IOException connectFailure;
  private long lastDb = -1;
  private long lastUseMillis;

  private TargetConnection(SocketChannel channel, Selector selector) {
    this.channel = channel;
    this.selector = selector;
  }

  /**
   * Connects to {@code host}:{@code port}, waiting at most {@code timeoutMillis} for the connect.
   *
   * @throws UnknownHostException if the host does not resolve (Redis: "connecting to the client")
   * @throws IOException if no socket can be made for the address
   */
  public static TargetConnection open(String host, int port, long timeoutMillis)
      throws IOException {
    InetAddress address = InetAddress.getByName(host);
    if (port < 0 || port > 65535) {
      throw new IOException("port: " + port + " (expected: 0..65535)");
    }
    SocketChannel channel = SocketChannel.open();
    Selector selector = null;
    try {
      channel.configureBlocking(false);
      channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      selector = Selector.open();
      TargetConnection connection = new TargetConnection(channel, selector);
      if (!channel.connect(new InetSocketAddress(address, port))) {
        connection.finishConnect(timeoutMillis);
      }
      return connection;
    } catch (IOException | RuntimeException e) {
      channel.close();
      if (selector != null) {
        selector.close();
      }
      throw e;
    }
  }

  private void finishConnect(long timeoutMillis) throws IOException {
    try {
      if (!await(SelectionKey.OP_CONNECT, timeoutMillis)) {
        connectFailure = new SocketTimeoutException("connect timed out");
        return;
      }
      if (!channel.finishConnect()) {
        connectFailure = new SocketTimeoutException("connect timed out");
      }
    } catch (IOException refused) {
      connectFailure = refused;
    }
  }

  /** Waits at most {@code timeoutMillis} for the socket to be ready for {@code op}. */
  private boolean await(int op, long timeoutMillis) throws IOException {
    SelectionKey key = channel.register(selector, op);
    try {
      long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
      while (true) {
        long left = (deadline - System.nanoTime()) / 1_000_000L;
        if (left <= 0) {
          return false;
        }
        if (Thread.currentThread().isInterrupted()) {
          // the server is stopping
          throw new java.io.InterruptedIOException("interrupted");
        }
        if (selector.select(left) > 0) {
          selector.selectedKeys().clear();
          return true;
        }
      }
    } finally {
      key.interestOps(0);
    }
  }

  /**
   * Writes {@code length} bytes of {@code bytes} from {@code offset} within {@code timeoutMillis}
   * for the whole call, as Redis's syncWrite.
   *
   * @throws SocketTimeoutException if the time ran out
   * @throws IOException if the connect failed or the socket did
   */
  public void write(byte[] bytes, int offset, int length, long timeoutMillis) throws IOException {
    if (connectFailure != null) {
      throw connectFailure;
    }
    ByteBuffer out = ByteBuffer.wrap(bytes, offset, length);
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
    while (out.hasRemaining()) {
      if (channel.write(out) == 0) {
        long left = (deadline - System.nanoTime()) / 1_000_000L;
        if (left <= 0 || !await(SelectionKey.OP_WRITE, left)) {
          throw new SocketTimeoutException("write timed out");
        }
      }
    }
  }

  /**
   * Reads one reply line within {@code timeoutMillis}, without its CRLF (at most 1023 bytes kept,
   * as Redis's 1 KiB buffer).
   *
   * @throws SocketTimeoutException if the time ran out
   * @throws EOFException if the target closed the connection
   * @throws IOException if the socket failed or the line is longer than 64 KiB
   */
  public String readLine(long timeoutMillis) throws IOException {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
    java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
    while (true) {
      while (input.hasRemaining()) {
        byte b = input.get();
        if (b == '\n') {
          byte[] bytes = line.toByteArray();
          int end =
              bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
          return new String(bytes, 0, Math.min(end, SHOWN_LINE), StandardCharsets.UTF_8);
        }
        if (line.size() == MAX_LINE) {
          throw new IOException("reply line: longer than " + MAX_LINE + " bytes");
        }
        line.write(b);
      }
      input.clear();
      int read = channel.read(input);
      input.flip();
      if (read < 0) {
        throw new EOFException("the target closed the connection");
      }
      if (read == 0) {
        long left = (deadline - System.nanoTime()) / 1_000_000L;
        if (left <= 0 || !await(SelectionKey.OP_READ, left)) {
          throw new SocketTimeoutException("read timed out");
        }
      }
    }
  }

  /** Returns the database the target has selected on this connection, or -1 if unknown. */
  public long lastDb() {
    return lastDb;
  }

  /** Notes the database the target has selected on this connection (-1: unknown). */
  public void lastDb(long db) {
    lastDb = db;
  }

  /**
   * Returns when the connection was last taken for a migration (milliseconds of the cache's clock).
   */
  long lastUseMillis() {
    return lastUseMillis;
  }

  /** Notes when the connection was last taken for a migration. */
  void lastUseMillis(long millis) {
    lastUseMillis = millis;
  }

  @Override
  public void close() {
    try {
      selector.close();
    } catch (IOException e) {
      // nothing left to release
    }
    try {
      channel.close();
    } catch (IOException e) {
      // nothing left to release
    }
  }

  @Override
  public String toString() {
    return "migrate connection " + channel;
  }
}
