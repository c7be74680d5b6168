package dev.cuckoo.server;

import dev.cuckoo.server.command.CfConfig;
import dev.cuckoo.server.command.LatencyPercentiles;
import dev.cuckoo.server.persist.DataFiles;
import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.persist.SavePoints;
import dev.cuckoo.server.protocol.Numbers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The settings of a {@link CuckooServer}: network, limits, persistence and the cf-* defaults.
 *
 * <p>Built with {@link #builder()} or parsed from command-line options with {@link #parse}. Options
 * are {@code --name value}; a config file (the first argument, or {@code --config file}) holds one
 * {@code name value} pair per line with the same names, {@code #} starts a comment, and options
 * given on the command line after the file override it. {@link #optionNames()} lists every name.
 */
public final class ServerConfig {
  /** How often the append-only log is forced to disk. */
  public enum Fsync {
    /** Before each batch of replies is sent: an acknowledged write is on disk. */
    ALWAYS,
    /** Once a second, in the background. */
    EVERYSEC,
    /** Never explicitly; the operating system decides. */
    NO
  }

  /**
   * An output buffer limit, as Redis's {@code client-output-buffer-limit}: a connection is closed
   * when the replies and messages waiting for it exceed {@code hardBytes}, or stay above {@code
   * softBytes} for more than {@code softSeconds}; 0 turns a limit off.
   *
   * @param hardBytes the hard limit in bytes (0: none)
   * @param softBytes the soft limit in bytes (0: none)
   * @param softSeconds how long the soft limit may be exceeded
   */
  public record OutputBufferLimit(long hardBytes, long softBytes, long softSeconds) {
    /** Redis's default for pub/sub connections: {@code pubsub 32mb 8mb 60}. */
    public static final OutputBufferLimit PUBSUB_DEFAULT =
        new OutputBufferLimit(32L << 20, 8L << 20, 60);
  }

  /** The option names {@link #parse} accepts, with their meaning (for usage messages). */
  public static final String USAGE =
      "Options (a config file, given first, holds the same names as 'name value' lines):\n"
          + "  --port N                 TCP port, 0 picks a free one (default 6379)\n"
          + "  --bind ADDRESSES         addresses to listen on, separated by spaces (default 127.0.0.1)\n"
          + "  --dir PATH               data directory (default ./data)\n"
          + "  --appendonly yes|no      keep the append-only log beside the snapshots (default yes;"
          + " no: snapshots only)\n"
          + "  --appendfsync always|everysec|no   log fsync policy (default everysec)\n"
          + "  --save \"S C ...\"         snapshot in the background after S seconds and C changes"
          + " (default \"3600 1 300 100 60 10000\"; \"\" none)\n"
          + "  --dbfilename NAME        snapshot file in the data directory (default dump.cuckoo)\n"
          + "  --appendfilename NAME    append-only log in the data directory, and the base name"
          + " of its retired generations (default appendonly.log)\n"
          + "  --stop-writes-on-bgsave-error yes|no  refuse writes while the last background"
          + " snapshot failed (default yes)\n"
          + "  --rdbcompression no      snapshots are not compressed (only no is accepted)\n"
          + "  --rdbchecksum yes        snapshots always carry CRC32C checksums (only yes)\n"
          + "  --repair-log yes|no      repair a damaged log (header, middle record, generation)"
          + " instead of refusing to start\n"
          + "  --maxmemory BYTES        most memory filters may take for new writes, e.g. 2gb"
          + " (default: 3/4 of the heap; 0: the heap is the only limit)\n"
          + "  --auto-aof-rewrite-percentage N   snapshot when the log grew N% since the last"
          + " (default 100; 0: never)\n"
          + "  --auto-aof-rewrite-min-size BYTES  ... and is at least this big (default 64mb)\n"
          + "  --requirepass PASSWORD   require AUTH\n"
          + "  --protected-mode yes|no  with no password, refuse clients\n"
          + "                           that are not on the loopback interface (default yes)\n"
          + "  --enable-debug-command yes|no  allow DEBUG (default no, as Redis)\n"
          + "  --maxclients N           most simultaneous clients (default 10000)\n"
          + "  --databases N            number of databases, SELECT 0..N-1 (default 16)\n"
          + "  --max-bulk-length BYTES  longest bulk string (default 536870912)\n"
          + "  --max-array-length N     most arguments per request (default 1048576)\n"
          + "  --timeout SECONDS        close idle clients after this long (0 = never)\n"
          + "  --latency-tracking yes|no  record each call's duration for INFO latencystats (yes)\n"
          + "  --latency-tracking-info-percentiles \"P ...\"  percentiles INFO latencystats prints"
          + " (\"50 99 99.9\")\n"
          + "  --slowlog-log-slower-than MICROS  log commands slower than this in SLOWLOG"
          + " (default 10000; 0 every command, -1 none)\n"
          + "  --slowlog-max-len N      most entries SLOWLOG keeps (default 128)\n"
          + "  --threads N              network threads (default: available processors - 1, at least 1)\n"
          + "  --client-output-buffer-limit \"pubsub HARD SOFT SECONDS\"   close a subscriber"
          + " that falls behind (default pubsub 32mb 8mb 60)\n"
          + "  --logfile PATH           append the log to this file (default: standard error)\n"
          + "  --cf-bucket-size, --cf-initial-size, --cf-max-iterations,\n"
          + "  --cf-expansion-factor, --cf-max-expansions   RedisBloom module parameters\n"
          + "  --replicaof \"HOST PORT\"  start as a replica of that master (REPLICAOF at runtime);\n"
          + "  --slaveof \"HOST PORT\"    the same, Redis's older name\n"
          + "  --masterauth PASSWORD    password a replica gives its master; --masteruser NAME\n"
          + "  --replica-read-only yes|no   refuse clients' writes on a replica (default yes)\n"
          + "  --replica-serve-stale-data yes|no  answer while the master link is down"
          + " (default yes)\n"
          + "  --replica-priority N     Sentinel's promotion priority (default 100)\n"
          + "  --replica-announce-ip IP, --replica-announce-port N  what a replica tells its"
          + " master\n"
          + "  --repl-backlog-size BYTES    stream kept for partial resyncs (default 1mb)\n"
          + "  --repl-ping-replica-period N seconds between PINGs to replicas (default 10)\n"
          + "  --repl-timeout N         seconds of silence before a replica drops its link"
          + " (default 60)\n"
          + "  --min-replicas-to-write N    refuse writes with fewer good replicas (default 0)\n"
          + "  --min-replicas-max-lag N     seconds since a good replica's last ACK (default 10)\n"
          + "  --cluster-enabled yes|no run as a Redis Cluster node (default no)\n"
          + "  --cluster-config-file NAME  the node's cluster state, in dir (default nodes.conf)\n"
          + "  --cluster-node-timeout MS    a node silent this long is failing (default 15000)\n"
          + "  --cluster-port N         cluster bus port (default 0: port + 10000)\n"
          + "  --config FILE            read options from a file\n";

  private final int port;
  private final String bind;
  private final Path dir;
  private final boolean appendOnly;
  private final Fsync fsync;
  private final SavePoints savePoints;
  private final String dbFilename;
  private final String appendFilename;
  private final boolean stopWritesOnBgsaveError;
  private final boolean repairLog;
  private final String requirePass;
  private final boolean protectedMode;
  private final boolean enableDebugCommand;
  private final int maxClients;
  private final int databases;
  private final long maxBulkLength;
  private final int maxArrayLength;
  private final int timeoutSeconds;
  private final boolean latencyTracking;
  // a list, not an array: settings compare by value
  private final List<Double> latencyPercentiles;
  private final long slowlogLogSlowerThan;
  private final long slowlogMaxLen;
  private final int threads;
  private final long maxMemory;
  private final int autoAofRewritePercentage;
  private final long autoAofRewriteMinSize;
  private final Map<String, String> cfParameters;
  private final Path logFile;
  private final Replica replica;

  /** The replication options, grouped. */
  private record Replica(
      String replicaOf,
      String masterAuth,
      String masterUser,
      boolean readOnly,
      boolean serveStaleData,
      int priority,
      String announceIp,
      int announcePort,
      long backlogSize,
      int pingPeriod,
      int timeout,
      int minToWrite,
      int minMaxLag) {}

  private final OutputBufferLimit pubsubOutputLimit;
  private final Path configFile;
  private final ClusterMode cluster;

  private ServerConfig(Builder b) {
    this.port = b.port;
    this.bind = b.bind;
    this.dir = b.dir;
    this.appendOnly = b.appendOnly;
    this.fsync = b.fsync;
    this.savePoints = b.savePoints;
    this.dbFilename = b.dbFilename;
    this.appendFilename = b.appendFilename;
    this.stopWritesOnBgsaveError = b.stopWritesOnBgsaveError;
    this.repairLog = b.repairLog;
    this.requirePass = b.requirePass;
    this.protectedMode = b.protectedMode;
    this.enableDebugCommand = b.enableDebugCommand;
    this.maxClients = b.maxClients;
    this.databases = b.databases;
    this.maxBulkLength = b.maxBulkLength;
    this.maxArrayLength = b.maxArrayLength;
    this.timeoutSeconds = b.timeoutSeconds;
    this.latencyTracking = b.latencyTracking;
    this.latencyPercentiles = java.util.Arrays.stream(b.latencyPercentiles).boxed().toList();
    this.slowlogLogSlowerThan = b.slowlogLogSlowerThan;
    this.slowlogMaxLen = b.slowlogMaxLen;
    this.threads = b.threads;
    this.maxMemory = b.maxMemory >= 0 ? b.maxMemory : Runtime.getRuntime().maxMemory() / 4 * 3;
    this.autoAofRewritePercentage = b.autoAofRewritePercentage;
    this.autoAofRewriteMinSize = b.autoAofRewriteMinSize;
    this.cfParameters = Map.copyOf(b.cfParameters);
    this.logFile = b.logFile;
    this.pubsubOutputLimit = b.pubsubOutputLimit;
    this.configFile = b.configFile;
    this.cluster =
        new ClusterMode(b.clusterEnabled, b.clusterConfigFile, b.clusterNodeTimeout, b.clusterPort);
    this.replica =
        new Replica(
            b.replicaOf,
            b.masterAuth,
            b.masterUser,
            b.replicaReadOnly,
            b.replicaServeStaleData,
            b.replicaPriority,
            b.replicaAnnounceIp,
            b.replicaAnnouncePort,
            b.replBacklogSize,
            b.replPingReplicaPeriod,
            b.replTimeout,
            b.minReplicasToWrite,
            b.minReplicasMaxLag);
  }

  /** Returns the master to replicate at start-up ("host port"), or null. */
  public String replicaOf() {
    return replica.replicaOf();
  }

  /** Returns masterauth, or null. */
  public String masterAuth() {
    return replica.masterAuth();
  }

  /** Returns masteruser, or null. */
  public String masterUser() {
    return replica.masterUser();
  }

  /** Returns replica-read-only. */
  public boolean replicaReadOnly() {
    return replica.readOnly();
  }

  /** Returns replica-serve-stale-data. */
  public boolean replicaServeStaleData() {
    return replica.serveStaleData();
  }

  /** Returns replica-priority. */
  public int replicaPriority() {
    return replica.priority();
  }

  /** Returns replica-announce-ip, or null. */
  public String replicaAnnounceIp() {
    return replica.announceIp();
  }

  /** Returns replica-announce-port (0: the listening port). */
  public int replicaAnnouncePort() {
    return replica.announcePort();
  }

  /** Returns repl-backlog-size in bytes. */
  public long replBacklogSize() {
    return replica.backlogSize();
  }

  /** Returns repl-ping-replica-period in seconds. */
  public int replPingReplicaPeriod() {
    return replica.pingPeriod();
  }

  /** Returns repl-timeout in seconds. */
  public int replTimeout() {
    return replica.timeout();
  }

  /** Returns min-replicas-to-write. */
  public int minReplicasToWrite() {
    return replica.minToWrite();
  }

  /** Returns min-replicas-max-lag in seconds. */
  public int minReplicasMaxLag() {
    return replica.minMaxLag();
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Parses command-line options: {@code [config-file] [--name value ...]}. A first argument that
   * does not start with {@code --} names a config file, read before the options that follow it (so
   * they override it), as redis-server does.
   *
   * @throws IllegalArgumentException naming the option and the bad value
   * @throws IOException if a config file cannot be read
   */
  public static ServerConfig parse(String... args) throws IOException {
    Builder builder = builder();
    int first = 0;
    if (args.length > 0 && !args[0].startsWith("--")) {
      builder.readFile(Paths.get(args[0]));
      first = 1;
    }
    for (int i = first; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument: " + arg);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + arg + " needs a value");
      }
      // as Redis's command line: the words up to the next option form the value
      // (--bind 127.0.0.1 -::1, --replicaof host port)
      StringBuilder value = new StringBuilder(args[++i]);
      while (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        value.append(' ').append(args[++i]);
      }
      builder.set(arg.substring(2), value.toString());
    }
    return builder.build();
  }

  /**
   * Returns the names of every option {@link Builder#set} accepts (and a config file may hold), in
   * the order {@link #USAGE} lists them.
   */
  public static Set<String> optionNames() {
    return Builder.OPTIONS.keySet();
  }

  /**
   * Returns the value of every option a config file can hold as its line would carry it (the same
   * text {@link Builder#set} reads back: sizes with Redis's units, yes/no, "" for none), in the
   * order of {@link #optionNames()}; {@code config}, which includes a file, is left out. CONFIG
   * REWRITE writes these.
   */
  public Map<String, String> optionValues() {
    Map<String, String> values = new LinkedHashMap<>();
    for (Map.Entry<String, Builder.Option> option : Builder.OPTIONS.entrySet()) {
      if (option.getValue().value() != null) {
        values.put(option.getKey(), option.getValue().value().apply(this));
      }
    }
    return values;
  }

  /**
   * Returns a builder holding these settings (the config file they came from included), to derive
   * settings that differ in a few values.
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.port = port;
    b.bind = bind;
    b.dir = dir;
    b.appendOnly = appendOnly;
    b.fsync = fsync;
    b.savePoints = savePoints;
    b.dbFilename = dbFilename;
    b.appendFilename = appendFilename;
    b.stopWritesOnBgsaveError = stopWritesOnBgsaveError;
    b.repairLog = repairLog;
    b.requirePass = requirePass;
    b.protectedMode = protectedMode;
    b.enableDebugCommand = enableDebugCommand;
    b.maxClients = maxClients;
    b.databases = databases;
    b.maxBulkLength = maxBulkLength;
    b.maxArrayLength = maxArrayLength;
    b.timeoutSeconds = timeoutSeconds;
    b.latencyTracking = latencyTracking;
    b.latencyPercentiles = latencyPercentiles();
    b.slowlogLogSlowerThan = slowlogLogSlowerThan;
    b.slowlogMaxLen = slowlogMaxLen;
    b.threads = threads;
    b.maxMemory = maxMemory;
    b.autoAofRewritePercentage = autoAofRewritePercentage;
    b.autoAofRewriteMinSize = autoAofRewriteMinSize;
    b.cfParameters.putAll(cfParameters);
    b.logFile = logFile;
    b.pubsubOutputLimit = pubsubOutputLimit;
    b.configFile = configFile;
    b.clusterEnabled = cluster.enabled();
    b.clusterConfigFile = cluster.configFile();
    b.clusterNodeTimeout = cluster.nodeTimeoutMillis();
    b.clusterPort = cluster.port();
    return b;
  }

  private static String yesOrNo(boolean value) {
    return value ? "yes" : "no";
  }

  /** Returns the TCP port (0: any free port). */
  public int port() {
    return port;
  }

  /** Returns the address to listen on. */
  public String bind() {
    return bind;
  }

  /** Returns the data directory. */
  public Path dir() {
    return dir;
  }

  /** Returns true if writes are logged beside the snapshots; false: snapshots only. */
  public boolean appendOnly() {
    return appendOnly;
  }

  /** Returns the save points ({@code save}): when a snapshot is taken automatically. */
  public SavePoints savePoints() {
    return savePoints;
  }

  /** Returns the snapshot's file name in the data directory ({@code dbfilename}). */
  public String dbFilename() {
    return dbFilename;
  }

  /** Returns the active log's file name in the data directory ({@code appendfilename}). */
  public String appendFilename() {
    return appendFilename;
  }

  /** Returns {@code stop-writes-on-bgsave-error}: refuse writes after a failed background save. */
  public boolean stopWritesOnBgsaveError() {
    return stopWritesOnBgsaveError;
  }

  /** Returns the log fsync policy. */
  public Fsync fsync() {
    return fsync;
  }

  /** Returns true if a corrupt log may be truncated at the first bad record on startup. */
  public boolean repairLog() {
    return repairLog;
  }

  /** Returns the password clients must AUTH with, or null. */
  public String requirePass() {
    return requirePass;
  }

  /**
   * Returns true if protected mode is on: when no password is set, clients from other than the
   * loopback interface get Redis's {@code -DENIED} error and are disconnected, whatever address the
   * server listens on (as in Redis 7 and later).
   */
  public boolean protectedMode() {
    return protectedMode;
  }

  /** Returns true if the DEBUG command may be used (Redis's {@code enable-debug-command}). */
  public boolean enableDebugCommand() {
    return enableDebugCommand;
  }

  /** Returns the most simultaneous clients. */
  public int maxClients() {
    return maxClients;
  }

  /** Returns the number of databases (SELECT 0 to databases - 1). */
  public int databases() {
    return databases;
  }

  /** Returns the longest accepted bulk string, in bytes. */
  public long maxBulkLength() {
    return maxBulkLength;
  }

  /** Returns the most arguments accepted in one request. */
  public int maxArrayLength() {
    return maxArrayLength;
  }

  /** Returns the idle timeout in seconds (0: none). */
  public int timeoutSeconds() {
    return timeoutSeconds;
  }

  /** Returns latency-tracking: whether each call's duration goes into a per-command histogram. */
  public boolean latencyTracking() {
    return latencyTracking;
  }

  /**
   * Returns latency-tracking-info-percentiles: the percentiles INFO latencystats prints (a copy).
   */
  public double[] latencyPercentiles() {
    return latencyPercentiles.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /**
   * Returns slowlog-log-slower-than: commands that run at least this many microseconds go into the
   * slow log (0: every command; negative: none).
   */
  public long slowlogLogSlowerThan() {
    return slowlogLogSlowerThan;
  }

  /** Returns slowlog-max-len: the most entries the slow log keeps. */
  public long slowlogMaxLen() {
    return slowlogMaxLen;
  }

  /**
   * Returns the default number of network threads on a machine with {@code processors} cores: one
   * per core but one, at least one, as Redis advises for its I/O threads. Half a request's CPU time
   * at pipeline 16 and three quarters at pipeline 1 is the kernel's (socket reads and writes,
   * wakeups; perf, cpu-clock), on the same cores, next to the clients of the same machine. On two
   * cores shared with a redis-benchmark client, one thread instead of two took 27% less server CPU
   * per CF.ADD at pipeline 16 (two threads adding to one key hand its stripe lock back and forth,
   * and JFR counted a thread park in about one in 30 requests) and 8% less at pipeline 1
   * (docs/server-benchmark.md).
   */
  static int defaultThreads(int processors) {
    return Math.max(1, processors - 1);
  }

  /** Returns the number of network threads. */
  public int threads() {
    return threads;
  }

  /**
   * Returns Redis's {@code maxmemory}: the most bytes of filters new write commands may make the
   * server hold (0: only the heap limits). Defaults to three quarters of the maximum heap.
   */
  public long maxMemory() {
    return maxMemory;
  }

  /** Returns Redis's {@code auto-aof-rewrite-percentage} (0: no automatic rewrite). */
  public int autoAofRewritePercentage() {
    return autoAofRewritePercentage;
  }

  /** Returns Redis's {@code auto-aof-rewrite-min-size} in bytes. */
  public long autoAofRewriteMinSize() {
    return autoAofRewriteMinSize;
  }

  /** Returns the cf-* parameters set at startup (name to value). */
  public Map<String, String> cfParameters() {
    return cfParameters;
  }

  /** Returns the file the log is appended to, or null for standard error. */
  public Path logFile() {
    return logFile;
  }

  /** Returns the output buffer limit of connections with subscriptions. */
  public OutputBufferLimit pubsubOutputLimit() {
    return pubsubOutputLimit;
  }

  /**
   * Returns the config file the settings were read from (the last one, if several were named), as
   * an absolute path, or null if none was: CONFIG REWRITE writes to it.
   */
  public Path configFile() {
    return configFile;
  }

  /**
   * The cluster-mode settings.
   *
   * @param enabled cluster-enabled: run as a Redis Cluster node
   * @param configFile cluster-config-file: the node's cluster state, relative to dir
   * @param nodeTimeoutMillis cluster-node-timeout in milliseconds
   * @param port cluster-port: the bus port, 0 for the client port + 10000
   */
  public record ClusterMode(boolean enabled, String configFile, long nodeTimeoutMillis, int port) {}

  /** Returns the cluster-mode settings. */
  public ClusterMode cluster() {
    return cluster;
  }

  /**
   * Returns what is wrong with a {@code bind} value (1 to 16 resolvable addresses separated by
   * spaces), or null if nothing is.
   */
  public static String checkBind(String bind) {
    return bind == null ? "bind: no address given" : Listener.check(bind);
  }

  /** Returns the number of addresses a {@code bind} value names. */
  public static int bindAddresses(String bind) {
    return Listener.count(bind);
  }

  /** A mutable set of server settings. */
  public static final class Builder {
    /** The most databases a server may have. */
    public static final int MAX_DATABASES = 1 << 16;

    private int port = 6379;
    private String bind = "127.0.0.1";
    private Path dir = Paths.get("data");
    private boolean appendOnly = true;
    private Fsync fsync = Fsync.EVERYSEC;
    private SavePoints savePoints = SavePoints.DEFAULT;
    // true once a config file's save line was read: its further save lines add points (Redis)
    private boolean savePointsFromFile;
    private String dbFilename = Persistence.SNAPSHOT;
    private String appendFilename = Persistence.LOG;
    private boolean stopWritesOnBgsaveError = true;
    private boolean repairLog;
    private String requirePass;
    private boolean protectedMode = true;
    private boolean enableDebugCommand;
    private int maxClients = 10_000;
    private int databases = 16;
    private long maxBulkLength = 512L * 1024 * 1024;
    private int maxArrayLength = 1 << 20;
    private int timeoutSeconds;
    private boolean latencyTracking = true;
    private double[] latencyPercentiles = LatencyPercentiles.DEFAULT.clone();
    private long slowlogLogSlowerThan = 10_000;
    private long slowlogMaxLen = 128;
    private int threads = defaultThreads(Runtime.getRuntime().availableProcessors());
    private long maxMemory = -1;
    private int autoAofRewritePercentage = 100;
    private long autoAofRewriteMinSize = 64L * 1024 * 1024;
    private final Map<String, String> cfParameters = new LinkedHashMap<>();
    private Path logFile;
    private String replicaOf;
    private String masterAuth;
    private String masterUser;
    private boolean replicaReadOnly = true;
    private boolean replicaServeStaleData = true;
    private int replicaPriority = 100;
    private String replicaAnnounceIp;
    private int replicaAnnouncePort;
    private long replBacklogSize = 1024 * 1024;
    private int replPingReplicaPeriod = 10;
    private int replTimeout = 60;
    private int minReplicasToWrite;
    private int minReplicasMaxLag = 10;
    private OutputBufferLimit pubsubOutputLimit = OutputBufferLimit.PUBSUB_DEFAULT;
    private Path configFile;
    private boolean clusterEnabled;
    private String clusterConfigFile = "nodes.conf";
    private long clusterNodeTimeout = 15_000;
    private int clusterPort;

    /** Sets one option from its text; {@code name} is the option's name, for messages. */
    @FunctionalInterface
    private interface OptionSetter {
      void set(Builder builder, String name, String value) throws IOException;
    }

    /**
     * One option of the table: how its text sets it, and how its value in a {@link ServerConfig}
     * reads as that text (null for {@code config}, which includes a file and holds no value).
     */
    private record Option(OptionSetter setter, Function<ServerConfig, String> value) {}

    /**
     * Every option {@link #set} accepts, by name, in the order {@link ServerConfig#USAGE} lists.
     */
    private static final Map<String, Option> OPTIONS = options();

    private static Map<String, Option> options() {
      Map<String, Option> options = new LinkedHashMap<>();
      options.put(
          "port",
          new Option(
              (b, name, value) -> b.port(integer(name, value, 0, 65535)),
              c -> Integer.toString(c.port)));
      options.put("bind", new Option((b, name, value) -> b.bind(value), c -> c.bind));
      options.put(
          "dir", new Option((b, name, value) -> b.dir(Paths.get(value)), c -> c.dir.toString()));
      options.put(
          "appendonly",
          new Option(
              (b, name, value) -> b.appendOnly(yesNo(name, value)), c -> yesOrNo(c.appendOnly)));
      options.put(
          "appendfsync",
          new Option(
              (b, name, value) -> b.fsync(fsync(value)),
              c -> c.fsync.name().toLowerCase(Locale.ROOT)));
      options.put(
          "save",
          new Option(
              (b, name, value) -> b.savePoints(savePoints(name, value)),
              c -> c.savePoints.toString()));
      options.put(
          "dbfilename", new Option((b, name, value) -> b.dbFilename(value), c -> c.dbFilename));
      options.put(
          "appendfilename",
          new Option((b, name, value) -> b.appendFilename(value), c -> c.appendFilename));
      options.put(
          "stop-writes-on-bgsave-error",
          new Option(
              (b, name, value) -> b.stopWritesOnBgsaveError(yesNo(name, value)),
              c -> yesOrNo(c.stopWritesOnBgsaveError)));
      options.put(
          "rdbcompression",
          new Option((b, name, value) -> only(name, value, false), c -> yesOrNo(false)));
      options.put(
          "rdbchecksum",
          new Option((b, name, value) -> only(name, value, true), c -> yesOrNo(true)));
      options.put(
          "repair-log",
          new Option(
              (b, name, value) -> b.repairLog(yesNo(name, value)), c -> yesOrNo(c.repairLog)));
      options.put(
          "maxmemory",
          new Option(
              (b, name, value) -> b.maxMemory(memory(name, value)),
              c -> Numbers.formatMemory(c.maxMemory)));
      options.put(
          "auto-aof-rewrite-percentage",
          new Option(
              (b, name, value) ->
                  b.autoAofRewritePercentage(integer(name, value, 0, Integer.MAX_VALUE)),
              c -> Integer.toString(c.autoAofRewritePercentage)));
      options.put(
          "auto-aof-rewrite-min-size",
          new Option(
              (b, name, value) -> b.autoAofRewriteMinSize(memory(name, value)),
              c -> Numbers.formatMemory(c.autoAofRewriteMinSize)));
      options.put(
          "requirepass",
          new Option(
              (b, name, value) -> b.requirePass(value),
              c -> c.requirePass == null ? "" : c.requirePass));
      options.put(
          "protected-mode",
          new Option(
              (b, name, value) -> b.protectedMode(yesNo(name, value)),
              c -> yesOrNo(c.protectedMode)));
      options.put(
          "enable-debug-command",
          new Option(
              (b, name, value) -> b.enableDebugCommand(yesNo(name, value)),
              c -> yesOrNo(c.enableDebugCommand)));
      options.put(
          "maxclients",
          new Option(
              (b, name, value) -> b.maxClients(integer(name, value, 1, 1_000_000)),
              c -> Integer.toString(c.maxClients)));
      options.put(
          "databases",
          new Option(
              (b, name, value) -> b.databases(integer(name, value, 1, MAX_DATABASES)),
              c -> Integer.toString(c.databases)));
      options.put(
          "max-bulk-length",
          new Option(
              (b, name, value) -> b.maxBulkLength(number(name, value)),
              c -> Long.toString(c.maxBulkLength)));
      options.put(
          "max-array-length",
          new Option(
              (b, name, value) -> b.maxArrayLength(integer(name, value, 1024, 1 << 27)),
              c -> Integer.toString(c.maxArrayLength)));
      options.put(
          "timeout",
          new Option(
              (b, name, value) -> b.timeoutSeconds(integer(name, value, 0, Integer.MAX_VALUE)),
              c -> Integer.toString(c.timeoutSeconds)));
      options.put(
          "latency-tracking",
          new Option(
              (b, name, value) -> b.latencyTracking(yesNo(name, value)),
              c -> yesOrNo(c.latencyTracking)));
      options.put(
          "latency-tracking-info-percentiles",
          new Option(
              (b, name, value) -> {
                String error = LatencyPercentiles.error(value);
                if (error != null) {
                  throw new IllegalArgumentException(name + ": " + error + ", got '" + value + "'");
                }
                b.latencyPercentiles(LatencyPercentiles.parse(value));
              },
              c -> LatencyPercentiles.text(c.latencyPercentiles())));
      options.put(
          "slowlog-log-slower-than",
          new Option(
              (b, name, value) -> b.slowlogLogSlowerThan(number(name, value)),
              c -> Long.toString(c.slowlogLogSlowerThan)));
      options.put(
          "slowlog-max-len",
          new Option(
              (b, name, value) -> b.slowlogMaxLen(number(name, value)),
              c -> Long.toString(c.slowlogMaxLen)));
      options.put(
          "threads",
          new Option(
              (b, name, value) -> b.threads(integer(name, value, 1, 256)),
              c -> Integer.toString(c.threads)));
      options.put(
          "client-output-buffer-limit",
          new Option(
              (b, name, value) -> b.pubsubOutputLimit(outputBufferLimit(name, value)),
              c ->
                  "pubsub "
                      + Numbers.formatMemory(c.pubsubOutputLimit.hardBytes())
                      + " "
                      + Numbers.formatMemory(c.pubsubOutputLimit.softBytes())
                      + " "
                      + c.pubsubOutputLimit.softSeconds()));
      options.put(
          "logfile",
          new Option(
              (b, name, value) -> b.logFile(value.isEmpty() ? null : Paths.get(value)),
              c -> c.logFile == null ? "" : c.logFile.toString()));
      Map<String, String> cfDefaults = new CfConfig().values();
      for (String parameter : cfDefaults.keySet()) {
        options.put(
            parameter,
            new Option(
                (b, name, value) -> b.cfParameter(name, value),
                c -> c.cfParameters.getOrDefault(parameter, cfDefaults.get(parameter))));
      }
      options.put(
          "replicaof",
          new Option(
              (b, name, value) -> b.replicaOf(value),
              c -> c.replica.replicaOf() == null ? "" : c.replica.replicaOf()));
      // the older name of the same setting: read, never written back
      options.put("slaveof", new Option((b, name, value) -> b.replicaOf(value), null));
      options.put(
          "masterauth",
          new Option(
              (b, name, value) -> b.masterAuth = value.isEmpty() ? null : value,
              c -> c.replica.masterAuth() == null ? "" : c.replica.masterAuth()));
      options.put(
          "masteruser",
          new Option(
              (b, name, value) -> b.masterUser = value.isEmpty() ? null : value,
              c -> c.replica.masterUser() == null ? "" : c.replica.masterUser()));
      options.put(
          "replica-read-only",
          new Option(
              (b, name, value) -> b.replicaReadOnly = yesNo(name, value),
              c -> yesOrNo(c.replica.readOnly())));
      options.put(
          "replica-serve-stale-data",
          new Option(
              (b, name, value) -> b.replicaServeStaleData = yesNo(name, value),
              c -> yesOrNo(c.replica.serveStaleData())));
      options.put(
          "replica-priority",
          new Option(
              (b, name, value) -> b.replicaPriority = integer(name, value, 0, Integer.MAX_VALUE),
              c -> Integer.toString(c.replica.priority())));
      options.put(
          "replica-announce-ip",
          new Option(
              (b, name, value) -> b.replicaAnnounceIp = value.isEmpty() ? null : value,
              c -> c.replica.announceIp() == null ? "" : c.replica.announceIp()));
      options.put(
          "replica-announce-port",
          new Option(
              (b, name, value) -> b.replicaAnnouncePort = integer(name, value, 0, 65535),
              c -> Integer.toString(c.replica.announcePort())));
      options.put(
          "repl-backlog-size",
          new Option(
              (b, name, value) ->
                  b.replBacklogSize = rangeLong(name, memory(name, value), 16 * 1024, 1L << 30),
              c -> Numbers.formatMemory(c.replica.backlogSize())));
      options.put(
          "repl-ping-replica-period",
          new Option(
              (b, name, value) -> b.replPingReplicaPeriod = integer(name, value, 1, 3600),
              c -> Integer.toString(c.replica.pingPeriod())));
      options.put(
          "repl-timeout",
          new Option(
              (b, name, value) -> b.replTimeout = integer(name, value, 1, 3600),
              c -> Integer.toString(c.replica.timeout())));
      options.put(
          "min-replicas-to-write",
          new Option(
              (b, name, value) -> b.minReplicasToWrite = integer(name, value, 0, Integer.MAX_VALUE),
              c -> Integer.toString(c.replica.minToWrite())));
      options.put(
          "min-replicas-max-lag",
          new Option(
              (b, name, value) -> b.minReplicasMaxLag = integer(name, value, 0, Integer.MAX_VALUE),
              c -> Integer.toString(c.replica.minMaxLag())));
      options.put(
          "cluster-enabled",
          new Option(
              (b, name, value) -> b.clusterEnabled = yesNo(name, value),
              c -> yesOrNo(c.cluster.enabled())));
      options.put(
          "cluster-config-file",
          new Option((b, name, value) -> b.clusterConfigFile(value), c -> c.cluster.configFile()));
      options.put(
          "cluster-node-timeout",
          new Option(
              (b, name, value) ->
                  b.clusterNodeTimeout = rangeLong(name, number(name, value), 1, Long.MAX_VALUE),
              c -> Long.toString(c.cluster.nodeTimeoutMillis())));
      options.put(
          "cluster-port",
          new Option(
              (b, name, value) -> b.clusterPort = integer(name, value, 0, 65535),
              c -> Integer.toString(c.cluster.port())));
      options.put("config", new Option((b, name, value) -> b.readFile(Paths.get(value)), null));
      return Collections.unmodifiableMap(options);
    }

    private Builder() {}

    /** Sets the TCP port, 0..65535 (0: any free port). */
    public Builder port(int port) {
      this.port = range("port", port, 0, 65535);
      return this;
    }

    /**
     * Sets the addresses to listen on: 1 to 16 separated by spaces, Redis's syntax ({@code *} every
     * IPv4 address, {@code ::*} every IPv6 one, a leading {@code -} skips an address this host
     * lacks).
     *
     * @throws IllegalArgumentException naming the problem if the list is empty, too long, or names
     *     a host that cannot be resolved
     */
    public Builder bind(String bind) {
      String error = checkBind(bind);
      if (error != null) {
        throw new IllegalArgumentException(error);
      }
      this.bind = bind.trim();
      return this;
    }

    /** Sets the data directory. */
    public Builder dir(Path dir) {
      this.dir = dir;
      return this;
    }

    /** Turns the append-only log on (beside the snapshots) or off (snapshots only). */
    public Builder appendOnly(boolean appendOnly) {
      this.appendOnly = appendOnly;
      return this;
    }

    /** Sets the save points ({@code save}; {@link SavePoints#NONE} for {@code save ""}). */
    public Builder savePoints(SavePoints savePoints) {
      this.savePoints = java.util.Objects.requireNonNull(savePoints, "savePoints");
      return this;
    }

    /**
     * Sets the snapshot's file name (dbfilename), a name in the data directory, not a path.
     *
     * @throws IllegalArgumentException if it is empty or a path
     */
    public Builder dbFilename(String name) {
      this.dbFilename = fileName("dbfilename", name);
      return this;
    }

    /**
     * Sets the active log's file name (appendfilename), a name in the data directory, not a path;
     * retired logs add a dot and their generation to it.
     *
     * @throws IllegalArgumentException if it is empty, a path or the snapshot's name
     */
    public Builder appendFilename(String name) {
      this.appendFilename = fileName("appendfilename", name);
      return this;
    }

    /** Sets stop-writes-on-bgsave-error. */
    public Builder stopWritesOnBgsaveError(boolean stop) {
      this.stopWritesOnBgsaveError = stop;
      return this;
    }

    private static String fileName(String parameter, String name) {
      String error = DataFiles.checkName(parameter, name);
      if (error != null) {
        throw new IllegalArgumentException(parameter + ": '" + name + "': " + error);
      }
      return name;
    }

    private static SavePoints savePoints(String name, String value) {
      try {
        return SavePoints.parse(value);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            name
                + ": '"
                + value
                + "': "
                + e.getMessage()
                + " (expected: pairs of seconds >= 1 and changes >= 0, or \"\" for none)",
            e);
      }
    }

    /** Accepts only the one value of a parameter this server cannot change (rdbcompression...). */
    private static void only(String name, String value, boolean accepted) {
      if (yesNo(name, value) != accepted) {
        throw new IllegalArgumentException(name + ": '" + value + "': " + fixedReason(name));
      }
    }

    /** Sets the log fsync policy. */
    public Builder fsync(Fsync fsync) {
      this.fsync = fsync;
      return this;
    }

    /** Allows truncating a corrupt log at the first bad record on startup. */
    public Builder repairLog(boolean repairLog) {
      this.repairLog = repairLog;
      return this;
    }

    /** Sets the password clients must AUTH with (null or empty: none). */
    public Builder requirePass(String requirePass) {
      this.requirePass = requirePass == null || requirePass.isEmpty() ? null : requirePass;
      return this;
    }

    /** Allows the DEBUG command (default off); see {@link ServerConfig#enableDebugCommand()}. */
    public Builder enableDebugCommand(boolean enableDebugCommand) {
      this.enableDebugCommand = enableDebugCommand;
      return this;
    }

    /** Turns protected mode on or off (default on); see {@link ServerConfig#protectedMode()}. */
    public Builder protectedMode(boolean protectedMode) {
      this.protectedMode = protectedMode;
      return this;
    }

    /**
     * Sets the number of databases (Redis's {@code databases}).
     *
     * @throws IllegalArgumentException outside 1 to {@value #MAX_DATABASES}
     */
    public Builder databases(int databases) {
      this.databases = range("databases", databases, 1, MAX_DATABASES);
      return this;
    }

    /** Sets the most simultaneous clients, 1..1000000. */
    public Builder maxClients(int maxClients) {
      this.maxClients = range("maxclients", maxClients, 1, 1_000_000);
      return this;
    }

    /** Sets the longest bulk string, 1 MiB..2^31-64 bytes. */
    public Builder maxBulkLength(long maxBulkLength) {
      this.maxBulkLength = range("max-bulk-length", maxBulkLength, 1 << 20, Integer.MAX_VALUE - 64);
      return this;
    }

    /** Sets the most arguments per request, 1024..2^27. */
    public Builder maxArrayLength(int maxArrayLength) {
      this.maxArrayLength = range("max-array-length", maxArrayLength, 1024, 1 << 27);
      return this;
    }

    /** Sets the idle timeout in seconds, 0 (never) .. 2^31-1. */
    public Builder timeoutSeconds(int timeoutSeconds) {
      this.timeoutSeconds = range("timeout", timeoutSeconds, 0, Integer.MAX_VALUE);
      return this;
    }

    /** Sets cluster-enabled: whether the server runs as a Redis Cluster node. */
    public Builder clusterEnabled(boolean enabled) {
      this.clusterEnabled = enabled;
      return this;
    }

    /**
     * Sets cluster-config-file: the node's cluster state file, relative to dir.
     *
     * @throws IllegalArgumentException naming the parameter if it is empty
     */
    public Builder clusterConfigFile(String file) {
      if (file == null || file.isEmpty()) {
        throw new IllegalArgumentException("cluster-config-file: '' (expected: a file name)");
      }
      this.clusterConfigFile = file;
      return this;
    }

    /**
     * Sets cluster-node-timeout in milliseconds, at least 1.
     *
     * @throws IllegalArgumentException naming the parameter if it is below 1
     */
    public Builder clusterNodeTimeout(long millis) {
      this.clusterNodeTimeout = rangeLong("cluster-node-timeout", millis, 1, Long.MAX_VALUE);
      return this;
    }

    /**
     * Sets cluster-port: the bus port, 0 (the client port + 10000) to 65535.
     *
     * @throws IllegalArgumentException naming the parameter if it is out of range
     */
    public Builder clusterPort(int port) {
      this.clusterPort = range("cluster-port", port, 0, 65535);
      return this;
    }

    /** Sets the number of network threads, 1..256. */
    public Builder threads(int threads) {
      this.threads = range("threads", threads, 1, 256);
      return this;
    }

    /**
     * Sets slowlog-log-slower-than in microseconds, -1 (none) to 2^63 - 1 as Redis allows.
     *
     * @throws IllegalArgumentException naming the parameter if it is below -1
     */
    public Builder slowlogLogSlowerThan(long micros) {
      this.slowlogLogSlowerThan = rangeLong("slowlog-log-slower-than", micros, -1, Long.MAX_VALUE);
      return this;
    }

    /**
     * Sets slowlog-max-len, 0 to 2^63 - 1 as Redis allows.
     *
     * @throws IllegalArgumentException naming the parameter if it is negative
     */
    public Builder slowlogMaxLen(long entries) {
      this.slowlogMaxLen = rangeLong("slowlog-max-len", entries, 0, Long.MAX_VALUE);
      return this;
    }

    /** Sets latency-tracking: whether each call's duration is recorded (INFO latencystats). */
    public Builder latencyTracking(boolean latencyTracking) {
      this.latencyTracking = latencyTracking;
      return this;
    }

    /**
     * Sets latency-tracking-info-percentiles: the percentiles INFO latencystats prints, each from 0
     * to 100 (none: an empty array).
     *
     * @throws IllegalArgumentException naming the parameter if one is outside 0..100
     */
    public Builder latencyPercentiles(double... percentiles) {
      for (double percentile : percentiles) {
        if (!(percentile >= 0 && percentile <= 100)) {
          throw new IllegalArgumentException(
              "latency-tracking-info-percentiles: "
                  + percentile
                  + " is outside the allowed range 0..100");
        }
      }
      this.latencyPercentiles = percentiles.clone();
      return this;
    }

    /** Sets maxmemory in bytes, 0 (only the heap limits) or more. */
    public Builder maxMemory(long maxMemory) {
      this.maxMemory = rangeLong("maxmemory", maxMemory, 0, Long.MAX_VALUE);
      return this;
    }

    /** Sets auto-aof-rewrite-percentage, 0 (never) .. 2^31-1. */
    public Builder autoAofRewritePercentage(int percentage) {
      this.autoAofRewritePercentage =
          range("auto-aof-rewrite-percentage", percentage, 0, Integer.MAX_VALUE);
      return this;
    }

    /** Sets auto-aof-rewrite-min-size in bytes, 0 or more. */
    public Builder autoAofRewriteMinSize(long bytes) {
      this.autoAofRewriteMinSize = rangeLong("auto-aof-rewrite-min-size", bytes, 0, Long.MAX_VALUE);
      return this;
    }

    private static long memory(String name, String value) {
      Long bytes = Numbers.parseMemory(value);
      if (bytes == null) {
        throw new IllegalArgumentException(
            name
                + ": '"
                + value
                + "' (expected: bytes, optionally with a unit k, kb, m, mb, g or gb)");
      }
      return bytes;
    }

    /** Sets the output buffer limit of connections with subscriptions. */
    public Builder pubsubOutputLimit(OutputBufferLimit limit) {
      this.pubsubOutputLimit = limit;
      return this;
    }

    /**
     * Parses Redis's {@code client-output-buffer-limit} value, {@code class hard soft seconds}
     * (repeatable); only the pubsub class is known here.
     */
    private static OutputBufferLimit outputBufferLimit(String name, String value) {
      String[] words = value.trim().split("\\s+");
      if (words.length != 4 || !words[0].equalsIgnoreCase("pubsub")) {
        throw new IllegalArgumentException(
            name + ": '" + value + "' (expected: pubsub <hard> <soft> <seconds>)");
      }
      return new OutputBufferLimit(
          memory(name, words[1]),
          memory(name, words[2]),
          rangeLong(name, number(name, words[3]), 0, Long.MAX_VALUE));
    }

    /**
     * Sets the master to replicate at start-up, as {@code "host port"} (null: none).
     *
     * @throws IllegalArgumentException if it is not a host and a port 1..65535
     */
    public Builder replicaOf(String hostPort) {
      if (hostPort == null || hostPort.isBlank()) {
        this.replicaOf = null;
        return this;
      }
      String[] parts = hostPort.trim().split("\\s+");
      if (parts.length != 2) {
        throw new IllegalArgumentException(
            "replicaof: '" + hostPort + "' (expected: \"host port\")");
      }
      integer("replicaof port", parts[1], 1, 65535);
      this.replicaOf = parts[0] + " " + parts[1].trim();
      return this;
    }

    /** Sets the password (and user, or null) a replica authenticates to its master with. */
    public Builder masterAuth(String user, String password) {
      this.masterUser = user;
      this.masterAuth = password;
      return this;
    }

    /** Sets min-replicas-to-write and min-replicas-max-lag (seconds). */
    public Builder minReplicas(int toWrite, int maxLagSeconds) {
      this.minReplicasToWrite = range("min-replicas-to-write", toWrite, 0, Integer.MAX_VALUE);
      this.minReplicasMaxLag = range("min-replicas-max-lag", maxLagSeconds, 0, Integer.MAX_VALUE);
      return this;
    }

    /** Sets repl-backlog-size in bytes (16 KiB .. 1 GiB). */
    public Builder replBacklogSize(long bytes) {
      this.replBacklogSize = rangeLong("repl-backlog-size", bytes, 16 * 1024, 1L << 30);
      return this;
    }

    /** Sets replica-serve-stale-data. */
    public Builder replicaServeStaleData(boolean on) {
      this.replicaServeStaleData = on;
      return this;
    }

    /** Sets the file the log is appended to (null: standard error). */
    public Builder logFile(Path logFile) {
      this.logFile = logFile;
      return this;
    }

    /** Sets a cf-* parameter (validated when the server starts). */
    public Builder cfParameter(String name, String value) {
      if (!CfConfig.isParameter(name)) {
        throw new IllegalArgumentException("unknown cf parameter: " + name);
      }
      cfParameters.put(name, value);
      return this;
    }

    private static int range(String name, long value, long min, long max) {
      return (int) rangeLong(name, value, min, max);
    }

    private static long rangeLong(String name, long value, long min, long max) {
      if (value < min || value > max) {
        throw new IllegalArgumentException(
            name + ": " + value + " (expected: " + min + ".." + max + ")");
      }
      return value;
    }

    private static int integer(String name, String value, int min, int max) {
      return range(name, number(name, value), min, max);
    }

    private static Fsync fsync(String value) {
      try {
        return Fsync.valueOf(value.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "appendfsync: '" + value + "' (expected: always, everysec or no)", e);
      }
    }

    private static long number(String name, String value) {
      try {
        return Long.parseLong(value.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + ": '" + value + "' is not an integer", e);
      }
    }

    /**
     * Returns why {@code rdbcompression} or {@code rdbchecksum} has one value only (CONFIG SET and
     * the config file say it).
     */
    public static String fixedReason(String name) {
      return name.equals("rdbcompression")
          ? "snapshots are not compressed here (only 'no' is accepted)"
          : "snapshots always carry CRC32C checksums, of the header and of every entry"
              + " (only 'yes' is accepted)";
    }

    private static boolean yesNo(String name, String value) {
      switch (value.toLowerCase(Locale.ROOT)) {
        case "yes":
        case "true":
          return true;
        case "no":
        case "false":
          return false;
        default:
          throw new IllegalArgumentException(name + ": '" + value + "' (expected: yes or no)");
      }
    }

    /**
     * Sets an option by name, as on the command line without the dashes.
     *
     * @throws IllegalArgumentException for an unknown name or a bad value
     * @throws IOException if {@code config} names a file that cannot be read
     */
    public Builder set(String name, String value) throws IOException {
      String option = name.toLowerCase(Locale.ROOT);
      Option known = OPTIONS.get(option);
      if (known == null) {
        throw new IllegalArgumentException("unknown option: " + name);
      }
      known.setter().set(this, option, value);
      return this;
    }

    /** Reads {@code name value} lines from a file; blank lines and {@code #} comments skipped. */
    public Builder readFile(Path file) throws IOException {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      configFile = file.toAbsolutePath();
      for (int n = 0; n < lines.size(); n++) {
        String line = lines.get(n).trim();
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        String[] parts = line.split("\\s+", 2);
        if (parts.length != 2) {
          throw new IllegalArgumentException(
              file + " line " + (n + 1) + ": expected 'name value', got '" + line + "'");
        }
        String value = parts[1].trim();
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
          value = value.substring(1, value.length() - 1);
        }
        String name = parts[0].startsWith("--") ? parts[0].substring(2) : parts[0];
        if (name.equalsIgnoreCase("save") && savePointsFromFile) {
          // as Redis: a file's first save line replaces the default, the next ones add points
          savePoints(savePoints.plus(savePoints(name, value)));
          continue;
        }
        set(name, value);
        savePointsFromFile |= name.equalsIgnoreCase("save");
      }
      return this;
    }

    /** Returns the settings. */
    public ServerConfig build() {
      return new ServerConfig(this);
    }
  }
}
