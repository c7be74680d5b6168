package dev.cuckoo.server.command;

import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.keyspace.HeapGuard;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.keyspace.Watches;
import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.persist.PersistenceContext;
import dev.cuckoo.server.persist.SavePoints;
import dev.cuckoo.server.persist.SaveStats;
import dev.cuckoo.server.persist.SnapshotOnly;
import dev.cuckoo.server.persist.Snapshots;
import dev.cuckoo.server.persist.WriteRefusals;
import dev.cuckoo.server.protocol.ErrorStats;
import dev.cuckoo.server.pubsub.KeyspaceEvents;
import dev.cuckoo.server.pubsub.PubSub;
import dev.cuckoo.server.replication.Replication;
import dev.cuckoo.server.replication.WriteStream;
import dev.cuckoo.server.session.ClientPause;
import dev.cuckoo.server.session.ClientRegistry;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/** What every connection shares: settings, the keyspace, persistence and counters. */
public final class ServerContext implements PersistenceContext {
  private final Config config;
  private final CfConfig cfConfig;
  private final Keyspace keyspace;
  private final Watches watches = new Watches();
  private final AtomicLong expiredKeys = new AtomicLong();
  private final AtomicInteger connectedClients = new AtomicInteger();
  private final AtomicLong totalConnections = new AtomicLong();
  private final LongAdder totalCommands = new LongAdder();
  private final ErrorStats errorStats = new ErrorStats();
  private final AtomicLong nextClientId = new AtomicLong(1);
  private final long startMillis = System.currentTimeMillis();
  private volatile Persistence persistence;
  private volatile SnapshotOnly snapshotOnly;
  private volatile dev.cuckoo.server.persist.RedisRdbImport.Imported rdbImport;
  // asked at every write (the bgsave-error refusal): parsed once per value of save, not per write
  private volatile ParsedSave parsedSave;
  private final WriteRefusals writeRefusals = new WriteRefusals();
  private final SaveStats saveStats = new SaveStats(writeRefusals);
  private volatile WriteStream writeStream = WriteStream.NONE;
  private final HeapGuard heapGuard = new HeapGuard();
  private volatile Consumer<Boolean> shutdown = save -> {};
  private final SlowLog slowLog = new SlowLog();
  private final ExpiryStats expiryStats = new ExpiryStats();
  private final ClientPause clientPause = new ClientPause();
  private final dev.cuckoo.server.protocol.Traffic traffic =
      new dev.cuckoo.server.protocol.Traffic();

  private volatile dev.cuckoo.server.cluster.ClusterState cluster;
  private final dev.cuckoo.server.migrate.TargetSockets migrateSockets =
      new dev.cuckoo.server.migrate.TargetSockets();
  private volatile dev.cuckoo.server.acl.Acl acl;
  private final dev.cuckoo.server.acl.AclLog aclLog = new dev.cuckoo.server.acl.AclLog();

  /**
   * Creates the shared state over the parameters' values (read at each use, so that CONFIG SET
   * reaches every reader) and a keyspace.
   */
  public ServerContext(Config config, Keyspace keyspace) {
    // the heap an empty server holds (INFO's used_memory_startup), before any data is loaded
    MemoryUsage.measureStartup();
    this.config = config;
    this.cfConfig = new CfConfig(config);
    this.keyspace = keyspace;
    this.bufferLimits = new BufferLimits(config, clients, clientMemory, traffic);
    this.clientsCron = new ClientsCron(clients, clientMemory, bufferLimits);
    pushRefusalSettings();
  }

  /** Returns what the write path decides refusals from (pushed by their owners). */
  @Override
  public WriteRefusals writeRefusals() {
    return writeRefusals;
  }

  /**
   * Pushes the parameters the refusals of writes depend on to {@link #writeRefusals}: at the start
   * and at each CONFIG SET of one of them.
   */
  private void pushRefusalSettings() {
    writeRefusals.saveSettings(stopWritesOnBgsaveError(), !savePoints().isEmpty());
    writeRefusals.replicationSettings(
        config.get(Parameters.REPLICA_READ_ONLY),
        config.get(Parameters.REPLICA_SERVE_STALE_DATA),
        (int) (long) config.get(Parameters.MIN_REPLICAS_TO_WRITE),
        (int) (long) config.get(Parameters.MIN_REPLICAS_MAX_LAG));
  }

  @Override
  public SaveStats saveStats() {
    return saveStats;
  }

