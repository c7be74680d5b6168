package dev.cuckoo.server;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay between a replica and its master, for link faults: {@link #cut} drops every
 * connection; the master-to-replica direction can be slowed, cut after a number of bytes, or have
 * one byte flipped at a chosen position of a connection.
 */
final class LinkProxy implements Closeable {
  private final ServerSocket listener;
  private final int target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Thread acceptor;
  private volatile long bytesPerSecond = Long.MAX_VALUE;
  private volatile long cutAfter = Long.MAX_VALUE;
  private volatile long flipAt = -1;
  final AtomicLong connections = new AtomicLong();

  LinkProxy(int target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "link-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  /** Slows what the master sends to this many bytes a second (for later connections too). */
  void throttle(long bytesPerSecond) {
    this.bytesPerSecond = bytesPerSecond;
  }

  /** Drops a connection once the master sent it this many bytes (Long.MAX_VALUE: never). */
  void cutAfter(long bytes) {
    this.cutAfter = bytes;
  }

  /** Flips the byte at this position of what the master sends on each connection (-1: none). */
  void flipAt(long position) {
    this.flipAt = position;
  }

  /** Drops every connection now. */
  void cut() {
    for (Socket socket : sockets) {
      closeQuietly(socket);
    }
    sockets.clear();
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket replica = listener.accept();
        Socket master = new Socket(InetAddress.getLoopbackAddress(), target);
        connections.incrementAndGet();
        sockets.add(replica);
        sockets.add(master);
        pump(replica.getInputStream(), master.getOutputStream(), false, replica, master);
        pump(master.getInputStream(), replica.getOutputStream(), true, replica, master);
      } catch (IOException e) {
        // closed
      }
    }
  }

  private void pump(InputStream in, OutputStream out, boolean fromMaster, Socket a, Socket b) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[8192];
              long sent = 0;
              try {
                int n;
                while ((n = in.read(buffer, 0, fromMaster ? chunk() : buffer.length)) > 0) {
                  if (fromMaster) {
                    long flip = flipAt;
                    if (flip >= sent && flip < sent + n) {
                      buffer[(int) (flip - sent)] ^= 0x5a;
                    }
                    if (sent + n > cutAfter) {
                      out.write(buffer, 0, (int) Math.max(0, cutAfter - sent));
                      out.flush();
                      break;
                    }
                    pace(n);
                  }
                  out.write(buffer, 0, n);
                  out.flush();
                  sent += n;
                }
              } catch (IOException e) {
                // one side closed
              } finally {
                closeQuietly(a);
                closeQuietly(b);
              }
            },
            "link-proxy-pump");
    thread.setDaemon(true);
    thread.start();
  }

  private int chunk() {
    return (int) Math.min(8192, Math.max(1, bytesPerSecond / 20));
  }

  private void pace(int bytes) {
    long rate = bytesPerSecond;
    if (rate == Long.MAX_VALUE) {
      return;
    }
    try {
      Thread.sleep(Math.max(1, bytes * 1000L / rate));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // closing
    }
  }

  @Override
  public void close() {
    try {
      listener.close();
    } catch (IOException e) {
      // closing
    }
    cut();
  }
}
