package dev.cuckoo.server.command;

import dev.cuckoo.server.ServerConfig;
import dev.cuckoo.server.keyspace.HeapGuard;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.keyspace.Watches;
import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.persist.PersistenceContext;
import dev.cuckoo.server.persist.SavePoints;
import dev.cuckoo.server.persist.SaveStats;
import dev.cuckoo.server.persist.SnapshotOnly;
import dev.cuckoo.server.persist.Snapshots;
import dev.cuckoo.server.protocol.ErrorStats;
import dev.cuckoo.server.pubsub.KeyspaceEvents;
import dev.cuckoo.server.pubsub.PubSub;
import dev.cuckoo.server.replication.Replication;
import dev.cuckoo.server.replication.WriteStream;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/** What every connection shares: settings, the keyspace, persistence and counters. */
public final class ServerContext implements PersistenceContext {
  private final ServerConfig config;
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
  private final SaveStats saveStats = new SaveStats();
  private volatile SavePoints savePoints;
  private volatile boolean stopWritesOnBgsaveError;
  private volatile WriteStream writeStream = WriteStream.NONE;
  private final HeapGuard heapGuard = new HeapGuard();
  private volatile long maxMemory;
  private volatile int rewritePercentage;
  private volatile long rewriteMinSize;
  private volatile int port;
  // settings CONFIG SET changes at runtime (the start-up values are in config)
  private volatile long maxClients;
  private volatile int timeoutSeconds;
  private volatile long maxBulkLength;
  private volatile String requirePass;
  private volatile boolean protectedMode;
  private volatile String appendFsync;
  private volatile Consumer<Boolean> shutdown = save -> {};
  private volatile ServerControls controls = ServerControls.NONE;
  private volatile String bind;
  private volatile boolean latencyTracking;
  private volatile double[] latencyPercentiles;
  private volatile long slowlogLogSlowerThan;
  private volatile long slowlogMaxLen;
  private final SlowLog slowLog = new SlowLog();
  private final ExpiryStats expiryStats = new ExpiryStats();
  private final ClientPause clientPause = new ClientPause();
  private final dev.cuckoo.server.protocol.Traffic traffic =
      new dev.cuckoo.server.protocol.Traffic();

  private volatile dev.cuckoo.server.cluster.ClusterState cluster;

  /** Creates the state over the settings, the CF parameters and the keyspace. */
  public ServerContext(ServerConfig config, CfConfig cfConfig, Keyspace keyspace) {
    // the heap an empty server holds (INFO's used_memory_startup), before any data is loaded
    MemoryUsage.measureStartup();
    this.config = config;
    this.cfConfig = cfConfig;
    this.keyspace = keyspace;
    this.maxMemory = config.maxMemory();
    this.rewritePercentage = config.autoAofRewritePercentage();
    this.rewriteMinSize = config.autoAofRewriteMinSize();
    this.maxClients = config.maxClients();
    this.timeoutSeconds = config.timeoutSeconds();
    this.maxBulkLength = config.maxBulkLength();
    this.requirePass = config.requirePass();
    this.protectedMode = config.protectedMode();
    this.appendFsync = config.fsync().name().toLowerCase(java.util.Locale.ROOT);
    this.bind = config.bind();
    this.latencyTracking = config.latencyTracking();
    this.latencyPercentiles = config.latencyPercentiles();
    this.slowlogLogSlowerThan = config.slowlogLogSlowerThan();
    this.slowlogMaxLen = config.slowlogMaxLen();
    this.savePoints = config.savePoints();
    this.stopWritesOnBgsaveError = config.stopWritesOnBgsaveError();
  }

  @Override
  public SaveStats saveStats() {
    return saveStats;
  }

  @Override
  public SavePoints savePoints() {
    return savePoints;
  }

  void savePoints(SavePoints savePoints) {
    this.savePoints = savePoints;
  }