  /** Returns the save points (save), as set now. */
  @Override
  public SavePoints savePoints() {
    String text = config.get(Parameters.SAVE);
    ParsedSave last = parsedSave;
    if (last == null || !last.text().equals(text)) {
      last = new ParsedSave(text, SavePoints.parse(text));
      parsedSave = last;
    }
    return last.points();
  }

  /** The save points parsed from the table's text, kept until CONFIG SET changes the text. */
  private record ParsedSave(String text, SavePoints points) {}

  /** Returns stop-writes-on-bgsave-error, as set now. */
  @Override
  public boolean stopWritesOnBgsaveError() {
    return config.get(Parameters.STOP_WRITES_ON_BGSAVE_ERROR);
  }

  /**
   * Returns MIGRATE's cached connections to its targets and the threads its network I/O runs on
   * (the server sweeps idle ones every second and closes them when it stops).
   */
  public dev.cuckoo.server.migrate.TargetSockets migrateSockets() {
    return migrateSockets;
  }

  /** Returns the ACL users (set by the command table once it is built). */
  public dev.cuckoo.server.acl.Acl acl() {
    return acl;
  }

  /** Sets the ACL users: the command table builds them over its commands. */
  void acl(dev.cuckoo.server.acl.Acl acl) {
    this.acl = acl;
  }

  /** Returns the ACL log (ACL LOG, INFO's acl_access_denied_* counts). */
  public dev.cuckoo.server.acl.AclLog aclLog() {
    return aclLog;
  }

  /**
   * Returns true if connections must authenticate before running commands: the default user has a
   * password (requirepass) or is off.
   */
  public boolean authRequired() {
    return acl.authRequired();
  }

  /** Returns the cluster state, or null when cluster mode is off. */
  public dev.cuckoo.server.cluster.ClusterState cluster() {
    return cluster;
  }

  /** Sets the cluster state (once the cluster node has started). */
  public void cluster(dev.cuckoo.server.cluster.ClusterState cluster) {
    this.cluster = cluster;
  }

  /**
   * Registers how CONFIG SET's changes reach what this context owns: the slow log's length, the
   * log's fsync policy, the save points and the keyspace notifications. Called for the server's own
   * context only (not for the contexts recovery replays through, which share the parameters).
   */
  public void applyChanges() {
    config.onChange(
        () -> {
          slowLog.trim(slowlogMaxLen());
          return null;
        },
        Parameters.SLOWLOG_MAX_LEN);
    config.onChange(
        () -> {
          aclLog.trim(config.get(Parameters.ACLLOG_MAX_LEN));
          return null;
        },
        Parameters.ACLLOG_MAX_LEN);
    config.onChange(
        () -> {
          acl.allChannelsByDefault(allChannelsByDefault());
          return null;
        },
        Parameters.ACL_PUBSUB_DEFAULT);
    config.onChange(
        () -> {
          String password = requirePass();
          acl.defaultPassword(
              password == null ? null : password.getBytes(java.nio.charset.StandardCharsets.UTF_8));
          return null;
        },
        Parameters.REQUIREPASS);
    config.onChange(
        () -> {
          Persistence current = persistence;
          if (current != null) {
            current.fsync(config.get(Parameters.APPENDFSYNC));
          }
          return null;
        },
        Parameters.APPENDFSYNC);
    // the save points are read each second where they are used, and rdbcompression at each save
    config.onChange(() -> null, Parameters.RDBCOMPRESSION);
    config.onChange(
        () -> {
          pushRefusalSettings();
          return null;
        },
        Parameters.SAVE,
        Parameters.STOP_WRITES_ON_BGSAVE_ERROR,
        Parameters.REPLICA_READ_ONLY,
        Parameters.REPLICA_SERVE_STALE_DATA,
        Parameters.MIN_REPLICAS_TO_WRITE,
        Parameters.MIN_REPLICAS_MAX_LAG);
    keyspaceEvents.flags(KeyspaceEvents.parse(config.get(Parameters.NOTIFY_KEYSPACE_EVENTS)));
    config.onChange(
        () -> {
          keyspaceEvents.flags(KeyspaceEvents.parse(config.get(Parameters.NOTIFY_KEYSPACE_EVENTS)));
          return null;
        },
        Parameters.NOTIFY_KEYSPACE_EVENTS);
  }

  /** Returns the address the server listens on (bind). */
  String bind() {
    return config.get(Parameters.BIND);
  }

  /** Returns maxclients: connections beyond it are refused. */
  public long maxClients() {
    return config.get(Parameters.MAXCLIENTS);
  }

  /** Returns the idle timeout in seconds given to new connections (0: none). */
  public int timeoutSeconds() {
    return (int) (long) config.get(Parameters.TIMEOUT);
  }

