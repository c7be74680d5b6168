package dev.cuckoo.server.command;

import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.persist.SaveStats;
import dev.cuckoo.server.persist.Snapshots;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.Kind;
import dev.cuckoo.server.session.ClientRegistry;
import dev.cuckoo.server.session.Session;
import java.lang.management.ManagementFactory;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What the server says about itself: ROLE, TIME and INFO, whose sections, headers and field names
 * follow Redis so that clients and monitoring tools that parse INFO (redis-py, exporters) find the
 * fields they expect.
 *
 * <p>Fields a cuckoo server has no counterpart for carry Redis's idle values (no replicas, no
 * forks). Which sections a request selects follows Redis's {@code genInfoSectionDict}: no argument
 * and {@code default} give the default sections, {@code all} adds Commandstats and Latencystats,
 * {@code everything} adds module-generated sections as well (there are none); a name that is not a
 * section adds nothing.
 */
public final class InfoCommands {
  private static final List<String> DEFAULT_SECTIONS =
      List.of(
          "server",
          "clients",
          "memory",
          "persistence",
          "stats",
          "replication",
          "cpu",
          "modules",
          "errorstats",
          "cluster",
          "keyspace");
  private static final List<String> ALL_SECTIONS =
      List.of(
          "server",
          "clients",
          "memory",
          "persistence",
          "stats",
          "replication",
          "cpu",
          "modules",
          "commandstats",
          "errorstats",
          "latencystats",
          "cluster",
          "keyspace");

  private final ServerContext context;
  private final CommandStatsReport commandStats;
  private final String runId = randomHex40();
  private final String replicationId = randomHex40();
  private long sampleNanos = System.nanoTime();
  private long[] sampleCounts = new long[0];
  private double[] rates = new double[0];

  /** Creates the command over the shared server state and the per-command counters. */
  InfoCommands(ServerContext context, CommandStatsReport commandStats) {
    this.context = context;
    this.commandStats = commandStats;
  }

