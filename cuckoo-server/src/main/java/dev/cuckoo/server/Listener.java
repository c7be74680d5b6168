package dev.cuckoo.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;

/**
 * The server's listening socket, which CONFIG SET port and bind move at run time as Redis's
 * changeListener does: the old socket is closed, the new address bound, and if that fails the old
 * address is bound again. Connections already accepted are not affected.
 */
final class Listener {
  private static final System.Logger LOGGER = System.getLogger(Listener.class.getName());

  private final ServerBootstrap bootstrap;
  private volatile Channel channel;
  private volatile InetSocketAddress address;

  /**
   * Binds {@code address} with the bootstrap.
   *
   * @throws RuntimeException or an undeclared BindException (Netty rethrows the cause) if it cannot
   *     be bound
   */
  Listener(ServerBootstrap bootstrap, InetSocketAddress address) {
    this.bootstrap = bootstrap;
    this.address = address;
    this.channel = bootstrap.bind(address).syncUninterruptibly().channel();
  }

  /** Returns the address asked for (its host may be a wildcard; see {@link #port}). */
  InetSocketAddress address() {
    return address;
  }

  /** Returns the port actually bound (the one chosen for port 0). */
  int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  /**
   * Moves the listener to {@code bind:port}; returns false, listening on the old address again, if
   * the new one cannot be bound.
   */
  synchronized boolean moveTo(String bind, int port) {
    InetSocketAddress wanted = new InetSocketAddress(bind, port);
    if (wanted.isUnresolved()) {
      LOGGER.log(Level.WARNING, "cannot listen on {0}:{1}: unknown host", bind, port);
      return false;
    }
    Channel old = channel;
    InetSocketAddress oldBound = new InetSocketAddress(address.getAddress(), port());
    old.close().syncUninterruptibly();
    try {
      channel = bootstrap.bind(wanted).syncUninterruptibly().channel();
      address = wanted;
      LOGGER.log(Level.INFO, "listening on {0}:{1}", bind, Integer.toString(port()));
      return true;
    } catch (Exception e) {
      // Netty rethrows the bind's cause as it is (a BindException, undeclared)
      LOGGER.log(Level.WARNING, "cannot listen on " + bind + ":" + port + ": " + e.getMessage());
      channel = bootstrap.bind(oldBound).syncUninterruptibly().channel();
      return false;
    }
  }

  /** Closes the listening socket. */
  void close() {
    channel.close().syncUninterruptibly();
  }
}