  /** Returns proto-max-bulk-len, the longest bulk string new connections accept. */
  public long maxBulkLength() {
    return config.get(Parameters.PROTO_MAX_BULK_LEN);
  }

  /** Returns the password new connections must give (requirepass), or null for none. */
  public String requirePass() {
    return config.get(Parameters.REQUIREPASS);
  }

  /** Returns true if acl-pubsub-default is allchannels: new ACL users get every channel. */
  public boolean allChannelsByDefault() {
    return config.get(Parameters.ACL_PUBSUB_DEFAULT).equals("allchannels");
  }

  /** Returns protected-mode: without a password, refuse new clients not on the loopback. */
  public boolean protectedMode() {
    return config.get(Parameters.PROTECTED_MODE);
  }

  /** Returns the count of bytes received and sent (INFO stats). */
  public dev.cuckoo.server.protocol.Traffic traffic() {
    return traffic;
  }

  /** Returns true while CLIENT PAUSE holds clients' commands back. */
  public boolean clientsPaused() {
    return clientPause.active();
  }

  /**
   * Returns the pause of clients' commands, the one for every purpose: CLIENT PAUSE, FAILOVER and a
   * cluster master's manual failover.
   */
  public ClientPause clientPause() {
    return clientPause;
  }

  /** Returns what the active expiry cycle counted (INFO stats). */
  ExpiryStats expiryStats() {
    return expiryStats;
  }

  /** Returns the slow log (SLOWLOG). */
  SlowLog slowLog() {
    return slowLog;
  }

  /** Returns slowlog-log-slower-than in microseconds (negative: nothing is logged). */
  long slowlogLogSlowerThan() {
    return config.get(Parameters.SLOWLOG_LOG_SLOWER_THAN);
  }

  /** Returns slowlog-max-len: the most entries the slow log keeps. */
  long slowlogMaxLen() {
    return config.get(Parameters.SLOWLOG_MAX_LEN);
  }

  /** Returns cluster-allow-reads-when-down: whether reads are served while the cluster is down. */
  boolean clusterAllowReadsWhenDown() {
    return config.get(Parameters.CLUSTER_ALLOW_READS_WHEN_DOWN);
  }

  /** Returns latency-tracking: whether each call's duration goes into its command's histogram. */
  boolean latencyTracking() {
    return config.get(Parameters.LATENCY_TRACKING);
  }

  /** Returns latency-tracking-info-percentiles: the percentiles INFO latencystats shows. */
  double[] latencyPercentiles() {
    return config.get(Parameters.LATENCY_TRACKING_INFO_PERCENTILES).stream()
        .mapToDouble(Double::doubleValue)
        .toArray();
  }

  /**
   * Returns the most bytes of filters that new commands may make the keyspace hold (Redis's {@code
   * maxmemory}; 0: no limit but the heap).
   */
  long maxMemory() {
    return config.get(Parameters.MAXMEMORY);
  }

  /**
   * Returns the limit new commands are checked against: maxmemory, or no limit for 0; -1 (nothing
   * fits) while the heap is within its reserve of the maximum ({@link HeapGuard}).
   */
  long memoryLimit() {
    if (heapGuard.low()) {
      return -1;
    }
    long limit = maxMemory();
    return limit == 0 ? Long.MAX_VALUE : limit;
  }

  /** Returns the guard of the heap's reserve (started and closed with the server). */
  public HeapGuard heapGuard() {
    return heapGuard;
  }

  /** Returns auto-aof-rewrite-percentage (0: no automatic rewrite). */
  @Override
  public int rewritePercentage() {
    return (int) (long) config.get(Parameters.AUTO_AOF_REWRITE_PERCENTAGE);
  }

  /** Returns auto-aof-rewrite-min-size in bytes. */
  @Override
  public long rewriteMinSize() {
    return config.get(Parameters.AUTO_AOF_REWRITE_MIN_SIZE);
  }

  @Override
  public void logForced() {
    Replication replication = replication();
    if (replication != null) {
      replication.fsyncMoved();
    }
  }

  @Override
  public Config config() {
    return config;
  }

  CfConfig cfConfig() {
    return cfConfig;
  }

  @Override
  public Keyspace keyspace() {
    return keyspace;
  }

  /** Returns the keys connections WATCH. */
  public Watches watches() {
    return watches;
  }

  /** Returns the count of keys deleted because they expired (INFO expired_keys). */
  AtomicLong expiredKeys() {
    return expiredKeys;
  }