  @Override
  public boolean stopWritesOnBgsaveError() {
    return stopWritesOnBgsaveError;
  }

  void stopWritesOnBgsaveError(boolean stop) {
    this.stopWritesOnBgsaveError = stop;
  }

  /** Returns the cluster state, or null when cluster mode is off. */
  public dev.cuckoo.server.cluster.ClusterState cluster() {
    return cluster;
  }

  /** Sets the cluster state (once the cluster node has started). */
  public void cluster(dev.cuckoo.server.cluster.ClusterState cluster) {
    this.cluster = cluster;
  }

  /** Returns what CONFIG SET changes in the running server: the listener and the log. */
  ServerControls controls() {
    return controls;
  }

  /** Sets the running server's controls (once it listens). */
  public void controls(ServerControls controls) {
    this.controls = controls;
  }

  /** Returns the address the server listens on (bind), as last set. */
  String bind() {
    return bind;
  }

  void bind(String bind) {
    this.bind = bind;
  }

  /** Returns maxclients: connections beyond it are refused. */
  public long maxClients() {
    return maxClients;
  }

  void maxClients(long maxClients) {
    this.maxClients = maxClients;
  }

  /** Returns the idle timeout in seconds given to new connections (0: none). */
  public int timeoutSeconds() {
    return timeoutSeconds;
  }

  void timeoutSeconds(int timeoutSeconds) {
    this.timeoutSeconds = timeoutSeconds;
  }

  /** Returns proto-max-bulk-len, the longest bulk string new connections accept. */
  public long maxBulkLength() {
    return maxBulkLength;
  }

  void maxBulkLength(long maxBulkLength) {
    this.maxBulkLength = maxBulkLength;
  }

