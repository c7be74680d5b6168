package dev.cuckoo.server.network;

import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.Parameters;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Redis's protected mode: refuses clients that do not connect over the loopback interface.
 *
 * <p>It applies ({@link #appliesTo}) when protected mode is on and no password is set, whatever
 * address the server listens on (as in Redis 7 and later), so that a server opened to the network
 * by accident is not open to anyone. The handler then sits first in every connection's pipeline: a
 * loopback client (127.0.0.0/8 or ::1, as Redis's connSocketIsLocal) removes it and proceeds; any
 * other client gets Redis's {@code -DENIED} line and is disconnected, and the handlers behind this
 * one never see the connection: whatever it sent meanwhile is read and dropped (reading it lets the
 * close end in a FIN rather than a reset, so the client gets to read the reply).
 */
public final class ProtectedMode extends ChannelInboundHandlerAdapter {
  /** The reply to a refused client, Redis's text (networking.c, clientAcceptHandler). */
  static final String DENIED =
      "-DENIED Redis is running in protected mode because protected"
          + " mode is enabled and no password is set for the default user. In this mode connections"
          + " are only accepted from the loopback interface. If you want to connect from external"
          + " computers to Redis you may adopt one of the following solutions: 1) Just disable"
          + " protected mode sending the command 'CONFIG SET protected-mode no' from the loopback"
          + " interface by connecting to Redis from the same host the server is running, however MAKE"
          + " SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to"
          + " make this change permanent. 2) Alternatively you can just disable the protected mode by"
          + " editing the Redis configuration file, and setting the protected mode option to 'no', and"
          + " then restarting the server. 3) If you started the server manually just for testing,"
          + " restart it with the '--protected-mode no' option. 4) Set up an authentication password"
          + " for the default user. NOTE: You only need to do one of the above things in order for"
          + " the server to start accepting connections from the outside.\r\n";

  private static final byte[] DENIED_BYTES = DENIED.getBytes(StandardCharsets.US_ASCII);

  private boolean refused;

  /**
   * Returns true if a server with these settings must refuse clients that are not on the loopback
   * interface. {@code listenAddress} does not matter (Redis 7 and later apply protected mode
   * whatever they are bound to); it is taken so the caller states what it listens on.
   */
  public static boolean appliesTo(Config config, InetAddress listenAddress) {
    return config.get(Parameters.PROTECTED_MODE) && config.get(Parameters.REQUIREPASS) == null;
  }

  /** Returns true if a client at this address may connect: a loopback address. */
  static boolean allows(SocketAddress remote) {
    if (!(remote instanceof InetSocketAddress)) {
      return false;
    }
    InetAddress address = ((InetSocketAddress) remote).getAddress();
    return address != null && address.isLoopbackAddress();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    if (allows(ctx.channel().remoteAddress())) {
      ctx.pipeline().remove(this);
      ctx.fireChannelActive();
      return;
    }
    refused = true;
    ctx.writeAndFlush(Unpooled.wrappedBuffer(DENIED_BYTES))
        .addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (refused) {
      ReferenceCountUtil.release(msg);
    } else {
      ctx.fireChannelRead(msg);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (!refused) {
      ctx.fireChannelReadComplete();
    }
  }
}