  /** Returns what replication takes from the write path (never null). */
  public WriteStream writeStream() {
    return writeStream;
  }

  /** Returns replication (null for the contexts recovery replays through). */
  public Replication replication() {
    return writeStream instanceof Replication replication ? replication : null;
  }

  /** Sets what replication takes from the write path. */
  public void writeStream(WriteStream writeStream) {
    this.writeStream = writeStream;
  }

  /** Returns the append-only log and its snapshots, or null when the log is off. */
  public Persistence persistence() {
    return persistence;
  }

  /** Sets the append-only log (null: off). */
  public void persistence(Persistence persistence) {
    this.persistence = persistence;
    logInForce();
  }

  /** Returns what saves snapshots while the log is off ({@code appendonly no}), or null. */
  public SnapshotOnly snapshotOnly() {
    return snapshotOnly;
  }

  /** Sets what saves snapshots while the log is off ({@code appendonly no}). */
  public void snapshotOnly(SnapshotOnly snapshotOnly) {
    this.snapshotOnly = snapshotOnly;
    logInForce();
  }

  /**
   * Tells {@link #writeRefusals} which log refuses writes now: the append-only log if on, else the
   * snapshots, else none; the append-only log then pushes its failure if it has one.
   */
  private synchronized void logInForce() {
    Persistence log = persistence;
    writeRefusals.logInForce(log != null ? log : snapshotOnly);
    if (log != null) {
      log.pushFailure();
    }
  }

  /** Returns the Redis RDB loaded at this server's first start, or null. */
  public dev.cuckoo.server.persist.RedisRdbImport.Imported rdbImport() {
    return rdbImport;
  }

  /** Records the Redis RDB loaded at this server's first start (INFO persistence reports it). */
  public void rdbImport(dev.cuckoo.server.persist.RedisRdbImport.Imported imported) {
    this.rdbImport = imported;
  }

  /**
   * Returns what takes snapshots in the mode in force: the log's persistence, or the snapshots
   * alone while the log is off; null only for the contexts recovery replays through.
   */
  public Snapshots snapshots() {
    Persistence log = persistence;
    return log != null ? log : snapshotOnly;
  }

  public AtomicInteger connectedClients() {
    return connectedClients;
  }

  public AtomicLong totalConnections() {
    return totalConnections;
  }

  /** Returns the error replies sent to clients, by code (INFO stats and errorstats). */
  public ErrorStats errorStats() {
    return errorStats;
  }

  LongAdder totalCommands() {
    return totalCommands;
  }

  public long nextClientId() {
    return nextClientId.getAndIncrement();
  }

  long startMillis() {
    return startMillis;
  }

  /** Returns the port the server listens on (the one bound when port 0 was asked for). */
  public int port() {
    return (int) (long) config.get(Parameters.PORT);
  }

  /**
   * Returns what SHUTDOWN runs: saves a snapshot if given true (SAVE), not if false (NOSAVE), as
   * the mode wants if null (Redis: when save points are set), then stops the server.
   */
  public Consumer<Boolean> shutdown() {
    return shutdown;
  }

  public void shutdown(Consumer<Boolean> shutdown) {
    this.shutdown = shutdown;
  }

  private final PubSub pubSub = new PubSub(Glob::matches);
  private final KeyspaceEvents keyspaceEvents = new KeyspaceEvents(pubSub);
  private final ClientRegistry clients = new ClientRegistry(pubSub);

  /** Returns the server's pub/sub subscriptions. */
  /** Returns the keyspace notifications (notify-keyspace-events). */
  public KeyspaceEvents keyspaceEvents() {
    return keyspaceEvents;
  }

  /** Returns the channels and patterns clients subscribed to. */
  public PubSub pubSub() {
    return pubSub;
  }

  private final ClientMemory clientMemory = new ClientMemory(this::replication);
  private final BufferLimits bufferLimits;
  private final ClientsCron clientsCron;

  /** Returns the clients' buffers as INFO adds them up. */
  public ClientMemory clientMemory() {
    return clientMemory;
  }

  /** Returns the clients' buffer limits (client-output-buffer-limit, client-query-buffer-limit). */
  public BufferLimits bufferLimits() {
    return bufferLimits;
  }

  /** Returns the clients' cron, to be run every {@link ClientsCron#PERIOD_MILLIS} ms. */
  public ClientsCron clientsCron() {
    return clientsCron;
  }

  /** Returns the registry of live client connections (CLIENT LIST, CLIENT KILL). */
  public ClientRegistry clients() {
    return clients;
  }
}