  /**
   * Returns the settings as they are now: the start-up ones with what CONFIG SET changed since and
   * the port actually bound; what CONFIG REWRITE writes. Settings that change at run time must show
   * here (replication's replicaof, for one).
   *
   * @throws IllegalArgumentException if a value set at run time is outside what a config file may
   *     hold
   */
  public ServerConfig currentConfig() {
    ServerConfig.Builder current =
        config.toBuilder()
            .port(port)
            .bind(bind)
            .appendOnly(persistence != null)
            .savePoints(savePoints)
            .stopWritesOnBgsaveError(stopWritesOnBgsaveError)
            .maxMemory(maxMemory)
            .autoAofRewritePercentage(rewritePercentage)
            .autoAofRewriteMinSize(rewriteMinSize)
            .maxClients((int) Math.min(maxClients, Integer.MAX_VALUE))
            .timeoutSeconds(timeoutSeconds)
            .maxBulkLength(maxBulkLength)
            .requirePass(requirePass)
            .protectedMode(protectedMode)
            .latencyTracking(latencyTracking)
            .latencyPercentiles(latencyPercentiles)
            .slowlogLogSlowerThan(slowlogLogSlowerThan)
            .slowlogMaxLen(slowlogMaxLen)
            .fsync(ServerConfig.Fsync.valueOf(appendFsync.toUpperCase(java.util.Locale.ROOT)));
    cfConfig.values().forEach(current::cfParameter);
    Replication replication = replication();
    if (replication != null) {
      // REPLICAOF and CONFIG SET change these at run time; Sentinel rewrites them after a failover
      try {
        for (java.util.Map.Entry<String, String> option : replication.options().entrySet()) {
          current.set(option.getKey(), option.getValue());
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return current.build();
  }

  /** Returns the password new connections must give (requirepass), or null for none. */
  public String requirePass() {
    return requirePass;
  }

  void requirePass(String requirePass) {
    this.requirePass = requirePass;
  }

  /** Returns protected-mode: without a password, refuse new clients not on the loopback. */
  public boolean protectedMode() {
    return protectedMode;
  }

  void protectedMode(boolean protectedMode) {
    this.protectedMode = protectedMode;
  }

  /** Returns the count of bytes received and sent (INFO stats). */
  public dev.cuckoo.server.protocol.Traffic traffic() {
    return traffic;
  }

  /** Returns true while CLIENT PAUSE holds clients' commands back. */
  public boolean clientsPaused() {
    return clientPause.active();
  }

  /** Returns the pause of clients' commands (CLIENT PAUSE). */
  ClientPause clientPause() {
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
    return slowlogLogSlowerThan;
  }

  void slowlogLogSlowerThan(long micros) {
    this.slowlogLogSlowerThan = micros;
  }

  /** Returns slowlog-max-len: the most entries the slow log keeps. */
  long slowlogMaxLen() {
    return slowlogMaxLen;
  }

  /** Sets slowlog-max-len and drops the oldest entries beyond it. */
  void slowlogMaxLen(long entries) {
    this.slowlogMaxLen = entries;
    slowLog.trim(entries);
  }

  /** Returns latency-tracking: whether each call's duration goes into its command's histogram. */
  boolean latencyTracking() {
    return latencyTracking;
  }

  void latencyTracking(boolean latencyTracking) {
    this.latencyTracking = latencyTracking;
  }

  /** Returns latency-tracking-info-percentiles: the percentiles INFO latencystats shows. */
  double[] latencyPercentiles() {
    return latencyPercentiles.clone();
  }

  void latencyPercentiles(double[] percentiles) {
    this.latencyPercentiles = percentiles.clone();
  }

  /**
   * Returns appendfsync as CONFIG GET shows it: the log's policy, or without a log the value last
   * set (which, as in Redis with appendonly no, governs nothing).
   */
  String appendFsync() {
    return appendFsync;
  }

  void appendFsync(String appendFsync) {
    this.appendFsync = appendFsync;
  }

  /**
   * Returns the most bytes of filters that new commands may make the keyspace hold (Redis's {@code
   * maxmemory}; 0: no limit but the heap).
   */
  long maxMemory() {
    return maxMemory;
  }

  void maxMemory(long maxMemory) {
    this.maxMemory = maxMemory;
  }

  /**
   * Returns the limit new commands are checked against: maxmemory, or no limit for 0; -1 (nothing
   * fits) while the heap is within its reserve of the maximum ({@link HeapGuard}).
   */
  long memoryLimit() {
    if (heapGuard.low()) {
      return -1;
    }
    long limit = maxMemory;
    return limit == 0 ? Long.MAX_VALUE : limit;
  }

  /** Returns the guard of the heap's reserve (started and closed with the server). */
  public HeapGuard heapGuard() {
    return heapGuard;
  }

  /** Returns auto-aof-rewrite-percentage (0: no automatic rewrite). */
  @Override
  public int rewritePercentage() {
    return rewritePercentage;
  }

  void rewritePercentage(int rewritePercentage) {
    this.rewritePercentage = rewritePercentage;
  }

  /** Returns auto-aof-rewrite-min-size in bytes. */
  @Override
  public long rewriteMinSize() {
    return rewriteMinSize;
  }

  @Override
  public void logForced() {
    Replication replication = replication();
    if (replication != null) {
      replication.fsyncMoved();
    }
  }

  void rewriteMinSize(long rewriteMinSize) {
    this.rewriteMinSize = rewriteMinSize;
  }

  @Override
  public ServerConfig config() {
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
  }

  /** Returns what saves snapshots while the log is off ({@code appendonly no}), or null. */
  public SnapshotOnly snapshotOnly() {
    return snapshotOnly;
  }

  /** Sets what saves snapshots while the log is off ({@code appendonly no}). */
  public void snapshotOnly(SnapshotOnly snapshotOnly) {
    this.snapshotOnly = snapshotOnly;
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

  public int port() {
    return port;
  }

  public void port(int port) {
    this.port = port;
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

  /** Returns the registry of live client connections (CLIENT LIST, CLIENT KILL). */
  public ClientRegistry clients() {
    return clients;
  }
}
