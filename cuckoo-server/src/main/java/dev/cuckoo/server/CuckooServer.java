package dev.cuckoo.server;

import dev.cuckoo.server.cluster.BusSecurity;
import dev.cuckoo.server.cluster.Cluster;
import dev.cuckoo.server.cluster.HashSlots;
import dev.cuckoo.server.command.ClientsCron;
import dev.cuckoo.server.command.CommandThreads;
import dev.cuckoo.server.command.Commands;
import dev.cuckoo.server.command.ServerContext;
import dev.cuckoo.server.command.ServerVersion;
import dev.cuckoo.server.config.BindAddresses;
import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.keyspace.HeapGuard;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.network.CommandHandler;
import dev.cuckoo.server.network.ProtectedMode;
import dev.cuckoo.server.persist.FileChannels;
import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.persist.RedisRdbImport;
import dev.cuckoo.server.persist.SnapshotOnly;
import dev.cuckoo.server.persist.Snapshots;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.RespDecoder;
import dev.cuckoo.server.replication.Replication;
import dev.cuckoo.server.tls.Tls;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
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
import java.nio.file.Path;
import java.util.List;
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
 * try (CuckooServer server = CuckooServer.start(ServerConfig.builder().port(6380).build())) {
 *   // talk to 127.0.0.1:6380 with any Redis client
 * }
 * }</pre>
 *
 * <p>From the command line: {@code cuckoo-server [config-file] [--option value ...]} (or {@code
 * java -jar cuckoo-server.jar ...}); see {@link ServerConfig#USAGE}. SIGTERM and SIGINT stop the
 * server as the SHUTDOWN command does: it stops accepting connections and reading requests, sends
 * the replies of the requests it has read, saves a snapshot, forces the log and exits with status
 * 0.
 */
public final class CuckooServer implements AutoCloseable {
  private static final System.Logger LOGGER = System.getLogger(CuckooServer.class.getName());

  /** How long a shutdown waits for clients to take the replies of the requests already read. */
  private static final long REPLY_DRAIN_MILLIS = 5_000;

  private final ServerContext context;
  private final EventLoopGroup bossGroup;
  private final EventLoopGroup workerGroup;
  private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final Listener listener;
  private final Listener tlsListener;
  private final Tls tls;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch terminated = new CountDownLatch(1);
  private volatile Cluster cluster;
  private volatile String fatalReason;

  private CuckooServer(
      ServerContext context,
      EventLoopGroup bossGroup,
      EventLoopGroup workerGroup,
      Listener listener,
      Listener tlsListener,
      Tls tls) {
    this.context = context;
    this.bossGroup = bossGroup;
    this.workerGroup = workerGroup;
    this.listener = listener;
    this.tlsListener = tlsListener;
    this.tls = tls;
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
    Config live = config.parameters();
    if (config.port() == 0 && live.get(Parameters.TLS_PORT) == 0) {
      // Redis exits the same way ("Configured to not listen anywhere")
      throw new IOException(
          "port 0 and tls-port 0: configured to not listen anywhere (set port, or tls-port with"
              + " tls-cert-file and tls-key-file)");
    }
    Tls tls = Tls.start(live);
    ServerContext context =
        new ServerContext(
            live,
            config.cluster().enabled()
                // a cluster node indexes its keys by hash slot (database 0 is its only one)
                ? new Keyspace(config.databases(), HashSlots.SLOTS, HashSlots::slot)
                : new Keyspace(config.databases()));
    context.applyChanges();
    if (!live.get(Parameters.LOGLEVEL).equals(Parameters.LOGLEVEL.defaultValue())) {
      applyLogLevel(live);
    }
    live.onChange(() -> applyLogLevel(live), Parameters.LOGLEVEL);
    Commands commands = new Commands(context);
    commands.loadUsers();
    java.util.function.Function<Keyspace, dev.cuckoo.server.persist.RecordApplier> replayers =
        keyspace -> new Commands(new ServerContext(live, keyspace)).replayer();
    // Netty's allocator is set up before the replay may fill the heap: a class that failed to
    // initialise for want of memory would leave the process unable to listen or to exit
    io.netty.buffer.ByteBufAllocator.DEFAULT.buffer(1).release();
    context.heapGuard().start();
    context.keyspace().loading(true);
    try {
      RedisRdbImport.Imported imported =
          RedisRdbImport.loadAtFirstStart(
              dev.cuckoo.server.persist.DataFiles.of(live), context.keyspace());
      if (config.appendOnly()) {
        context.persistence(Persistence.open(context, files, replayers, commands.table()));
      } else {
        context.snapshotOnly(SnapshotOnly.open(context, files, replayers, commands.table()));
      }
      if (imported != null) {
        // the RDB is read once: from now on the data directory holds this server's own files
        context.snapshots().save();
        context.rdbImport(imported);
      }
    } catch (OutOfMemoryError | dev.cuckoo.FilterAllocationException e) {
      // a snapshot's filter or the log's replay that does not fit the heap
      IOException tooBig = replayTooBig(config, context.keyspace());
      context.heapGuard().close();
      throw tooBig;
    } catch (IOException | RuntimeException e) {
      context.heapGuard().close();
      throw e;
    }
    context.keyspace().loading(false);
    Replication replication =
        new Replication(
            new Replication.Parts(
                live,
                context.keyspace(),
                context.watches(),
                commands.table(),
                replayers,
                context::persistence,
                () -> replicationPort(live),
                context.traffic(),
                context::clientsPaused,
                context.writeRefusals()));
    replication.applier(commands.masterStreamApplier());
    replication.linkSecurity(tls::replicationSocket);
    if (context.persistence() != null) {
      context.persistence().atRotation(commands::rotated);
    }
    context.writeStream(replication);
    boolean epoll = Epoll.isAvailable();
    IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    Class<? extends ServerChannel> channelType =
        epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    EventLoopGroup boss =
        new MultiThreadIoEventLoopGroup(
            1, new io.netty.util.concurrent.DefaultThreadFactory("cuckoo-accept"), factory);
    // the threads that run commands (INFO cpu's used_cpu_*_main_thread adds up their time)
    EventLoopGroup workers =
        new MultiThreadIoEventLoopGroup(
            config.threads(),
            new io.netty.util.concurrent.DefaultThreadFactory(CommandThreads.PREFIX, true),
            factory);
    workers.next().scheduleAtFixedRate(commands::expireCycle, 100, 100, TimeUnit.MILLISECONDS);
    workers.next().scheduleAtFixedRate(() -> savePointCheck(context), 1, 1, TimeUnit.SECONDS);
    workers.next().scheduleAtFixedRate(context.migrateSockets()::closeIdle, 1, 1, TimeUnit.SECONDS);
    workers
        .next()
        .scheduleAtFixedRate(
            context.clientsCron(),
            ClientsCron.PERIOD_MILLIS,
            ClientsCron.PERIOD_MILLIS,
            TimeUnit.MILLISECONDS);
    ChannelGroup[] group = new ChannelGroup[1];
    boolean protectedMode = ProtectedMode.appliesTo(live, null);
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(channelType)
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(clientInitializer(context, commands, config, group, null));
    ServerBootstrap tlsBootstrap =
        bootstrap.clone().childHandler(clientInitializer(context, commands, config, group, tls));
    Listener plain = null;
    Listener secure;
    int tlsPort = (int) (long) live.get(Parameters.TLS_PORT);
    try {
      plain = new Listener(bootstrap, config.bind(), config.port());
      secure = new Listener(tlsBootstrap, config.bind(), tlsPort);
    } catch (Exception e) {
      // Netty rethrows the bind's cause as it is (a BindException, undeclared)
      if (plain != null) {
        plain.close();
      }
      boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      context.heapGuard().close();
      context.snapshots().close();
      throw new IOException(
          "cannot listen on "
              + config.bind()
              + ":"
              + (plain == null ? config.port() : tlsPort + " (tls-port)"),
          e);
    }
    CuckooServer server = new CuckooServer(context, boss, workers, plain, secure, tls);
    group[0] = server.channels;
    server.applyChanges(files, replayers, commands);
    context.shutdown(server::close);
    if (config.cluster().enabled()) {
      server.startCluster(config, commands);
    }
    replication.start();
    if (server.cluster != null) {
      // a replica's link is set by the cluster from now on (after replication has started)
      server.cluster.state().replication(new ClusterReplication(context, replication, live));
    }
    if (server.port() != 0) {
      LOGGER.log(
          Level.INFO,
          "listening on {0}:{1} ({2})",
          config.bind(),
          Integer.toString(server.port()),
          epoll ? "epoll" : "nio");
    }
    if (server.tlsPort() != 0) {
      LOGGER.log(
          Level.INFO,
          "listening for TLS on {0}:{1} ({2}, {3})",
          config.bind(),
          Integer.toString(server.tlsPort()),
          epoll ? "epoll" : "nio",
          tls.provider());
    }
    if (protectedMode && !BindAddresses.loopbackOnly(config.bind())) {
      LOGGER.log(
          Level.INFO,
          "protected mode: no password is set, so clients that do not connect"
              + " over the loopback interface are refused (--protected-mode no allows them)");
    }
    return server;
  }

  /**
   * Returns what sets up an accepted client connection: TLS first when {@code tls} is given (the
   * TLS listener's connections), then protected mode, the idle timeout, keepalive, the decoder and
   * the command handler.
   */
  private static ChannelInitializer<SocketChannel> clientInitializer(
      ServerContext context,
      Commands commands,
      ServerConfig config,
      ChannelGroup[] group,
      Tls tls) {
    Config live = context.config();
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(SocketChannel ch) {
        group[0].add(ch);
        if (tls != null) {
          tls.acceptInto(ch.pipeline(), ch.alloc());
        }
        // read per connection: CONFIG SET changes them for connections to come
        // as Redis: protected while the default user needs no password
        boolean authRequired = context.authRequired();
        if (context.protectedMode() && context.acl().defaultUser().noPass()) {
          ch.pipeline().addLast(new ProtectedMode());
        }
        int timeoutSeconds = context.timeoutSeconds();
        if (timeoutSeconds > 0) {
          ch.pipeline().addLast(new IdleStateHandler(0, 0, timeoutSeconds));
        }
        keepAlive(ch, live.get(Parameters.TCP_KEEPALIVE));
        Authentication authentication = new Authentication(!authRequired);
        ch.attr(Authentication.KEY).set(authentication);
        ch.pipeline()
            .addLast(
                new RespDecoder(
                    context.maxBulkLength(),
                    config.maxArrayLength(),
                    Math.max(context.maxBulkLength(), 1L << 30),
                    authentication));
        ch.pipeline().addLast(new CommandHandler(context, commands));
      }
    };
  }

  /**
   * Returns the port a replica tells its master it listens on: tls-port with tls-replication (and a
   * TLS port), else port, as Redis's replica announces it.
   */
  private static int replicationPort(Config live) {
    long tlsPort = live.get(Parameters.TLS_PORT);
    return (int)
        (live.get(Parameters.TLS_REPLICATION) && tlsPort != 0
            ? tlsPort
            : live.get(Parameters.PORT));
  }

  /**
   * Starts a background snapshot when a save point fires (Redis's serverCron): enough changes and
   * time since the last successful save, and not within 5 s of a failed background save.
   */
  private static void savePointCheck(ServerContext context) {
    Snapshots snapshots = context.snapshots();
    if (snapshots == null || snapshots.saving()) {
      return;
    }
    String due = context.saveStats().due(context.savePoints(), System.currentTimeMillis() / 1000);
    if (due != null && snapshots.saveInBackground()) {
      LOGGER.log(Level.INFO, "{0}. Saving...", due);
    }
  }

  /**
   * Registers how CONFIG SET port, bind and appendonly reach the running server: the listener moves
   * (Redis's changeListener), the log is turned on with a fresh snapshot (every stripe held so that
   * each write is in the snapshot or the log) or off, when snapshots alone then take over.
   */
  private void applyChanges(
      FileChannels files,
      java.util.function.Function<Keyspace, dev.cuckoo.server.persist.RecordApplier> replayers,
      Commands commands) {
    Config live = context.config();
    live.onChange(
        () -> {
          String bind = live.get(Parameters.BIND);
          boolean bindMoved = !bind.equals(listener.bind());
          int port = (int) (long) live.get(Parameters.PORT);
          int tlsPort = (int) (long) live.get(Parameters.TLS_PORT);
          if (port == 0 && tlsPort == 0) {
            return "port and tls-port 0: the server would listen nowhere";
          }
          if (!listener.moveTo(bind, port)) {
            return bindMoved
                ? "Failed to bind to specified addresses."
                : "Unable to listen on this port. Check server logs.";
          }
          if (bindMoved && !tlsListener.moveTo(bind, tlsPort)) {
            listener.moveTo(tlsListener.bind(), port);
            return "Failed to bind to specified addresses.";
          }
          return null;
        },
        Parameters.PORT,
        Parameters.BIND);
    live.onChange(
        () -> {
          int port = (int) (long) live.get(Parameters.PORT);
          int tlsPort = (int) (long) live.get(Parameters.TLS_PORT);
          if (port == 0 && tlsPort == 0) {
            return "port and tls-port 0: the server would listen nowhere";
          }
          // the contexts first: a TLS port opened now needs them
          String refusal = tls.reload();
          if (refusal != null) {
            return refusal;
          }
          return tlsListener.moveTo(live.get(Parameters.BIND), tlsPort)
              ? null
              : "Unable to listen on this port. Check server logs.";
        },
        Parameters.TLS_PORT);
    live.onChange(
        () -> {
          if (!appendOnly(live.get(Parameters.APPENDONLY), files, replayers, commands)) {
            return "Unable to turn on AOF. Check server logs.";
          }
          if (context.replication() != null) {
            // a WAITAOF waiting for a local fsync gets its error once the log is off
            context.replication().fsyncMoved();
          }
          return null;
        },
        Parameters.APPENDONLY);
  }

  /**
   * Turns the append-only log on or off; does nothing if it is already in that state. Off, the
   * snapshots alone take over (save points, SAVE); on, they stop first (the log's first snapshot
   * writes the same file).
   *
   * @return false if the log could not be turned on (it stays off)
   */
  private synchronized boolean appendOnly(
      boolean on,
      FileChannels files,
      java.util.function.Function<Keyspace, dev.cuckoo.server.persist.RecordApplier> replayers,
      Commands commands) {
    Persistence current = context.persistence();
    if (on == (current != null)) {
      return true;
    }
    Snapshots alone = context.snapshots();
    if (on && alone != null) {
      // a snapshot it is writing ends first: the log's first snapshot writes the same file
      try {
        alone.close();
      } catch (IOException e) {
        LOGGER.log(Level.WARNING, "stopping the snapshots failed", e);
      }
    }
    Keyspace keyspace = context.keyspace();
    keyspace.lockAll();
    try {
      if (!on) {
        // off before the log's last force (close): a WAITAOF waiting for a local fsync then
        // gets Redis's error rather than that force (WaitAofTest)
        context.persistence(null);
      } else {
        Persistence started = Persistence.startFresh(context, files, replayers, commands.table());
        started.atRotation(commands::rotated);
        context.persistence(started);
        context.snapshotOnly(null);
      }
    } catch (IOException | RuntimeException e) {
      LOGGER.log(Level.WARNING, "turning the append-only log on failed", e);
      if (on) {
        context.snapshotOnly(SnapshotOnly.over(context, files));
      }
      return false;
    } finally {
      keyspace.unlockAll();
    }
    if (current != null) {
      try {
        current.close();
      } catch (IOException e) {
        LOGGER.log(Level.WARNING, "closing the append-only log failed", e);
      }
      // after the log's last snapshot ended: the two write the same file
      context.snapshotOnly(SnapshotOnly.over(context, files));
    }
    LOGGER.log(Level.INFO, "append-only log turned {0}", on ? "on" : "off");
    return true;
  }

  /** Sets the level of the log's root logger from loglevel, as Redis's verbosity. */
  private static String applyLogLevel(Config live) {
    java.util.logging.Level level =
        switch (live.get(Parameters.LOGLEVEL)) {
          case "debug" -> java.util.logging.Level.FINEST;
          case "verbose" -> java.util.logging.Level.FINE;
          case "warning" -> java.util.logging.Level.WARNING;
          case "nothing" -> java.util.logging.Level.OFF;
          default -> java.util.logging.Level.INFO;
        };
    java.util.logging.Logger.getLogger("").setLevel(level);
    return null;
  }

  /**
   * Sets a new connection's TCP keepalive from tcp-keepalive: off for 0, else probes after that
   * many idle seconds, as Redis's anetKeepAlive (the idle time where the transport supports it).
   */
  private static void keepAlive(SocketChannel channel, long seconds) {
    channel.config().setOption(ChannelOption.SO_KEEPALIVE, seconds > 0);
    if (seconds > 0 && channel instanceof io.netty.channel.epoll.EpollSocketChannel) {
      int idle = (int) Math.min(seconds, 32767);
      channel.config().setOption(io.netty.channel.epoll.EpollChannelOption.TCP_KEEPIDLE, idle);
      channel
          .config()
          .setOption(
              io.netty.channel.epoll.EpollChannelOption.TCP_KEEPINTVL, Math.max(1, idle / 3));
    }
  }

  /** Describes a replay that did not fit in the heap, naming the heap to restart with. */
  private static IOException replayTooBig(ServerConfig config, Keyspace partial) {
    long filters = partial.usedBytes();
    int keys = partial.size();
    partial.clear();
    long files = 0;
    try (java.nio.file.DirectoryStream<java.nio.file.Path> entries =
        java.nio.file.Files.newDirectoryStream(config.dir())) {
      for (java.nio.file.Path file : entries) {
        files += java.nio.file.Files.size(file);
      }
    } catch (IOException | RuntimeException e) {
      // the figure is advice only
    }
    long max = Runtime.getRuntime().maxMemory();
    long suggestMiB = (2 * max >> 20) + 1;
    return new IOException(
        config.dir()
            + ": the snapshot and logs ("
            + files
            + " bytes) do not fit in the maximum heap of "
            + max
            + " bytes: the heap ran out after "
            + keys
            + " keys ("
            + filters
            + " bytes of filters); refusing to start. Restart with a larger -Xmx, e.g. -Xmx"
            + suggestMiB
            + "m");
  }

  /** Returns the server's persistence, or null when it keeps no files (tests). */
  Persistence persistence() {
    return context.persistence();
  }

  /** Returns the server's state (tests that reach past the protocol). */
  ServerContext context() {
    return context;
  }

  /**
   * Starts this server's cluster node: loads (or creates) its nodes.conf in dir and listens on the
   * cluster bus port (cluster-port, or the client port + 10000).
   */
  private void startCluster(ServerConfig config, Commands commands) throws IOException {
    ServerConfig.ClusterMode mode = config.cluster();
    boolean tlsBus = context.config().get(Parameters.TLS_CLUSTER);
    // as Redis: with tls-cluster the node's client port is its TLS port
    int clientPort = tlsBus ? tlsPort() : port();
    int busPort = mode.port() != 0 ? mode.port() : clientPort + 10000;
    if (busPort > 65535) {
      close(false);
      throw new IOException(
          "cluster-port: the client port "
              + port()
              + " + 10000 is "
              + busPort
              + " (expected: <= 65535); set cluster-port");
    }
    try {
      cluster =
          Cluster.start(
              new Cluster.Options(
                  config.bind(),
                  clientPort,
                  busPort,
                  mode.nodeTimeoutMillis(),
                  config.dir().resolve(mode.configFile())),
              new ClusterKeys(context.keyspace(), commands.writePath()),
              tlsBus ? busSecurity(tls) : null);
    } catch (IOException | RuntimeException e) {
      close(false);
      throw e;
    }
    Config live = context.config();
    cluster.state().requireFullCoverage(live.get(Parameters.CLUSTER_REQUIRE_FULL_COVERAGE));
    live.onChange(
        () -> {
          cluster.state().requireFullCoverage(live.get(Parameters.CLUSTER_REQUIRE_FULL_COVERAGE));
          return null;
        },
        Parameters.CLUSTER_REQUIRE_FULL_COVERAGE);
    Runnable announce =
        () ->
            cluster
                .state()
                .announce(
                    live.get(Parameters.CLUSTER_ANNOUNCE_IP),
                    (int) (long) live.get(Parameters.CLUSTER_ANNOUNCE_PORT),
                    (int) (long) live.get(Parameters.CLUSTER_ANNOUNCE_BUS_PORT),
                    live.get(Parameters.CLUSTER_ANNOUNCE_HOSTNAME));
    announce.run();
    live.onChange(
        () -> {
          announce.run();
          return null;
        },
        Parameters.CLUSTER_ANNOUNCE_IP,
        Parameters.CLUSTER_ANNOUNCE_PORT,
        Parameters.CLUSTER_ANNOUNCE_BUS_PORT,
        Parameters.CLUSTER_ANNOUNCE_HOSTNAME);
    context.cluster(cluster.state());
    cluster
        .state()
        .onFatal(
            reason -> {
              fatalReason = reason;
              // the state's lock is held here, on the bus thread the stop waits for
              Thread stop = new Thread(() -> close(false), "cuckoo-cluster-fatal");
              stop.start();
            });
    LOGGER.log(
        Level.INFO,
        "cluster node {0}, bus port {1}",
        cluster.state().myId(),
        Integer.toString(busPort));
  }

  /** Returns how the cluster bus puts TLS on its links. */
  private static BusSecurity busSecurity(Tls tls) {
    return new BusSecurity() {
      @Override
      public void accepted(ChannelPipeline pipeline, ByteBufAllocator allocator) {
        tls.acceptInto(pipeline, allocator);
      }

      @Override
      public void connecting(
          ChannelPipeline pipeline, ByteBufAllocator allocator, String host, int port) {
        tls.connectInto(pipeline, allocator, host, port);
      }
    };
  }

  /** Returns the port the server listens on for plaintext clients (0: none). */
  public int port() {
    return context.port();
  }

  /** Returns the port the server listens on for TLS clients (0: none). */
  public int tlsPort() {
    return tlsListener.port();
  }

  /**
   * Stops the server as SHUTDOWN does: with the log on, saves a snapshot; with snapshots only,
   * saves one if save points are set. Idempotent: a stop already under way elsewhere has ended when
   * this returns (within 30 s), unless called on a network thread.
   */
  @Override
  public void close() {
    close(null);
    if (!(Thread.currentThread() instanceof io.netty.util.concurrent.FastThreadLocalThread)) {
      // a stop already under way on another thread (SHUTDOWN, a signal, a cluster node that cannot
      // write nodes.conf) ends before this returns, so nothing is written once the caller goes on;
      // a network thread never waits here (the stop waits for it)
      try {
        terminated.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Waits until the server has stopped (by {@link #close}, SHUTDOWN or a signal). */
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  /**
   * Stops the server; saves a snapshot if {@code save} is true (SHUTDOWN SAVE), not if false
   * (NOSAVE), and if null as Redis does: when save points are set, and here always with the log on
   * (the snapshot shortens the next start's replay).
   */
  private void close(Boolean save) {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    long startNanos = System.nanoTime();
    try {
      listener.close();
      tlsListener.close();
      if (cluster != null) {
        cluster.close();
      }
      Replication replication = context.replication();
      if (replication != null) {
        replication.close();
      }
      finishReplies();
      channels.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
      bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
      workerGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
      context.migrateSockets().close();
      context.heapGuard().close();
      saveAndClose(save);
    } finally {
      LOGGER.log(
          Level.INFO,
          "stopped in {0} ms",
          Long.toString(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos)));
      terminated.countDown();
    }
  }

  /** Saves the final snapshot (see {@link #close(Boolean)}) and closes persistence. */
  private void saveAndClose(Boolean save) {
    Snapshots snapshots = context.snapshots();
    if (snapshots == null) {
      return;
    }
    boolean logged = context.persistence() != null;
    try {
      if (save != null ? save : logged || !context.savePoints().isEmpty()) {
        LOGGER.log(Level.INFO, "saving the final snapshot before exiting");
        snapshots.save();
      }
    } catch (IOException e) {
      if (logged) {
        LOGGER.log(Level.ERROR, "saving on shutdown failed; the logs keep every write", e);
      } else {
        LOGGER.log(
            Level.ERROR,
            "saving the final snapshot failed: the "
                + context.saveStats().changesSinceSave()
                + " change(s) made since the last snapshot are lost",
            e);
      }
    } finally {
      try {
        snapshots.close();
      } catch (IOException e) {
        LOGGER.log(Level.ERROR, "closing the append-only log failed", e);
      }
    }
  }

  /**
   * Stops reading requests from every client, then closes each connection once the replies of the
   * requests it had read are sent; waits at most {@link #REPLY_DRAIN_MILLIS} for clients that do
   * not take them.
   */
  private void finishReplies() {
    for (Channel channel : channels) {
      channel
          .eventLoop()
          .execute(
              () -> {
                channel.config().setAutoRead(false);
                // a second task: it runs after the reply writes that requests read before this
                // point queued on the event loop (CommandHandler writes acknowledgements that way)
                channel
                    .eventLoop()
                    .execute(
                        () ->
                            channel
                                .writeAndFlush(Unpooled.EMPTY_BUFFER)
                                .addListener(ChannelFutureListener.CLOSE));
              });
    }
    channels.newCloseFuture().awaitUninterruptibly(REPLY_DRAIN_MILLIS);
  }

  /**
   * Starts the server from command-line options ({@code [config-file] [--option value ...]}) and
   * runs until SHUTDOWN, SIGTERM or SIGINT; then exits with status 0.
   */
  public static void main(String[] args) throws Exception {
    HeapGuard.exitOnUncaughtOutOfMemory();
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.print(
          "Usage: cuckoo-server [config-file] [--option value ...]\n" + ServerConfig.USAGE);
      return;
    }
    if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-v"))) {
      System.out.println(
          "cuckoo-server "
              + ServerVersion.project()
              + " (Redis "
              + ServerVersion.REDIS_VERSION
              + " protocol, Java "
              + System.getProperty("java.version")
              + ")");
      return;
    }
    ServerConfig config;
    try {
      config = ServerConfig.parse(args);
    } catch (IllegalArgumentException | IOException e) {
      // one line naming the option (and the file and line), not the whole option list
      System.err.println("cuckoo-server: " + e.getMessage());
      System.err.println("cuckoo-server: 'cuckoo-server --help' lists the options");
      System.exit(2);
      return;
    }
    Path logFile = config.logFile();
    try {
      ServerLogging.install(logFile);
    } catch (IOException e) {
      System.err.println("cuckoo-server: cannot append to the log file " + logFile + ": " + e);
      System.exit(1);
      return;
    }
    try {
      runUntilStopped(
          config,
          new java.io.PrintWriter(
              new java.io.OutputStreamWriter(System.out, java.nio.charset.Charset.defaultCharset()),
              true));
    } catch (IOException | IllegalArgumentException e) {
      String message = e.getMessage();
      LOGGER.log(
          Level.ERROR, message.startsWith("stopped: ") ? "{0}" : "cannot start: {0}", message);
      if (logFile != null) {
        System.err.println("cuckoo-server: " + e.getMessage());
      }
      System.exit(1);
      return;
    }
    System.exit(0);
  }

  /**
   * Runs a server as a process runs it, until SHUTDOWN or a signal stops it: logs the start (pid,
   * Java, maximum heap, data directory), starts, makes SIGTERM and SIGINT stop it cleanly (so the
   * process exits with status 0 after "stopped in N ms"), prints {@code cuckoo-server listening on
   * ADDRESS:PORT} on {@code out} and waits. {@code cuckoo-server} and {@code cuckoo serve} both run
   * through here. The caller installs the log ({@link ServerLogging#install}) first.
   *
   * @param config the settings
   * @param out where the listening line goes
   * @throws IOException if the server cannot start (the port is taken, the data is damaged), or if
   *     a cluster node stopped because it could not write its nodes.conf (the message then starts
   *     with "stopped: ")
   * @throws InterruptedException if this thread is interrupted while the server runs
   */
  public static void runUntilStopped(ServerConfig config, java.io.PrintWriter out)
      throws IOException, InterruptedException {
    // here, not in main, so that `cuckoo serve` runs without it too
    if (System.getProperty("io.netty.leakDetection.level") == null
        && System.getProperty("io.netty.leakDetectionLevel") == null) {
      // the tests run with paranoid leak detection; in service its sampled stack traces only
      // cost time (set -Dio.netty.leakDetection.level to have it back)
      io.netty.util.ResourceLeakDetector.setLevel(
          io.netty.util.ResourceLeakDetector.Level.DISABLED);
    }
    LOGGER.log(
        Level.INFO,
        "cuckoo-server {0} starting: pid {1}, Java {2}, maximum heap {3} MiB, data in {4}",
        ServerVersion.project(),
        Long.toString(ProcessHandle.current().pid()),
        System.getProperty("java.version"),
        Long.toString(Runtime.getRuntime().maxMemory() >> 20),
        config.dir().toAbsolutePath()
            + (config.appendOnly() ? "" : " (snapshots only: appendonly no)"));
    CuckooServer server;
    try {
      server = start(config);
    } catch (OutOfMemoryError e) {
      HeapGuard.fatal("start-up", e);
      return;
    }
    AtomicBoolean signalled = new AtomicBoolean();
    List<String> signals =
        ShutdownSignals.install(
            signal -> {
              if (signalled.compareAndSet(false, true)) {
                LOGGER.log(Level.INFO, "{0}: shutting down", signal);
                server.close();
              } else {
                LOGGER.log(Level.INFO, "{0} while shutting down: the shutdown goes on", signal);
              }
            });
    // System.exit from elsewhere, SIGHUP, or SIGTERM where no signal handler could be installed
    Thread exitHook =
        new Thread(
            () -> {
              server.close();
              try {
                server.awaitTermination();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "cuckoo-exit");
    Runtime.getRuntime().addShutdownHook(exitHook);
    if (signals.size() < ShutdownSignals.SIGNALS.size()) {
      LOGGER.log(
          Level.WARNING,
          "signal handlers: only {0}; other signals stop the server through a shutdown hook,"
              + " and the exit status is then 128 + the signal number",
          signals);
    }
    if (server.port() != 0) {
      out.println("cuckoo-server listening on " + config.bind() + ":" + server.port());
    }
    if (server.tlsPort() != 0) {
      out.println("cuckoo-server listening for TLS on " + config.bind() + ":" + server.tlsPort());
    }
    out.flush();
    try {
      server.awaitTermination();
      if (server.fatalReason != null) {
        throw new IOException("stopped: " + server.fatalReason);
      }
    } finally {
      server.close();
      try {
        Runtime.getRuntime().removeShutdownHook(exitHook);
      } catch (IllegalStateException shuttingDown) {
        // the JVM is exiting: the hook is running or has run
      }
    }
  }
}
