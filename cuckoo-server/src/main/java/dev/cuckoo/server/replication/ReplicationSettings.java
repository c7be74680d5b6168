package dev.cuckoo.server.replication;

import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.Parameters;

/**
 * The replication parameters as replication reads them, from the parameter table's values (so that
 * CONFIG SET's changes are seen at the next read).
 */
final class ReplicationSettings {
  private final Config config;

  ReplicationSettings(Config config) {
    this.config = config;
  }

  private int integer(dev.cuckoo.server.config.Parameter<Long> parameter) {
    return (int) (long) config.get(parameter);
  }

  /** repl-backlog-size: bytes of the stream kept for partial resyncs. */
  int backlogSize() {
    return integer(Parameters.REPL_BACKLOG_SIZE);
  }

  /**
   * client-output-buffer-limit's replica class, its hard limit raised to repl-backlog-size when it
   * is lower, as Redis's checkClientOutputBufferLimits (a replica cut below the backlog's size
   * would resync partially and be cut again).
   */
  dev.cuckoo.server.config.OutputBufferLimit replicaOutputLimit() {
    dev.cuckoo.server.config.OutputBufferLimit limit =
        config.get(Parameters.CLIENT_OUTPUT_BUFFER_LIMIT).replica();
    long backlog = backlogSize();
    if (limit.hardBytes() > 0 && limit.hardBytes() < backlog) {
      return new dev.cuckoo.server.config.OutputBufferLimit(
          backlog, limit.softBytes(), limit.softSeconds());
    }
    return limit;
  }

  /** repl-ping-replica-period: seconds between the PINGs a master sends its replicas. */
  int pingReplicaPeriod() {
    return integer(Parameters.REPL_PING_REPLICA_PERIOD);
  }

  /** repl-timeout: seconds without data after which a replica drops its link. */
  int timeoutSeconds() {
    return integer(Parameters.REPL_TIMEOUT);
  }

  /** masterauth: the password a replica authenticates with, or null. */
  String masterAuth() {
    return config.get(Parameters.MASTERAUTH);
  }

  /** masteruser: the user a replica authenticates as, or null. */
  String masterUser() {
    return config.get(Parameters.MASTERUSER);
  }

  /** replica-read-only. */
  boolean replicaReadOnly() {
    return config.get(Parameters.REPLICA_READ_ONLY);
  }

  /** replica-serve-stale-data. */
  boolean replicaServeStaleData() {
    return config.get(Parameters.REPLICA_SERVE_STALE_DATA);
  }

  /** replica-ignore-foreign-types. */
  boolean ignoreForeignTypes() {
    return config.get(Parameters.REPLICA_IGNORE_FOREIGN_TYPES);
  }

  /** replica-priority (slave_priority in INFO). */
  int replicaPriority() {
    return integer(Parameters.REPLICA_PRIORITY);
  }

  /** replica-announce-ip, or null. */
  String announceIp() {
    return config.get(Parameters.REPLICA_ANNOUNCE_IP);
  }

  /** replica-announce-port (0: the listening port). */
  int announcePort() {
    return integer(Parameters.REPLICA_ANNOUNCE_PORT);
  }

  /** min-replicas-to-write. */
  int minReplicasToWrite() {
    return integer(Parameters.MIN_REPLICAS_TO_WRITE);
  }

  /** min-replicas-max-lag in seconds. */
  int minReplicasMaxLag() {
    return integer(Parameters.MIN_REPLICAS_MAX_LAG);
  }
}
