package dev.cuckoo.server;

import dev.cuckoo.server.config.BindAddresses;
import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.Fsync;
import dev.cuckoo.server.config.OutputBufferLimit;
import dev.cuckoo.server.config.OutputBufferLimits;
import dev.cuckoo.server.config.Parameter;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.config.SplitArgs;
import dev.cuckoo.server.persist.SavePoints;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The settings of a {@link CuckooServer}: network, limits, persistence and the cf-* defaults, one
 * value per parameter of the table in {@link Parameters}.
 *
 * <p>Built with {@link #builder()} or parsed from command-line options with {@link #parse}. Options
 * are {@code --name value}; a config file (the first argument, or {@code --config file}) holds one
 * {@code name value} pair per line with the same names, {@code #} starts a comment, and options
 * given on the command line after the file override it. {@link #optionNames()} lists every name.
 */
public final class ServerConfig {
  /** The option names {@link #parse} accepts, with their meaning (for usage messages). */
  public static final String USAGE = usage();

  private static final String CONFIG_OPTION = "config";

  private final Config values;

  private ServerConfig(Config values) {
    this.values = values;
  }

  private static String usage() {
    StringBuilder usage =
        new StringBuilder(
            "Options (a config file, given first, holds the same names as 'name value' lines):\n");
    for (Parameter<?> parameter : Parameters.all()) {
      String text = parameter.usage();
      int split = text.indexOf("  ");
      String option = "--" + parameter.name() + " " + text.substring(0, split);
      usage.append("  ").append(option);
      usage.append(" ".repeat(Math.max(2, 36 - option.length())));
      usage.append(text.substring(split + 2));
      List<String> others = new java.util.ArrayList<>(parameter.aliases());
      others.addAll(parameter.oldNames());
      if (!others.isEmpty()) {
        usage.append(" (also: ").append(String.join(", ", others)).append(')');
      }
      usage.append('\n');
    }
    return usage
        .append("  --config FILE")
        .append(" ".repeat(23))
        .append("read options from a file\n")
        .toString();
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder(new Config());
  }

  /**
   * Parses command-line options: {@code [config-file] [--name value ...]}. A first argument that
   * does not start with {@code --} names a config file, read before the options that follow it (so
   * they override it), as redis-server does.
   *
   * @throws IllegalArgumentException naming the option and the bad value (and the file and line for
   *     a config file's mistake)
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
      if (Parameters.find(arg.substring(2)) == Parameters.REPLICAOF) {
        builder.replicaOfSource = arg + ": ";
      }
    }
    return builder.build();
  }

  /**
   * Returns the names of every option {@link Builder#set} accepts under its own name (and a config
   * file may hold), in the order {@link #USAGE} lists them; Redis's aliases and older names are
   * accepted too.
   */
  public static Set<String> optionNames() {
    Set<String> names = new LinkedHashSet<>();
    for (Parameter<?> parameter : Parameters.all()) {
      names.add(parameter.name());
    }
    names.add(CONFIG_OPTION);
    return Collections.unmodifiableSet(names);
  }

  /**
   * Returns the value of every option a config file can hold as its line would carry it (the same
   * text {@link Builder#set} reads back: sizes with Redis's units, yes/no, "" for none), in the
   * order of {@link #optionNames()}; {@code config}, which includes a file, is left out. CONFIG
   * REWRITE writes these.
   */
  public Map<String, String> optionValues() {
    return values.fileValues();
  }

  /**
   * Returns a copy of these settings as the parameter table's values, which a server keeps and
   * changes while it runs.
   */
  public Config parameters() {
    return values.copy();
  }

  /**
   * Returns a builder holding these settings (the config file they came from included), to derive
   * settings that differ in a few values.
   */
  public Builder toBuilder() {
    return new Builder(values.copy());
  }

  private int integer(Parameter<Long> parameter) {
    return (int) Math.min(values.get(parameter), Integer.MAX_VALUE);
  }

  /** Returns the plaintext TCP port (0: none). */
  public int port() {
    return integer(Parameters.PORT);
  }

  /** Returns the address to listen on. */
  public String bind() {
    return values.get(Parameters.BIND);
  }

  /** Returns the data directory. */
  public Path dir() {
    return values.get(Parameters.DIR);
  }

  /** Returns true if writes are logged and snapshots kept. */
  public boolean appendOnly() {
    return values.get(Parameters.APPENDONLY);
  }

  /** Returns the log fsync policy. */
  public Fsync fsync() {
    return values.get(Parameters.APPENDFSYNC);
  }

  /** Returns true if a corrupt log may be truncated at the first bad record on startup. */
  public boolean repairLog() {
    return values.get(Parameters.REPAIR_LOG);
  }

  /** Returns the password clients must AUTH with, or null. */
  public String requirePass() {
    return values.get(Parameters.REQUIREPASS);
  }

  /**
   * Returns true if protected mode is on: when no password is set, clients from other than the
   * loopback interface get Redis's {@code -DENIED} error and are disconnected, whatever address the
   * server listens on (as in Redis 7 and later).
   */
  public boolean protectedMode() {
    return values.get(Parameters.PROTECTED_MODE);
  }

  /** Returns true if the DEBUG command may be used (Redis's {@code enable-debug-command}). */
  public boolean enableDebugCommand() {
    return values.get(Parameters.ENABLE_DEBUG_COMMAND);
  }

  /** Returns the most simultaneous clients (at most 2^31 - 1 shown here). */
  public int maxClients() {
    return integer(Parameters.MAXCLIENTS);
  }

  /** Returns the number of databases (SELECT 0 to databases - 1). */
  public int databases() {
    return integer(Parameters.DATABASES);
  }

  /** Returns the longest accepted bulk string, in bytes. */
  public long maxBulkLength() {
    return values.get(Parameters.PROTO_MAX_BULK_LEN);
  }

  /** Returns the most arguments accepted in one request. */
  public int maxArrayLength() {
    return integer(Parameters.MAX_ARRAY_LENGTH);
  }

  /** Returns the idle timeout in seconds (0: none). */
  public int timeoutSeconds() {
    return integer(Parameters.TIMEOUT);
  }

  /** Returns latency-tracking: whether each call's duration goes into a per-command histogram. */
  public boolean latencyTracking() {
    return values.get(Parameters.LATENCY_TRACKING);
  }

  /**
   * Returns latency-tracking-info-percentiles: the percentiles INFO latencystats prints (a copy).
   */
  public double[] latencyPercentiles() {
    return values.get(Parameters.LATENCY_TRACKING_INFO_PERCENTILES).stream()
        .mapToDouble(Double::doubleValue)
        .toArray();
  }

  /**
   * Returns slowlog-log-slower-than: commands that run at least this many microseconds go into the
   * slow log (0: every command; negative: none).
   */
  public long slowlogLogSlowerThan() {
    return values.get(Parameters.SLOWLOG_LOG_SLOWER_THAN);
  }

  /** Returns slowlog-max-len: the most entries the slow log keeps. */
  public long slowlogMaxLen() {
    return values.get(Parameters.SLOWLOG_MAX_LEN);
  }

  /** Returns the default number of network threads on a machine with {@code processors} cores. */
  static int defaultThreads(int processors) {
    return Parameters.defaultThreads(processors);
  }

  /** Returns the number of network threads (io-threads). */
  public int threads() {
    return integer(Parameters.IO_THREADS);
  }

  /**
   * Returns Redis's {@code maxmemory}: the most bytes of filters new write commands may make the
   * server hold (0: only the heap limits). Defaults to three quarters of the maximum heap.
   */
  public long maxMemory() {
    return values.get(Parameters.MAXMEMORY);
  }

  /** Returns Redis's {@code auto-aof-rewrite-percentage} (0: no automatic rewrite). */
  public int autoAofRewritePercentage() {
    return integer(Parameters.AUTO_AOF_REWRITE_PERCENTAGE);
  }

  /** Returns Redis's {@code auto-aof-rewrite-min-size} in bytes. */
  public long autoAofRewriteMinSize() {
    return values.get(Parameters.AUTO_AOF_REWRITE_MIN_SIZE);
  }

  /** Returns the cf-* parameters (name to value). */
  public Map<String, String> cfParameters() {
    Map<String, String> cf = new LinkedHashMap<>();
    for (Parameter<?> parameter : Parameters.all()) {
      if (parameter.name().startsWith("cf-")) {
        cf.put(parameter.name(), values.text(parameter));
      }
    }
    return cf;
  }

  /** Returns the file the log is appended to, or null for standard error. */
  public Path logFile() {
    return values.get(Parameters.LOGFILE);
  }

  /** Returns the output buffer limit of connections with subscriptions. */
  public OutputBufferLimit pubsubOutputLimit() {
    return values.get(Parameters.CLIENT_OUTPUT_BUFFER_LIMIT).pubsub();
  }

  /** Returns the output buffer limits of every class of client. */
  public OutputBufferLimits outputBufferLimits() {
    return values.get(Parameters.CLIENT_OUTPUT_BUFFER_LIMIT);
  }

  /**
   * Returns the config file the settings were read from (the last one, if several were named), as
   * an absolute path, or null if none was: CONFIG REWRITE writes to it.
   */
  public Path configFile() {
    return values.file();
  }

  /** Returns the master to replicate at start-up ("host port"), or null. */
  public String replicaOf() {
    return values.get(Parameters.REPLICAOF);
  }

  /** Returns masterauth, or null. */
  public String masterAuth() {
    return values.get(Parameters.MASTERAUTH);
  }

  /** Returns masteruser, or null. */
  public String masterUser() {
    return values.get(Parameters.MASTERUSER);
  }

  /** Returns replica-read-only. */
  public boolean replicaReadOnly() {
    return values.get(Parameters.REPLICA_READ_ONLY);
  }

  /** Returns replica-serve-stale-data. */
  public boolean replicaServeStaleData() {
    return values.get(Parameters.REPLICA_SERVE_STALE_DATA);
  }

  /** Returns replica-priority. */
  public int replicaPriority() {
    return integer(Parameters.REPLICA_PRIORITY);
  }

  /** Returns replica-announce-ip, or null. */
  public String replicaAnnounceIp() {
    return values.get(Parameters.REPLICA_ANNOUNCE_IP);
  }

  /** Returns replica-announce-port (0: the listening port). */
  public int replicaAnnouncePort() {
    return integer(Parameters.REPLICA_ANNOUNCE_PORT);
  }

  /** Returns repl-backlog-size in bytes. */
  public long replBacklogSize() {
    return values.get(Parameters.REPL_BACKLOG_SIZE);
  }

  /** Returns repl-ping-replica-period in seconds. */
  public int replPingReplicaPeriod() {
    return integer(Parameters.REPL_PING_REPLICA_PERIOD);
  }

  /** Returns repl-timeout in seconds. */
  public int replTimeout() {
    return integer(Parameters.REPL_TIMEOUT);
  }

  /** Returns min-replicas-to-write. */
  public int minReplicasToWrite() {
    return integer(Parameters.MIN_REPLICAS_TO_WRITE);
  }

  /** Returns min-replicas-max-lag in seconds. */
  public int minReplicasMaxLag() {
    return integer(Parameters.MIN_REPLICAS_MAX_LAG);
  }

  /** Returns the save points (save): a snapshot after S seconds if C writes happened. */
  public SavePoints savePoints() {
    return SavePoints.parse(values.get(Parameters.SAVE));
  }

  /** Returns the snapshot's file name in the data directory (dbfilename). */
  public String dbFilename() {
    return values.get(Parameters.DBFILENAME);
  }

  /** Returns the log's file name in the data directory (appendfilename). */
  public String appendFilename() {
    return values.get(Parameters.APPENDFILENAME);
  }

  /** Returns stop-writes-on-bgsave-error: refuse writes after a failed background save. */
  public boolean stopWritesOnBgsaveError() {
    return values.get(Parameters.STOP_WRITES_ON_BGSAVE_ERROR);
  }

  /**
   * The cluster settings.
   *
   * @param enabled cluster-enabled
   * @param configFile cluster-config-file, in the data directory
   * @param nodeTimeoutMillis cluster-node-timeout
   * @param port cluster-port (0: the client port + 10000)
   */
  public record ClusterMode(boolean enabled, String configFile, long nodeTimeoutMillis, int port) {}

  /** Returns the cluster settings. */
  public ClusterMode cluster() {
    return new ClusterMode(
        values.get(Parameters.CLUSTER_ENABLED),
        values.get(Parameters.CLUSTER_CONFIG_FILE),
        values.get(Parameters.CLUSTER_NODE_TIMEOUT),
        integer(Parameters.CLUSTER_PORT));
  }

  /**
   * Returns what is wrong with a {@code bind} value (1 to 16 resolvable addresses separated by
   * spaces), or null if nothing is.
   */
  public static String checkBind(String bind) {
    return bind == null ? "bind: no address given" : BindAddresses.check(bind);
  }

  /** Returns the number of addresses a {@code bind} value names. */
  public static int bindAddresses(String bind) {
    return BindAddresses.count(bind);
  }

  /**
   * A mutable set of server settings. Each setter checks its value as the parameter table does and
   * throws an {@link IllegalArgumentException} naming the parameter, the value and the bound.
   */
  public static final class Builder {
    /** The most databases a server may have. */
    public static final int MAX_DATABASES = 1 << 16;

    private final Config values;
    // where the replicaof option was last set ("FILE:LINE: " or "--replicaof: "), for the error
    // that refuses it in cluster mode
    private String replicaOfSource = "";

    private Builder(Config values) {
      this.values = values;
    }

    private <T> Builder put(Parameter<T> parameter, T value) {
      values.put(parameter, value);
      return this;
    }

    /** Sets the plaintext TCP port, 0..65535 (0: no plaintext listener, e.g. with tls-port). */
    public Builder port(int port) {
      return put(Parameters.PORT, (long) port);
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
      if (bind == null) {
        throw new IllegalArgumentException(checkBind(null));
      }
      return put(Parameters.BIND, bind.trim());
    }

    /** Sets the data directory. */
    public Builder dir(Path dir) {
      return put(Parameters.DIR, dir);
    }

    /** Turns the append-only log and snapshots on or off. */
    public Builder appendOnly(boolean appendOnly) {
      return put(Parameters.APPENDONLY, appendOnly);
    }

    /** Sets the log fsync policy. */
    public Builder fsync(Fsync fsync) {
      return put(Parameters.APPENDFSYNC, fsync);
    }

    /** Allows truncating a corrupt log at the first bad record on startup. */
    public Builder repairLog(boolean repairLog) {
      return put(Parameters.REPAIR_LOG, repairLog);
    }

    /** Sets the password clients must AUTH with (null or empty: none). */
    public Builder requirePass(String requirePass) {
      return put(
          Parameters.REQUIREPASS,
          requirePass == null || requirePass.isEmpty() ? null : requirePass);
    }

    /** Allows the DEBUG command (default off); see {@link ServerConfig#enableDebugCommand()}. */
    public Builder enableDebugCommand(boolean enableDebugCommand) {
      return put(Parameters.ENABLE_DEBUG_COMMAND, enableDebugCommand);
    }

    /** Turns protected mode on or off (default on); see {@link ServerConfig#protectedMode()}. */
    public Builder protectedMode(boolean protectedMode) {
      return put(Parameters.PROTECTED_MODE, protectedMode);
    }

    /**
     * Sets the number of databases (Redis's {@code databases}).
     *
     * @throws IllegalArgumentException outside 1 to {@value #MAX_DATABASES}
     */
    public Builder databases(int databases) {
      return put(Parameters.DATABASES, (long) databases);
    }

    /** Sets the most simultaneous clients, 1 or more. */
    public Builder maxClients(int maxClients) {
      return put(Parameters.MAXCLIENTS, (long) maxClients);
    }

    /** Sets the longest bulk string (proto-max-bulk-len), 1 MiB..2^31-64 bytes. */
    public Builder maxBulkLength(long maxBulkLength) {
      return put(Parameters.PROTO_MAX_BULK_LEN, maxBulkLength);
    }

    /** Sets the most arguments per request, 1024..2^27. */
    public Builder maxArrayLength(int maxArrayLength) {
      return put(Parameters.MAX_ARRAY_LENGTH, (long) maxArrayLength);
    }

    /** Sets the idle timeout in seconds, 0 (never) .. 2^31-1. */
    public Builder timeoutSeconds(int timeoutSeconds) {
      return put(Parameters.TIMEOUT, (long) timeoutSeconds);
    }

    /** Sets the number of network threads (io-threads), 1..256. */
    public Builder threads(int threads) {
      return put(Parameters.IO_THREADS, (long) threads);
    }

    /** Sets slowlog-log-slower-than in microseconds, -1 (none) to 2^63 - 1 as Redis allows. */
    public Builder slowlogLogSlowerThan(long micros) {
      return put(Parameters.SLOWLOG_LOG_SLOWER_THAN, micros);
    }

    /** Sets slowlog-max-len, 0 to 2^63 - 1 as Redis allows. */
    public Builder slowlogMaxLen(long entries) {
      return put(Parameters.SLOWLOG_MAX_LEN, entries);
    }

    /** Sets latency-tracking: whether each call's duration is recorded (INFO latencystats). */
    public Builder latencyTracking(boolean latencyTracking) {
      return put(Parameters.LATENCY_TRACKING, latencyTracking);
    }

    /**
     * Sets latency-tracking-info-percentiles: the percentiles INFO latencystats prints, each from 0
     * to 100 (none: an empty array).
     */
    public Builder latencyPercentiles(double... percentiles) {
      return put(
          Parameters.LATENCY_TRACKING_INFO_PERCENTILES,
          Arrays.stream(percentiles).boxed().toList());
    }

    /** Sets maxmemory in bytes, 0 (only the heap limits) or more. */
    public Builder maxMemory(long maxMemory) {
      return put(Parameters.MAXMEMORY, maxMemory);
    }

    /** Sets auto-aof-rewrite-percentage, 0 (never) .. 2^31-1. */
    public Builder autoAofRewritePercentage(int percentage) {
      return put(Parameters.AUTO_AOF_REWRITE_PERCENTAGE, (long) percentage);
    }

    /** Sets auto-aof-rewrite-min-size in bytes, 0 or more. */
    public Builder autoAofRewriteMinSize(long bytes) {
      return put(Parameters.AUTO_AOF_REWRITE_MIN_SIZE, bytes);
    }

    /** Sets the output buffer limit of connections with subscriptions (the other classes stay). */
    public Builder pubsubOutputLimit(OutputBufferLimit limit) {
      return put(
          Parameters.CLIENT_OUTPUT_BUFFER_LIMIT,
          values.get(Parameters.CLIENT_OUTPUT_BUFFER_LIMIT).withPubsub(limit));
    }

    /** Sets the output buffer limits of every class of client. */
    public Builder outputBufferLimits(OutputBufferLimits limits) {
      return put(Parameters.CLIENT_OUTPUT_BUFFER_LIMIT, limits);
    }

    /**
     * Sets the master to replicate at start-up, as {@code "host port"} (null: none).
     *
     * @throws IllegalArgumentException if it is not a host and a port 1..65535
     */
    public Builder replicaOf(String hostPort) {
      values.set(Parameters.REPLICAOF.name(), hostPort == null ? "" : hostPort);
      return this;
    }

    /** Sets the password (and user, or null) a replica authenticates to its master with. */
    public Builder masterAuth(String user, String password) {
      put(Parameters.MASTERUSER, user == null || user.isEmpty() ? null : user);
      return put(Parameters.MASTERAUTH, password == null || password.isEmpty() ? null : password);
    }

    /** Sets min-replicas-to-write and min-replicas-max-lag (seconds). */
    public Builder minReplicas(int toWrite, int maxLagSeconds) {
      put(Parameters.MIN_REPLICAS_TO_WRITE, (long) toWrite);
      return put(Parameters.MIN_REPLICAS_MAX_LAG, (long) maxLagSeconds);
    }

    /** Sets repl-backlog-size in bytes (16 KiB .. 1 GiB). */
    public Builder replBacklogSize(long bytes) {
      return put(Parameters.REPL_BACKLOG_SIZE, bytes);
    }

    /** Sets replica-serve-stale-data. */
    public Builder replicaServeStaleData(boolean on) {
      return put(Parameters.REPLICA_SERVE_STALE_DATA, on);
    }

    /** Sets the file the log is appended to (null: standard error). */
    public Builder logFile(Path logFile) {
      return put(Parameters.LOGFILE, logFile);
    }

    /** Sets a cf-* parameter, checked against RedisBloom's bounds. */
    public Builder cfParameter(String name, String value) {
      Parameter<?> parameter = Parameters.find(name);
      if (parameter == null || !parameter.name().startsWith("cf-")) {
        throw new IllegalArgumentException("unknown cf parameter: " + name);
      }
      values.set(name, value);
      return this;
    }

    /**
     * Sets an option by name (Redis's name, an alias or an older name), as on the command line
     * without the dashes; {@code config} reads a file.
     *
     * @throws IllegalArgumentException for an unknown name or a bad value
     * @throws IOException if {@code config} names a file that cannot be read
     */
    public Builder set(String name, String value) throws IOException {
      if (name.equalsIgnoreCase(CONFIG_OPTION)) {
        return readFile(Paths.get(value));
      }
      if (name.equalsIgnoreCase("user")) {
        values.addUser("--user", userWords(value, "--user: "));
        return this;
      }
      values.set(name, value);
      return this;
    }

    /**
     * Reads {@code name value} lines from a file; blank lines and {@code #} comments skipped. A
     * mistake is named with the file and line: {@code conf/x.conf:2: unknown option 'appendonyl'
     * (did you mean 'appendonly'?)}.
     *
     * @throws IOException if the file cannot be read ("cannot read FILE: no such file")
     */
    public Builder readFile(Path file) throws IOException {
      List<String> lines;
      try {
        lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      } catch (NoSuchFileException e) {
        throw new IOException("cannot read " + file + ": no such file", e);
      }
      values.file(file);
      // Redis's save lines add up within a file: the first replaces the default, later ones add
      String saves = null;
      for (int n = 0; n < lines.size(); n++) {
        String line = lines.get(n).trim();
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        String where = file + ":" + (n + 1) + ": ";
        if (line.regionMatches(true, 0, "user", 0, 4)
            && (line.length() == 4 || Character.isWhitespace(line.charAt(4)))) {
          // ACL users, loaded once the command table exists (Redis's UsersToLoad)
          values.addUser(file + ":" + (n + 1), userWords(line.substring(4), where));
          continue;
        }
        String[] parts = line.split("\\s+", 2);
        if (parts.length != 2) {
          throw new IllegalArgumentException(where + "expected 'name value', got '" + line + "'");
        }
        String value = parts[1].trim();
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
          value = value.substring(1, value.length() - 1);
        }
        String name = parts[0].startsWith("--") ? parts[0].substring(2) : parts[0];
        if (name.equalsIgnoreCase("save")) {
          saves = saves == null || value.isBlank() ? value : saves + " " + value;
          value = saves;
        }
        try {
          set(name, value);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(where + e.getMessage(), e);
        }
        if (Parameters.find(name) == Parameters.REPLICAOF) {
          replicaOfSource = where;
        }
      }
      return this;
    }

    /**
     * Returns the words of a {@code user} directive after {@code user}, split as Redis splits a
     * config line (quotes and escapes: {@link SplitArgs}), each as the Latin-1 text of its UTF-8
     * bytes, as ACL rules given over the protocol are.
     *
     * @param where the file and line (or option), for the error
     * @throws IllegalArgumentException naming {@code where} if a quote is not balanced
     */
    private static List<String> userWords(String text, String where) {
      String bytes = new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
      try {
        return SplitArgs.split(bytes);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + "Unbalanced quotes in configuration line", e);
      }
    }

    /** Sets the save points (save; {@link SavePoints#NONE}: none). */
    public Builder savePoints(SavePoints savePoints) {
      return text(Parameters.SAVE, savePoints.toString());
    }

    /** Sets the snapshot's file name (dbfilename): a name, not a path. */
    public Builder dbFilename(String name) {
      return text(Parameters.DBFILENAME, name);
    }

    /** Sets the log's file name (appendfilename): a name, not a path. */
    public Builder appendFilename(String name) {
      return text(Parameters.APPENDFILENAME, name);
    }

    /** Sets stop-writes-on-bgsave-error. */
    public Builder stopWritesOnBgsaveError(boolean stop) {
      return put(Parameters.STOP_WRITES_ON_BGSAVE_ERROR, stop);
    }

    /** Sets cluster-enabled. */
    public Builder clusterEnabled(boolean enabled) {
      return put(Parameters.CLUSTER_ENABLED, enabled);
    }

    /** Sets cluster-config-file: a name in the data directory. */
    public Builder clusterConfigFile(String file) {
      return text(Parameters.CLUSTER_CONFIG_FILE, file);
    }

    /** Sets cluster-node-timeout in milliseconds, at least 1. */
    public Builder clusterNodeTimeout(long millis) {
      return text(Parameters.CLUSTER_NODE_TIMEOUT, Long.toString(millis));
    }

    /** Sets cluster-port, 0..65535 (0: the client port + 10000). */
    public Builder clusterPort(int port) {
      return text(Parameters.CLUSTER_PORT, Integer.toString(port));
    }

    /** Sets a parameter from its text, checked as a config file's line is. */
    private Builder text(Parameter<?> parameter, String text) {
      values.set(parameter.name(), text);
      return this;
    }

    /**
     * Returns the settings.
     *
     * @throws IllegalArgumentException if cluster-enabled is yes and replicaof is set (Redis's
     *     "replicaof directive not allowed in cluster mode", after the file and line that set it)
     */
    public ServerConfig build() {
      if (values.get(Parameters.CLUSTER_ENABLED) && values.get(Parameters.REPLICAOF) != null) {
        // Redis's text; a cluster node follows a master by CLUSTER REPLICATE (kept in nodes.conf)
        throw new IllegalArgumentException(
            replicaOfSource + "replicaof directive not allowed in cluster mode");
      }
      return new ServerConfig(values.copy());
    }
  }
}