  private static String randomHex40() {
    byte[] bytes = new byte[20];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** Returns the 40 hex characters that identify this server instance (Redis's run_id). */
  String runId() {
    return runId;
  }

  /** Returns Redis's human form of a byte count: 900B, 894.81K, 1.50M, 2.00G. */
  public static String bytesToHuman(long bytes) {
    String[] units = {"K", "M", "G", "T", "P"};
    if (bytes < 1024) {
      return bytes + "B";
    }
    double value = bytes / 1024.0;
    int unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.2f%s", value, units[unit]);
  }

  /** Returns the sections selected by INFO's arguments, in Redis's order. */
  static Set<String> selectedSections(byte[][] args) {
    Set<String> selected = new HashSet<>();
    if (args.length == 1) {
      selected.addAll(DEFAULT_SECTIONS);
      return selected;
    }
    for (int i = 1; i < args.length; i++) {
      String name = Args.lower(args[i]);
      if (name.equals("default")) {
        selected.addAll(DEFAULT_SECTIONS);
      } else if (name.equals("all") || name.equals("everything")) {
        selected.addAll(ALL_SECTIONS);
      } else if (name.equals("module_list")) {
        selected.add("modules");
      } else {
        selected.add(name);
      }
    }
    return selected;
  }

  /** INFO [section ...]. */
  void info(Session session, Request request) {
    byte[][] args = request.args();
    Set<String> selected = selectedSections(args);
    StringBuilder out = new StringBuilder();
    for (String section : ALL_SECTIONS) {
      if (!selected.contains(section)) {
        continue;
      }
      if (out.length() > 0) {
        out.append("\r\n");
      }
      appendSection(out, section);
    }
    session.reply().verbatimText(out.toString());
  }

  /** ROLE: a master without replicas, {@code ["master", 0, []]}. */
  void role(Session session, Request request) {
    Reply reply = session.reply();
    dev.cuckoo.server.replication.Replication replication = context.replication();
    if (replication != null) {
      replication.role(reply);
      return;
    }
    reply.array(3);
    reply.bulk("master");
    reply.integer(0);
    reply.array(0);
  }

  /** TIME: the Unix time as two bulk strings, seconds and microseconds within the second. */
  void time(Session session, Request request) {
    java.time.Instant now = java.time.Instant.now();
    Reply reply = session.reply();
    reply.array(2);
    reply.bulk(Long.toString(now.getEpochSecond()));
    reply.bulk(Long.toString(now.getNano() / 1000));
  }

  private void appendSection(StringBuilder out, String section) {
    switch (section) {
      case "server" -> server(out);
      case "clients" -> clients(out);
      case "memory" -> memory(out);
      case "persistence" -> persistence(out);
      case "stats" -> stats(out);
      case "replication" -> replication(out);
      case "cpu" -> cpu(out);
      case "modules" ->
          out.append("# Modules\r\nmodule:name=bf,ver=")
              .append(ServerVersion.MODULE_VERSION)
              .append(",api=1,filters=0,usedby=[],using=[],options=[]\r\n");
      case "commandstats" -> commandStats.appendCommandStats(out);
      case "errorstats" -> errorStats(out);
      case "latencystats" -> commandStats.appendLatencyStats(out, context.latencyPercentiles());
      case "cluster" ->
          out.append("# Cluster\r\ncluster_enabled:")
              .append(context.cluster() == null ? 0 : 1)
              .append("\r\n");
      case "keyspace" -> keyspace(out);
      default -> throw new IllegalArgumentException("section: " + section);
    }
  }

  private static void field(StringBuilder out, String name, Object value) {
    out.append(name).append(':').append(value).append("\r\n");
  }

  private void server(StringBuilder out) {
    long nowMicros = System.currentTimeMillis() * 1000;
    long uptime = (System.currentTimeMillis() - context.startMillis()) / 1000;
    out.append("# Server\r\n");
    field(out, "redis_version", ServerVersion.REDIS_VERSION);
    field(out, "redis_mode", "standalone");
    field(out, "os", System.getProperty("os.name") + ' ' + System.getProperty("os.arch"));
    field(out, "arch_bits", 64);
    field(out, "monotonic_clock", "JVM System.nanoTime");
    field(out, "multiplexing_api", "netty");
    field(out, "process_id", ProcessHandle.current().pid());
    field(out, "process_supervised", "no");
    field(out, "run_id", runId);
    long tlsPort = context.config().get(Parameters.TLS_PORT);
    // as Redis: the plaintext port, or the TLS port when there is none
    field(out, "tcp_port", context.port() != 0 ? context.port() : tlsPort);
    field(out, "server_time_usec", nowMicros);
    field(out, "uptime_in_seconds", uptime);
    field(out, "uptime_in_days", uptime / 86400);
    field(out, "hz", context.config().get(Parameters.HZ));
    field(out, "configured_hz", context.config().get(Parameters.HZ));
    // Redis's LRU clock: Unix seconds in 24 bits (OBJECT IDLETIME and DEBUG OBJECT's lru)
    field(out, "lru_clock", (System.currentTimeMillis() / 1000) & ((1 << 24) - 1));
    field(out, "executable", "cuckoo-server");
    java.nio.file.Path configFile = context.config().file();
    field(out, "config_file", configFile == null ? "" : configFile.toString());
    field(out, "io_threads_active", 0);
    field(out, "java_version", System.getProperty("java.version"));
    // Redis's listeners by connection type: 0 plaintext TCP, 2 TLS (1 is the Unix socket)
    if (context.port() != 0) {
      field(out, "listener0", listener("tcp", context.port()));
    }
    if (tlsPort != 0) {
      field(out, "listener2", listener("tls", tlsPort));
    }
  }

  /** Returns a listener's INFO line: its type, each bind address, its port. */
  private StringBuilder listener(String type, long port) {
    StringBuilder listener = new StringBuilder("name=").append(type);
    for (String address : context.bind().trim().split("\\s+")) {
      listener.append(",bind=").append(address);
    }
    return listener.append(",port=").append(port);
  }

  private void clients(StringBuilder out) {
    out.append("# Clients\r\n");
    // as Redis: every client but the replicas' links, the link to this server's master included
    ClientRegistry clients = context.clients();
    field(
        out,
        "connected_clients",
        context.connectedClients().get()
            - clients.countOf(ClientRegistry.Role.REPLICA)
            + clients.countOf(ClientRegistry.Role.MASTER));
    field(out, "cluster_connections", 0);
    field(out, "maxclients", context.maxClients());
    field(out, "client_recent_max_input_buffer", context.clientMemory().recentMaxInput());
    field(out, "client_recent_max_output_buffer", context.clientMemory().recentMaxOutput());
    field(out, "blocked_clients", context.clients().blockedCount());
    field(out, "tracking_clients", 0);
    field(out, "pubsub_clients", context.pubSub().clientCount());
    field(out, "watching_clients", context.watches().watchingClients());
    field(out, "clients_in_timeout_table", context.clients().inTimeoutTable());
    field(out, "total_watched_keys", context.watches().size());
    // no command here blocks on a key (Redis's BLPOP, XREAD BLOCK…)
    field(out, "total_blocking_keys", 0);
    field(out, "total_blocking_keys_on_nokey", 0);
  }

  private void memory(StringBuilder out) {
    Keyspace keyspace = context.keyspace();
    Runtime runtime = Runtime.getRuntime();
    MemoryUsage usage = MemoryUsage.of(context);
    long used = usage.total();
    long peak = usage.peak(keyspace.peakUsedBytes());
    long maxMemory = context.maxMemory();
    long rss = residentBytes();
    long systemMemory = systemMemoryBytes();
    out.append("# Memory\r\n");
    field(out, "used_memory", used);
    field(out, "used_memory_human", bytesToHuman(used));
    field(out, "used_memory_rss", rss);
    field(out, "used_memory_rss_human", bytesToHuman(rss));
    field(out, "used_memory_peak", peak);
    field(out, "used_memory_peak_human", bytesToHuman(peak));
    field(
        out,
        "used_memory_peak_perc",
        String.format(Locale.ROOT, "%.2f%%", peak == 0 ? 100.0 : used * 100.0 / peak));
    field(out, "used_memory_overhead", usage.overhead());
    field(out, "used_memory_startup", usage.startupBytes());
    field(out, "used_memory_dataset", usage.dataset());
    field(
        out,
        "used_memory_dataset_perc",
        String.format(Locale.ROOT, "%.2f%%", usage.datasetPercent()));
    field(out, "used_memory_filters", keyspace.usedBytes());
    field(out, "used_memory_heap", runtime.totalMemory() - runtime.freeMemory());
    field(out, "total_system_memory", systemMemory);
    field(out, "total_system_memory_human", bytesToHuman(systemMemory));
    field(out, "maxmemory", maxMemory);
    field(out, "maxmemory_human", bytesToHuman(maxMemory));
    field(out, "maxmemory_policy", context.config().get(Parameters.MAXMEMORY_POLICY));
    field(out, "max_heap", runtime.maxMemory());
    // Redis's fragmentation: the process's resident memory over what it counts as used
    field(
        out,
        "mem_fragmentation_ratio",
        String.format(Locale.ROOT, "%.2f", used == 0 ? 0 : (double) rss / used));
    field(out, "mem_fragmentation_bytes", rss - used);
    field(out, "mem_replication_backlog", usage.backlogBytes());
    field(out, "mem_clients_slaves", usage.replicaClientBytes());
    field(out, "mem_clients_normal", usage.normalClientBytes());
    field(out, "active_defrag_running", 0);
    field(out, "lazyfree_pending_objects", 0);
    field(out, "lazyfreed_objects", 0);
  }

  /**
   * Returns the process's resident set size in bytes (Redis's used_memory_rss): VmRSS of
   * /proc/self/status, 0 where there is none.
   */
  static long residentBytes() {
    try {
      for (String line :
          java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          String[] words = line.substring(6).trim().split("\\s+");
          return Long.parseLong(words[0]) * 1024;
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      // not Linux, or no procfs: Redis also answers 0 where it cannot tell
    }
    return 0;
  }

  /** Returns the memory of the machine (or the container's limit), 0 if the JVM cannot tell. */
  private static long systemMemoryBytes() {
    java.lang.management.OperatingSystemMXBean bean = ManagementFactory.getOperatingSystemMXBean();
    return bean instanceof com.sun.management.OperatingSystemMXBean sun
        ? Math.max(0, sun.getTotalMemorySize())
        : 0;
  }

  private void persistence(StringBuilder out) {
    Persistence persistence = context.persistence();
    Snapshots snapshots = context.snapshots();
    boolean saving = snapshots != null && snapshots.saving();
    SaveStats saves = context.saveStats();
    out.append("# Persistence\r\n");
    field(out, "loading", 0);
    field(out, "async_loading", 0);
    // no fork: a snapshot is written by a thread of this process, copying nothing on write
    field(out, "current_cow_peak", 0);
    field(out, "current_cow_size", 0);
    field(out, "current_cow_size_age", 0);
    field(out, "current_fork_perc", "0.00");
    field(out, "current_save_keys_processed", 0);
    field(out, "current_save_keys_total", 0);
    field(out, "rdb_changes_since_last_save", saves.changesSinceSave());
    field(out, "rdb_bgsave_in_progress", saving ? 1 : 0);
    field(out, "rdb_last_save_time", saves.lastSaveSeconds());
    field(out, "rdb_last_bgsave_status", saves.lastStatus());
    field(out, "rdb_last_bgsave_time_sec", saves.lastSeconds());
    field(out, "rdb_current_bgsave_time_sec", saves.currentSeconds());
    field(out, "rdb_saves", saves.completed());
    field(out, "rdb_last_cow_size", 0);
    field(out, "rdb_last_load_keys_expired", 0);
    field(out, "rdb_last_load_keys_loaded", 0);
    dev.cuckoo.server.persist.RedisRdbImport.Imported imported = context.rdbImport();
    if (imported != null) {
      // a Redis RDB loaded at the first start: what it held of other types was skipped
      field(out, "redis_rdb_imported", imported.file().getFileName());
      field(out, "redis_rdb_imported_filters", imported.filters());
      field(out, "redis_rdb_imported_expired", imported.expired());
      field(out, "redis_rdb_foreign_keys", imported.foreign().total());
      field(out, "redis_rdb_foreign_keys_by_type", imported.foreign().toString());
    }
    field(out, "aof_enabled", persistence == null ? 0 : 1);
    // with the log, a snapshot is also Redis's AOF rewrite: the same figures for both; without
    // it, no rewrite ever runs
    boolean logged = persistence != null;
    field(out, "aof_rewrite_in_progress", logged && saving ? 1 : 0);
    field(out, "aof_rewrite_scheduled", 0);
    field(out, "aof_last_rewrite_time_sec", logged ? saves.lastSeconds() : -1);
    field(out, "aof_current_rewrite_time_sec", logged ? saves.currentSeconds() : -1);
    field(
        out, "aof_last_bgrewrite_status", logged && saves.consecutiveFailures() > 0 ? "err" : "ok");
    field(out, "aof_rewrites", logged ? saves.completed() : 0);
    field(out, "aof_rewrites_consecutive_failures", logged ? saves.consecutiveFailures() : 0);
    field(out, "aof_last_write_status", logged && persistence.logFailed() ? "err" : "ok");
    field(out, "aof_last_cow_size", 0);
    field(out, "module_fork_in_progress", 0);
    field(out, "module_fork_last_cow_size", 0);
    if (persistence != null) {
      field(out, "aof_current_size", persistence.logBytes());
      field(out, "aof_base_size", persistence.logBaseBytes());
      field(out, "aof_pending_rewrite", 0);
      field(out, "aof_buffer_length", 0);
      field(out, "aof_pending_bio_fsync", 0);
      field(out, "aof_delayed_fsync", 0);
    }
  }

  /**
   * Returns the rates per second of the counts given (commands, then bytes), each over the time
   * since the last sample, which is taken at most every 100 ms (Redis also samples every 100 ms).
   */
  private synchronized double[] ratesPerSecond(long... counts) {
    long now = System.nanoTime();
    long elapsed = now - sampleNanos;
    // a rate over less than 100 ms would be noise
    if (elapsed >= 100_000_000L || rates.length != counts.length) {
      double[] fresh = new double[counts.length];
      for (int i = 0; i < counts.length; i++) {
        long before = i < sampleCounts.length ? sampleCounts[i] : counts[i];
        fresh[i] = Math.max(0, (counts[i] - before) * 1e9 / Math.max(1, elapsed));
      }
      rates = fresh;
      sampleNanos = now;
      sampleCounts = counts.clone();
    }
    return rates.clone();
  }

  private static String kilobytes(double bytesPerSecond) {
    return String.format(Locale.ROOT, "%.2f", bytesPerSecond / 1024);
  }

  private void stats(StringBuilder out) {
    long commands = context.totalCommands().sum();
    out.append("# Stats\r\n");
    field(out, "total_connections_received", context.totalConnections().get());
    field(out, "total_commands_processed", commands);
    long[] bytes = context.traffic().totals();
    double[] rates = ratesPerSecond(commands, bytes[0], bytes[1], bytes[2], bytes[3]);
    field(out, "instantaneous_ops_per_sec", (long) rates[0]);
    field(out, "total_net_input_bytes", bytes[0]);
    field(out, "total_net_output_bytes", bytes[1]);
    field(out, "total_net_repl_input_bytes", bytes[2]);
    field(out, "total_net_repl_output_bytes", bytes[3]);
    field(out, "instantaneous_input_kbps", kilobytes(rates[1]));
    field(out, "instantaneous_output_kbps", kilobytes(rates[2]));
    field(out, "instantaneous_input_repl_kbps", kilobytes(rates[3]));
    field(out, "instantaneous_output_repl_kbps", kilobytes(rates[4]));
    field(out, "rejected_connections", 0);
    dev.cuckoo.server.replication.Replication replication = context.replication();
    long[] syncs = replication != null ? replication.syncCounts() : new long[3];
    field(out, "sync_full", syncs[0]);
    field(out, "sync_partial_ok", syncs[1]);
    field(out, "sync_partial_err", syncs[2]);
    // no type here has fields that expire on their own (Redis's hash fields)
    field(out, "expired_subkeys", 0);
    field(out, "expired_keys", context.expiredKeys().get());
    ExpiryStats expiry = context.expiryStats();
    field(out, "expired_stale_perc", expiry.stalePercent());
    field(out, "expired_time_cap_reached_count", expiry.timeCapReached());
    field(out, "expire_cycle_cpu_milliseconds", expiry.cycleMillis());
    // noeviction, the only policy: nothing is evicted
    field(out, "evicted_keys", 0);
    field(out, "evicted_clients", 0);
    field(out, "total_eviction_exceeded_time", 0);
    field(out, "current_eviction_exceeded_time", 0);
    field(out, "keyspace_hits", context.keyspace().hits());
    field(out, "keyspace_misses", context.keyspace().misses());
    field(out, "pubsub_channels", context.pubSub().activeCount(Kind.CHANNEL));
    field(out, "pubsub_patterns", context.pubSub().activeCount(Kind.PATTERN));
    field(out, "pubsubshard_channels", context.pubSub().activeCount(Kind.SHARD));
    // no fork (snapshots are written by a thread), no defragmentation, no tracking
    field(out, "latest_fork_usec", 0);
    field(out, "total_forks", 0);
    field(out, "migrate_cached_sockets", context.migrateSockets().size());
    field(out, "slave_expires_tracked_keys", 0);
    field(out, "active_defrag_hits", 0);
    field(out, "active_defrag_misses", 0);
    field(out, "active_defrag_key_hits", 0);
    field(out, "active_defrag_key_misses", 0);
    field(out, "total_active_defrag_time", 0);
    field(out, "current_active_defrag_time", 0);
    field(out, "tracking_total_keys", 0);
    field(out, "tracking_total_items", 0);
    field(out, "tracking_total_prefixes", 0);
    field(out, "unexpected_error_replies", 0);
    field(out, "total_error_replies", context.errorStats().total());
    field(out, "dump_payload_sanitizations", 0);
    long[] operations = context.traffic().operations();
    field(out, "total_reads_processed", operations[0]);
    field(out, "total_writes_processed", operations[1]);
    long[] limitClosed = context.traffic().limitDisconnections();
    field(out, "client_query_buffer_limit_disconnections", limitClosed[0]);
    field(out, "client_output_buffer_limit_disconnections", limitClosed[1]);
    // Redis's genRedisInfoStringACLStats, at the end of the section
    dev.cuckoo.server.acl.AclLog acl = context.aclLog();
    field(out, "acl_access_denied_auth", acl.denied(dev.cuckoo.server.acl.Denial.Reason.AUTH));
    field(out, "acl_access_denied_cmd", acl.denied(dev.cuckoo.server.acl.Denial.Reason.COMMAND));
    field(out, "acl_access_denied_key", acl.denied(dev.cuckoo.server.acl.Denial.Reason.KEY));
    field(
        out, "acl_access_denied_channel", acl.denied(dev.cuckoo.server.acl.Denial.Reason.CHANNEL));
  }

  private void errorStats(StringBuilder out) {
    out.append("# Errorstats\r\n");
    context
        .errorStats()
        .byCode()
        .forEach((code, count) -> field(out, "errorstat_" + code, "count=" + count));
  }

  private void replication(StringBuilder out) {
    dev.cuckoo.server.replication.Replication replication = context.replication();
    if (replication != null) {
      replication.info(out);
      return;
    }
    out.append("# Replication\r\n");
    field(out, "role", "master");
    field(out, "connected_slaves", 0);
    field(out, "master_failover_state", "no-failover");
    field(out, "master_replid", replicationId);
    field(out, "master_replid2", "0".repeat(40));
    field(out, "master_repl_offset", 0);
    field(out, "second_repl_offset", -1);
    field(out, "repl_backlog_active", 0);
    field(out, "repl_backlog_size", 1048576);
    field(out, "repl_backlog_first_byte_offset", 0);
    field(out, "repl_backlog_histlen", 0);
  }

  private static String seconds(double value) {
    return String.format(Locale.ROOT, "%.6f", value);
  }

  private static void cpu(StringBuilder out) {
    java.lang.management.OperatingSystemMXBean bean = ManagementFactory.getOperatingSystemMXBean();
    long cpuNanos =
        bean instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
    out.append("# CPU\r\n");
    double[] process = CommandThreads.processUserSystem();
    if (process != null) {
      field(out, "used_cpu_sys", seconds(process[1]));
      field(out, "used_cpu_user", seconds(process[0]));
    } else {
      // without /proc the JVM reports user and system time together: used_cpu_user carries both
      field(out, "used_cpu_sys", "0.000000");
      field(out, "used_cpu_user", cpuNanos < 0 ? "0.000000" : seconds(cpuNanos / 1e9));
    }
    field(out, "used_cpu_sys_children", "0.000000");
    field(out, "used_cpu_user_children", "0.000000");
    double[] commandThreads = CommandThreads.commandThreadsUserSystem();
    if (commandThreads != null) {
      // Redis's main thread runs every command; here the network threads do
      field(out, "used_cpu_sys_main_thread", seconds(commandThreads[1]));
      field(out, "used_cpu_user_main_thread", seconds(commandThreads[0]));
    }
    field(out, "available_processors", Runtime.getRuntime().availableProcessors());
    field(out, "process_cpu_time_ms", cpuNanos < 0 ? -1 : cpuNanos / 1_000_000);
  }

  private void keyspace(StringBuilder out) {
    out.append("# Keyspace\r\n");
    Keyspace keyspace = context.keyspace();
    for (int db = 0; db < keyspace.databases(); db++) {
      int keys = keyspace.size(db);
      if (keys > 0) {
        out.append("db")
            .append(db)
            .append(":keys=")
            .append(keys)
            .append(",expires=")
            .append(keyspace.expiring(db))
            .append(",avg_ttl=")
            .append(keyspace.expiring(db) == 0 ? 0 : keyspace.ttlAverages().get(db))
            .append(",subexpiry=0\r\n");
      }
    }
  }
}
