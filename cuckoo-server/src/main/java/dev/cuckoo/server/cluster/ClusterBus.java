package dev.cuckoo.server.cluster;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The cluster bus over Netty: listens on the bus port for other nodes' links, opens this node's
 * links to them, and hands each decoded message to the {@link ClusterState}.
 */
final class ClusterBus implements Transport {
  private static final System.Logger LOGGER = System.getLogger(ClusterBus.class.getName());
  private static final AttributeKey<NettyLink> LINK = AttributeKey.valueOf("cluster-link");
  private static final int CONNECT_TIMEOUT_MILLIS = 2000;

  /** The bus's one thread, named so that thread dumps and per-thread CPU figures show it. */
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(
          1, new DefaultThreadFactory("cluster-bus"), NioIoHandler.newFactory());

  private final List<Channel> listeners = new ArrayList<>();
  private final BusSecurity security;
  private volatile ClusterState state;

  /** Creates a bus whose links {@code security} secures (null: plaintext). */
  ClusterBus(BusSecurity security) {
    this.security = security;
  }

  /** Binds the bus port on each of the bind addresses (separated by spaces). */
  void listen(String bind, int busPort) throws IOException {
    ServerBootstrap server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(initializer(true));
    for (String address : bind.trim().split("\\s+")) {
      String host = address.startsWith("-") ? address.substring(1) : address;
      try {
        listeners.add(server.bind(host, busPort).sync().channel());
      } catch (Exception e) {
        close();
        throw new IOException("cannot listen on the cluster bus port " + host + ":" + busPort, e);
      }
    }
  }

  /** Sets the state messages go to (before the first connection). */
  void state(ClusterState state) {
    this.state = state;
  }

  /** Runs {@code task} every {@code periodMillis} on the bus's thread. */
  void every(long periodMillis, Runnable task) {
    group.scheduleAtFixedRate(
        () -> {
          try {
            task.run();
          } catch (RuntimeException e) {
            LOGGER.log(Level.ERROR, "cluster cron failed", e);
          }
        },
        periodMillis,
        periodMillis,
        TimeUnit.MILLISECONDS);
  }

  private ChannelInitializer<SocketChannel> initializer(boolean inbound) {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(SocketChannel ch) {
        if (inbound && security != null) {
          security.accepted(ch.pipeline(), ch.alloc());
        }
        if (inbound) {
          NettyLink link = new NettyLink(ch, true, null);
          ch.attr(LINK).set(link);
          ch.closeFuture().addListener(closed -> state.linkClosed(link));
        }
        ch.pipeline().addLast(new BusFrameDecoder(), new BusHandler());
      }
    };
  }

  @Override
  public Link connect(ClusterNode node) {
    Bootstrap bootstrap =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
            .handler(initializer(false));
    Channel channel = bootstrap.register().channel();
    if (security != null) {
      security.connecting(channel.pipeline(), channel.alloc(), node.ip, node.cport);
    }
    NettyLink link = new NettyLink(channel, false, node);
    channel.attr(LINK).set(link);
    // a channel that never connected closes without going inactive: the close itself tells
    channel.closeFuture().addListener(closed -> state.linkClosed(link));
    channel
        .connect(new InetSocketAddress(node.ip, node.cport))
        .addListener(
            future -> {
              if (!future.isSuccess()) {
                LOGGER.log(
                    Level.DEBUG,
                    "Connection with Node {0} at {1}:{2} failed: {3}",
                    node.name,
                    node.ip,
                    node.cport,
                    future.cause());
                channel.close();
              }
            });
    return link;
  }

  /** Closes every listener and link and stops the bus thread. */
  void close() {
    for (Channel listener : listeners) {
      listener.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Feeds a channel's events to the cluster state. */
  private final class BusHandler extends SimpleChannelInboundHandler<ClusterMessage> {
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      NettyLink link = ctx.channel().attr(LINK).get();
      if (!link.inbound()) {
        state.linkConnected(link);
      }
      ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ClusterMessage message) {
      state.process(ctx.channel().attr(LINK).get(), message);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOGGER.log(
          Level.DEBUG,
          "cluster bus link error with {0}: {1}",
          ctx.channel().remoteAddress(),
          cause);
      ctx.close();
    }
  }

  /** A link over one Netty channel. */
  private static final class NettyLink implements Link {
    private final Channel channel;
    private final boolean inbound;
    private final long createdMillis = System.currentTimeMillis();
    private volatile ClusterNode node;

    NettyLink(Channel channel, boolean inbound, ClusterNode node) {
      this.channel = channel;
      this.inbound = inbound;
      this.node = node;
    }

    @Override
    public void send(ClusterMessage message) {
      channel.writeAndFlush(Unpooled.wrappedBuffer(MessageCodec.encode(message)));
    }

    @Override
    public void close() {
      channel.close();
    }

    @Override
    public boolean inbound() {
      return inbound;
    }

    @Override
    public long createdMillis() {
      return createdMillis;
    }

    @Override
    public ClusterNode node() {
      return node;
    }

    @Override
    public void node(ClusterNode node) {
      this.node = node;
    }

    @Override
    public String localIp() {
      return ip(channel.localAddress());
    }

    @Override
    public String remoteIp() {
      return ip(channel.remoteAddress());
    }

    private static String ip(java.net.SocketAddress address) {
      return address instanceof InetSocketAddress inet && inet.getAddress() != null
          ? io.netty.util.NetUtil.toAddressString(inet.getAddress())
          : "";
    }

    @Override
    public long pendingBytes() {
      ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
      return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }
  }
}
