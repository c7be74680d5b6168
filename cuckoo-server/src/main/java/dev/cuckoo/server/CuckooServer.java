package dev.cuckoo.server;

import dev.cuckoo.server.command.CfConfig;
import dev.cuckoo.server.command.CommandTable;
import dev.cuckoo.server.command.Commands;
import dev.cuckoo.server.command.ServerContext;
import dev.cuckoo.server.command.WriteLog;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.network.CommandHandler;
import dev.cuckoo.server.network.ProtectedMode;
import dev.cuckoo.server.persist.FileChannels;
import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.RespDecoder;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Redis-protocol server that answers RedisBloom's CF.* commands, with an append-only log and
 * snapshots for durability.
 *
 * <p>In-process use:
 *
 * <pre>{@code
 * try (CuckooServer server = CuckooServer.start(ServerConfig.builder().port(0).build())) {
 *   int port = server.port();
 *   // talk to 127.0.0.1:port with any Redis client
 * }
 * }</pre>
 *
 * <p>From the command line: {@code java -jar cuckoo-server.jar --port 6379 --dir ./data}; see
 * {@link ServerConfig#USAGE}. SIGTERM (and the SHUTDOWN command) stop the server gracefully and
 * save a snapshot.
 */
public final class CuckooServer implements AutoCloseable {
  private static final System.Logger LOGGER = System.getLogger(CuckooServer.class.getName());

  private final ServerContext context;
  private final EventLoopGroup bossGroup;
  private final EventLoopGroup workerGroup;
  private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final Channel serverChannel;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch terminated = new CountDownLatch(1);

  private CuckooServer(
      ServerContext context,
      EventLoopGroup bossGroup,
      EventLoopGroup workerGroup,
      Channel serverChannel) {
    this.context = context;
    this.bossGroup = bossGroup;
    this.workerGroup = workerGroup;
    this.serverChannel = serverChannel;
  }

  /**
   * Recovers the data directory (if persistence is on) and starts listening.
   *
   * @throws IOException if the data cannot be recovered or the port cannot be bound
   * @throws IllegalArgumentException if a cf-* parameter in the config is out of range
   */
  public static CuckooServer start(ServerConfig config) throws IOException {
    return start(config, FileChannels.DEFAULT);
  }

  /** Starts a server whose persistence opens its files through {@code files} (fault tests). */
  static CuckooServer start(ServerConfig config, FileChannels files) throws IOException {
    CfConfig cfConfig = new CfConfig();
    for (Map.Entry<String, String> entry : config.cfParameters().entrySet()) {
      String error = cfConfig.set(entry.getKey(), entry.getValue());
      if (error != null) {
        throw new IllegalArgumentException(error);
      }
    }
    ServerContext context = new ServerContext(config, cfConfig, new Keyspace(config.databases()));
    // the table answers which keys a write touches; it exists once the commands are built
    CommandTable[] table = new CommandTable[1];
    WriteLog log =
        new WriteLog() {
          @Override
          public long append(int db, byte[][] args) {
            Persistence persistence = context.persistence();
            return persistence == null ? 0 : persistence.append(db, args);
          }

          @Override
          public void touched(int db, byte[][] args) {
            if (context.watches().size() > 0) {
              table[0].keysOf(db, args, context.watches()::touch);
            }
          }

          @Override
          public String refusal() {
            Persistence persistence = context.persistence();
            return persistence == null ? null : persistence.refusal();
          }
        };
    Commands commands = new Commands(context, log);
    table[0] = commands.table();
    if (config.appendOnly()) {
      context.keyspace().loading(true);
      context.persistence(
          Persistence.open(
              context,
              files,
              keyspace ->
                  new Commands(new ServerContext(config, cfConfig, keyspace), WriteLog.NONE)
                      .replayer(),
              commands.table()));
    }
    context.keyspace().loading(false);
    boolean epoll = Epoll.isAvailable();
    IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    Class<? extends ServerChannel> channelType =
        epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, factory);
    EventLoopGroup workers = new MultiThreadIoEventLoopGroup(config.threads(), factory);
    workers.next().scheduleAtFixedRate(commands::expireCycle, 100, 100, TimeUnit.MILLISECONDS);
    ChannelGroup[] group = new ChannelGroup[1];
    InetSocketAddress listenAddress = new InetSocketAddress(config.bind(), config.port());
    boolean protectedMode =
        listenAddress.getAddress() != null
            && ProtectedMode.appliesTo(config, listenAddress.getAddress());
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(channelType)
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    group[0].add(ch);
                    if (protectedMode) {
                      ch.pipeline().addLast(new ProtectedMode());
                    }
                    if (config.timeoutSeconds() > 0) {
                      ch.pipeline().addLast(new IdleStateHandler(0, 0, config.timeoutSeconds()));
                    }
                    Authentication authentication =
                        new Authentication(config.requirePass() == null);
                    ch.attr(Authentication.KEY).set(authentication);
                    ch.pipeline()
                        .addLast(
                            new RespDecoder(
                                config.maxBulkLength(),
                                config.maxArrayLength(),
                                Math.max(config.maxBulkLength(), 1L << 30),
                                authentication));
                    ch.pipeline().addLast(new CommandHandler(context, commands));
                  }
                });
    Channel channel;
    try {
      channel = bootstrap.bind(listenAddress).syncUninterruptibly().channel();
    } catch (RuntimeException e) {
      boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      if (context.persistence() != null) {
        context.persistence().close();
      }
      throw new IOException("cannot listen on " + config.bind() + ":" + config.port(), e);
    }
    CuckooServer server = new CuckooServer(context, boss, workers, channel);
    group[0] = server.channels;
    context.port(((InetSocketAddress) channel.localAddress()).getPort());
    context.shutdown(save -> server.close(save));
    LOGGER.log(
        Level.INFO,
        "listening on {0}:{1} ({2})",
        config.bind(),
        Integer.toString(server.port()),
        epoll ? "epoll" : "nio");
    if (protectedMode && !listenAddress.getAddress().isLoopbackAddress()) {
      LOGGER.log(
          Level.INFO,
          "protected mode: no password is set, so clients that do not connect"
              + " over the loopback interface are refused (--protected-mode no allows them)");
    }
    return server;
  }

  /** Returns the server's persistence, or null when it keeps no files (tests). */
  Persistence persistence() {
    return context.persistence();
  }

  /** Returns the port the server listens on (useful after starting on port 0). */
  public int port() {
    return context.port();
  }

  /** Stops the server and saves a snapshot (if persistence is on). Idempotent. */
  @Override
  public void close() {
    close(true);
  }

  /** Waits until the server has stopped (by {@link #close}, SHUTDOWN or a signal). */
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  private void close(boolean save) {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      serverChannel.close().syncUninterruptibly();
      channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
      bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
      workerGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
      Persistence persistence = context.persistence();
      if (persistence != null) {
        try {
          if (save) {
            persistence.save();
          }
        } catch (IOException e) {
          LOGGER.log(Level.ERROR, "saving on shutdown failed; the logs keep every write", e);
        } finally {
          try {
            persistence.close();
          } catch (IOException e) {
            LOGGER.log(Level.ERROR, "closing the append-only log failed", e);
          }
        }
      }
    } finally {
      terminated.countDown();
    }
  }

  /** Starts the server from command-line options and runs until SHUTDOWN or SIGTERM. */
  public static void main(String[] args) throws Exception {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.print("Usage: java -jar cuckoo-server.jar [options]\n" + ServerConfig.USAGE);
      return;
    }
    if (System.getProperty("io.netty.leakDetection.level") == null
        && System.getProperty("io.netty.leakDetectionLevel") == null) {
      // the tests run with paranoid leak detection; in service its sampled stack traces only
      // cost time (set -Dio.netty.leakDetection.level to have it back)
      io.netty.util.ResourceLeakDetector.setLevel(
          io.netty.util.ResourceLeakDetector.Level.DISABLED);
    }
    ServerConfig config;
    try {
      config = ServerConfig.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("cuckoo-server: " + e.getMessage());
      System.err.print(ServerConfig.USAGE);
      System.exit(2);
      return;
    }
    CuckooServer server;
    try {
      server = start(config);
    } catch (IOException | IllegalArgumentException e) {
      System.err.println("cuckoo-server: " + e.getMessage());
      System.exit(1);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "cuckoo-sigterm"));
    System.out.println("cuckoo-server listening on " + config.bind() + ":" + server.port());
    server.awaitTermination();
  }
}
