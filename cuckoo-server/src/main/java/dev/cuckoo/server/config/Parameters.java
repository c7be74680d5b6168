package dev.cuckoo.server.config;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The server's parameter table: every parameter the command line, a config file, CONFIG
 * GET/SET/REWRITE, INFO and {@code --help} know, one entry each, under Redis's name where Redis has
 * the parameter (Redis's {@code static_configs[]}). The order is the order of {@code --help}.
 */
public final class Parameters {
  private Parameters() {}

  private static final List<Parameter<?>> TABLE = new ArrayList<>();

  private static <T> Parameter<T> computed(
      String name, ValueType<T> type, Supplier<T> defaultValue, String usage) {
    Parameter<T> parameter = new Parameter<>(name, type, defaultValue, usage);
    parameter.index(TABLE.size());
    TABLE.add(parameter);
    return parameter;
  }

  private static <T> Parameter<T> add(String name, ValueType<T> type, T value, String usage) {
    return computed(name, type, () -> value, usage);
  }

  private static Parameter<Long> integer(
      String name, long min, long max, long value, String usage) {
    return add(name, Types.integer(min, max), value, usage);
  }

  private static Parameter<Boolean> yesNo(String name, boolean value, String usage) {
    return add(name, Types.YES_NO, value, usage);
  }

  /** The constraint of a file name in the data directory: not empty, not a path (Redis's text). */
  private static String fileName(String name, Parameter.View others) {
    if (name.isEmpty()) {
      return "can't be empty";
    }
    if (name.contains("/") || name.contains("\\") || name.equals(".") || name.equals("..")) {
      return "can't be a path, just a filename";
    }
    return null;
  }

  /** Returns a constraint that takes only {@code value} and refuses others for {@code reason}. */
  private static <T> Parameter.Constraint<T> only(T value, String reason) {
    return (wanted, others) -> wanted.equals(value) ? null : reason;
  }

  // network

  /** {@code port}: the plaintext TCP port (0: no plaintext listener, as Redis). */
  public static final Parameter<Long> PORT =
      integer(
              "port",
              0,
              65535,
              6379,
              "N  TCP port for plaintext clients (default 6379; 0: none, e.g. with tls-port)")
          .applied();

  /** {@code bind}: the addresses to listen on. */
  public static final Parameter<String> BIND =
      add(
              "bind",
              BindType.INSTANCE,
              "127.0.0.1",
              "ADDRESSES  addresses to listen on, separated by spaces (default 127.0.0.1)")
          .applied();

  /** {@code protected-mode}: with no password, refuse clients not on the loopback interface. */
  public static final Parameter<Boolean> PROTECTED_MODE =
      yesNo(
          "protected-mode",
          true,
          "yes|no  with no password, refuse clients that are not on the loopback interface"
              + " (default yes)");

  /** {@code requirepass}: the password clients must AUTH with (null: none). */
  public static final Parameter<String> REQUIREPASS =
      add("requirepass", Types.OPTIONAL_TEXT, (String) null, "PASSWORD  require AUTH");

  /**
   * {@code aclfile}: the file ACL users are loaded from at start and by ACL LOAD, and written to by
   * ACL SAVE (null: none; a relative path is read in dir). Redis's format: {@code user <name>
   * <rules...>} lines.
   */
  public static final Parameter<String> ACLFILE =
      add(
              "aclfile",
              Types.OPTIONAL_TEXT,
              (String) null,
              "FILE  ACL users file: 'user <name> <rules...>' lines (ACL LOAD, ACL SAVE)")
          .mutability(Mutability.IMMUTABLE);

  /** {@code acllog-max-len}: the most entries ACL LOG keeps. */
  public static final Parameter<Long> ACLLOG_MAX_LEN =
      integer(
              "acllog-max-len",
              0,
              Long.MAX_VALUE,
              128,
              "N  most entries ACL LOG keeps (default 128)")
          .applied();

  /**
   * {@code acl-pubsub-default}: the channels a new ACL user or selector starts with, and a user
   * gets back by {@code reset}: all (allchannels) or none (resetchannels, Redis 7's default).
   */
  public static final Parameter<String> ACL_PUBSUB_DEFAULT =
      add(
              "acl-pubsub-default",
              Types.words("allchannels", "resetchannels"),
              "resetchannels",
              "allchannels|resetchannels  channels a new ACL user starts with: all or none"
                  + " (default resetchannels)")
          .applied();

  /** {@code maxclients}: the most simultaneous clients. */
  public static final Parameter<Long> MAXCLIENTS =
      integer(
          "maxclients", 1, 0xffff_ffffL, 10_000, "N  most simultaneous clients (default 10000)");

  /** {@code timeout}: close clients idle this many seconds (0: never). */
  public static final Parameter<Long> TIMEOUT =
      integer(
          "timeout",
          0,
          Integer.MAX_VALUE,
          0,
          "SECONDS  close idle clients after this long (0 = never)");

  /** {@code tcp-keepalive}: seconds of silence before TCP keepalive probes (0: none). */
  public static final Parameter<Long> TCP_KEEPALIVE =
      integer(
          "tcp-keepalive",
          0,
          Integer.MAX_VALUE,
          300,
          "SECONDS  idle time before TCP keepalive probes, for new connections (default 300;"
              + " 0: none)");

  /** {@code io-threads}: the number of network threads. */
  public static final Parameter<Long> IO_THREADS =
      computed(
              "io-threads",
              Types.integer(1, 256),
              () -> (long) defaultThreads(Runtime.getRuntime().availableProcessors()),
              "N  network threads (default: available processors - 1, at least 1)")
          .oldNames("threads")
          .mutability(Mutability.IMMUTABLE);

  /** {@code proto-max-bulk-len}: the longest bulk string a request may hold. */
  public static final Parameter<Long> PROTO_MAX_BULK_LEN =
      add(
              "proto-max-bulk-len",
              Types.memory(1 << 20, Integer.MAX_VALUE - 64),
              512L << 20,
              "BYTES  longest bulk string (default 512mb)")
          .oldNames("max-bulk-length");

  /** {@code max-array-length}: the most arguments one request may hold. */
  public static final Parameter<Long> MAX_ARRAY_LENGTH =
      integer(
              "max-array-length",
              1024,
              1 << 27,
              1 << 20,
              "N  most arguments per request (default 1048576)")
          .mutability(Mutability.IMMUTABLE);

  /**
   * {@code client-output-buffer-limit}: when a client whose replies and messages pile up unread is
   * closed, per class (normal, replica, pubsub).
   */
  public static final Parameter<OutputBufferLimits> CLIENT_OUTPUT_BUFFER_LIMIT =
      add(
          "client-output-buffer-limit",
          OutputLimitType.INSTANCE,
          OutputBufferLimits.DEFAULT,
          "\"CLASS HARD SOFT SECONDS ...\"  close a client whose output waits past HARD bytes, or"
              + " past SOFT for SECONDS; classes normal, replica, pubsub (default normal 0 0 0"
              + " replica 256mb 64mb 60 pubsub 32mb 8mb 60)");

  /**
   * {@code client-query-buffer-limit}: the most bytes a client's unprocessed input (and its queued
   * MULTI commands) may hold before the client is closed.
   */
  public static final Parameter<Long> CLIENT_QUERY_BUFFER_LIMIT =
      add(
          "client-query-buffer-limit",
          Types.memory(1 << 20, Long.MAX_VALUE),
          1L << 30,
          "BYTES  close a client whose unprocessed input passes this (default 1gb)");

  // TLS (Redis's tls-* parameters; every one is applied by rebuilding the TLS contexts)

  /** {@code tls-port}: the TCP port for TLS clients (0: none). */
  public static final Parameter<Long> TLS_PORT =
      integer("tls-port", 0, 65535, 0, "N  TCP port for TLS clients (default 0: none)").applied();

  /** {@code tls-cert-file}: the server's certificate chain (PEM). */
  public static final Parameter<String> TLS_CERT_FILE =
      tlsFile("tls-cert-file", "the server's certificate (PEM), also the client's if none below");

  /** {@code tls-key-file}: the private key of tls-cert-file (PEM). */
  public static final Parameter<String> TLS_KEY_FILE =
      tlsFile("tls-key-file", "the private key of tls-cert-file (PEM)");

  /** {@code tls-key-file-pass}: the passphrase of an encrypted tls-key-file (null: none). */
  public static final Parameter<String> TLS_KEY_FILE_PASS =
      tlsText("tls-key-file-pass", "PASSPHRASE  of an encrypted tls-key-file");

  /** {@code tls-client-cert-file}: the certificate outgoing links present (null: tls-cert-file). */
  public static final Parameter<String> TLS_CLIENT_CERT_FILE =
      tlsFile(
          "tls-client-cert-file",
          "certificate presented by outgoing links (replication, cluster bus; default:"
              + " tls-cert-file)");

  /** {@code tls-client-key-file}: the private key of tls-client-cert-file. */
  public static final Parameter<String> TLS_CLIENT_KEY_FILE =
      tlsFile("tls-client-key-file", "the private key of tls-client-cert-file (PEM)");

  /** {@code tls-client-key-file-pass}: the passphrase of tls-client-key-file (null: none). */
  public static final Parameter<String> TLS_CLIENT_KEY_FILE_PASS =
      tlsText("tls-client-key-file-pass", "PASSPHRASE  of an encrypted tls-client-key-file");

  /** {@code tls-ca-cert-file}: the CA certificates peers' certificates are checked against. */
  public static final Parameter<String> TLS_CA_CERT_FILE =
      tlsFile("tls-ca-cert-file", "CA certificates (PEM) that peers' certificates must chain to");

  /** {@code tls-ca-cert-dir}: a directory of CA certificates (PEM files). */
  public static final Parameter<String> TLS_CA_CERT_DIR =
      tlsFile("tls-ca-cert-dir", "a directory of CA certificates (PEM files), as OpenSSL's");

  /**
   * {@code tls-dh-params-file}: DH parameters (PEM) for DHE key exchange, read and checked as Redis
   * checks them; neither engine uses them (see the TLS section of the README).
   */
  public static final Parameter<String> TLS_DH_PARAMS_FILE =
      tlsFile(
          "tls-dh-params-file",
          "DH parameters (PEM, openssl dhparam), checked as Redis does; BoringSSL has no DHE"
              + " and the JDK's DHE groups are its own, so they go unused");

  /** {@code tls-auth-clients}: whether TLS clients must present a certificate. */
  public static final Parameter<String> TLS_AUTH_CLIENTS =
      add(
              "tls-auth-clients",
              Types.words("no", "yes", "optional"),
              "yes",
              "yes|no|optional  TLS clients must (yes), need not (no) or may (optional) present"
                  + " a certificate signed by the CA (default yes)")
          .applied();

  /** {@code tls-protocols}: the TLS versions accepted (null: TLSv1.2 and TLSv1.3). */
  public static final Parameter<String> TLS_PROTOCOLS =
      tlsText(
              "tls-protocols",
              "\"TLSv1.2 TLSv1.3\"  TLS versions accepted, separated by spaces (default both)")
          .constraint((value, others) -> TlsProtocols.refusal(value));

  /** {@code tls-ciphers}: the TLSv1.2 cipher list, OpenSSL's names separated by colons. */
  public static final Parameter<String> TLS_CIPHERS =
      tlsText(
          "tls-ciphers",
          "CIPHERS  TLSv1.2 ciphers as an OpenSSL cipher string, e.g. HIGH:!aNULL or names"
              + " separated by ':' (default: the engine's)");

  /** {@code tls-ciphersuites}: the TLSv1.3 cipher suites, separated by colons. */
  public static final Parameter<String> TLS_CIPHERSUITES =
      tlsText(
          "tls-ciphersuites",
          "LIST  TLSv1.3 cipher suites, names separated by ':' (default: the engine's)");

  /** {@code tls-prefer-server-ciphers}: choose the cipher by the server's order. */
  public static final Parameter<Boolean> TLS_PREFER_SERVER_CIPHERS =
      yesNo(
              "tls-prefer-server-ciphers",
              false,
              "yes|no  choose the cipher by the server's order, not the client's (default no)")
          .applied();

  /** {@code tls-session-caching}: let TLS clients resume sessions. */
  public static final Parameter<Boolean> TLS_SESSION_CACHING =
      yesNo("tls-session-caching", true, "yes|no  let TLS clients resume sessions (default yes)")
          .applied();

  /** {@code tls-session-cache-size}: the most TLS sessions cached. */
  public static final Parameter<Long> TLS_SESSION_CACHE_SIZE =
      integer(
              "tls-session-cache-size",
              0,
              Integer.MAX_VALUE,
              20 * 1024,
              "N  most TLS sessions cached (default 20480)")
          .applied();

  /** {@code tls-session-cache-timeout}: seconds a cached TLS session stays valid. */
  public static final Parameter<Long> TLS_SESSION_CACHE_TIMEOUT =
      integer(
              "tls-session-cache-timeout",
              0,
              Integer.MAX_VALUE,
              300,
              "SECONDS  how long a cached TLS session may be resumed (default 300)")
          .applied();

  /** {@code tls-replication}: a replica connects to its master over TLS. */
  public static final Parameter<Boolean> TLS_REPLICATION =
      yesNo(
              "tls-replication",
              false,
              "yes|no  a replica connects to its master over TLS (default no)")
          .applied();

  /** {@code tls-cluster}: the cluster bus listens and connects over TLS. */
  public static final Parameter<Boolean> TLS_CLUSTER =
      yesNo("tls-cluster", false, "yes|no  the cluster bus listens and connects over TLS (no)")
          .mutability(Mutability.IMMUTABLE);

  /** {@code tls-provider}: this server's choice of TLS engine. */
  public static final Parameter<String> TLS_PROVIDER =
      add(
              "tls-provider",
              Types.words("auto", "openssl", "jdk"),
              "auto",
              "auto|openssl|jdk  TLS engine: OpenSSL (BoringSSL) where it loads, else the JDK's"
                  + " (default auto)")
          .applied();

  private static Parameter<String> tlsText(String name, String usage) {
    return add(name, Types.OPTIONAL_TEXT, (String) null, usage).applied();
  }

  private static Parameter<String> tlsFile(String name, String usage) {
    return tlsText(name, "PATH  " + usage).reapplied();
  }

  // persistence

  /** {@code dir}: the data directory. */
  public static final Parameter<Path> DIR =
      add("dir", Types.DIRECTORY, Paths.get("data"), "PATH  data directory (default ./data)")
          .mutability(Mutability.PROTECTED);

  /** {@code appendonly}: keep the append-only log. */
  public static final Parameter<Boolean> APPENDONLY =
      yesNo("appendonly", true, "yes|no  keep the append-only log and snapshots (default yes)")
          .applied();

  /** {@code appendfsync}: how often the log is forced to disk. */
  public static final Parameter<Fsync> APPENDFSYNC =
      add(
              "appendfsync",
              Types.oneOf(
                  List.of("everysec", "always", "no"),
                  name -> Fsync.valueOf(name.toUpperCase(Locale.ROOT)),
                  fsync -> fsync.name().toLowerCase(Locale.ROOT)),
              Fsync.EVERYSEC,
              "always|everysec|no  log fsync policy (default everysec)")
          .applied();

  /** {@code appendfilename}: the log's file name in the data directory. */
  public static final Parameter<String> APPENDFILENAME =
      add(
              "appendfilename",
              Types.TEXT,
              "appendonly.log",
              "NAME  the log's file in the data directory (default appendonly.log)")
          .mutability(Mutability.IMMUTABLE)
          .constraint(Parameters::fileName);

  /** {@code dbfilename}: the snapshot's file name in the data directory. */
  public static final Parameter<String> DBFILENAME =
      add(
              "dbfilename",
              Types.TEXT,
              "dump.cuckoo",
              "NAME  the snapshot's file in the data directory (default dump.cuckoo)")
          .mutability(Mutability.PROTECTED)
          .constraint(Parameters::fileName);

  /** {@code save}: Redis's snapshot points, "seconds changes" pairs; "" for none. */
  public static final Parameter<String> SAVE =
      add(
              "save",
              SaveType.INSTANCE,
              "3600 1 300 100 60 10000",
              "\"SECONDS CHANGES ...\"  snapshot points: a snapshot after SECONDS if at least"
                  + " CHANGES writes (default \"3600 1 300 100 60 10000\"; \"\" none)")
          .applied();

  /** {@code rdbcompression}: whether snapshots compress their strings. */
  public static final Parameter<Boolean> RDBCOMPRESSION =
      yesNo("rdbcompression", false, "yes|no  compress snapshots (default no)")
          .applied()
          .constraint(only(false, "this server does not compress snapshots"));

  /** {@code rdbchecksum}: whether snapshots carry checksums (they always do here). */
  public static final Parameter<Boolean> RDBCHECKSUM =
      yesNo("rdbchecksum", true, "yes  snapshots carry CRC32C checksums (always yes)")
          .mutability(Mutability.IMMUTABLE)
          .constraint(only(true, "this server always writes snapshot checksums"));

  /** {@code stop-writes-on-bgsave-error}: refuse writes while the last snapshot failed. */
  public static final Parameter<Boolean> STOP_WRITES_ON_BGSAVE_ERROR =
      yesNo(
              "stop-writes-on-bgsave-error",
              true,
              "yes|no  refuse writes after a failed snapshot (default yes)")
          .applied();

  /** {@code repair-log}: repair a damaged log instead of refusing to start. */
  public static final Parameter<Boolean> REPAIR_LOG =
      yesNo(
              "repair-log",
              false,
              "yes|no  repair a damaged log (header, middle record, generation) instead of"
                  + " refusing to start")
          .mutability(Mutability.IMMUTABLE);

  /** {@code auto-aof-rewrite-percentage}: snapshot when the log grew this much (0: never). */
  public static final Parameter<Long> AUTO_AOF_REWRITE_PERCENTAGE =
      integer(
          "auto-aof-rewrite-percentage",
          0,
          Integer.MAX_VALUE,
          100,
          "N  snapshot when the log grew N% since the last (default 100; 0: never)");

  /** {@code auto-aof-rewrite-min-size}: ... and is at least this big. */
  public static final Parameter<Long> AUTO_AOF_REWRITE_MIN_SIZE =
      add(
          "auto-aof-rewrite-min-size",
          Types.memory(0, Long.MAX_VALUE),
          64L << 20,
          "BYTES  ... and is at least this big (default 64mb)");

  // memory

  /** {@code maxmemory}: the most bytes of filters new writes may make the server hold. */
  public static final Parameter<Long> MAXMEMORY =
      computed(
          "maxmemory",
          Types.memory(0, Long.MAX_VALUE),
          () -> Runtime.getRuntime().maxMemory() / 4 * 3,
          "BYTES  most memory filters may take for new writes, e.g. 2gb (default: 3/4 of the"
              + " heap; 0: the heap is the only limit)");

  /** {@code maxmemory-policy}: only noeviction; filters are refused, never evicted. */
  public static final Parameter<String> MAXMEMORY_POLICY =
      add(
              "maxmemory-policy",
              Types.words(
                  "volatile-lru",
                  "volatile-lfu",
                  "volatile-random",
                  "volatile-ttl",
                  "allkeys-lru",
                  "allkeys-lfu",
                  "allkeys-random",
                  "noeviction"),
              "noeviction",
              "noeviction  writes beyond maxmemory are refused (the only policy here)")
          .constraint(
              only(
                  "noeviction",
                  "this server does not evict keys: a filter's items cannot be rebuilt once"
                      + " dropped; only noeviction is supported"));

  // commands and diagnostics

  /** {@code databases}: the number of databases. */
  public static final Parameter<Long> DATABASES =
      integer("databases", 1, 1 << 16, 16, "N  number of databases, SELECT 0..N-1 (default 16)")
          .mutability(Mutability.IMMUTABLE);

  /** {@code enable-debug-command}: allow DEBUG. */
  public static final Parameter<Boolean> ENABLE_DEBUG_COMMAND =
      yesNo("enable-debug-command", false, "yes|no  allow DEBUG (default no, as Redis)")
          .mutability(Mutability.IMMUTABLE);

  /** {@code latency-tracking}: record each call's duration for INFO latencystats. */
  public static final Parameter<Boolean> LATENCY_TRACKING =
      yesNo(
          "latency-tracking",
          true,
          "yes|no  record each call's duration for INFO latencystats (yes)");

  /** {@code latency-tracking-info-percentiles}: the percentiles INFO latencystats prints. */
  public static final Parameter<List<Double>> LATENCY_TRACKING_INFO_PERCENTILES =
      add(
          "latency-tracking-info-percentiles",
          LatencyPercentiles.TYPE,
          LatencyPercentiles.DEFAULT,
          "\"P ...\"  percentiles INFO latencystats prints (\"50 99 99.9\")");

  /** {@code latency-monitor-threshold}: LATENCY's event threshold; no events are kept here. */
  public static final Parameter<Long> LATENCY_MONITOR_THRESHOLD =
      integer(
              "latency-monitor-threshold",
              0,
              Long.MAX_VALUE,
              0,
              "MILLIS  0 only: this server keeps no latency events")
          .constraint(only(0L, "this server keeps no latency events"));

  /** {@code slowlog-log-slower-than}: log commands at least this slow (µs; -1: none). */
  public static final Parameter<Long> SLOWLOG_LOG_SLOWER_THAN =
      integer(
          "slowlog-log-slower-than",
          -1,
          Long.MAX_VALUE,
          10_000,
          "MICROS  log commands slower than this in SLOWLOG (default 10000; 0 every command,"
              + " -1 none)");

  /** {@code slowlog-max-len}: the most entries the slow log keeps. */
  public static final Parameter<Long> SLOWLOG_MAX_LEN =
      integer(
              "slowlog-max-len",
              0,
              Long.MAX_VALUE,
              128,
              "N  most entries SLOWLOG keeps (default 128)")
          .applied();

  /** {@code notify-keyspace-events}: the classes of keyspace notifications published. */
  public static final Parameter<String> NOTIFY_KEYSPACE_EVENTS =
      add(
              "notify-keyspace-events",
              EventClasses.TYPE,
              "",
              "FLAGS  keyspace notifications, Redis's flags (KEA, Ex, ...; default \"\": none)")
          .applied();

  /** {@code hz}: how often background tasks run; fixed here. */
  public static final Parameter<Long> HZ =
      integer("hz", 0, Integer.MAX_VALUE, 10, "10  background tasks run 10 times a second")
          .constraint(only(10L, "this server's background tasks run at 10 Hz"));

  // process

  /** {@code logfile}: the file the log is appended to (null: standard error). */
  public static final Parameter<Path> LOGFILE =
      add(
              "logfile",
              Types.OPTIONAL_PATH,
              (Path) null,
              "PATH  append the log to this file (default: standard error)")
          .mutability(Mutability.IMMUTABLE);

  /** {@code loglevel}: the least severe log lines written. */
  public static final Parameter<String> LOGLEVEL =
      add(
              "loglevel",
              Types.words("debug", "verbose", "notice", "warning", "nothing"),
              "notice",
              "debug|verbose|notice|warning|nothing  least severe lines logged (default notice)")
          .applied();

  /** {@code daemonize}: this server never forks into the background. */
  public static final Parameter<Boolean> DAEMONIZE =
      yesNo(
              "daemonize",
              false,
              "no  the server stays in the foreground (a service manager runs it)")
          .mutability(Mutability.IMMUTABLE)
          .constraint(only(false, "this server stays in the foreground"));

  /** {@code cluster-enabled}: run as a node of a Redis Cluster. */
  public static final Parameter<Boolean> CLUSTER_ENABLED =
      yesNo("cluster-enabled", false, "yes|no  run as a Redis Cluster node (default no)")
          .mutability(Mutability.IMMUTABLE);

  /** {@code cluster-config-file}: the node's cluster state file, in the data directory. */
  public static final Parameter<String> CLUSTER_CONFIG_FILE =
      add(
              "cluster-config-file",
              Types.TEXT,
              "nodes.conf",
              "NAME  the cluster state file in the data directory (default nodes.conf)")
          .mutability(Mutability.IMMUTABLE)
          .constraint(Parameters::fileName);

  /** {@code cluster-node-timeout}: milliseconds of silence before a node is suspected. */
  public static final Parameter<Long> CLUSTER_NODE_TIMEOUT =
      integer(
              "cluster-node-timeout",
              1,
              Long.MAX_VALUE,
              15_000,
              "MILLIS  silence before a node is suspected failing (default 15000)")
          .mutability(Mutability.IMMUTABLE);

  /** {@code cluster-port}: the cluster bus port (0: the client port + 10000). */
  public static final Parameter<Long> CLUSTER_PORT =
      integer(
              "cluster-port",
              0,
              65535,
              0,
              "N  the cluster bus port (default 0: the client port + 10000)")
          .mutability(Mutability.IMMUTABLE);

  /** {@code cluster-announce-ip}: the address this node gives other nodes and clients. */
  public static final Parameter<String> CLUSTER_ANNOUNCE_IP =
      add(
          "cluster-announce-ip",
          Types.TEXT,
          "",
          "IP  the address announced to other nodes and in redirects (default: the one they see)");

  /** {@code cluster-announce-port}: the client port this node announces (0: the port). */
  public static final Parameter<Long> CLUSTER_ANNOUNCE_PORT =
      integer(
          "cluster-announce-port",
          0,
          65535,
          0,
          "N  the client port announced (default 0: the port listened on)");

  /** {@code cluster-announce-bus-port}: the bus port this node announces (0: the bus port). */
  public static final Parameter<Long> CLUSTER_ANNOUNCE_BUS_PORT =
      integer(
          "cluster-announce-bus-port",
          0,
          65535,
          0,
          "N  the cluster bus port announced (default 0: the bus port listened on)");

  /** {@code cluster-announce-hostname}: the hostname this node announces (CLUSTER NODES/SHARDS). */
  public static final Parameter<String> CLUSTER_ANNOUNCE_HOSTNAME =
      add(
          "cluster-announce-hostname",
          Types.TEXT,
          "",
          "NAME  the hostname announced to other nodes (default none)");

  /** {@code cluster-require-full-coverage}: an unserved slot puts the whole cluster down. */
  public static final Parameter<Boolean> CLUSTER_REQUIRE_FULL_COVERAGE =
      yesNo(
          "cluster-require-full-coverage",
          true,
          "yes|no  stop serving while any slot has no working master (default yes)");

  /** {@code cluster-allow-reads-when-down}: serve reads while the cluster is down. */
  public static final Parameter<Boolean> CLUSTER_ALLOW_READS_WHEN_DOWN =
      yesNo(
          "cluster-allow-reads-when-down",
          false,
          "yes|no  serve read commands while the cluster is down (default no)");

  /**
   * {@code cluster-replica-validity-factor}: a replica whose data is older than this many node
   * timeouts (plus repl-ping-replica-period) does not fail over (0: always may).
   */
  public static final Parameter<Long> CLUSTER_REPLICA_VALIDITY_FACTOR =
      integer(
              "cluster-replica-validity-factor",
              0,
              Integer.MAX_VALUE,
              10,
              "N  node timeouts of silence after which a replica will not fail over (default 10;"
                  + " 0: always)")
          .aliases("cluster-slave-validity-factor");

  /** {@code cluster-migration-barrier}: replicas a master keeps before one migrates away. */
  public static final Parameter<Long> CLUSTER_MIGRATION_BARRIER =
      integer(
          "cluster-migration-barrier",
          0,
          Integer.MAX_VALUE,
          1,
          "N  working replicas a master keeps before one may migrate to an orphaned master"
              + " (default 1)");

  /**
   * {@code cluster-allow-replica-migration}: replicas may migrate to orphaned masters, and a master
   * left without slots becomes a replica of the node that took them.
   */
  public static final Parameter<Boolean> CLUSTER_ALLOW_REPLICA_MIGRATION =
      yesNo(
          "cluster-allow-replica-migration",
          true,
          "yes|no  replicas migrate to orphaned masters; a master without slots becomes a"
              + " replica (default yes)");

  // the RedisBloom module's parameters

  private static final long MAX_CAPACITY = 1L << 30;

  /** {@code cf-bucket-size}: items per bucket of filters CF.ADD and CF.INSERT create. */
  public static final Parameter<Long> CF_BUCKET_SIZE =
      cf(
          "cf-bucket-size",
          2,
          others -> 1,
          others -> Math.min(others.get(Parameters.CF_INITIAL_SIZE) / 2, 255));

  /** {@code cf-initial-size}: the capacity of filters CF.ADD and CF.INSERT create. */
  public static final Parameter<Long> CF_INITIAL_SIZE =
      cf(
          "cf-initial-size",
          1024,
          others -> 2 * others.get(Parameters.CF_BUCKET_SIZE),
          others -> MAX_CAPACITY);

  /** {@code cf-max-iterations}: kicks before an add gives up. */
  public static final Parameter<Long> CF_MAX_ITERATIONS =
      cf("cf-max-iterations", 20, others -> 1, others -> 65535);

  /** {@code cf-expansion-factor}: how much bigger each new sub-filter is. */
  public static final Parameter<Long> CF_EXPANSION_FACTOR =
      cf("cf-expansion-factor", 1, others -> 0, others -> 32768);

  /** {@code cf-max-expansions}: writes are refused once a filter has this many links. */
  public static final Parameter<Long> CF_MAX_EXPANSIONS =
      cf("cf-max-expansions", 32, others -> 1, others -> 65536);

  /** A bound of a cf-* parameter, which may depend on another one. */
  private interface Bound {
    long of(Parameter.View others);
  }

  /** A cf-* parameter, refused with RedisBloom's text whatever is wrong with the value. */
  private static Parameter<Long> cf(String name, long value, Bound min, Bound max) {
    return add(
            name,
            Types.LENIENT_INTEGER,
            value,
            "N  RedisBloom module parameter (default " + value + ")")
        .constraint(
            (wanted, others) -> {
              if (wanted == null) {
                return "Invalid value for `" + name + "`";
              }
              long low = min.of(others);
              long high = max.of(others);
              return wanted >= low && wanted <= high
                  ? null
                  : "Value for `" + name + "` must be in the range [" + low + ", " + high + "]";
            });
  }

  // replication

  /** {@code replicaof}: the master followed, "host port" (null: none); REPLICAOF changes it. */
  public static final Parameter<String> REPLICAOF =
      add(
              "replicaof",
              ReplicaOfType.INSTANCE,
              (String) null,
              "\"HOST PORT\"  start as a replica of that master (REPLICAOF at runtime)")
          .aliases("slaveof")
          .mutability(Mutability.IMMUTABLE);

  /** {@code masterauth}: the password a replica gives its master (null: none). */
  public static final Parameter<String> MASTERAUTH =
      add(
          "masterauth",
          Types.OPTIONAL_TEXT,
          (String) null,
          "PASSWORD  password a replica gives its master");

  /** {@code masteruser}: the user a replica authenticates as (null: the default user). */
  public static final Parameter<String> MASTERUSER =
      add(
          "masteruser",
          Types.OPTIONAL_TEXT,
          (String) null,
          "NAME  user a replica gives its master");

  /** {@code replica-read-only}: refuse clients' writes on a replica. */
  public static final Parameter<Boolean> REPLICA_READ_ONLY =
      yesNo("replica-read-only", true, "yes|no  refuse clients' writes on a replica (default yes)")
          .aliases("slave-read-only");

  /** {@code replica-serve-stale-data}: answer while the master link is down. */
  public static final Parameter<Boolean> REPLICA_SERVE_STALE_DATA =
      yesNo(
              "replica-serve-stale-data",
              true,
              "yes|no  answer while the master link is down (default yes)")
          .aliases("slave-serve-stale-data");

  /**
   * {@code replica-ignore-foreign-types}: a replica of a Redis master skips (and counts) the keys
   * and writes of types this server does not hold; with no, the first one stops the replication.
   */
  public static final Parameter<Boolean> REPLICA_IGNORE_FOREIGN_TYPES =
      yesNo(
          "replica-ignore-foreign-types",
          true,
          "yes|no  a replica of a Redis master skips and counts keys of types it does not hold"
              + " (default yes); no: the first such key stops the replication");

  /** {@code replica-priority}: Sentinel's promotion priority. */
  public static final Parameter<Long> REPLICA_PRIORITY =
      integer(
              "replica-priority",
              0,
              Integer.MAX_VALUE,
              100,
              "N  Sentinel's promotion priority (default 100)")
          .aliases("slave-priority");

  /** {@code replica-announce-ip}: the address a replica tells its master (null: its own). */
  public static final Parameter<String> REPLICA_ANNOUNCE_IP =
      add(
              "replica-announce-ip",
              Types.OPTIONAL_TEXT,
              (String) null,
              "IP  the address a replica tells its master")
          .aliases("slave-announce-ip");

  /** {@code replica-announce-port}: the port a replica tells its master (0: the listening port). */
  public static final Parameter<Long> REPLICA_ANNOUNCE_PORT =
      integer("replica-announce-port", 0, 65535, 0, "N  the port a replica tells its master")
          .aliases("slave-announce-port");

  /** {@code repl-backlog-size}: bytes of the stream kept for partial resyncs. */
  public static final Parameter<Long> REPL_BACKLOG_SIZE =
      add(
              "repl-backlog-size",
              Types.memory(16 * 1024, 1L << 30),
              1L << 20,
              "BYTES  stream kept for partial resyncs (default 1mb)")
          .applied();

  /** {@code repl-ping-replica-period}: seconds between the PINGs a master sends its replicas. */
  public static final Parameter<Long> REPL_PING_REPLICA_PERIOD =
      integer(
              "repl-ping-replica-period",
              1,
              3600,
              10,
              "N  seconds between PINGs to replicas (default 10)")
          .aliases("repl-ping-slave-period")
          .applied();

  /** {@code repl-timeout}: seconds of silence before a replica drops its link. */
  public static final Parameter<Long> REPL_TIMEOUT =
      integer(
              "repl-timeout",
              1,
              3600,
              60,
              "N  seconds of silence before a replica drops its link (default 60)")
          .applied();

  /** {@code min-replicas-to-write}: refuse writes with fewer good replicas. */
  public static final Parameter<Long> MIN_REPLICAS_TO_WRITE =
      integer(
              "min-replicas-to-write",
              0,
              Integer.MAX_VALUE,
              0,
              "N  refuse writes with fewer good replicas (default 0)")
          .aliases("min-slaves-to-write");

  /** {@code min-replicas-max-lag}: seconds since a good replica's last ACK. */
  public static final Parameter<Long> MIN_REPLICAS_MAX_LAG =
      integer(
              "min-replicas-max-lag",
              0,
              Integer.MAX_VALUE,
              10,
              "N  seconds since a good replica's last ACK (default 10)")
          .aliases("min-slaves-max-lag");

  private static final List<Parameter<?>> ALL = Collections.unmodifiableList(TABLE);

  private static final Map<String, Parameter<?>> BY_NAME = byName();

  private static Map<String, Parameter<?>> byName() {
    Map<String, Parameter<?>> names = new LinkedHashMap<>();
    for (Parameter<?> parameter : ALL) {
      names.put(parameter.name(), parameter);
      parameter.aliases().forEach(alias -> names.put(alias, parameter));
      parameter.oldNames().forEach(old -> names.put(old, parameter));
    }
    return Collections.unmodifiableMap(names);
  }

  /** Returns every parameter, in the table's order. */
  public static List<Parameter<?>> all() {
    return ALL;
  }

  /**
   * Returns the parameter a name (any case; Redis's name, an alias or an old name) means, or null.
   */
  public static Parameter<?> find(String name) {
    return BY_NAME.get(name.toLowerCase(Locale.ROOT));
  }

  /**
   * Returns the known name closest to {@code name} by edit distance, if it is close enough to be a
   * likely typing mistake (at most two letters or a third of them differ), else null.
   */
  public static String closest(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String known : BY_NAME.keySet()) {
      int distance = distance(lower, known);
      if (distance < bestDistance) {
        best = known;
        bestDistance = distance;
      }
    }
    return best != null && bestDistance <= Math.max(2, lower.length() / 3) ? best : null;
  }

  /** Levenshtein distance: the fewest one-letter inserts, deletes and changes from a to b. */
  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int change = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(change, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
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
  public static int defaultThreads(int processors) {
    return Math.max(1, processors - 1);
  }
}
