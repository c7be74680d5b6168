package dev.cuckoo.server;

import dev.cuckoo.server.config.BindAddresses;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The server's listening sockets of one kind (plaintext or TLS), one per address of {@code bind} on
 * one port, none when that port is 0 (Redis's syntax: addresses separated by spaces, at most
 * {@value BindAddresses#MAX_ADDRESSES}; {@code *} is every IPv4 address, {@code ::*} every IPv6
 * address; an address written with a leading {@code -} is skipped when this host does not have it,
 * as Redis skips it). CONFIG SET port and bind move them at run time as Redis's changeListener
 * does: the old sockets are closed, the new addresses bound, and if that fails the old addresses
 * are bound again. Connections already accepted are not affected.
 */
final class Listener {
  private static final System.Logger LOGGER = System.getLogger(Listener.class.getName());

  private final ServerBootstrap bootstrap;
  private volatile List<Channel> channels;
  private volatile String bind;

  /**
   * Binds every address of {@code bind} on {@code port} with the bootstrap.
   *
   * @throws IllegalArgumentException if {@code bind} is not a valid address list
   * @throws RuntimeException or an undeclared BindException (Netty rethrows the cause) if an
   *     address cannot be bound
   */
  Listener(ServerBootstrap bootstrap, String bind, int port) {
    this.bootstrap = bootstrap;
    this.channels = bindAll(bind, port);
    this.bind = bind;
  }

  private List<Channel> bindAll(String bind, int port) {
    String error = BindAddresses.check(bind);
    if (error != null) {
      throw new IllegalArgumentException(error);
    }
    if (port == 0) {
      // port 0 is no listener of this kind, as Redis's port and tls-port
      return List.of();
    }
    List<Channel> bound = new ArrayList<>();
    try {
      for (String address : BindAddresses.split(bind)) {
        InetSocketAddress wanted = new InetSocketAddress(BindAddresses.host(address), port);
        Channel channel;
        try {
          channel = bootstrap.bind(wanted).syncUninterruptibly().channel();
        } catch (Exception e) {
          if (BindAddresses.optional(address) && unavailable(e)) {
            LOGGER.log(
                Level.INFO,
                "skipping {0}: this host does not have the address ({1})",
                address,
                e.getMessage());
            continue;
          }
          throw e;
        }
        bound.add(channel);
      }
    } catch (Throwable e) {
      // also the bind's undeclared BindException, rethrown as it is
      closeAll(bound);
      throw e;
    }
    if (bound.isEmpty()) {
      throw new IllegalArgumentException(
          "bind: none of the addresses '" + bind + "' is available on this host");
    }
    return List.copyOf(bound);
  }

  /** Returns true if binding failed because the host lacks the address (or its family). */
  private static boolean unavailable(Throwable e) {
    // Netty rethrows the bind's cause as it is (a BindException, or the native transport's
    // IOException with the system's text), undeclared
    if (!(e instanceof IOException)) {
      return false;
    }
    String message = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    return message.contains("cannot assign requested address")
        || message.contains("address family not supported")
        || message.contains("protocol family unavailable");
  }

  private static void closeAll(List<Channel> channels) {
    for (Channel channel : channels) {
      channel.close().syncUninterruptibly();
    }
  }

  /** Returns the addresses as {@code bind} gave them. */
  String bind() {
    return bind;
  }

  /** Returns the port bound, 0 if none. */
  int port() {
    List<Channel> bound = channels;
    return bound.isEmpty() ? 0 : ((InetSocketAddress) bound.get(0).localAddress()).getPort();
  }

  /**
   * Moves the listener to {@code bind:port}; returns false, listening on the old addresses again,
   * if the new ones cannot be bound.
   */
  synchronized boolean moveTo(String bind, int port) {
    String error = BindAddresses.check(bind);
    if (error != null) {
      LOGGER.log(Level.WARNING, "cannot listen on {0}:{1}: {2}", bind, port, error);
      return false;
    }
    String oldBind = this.bind;
    int oldPort = port();
    closeAll(channels);
    try {
      channels = bindAll(bind, port);
      this.bind = bind;
      if (port != 0) {
        LOGGER.log(Level.INFO, "listening on {0}:{1}", bind, Integer.toString(port()));
      }
      return true;
    } catch (Exception e) {
      LOGGER.log(Level.WARNING, "cannot listen on " + bind + ":" + port + ": " + e.getMessage());
      channels = bindAll(oldBind, oldPort);
      return false;
    }
  }

  /** Closes the listening sockets. */
  void close() {
    closeAll(channels);
  }
}
