package dev.cuckoo.server.replication;

import dev.cuckoo.server.ServerConfig;

/**
 * The replication settings, from the start-up configuration; those Redis lets CONFIG SET change are
 * mutable here.
 */
public final class ReplicationSettings {
  /** repl-backlog-size: bytes of the stream kept for partial resyncs. */
  final int backlogSize;

  /** repl-ping-replica-period: seconds between the PINGs a master sends its replicas. */
  final int pingReplicaPeriod;

  /** repl-timeout: seconds without data after which a replica drops its link. */
  final int timeoutSeconds;

  /** masterauth / masteruser: what a replica authenticates with. */
  volatile String masterAuth;

  volatile String masterUser;

  /** replica-read-only. */
  volatile boolean replicaReadOnly;

  /** replica-serve-stale-data. */
  volatile boolean replicaServeStaleData;

  /** replica-priority (slave_priority in INFO). */
  volatile int replicaPriority;

  /** replica-announce-ip / replica-announce-port (0: the listening port). */
  volatile String announceIp;

  volatile int announcePort;

  /** min-replicas-to-write / min-replicas-max-lag. */
  volatile int minReplicasToWrite;

  volatile int minReplicasMaxLag;

  ReplicationSettings(ServerConfig config) {
    this.backlogSize = (int) config.replBacklogSize();
    this.pingReplicaPeriod = config.replPingReplicaPeriod();
    this.timeoutSeconds = config.replTimeout();
    this.masterAuth = config.masterAuth();
    this.masterUser = config.masterUser();
    this.replicaReadOnly = config.replicaReadOnly();
    this.replicaServeStaleData = config.replicaServeStaleData();
    this.replicaPriority = config.replicaPriority();
    this.announceIp = config.replicaAnnounceIp();
    this.announcePort = config.replicaAnnouncePort();
    this.minReplicasToWrite = config.minReplicasToWrite();
    this.minReplicasMaxLag = config.minReplicasMaxLag();
  }

  /** Returns the parameters CONFIG GET lists, with their current values, in Redis's spelling. */
  public java.util.Map<String, String> values() {
    java.util.Map<String, String> values = new java.util.LinkedHashMap<>();
    values.put("masterauth", masterAuth == null ? "" : masterAuth);
    values.put("masteruser", masterUser == null ? "" : masterUser);
    values.put("replica-read-only", replicaReadOnly ? "yes" : "no");
    values.put("replica-serve-stale-data", replicaServeStaleData ? "yes" : "no");
    values.put("replica-priority", Integer.toString(replicaPriority));
    values.put("replica-announce-ip", announceIp == null ? "" : announceIp);
    values.put("replica-announce-port", Integer.toString(announcePort));
    values.put("min-replicas-to-write", Integer.toString(minReplicasToWrite));
    values.put("min-replicas-max-lag", Integer.toString(minReplicasMaxLag));
    values.put("repl-backlog-size", Integer.toString(backlogSize));
    values.put("repl-ping-replica-period", Integer.toString(pingReplicaPeriod));
    values.put("repl-timeout", Integer.toString(timeoutSeconds));
    return values;
  }

  /**
   * Checks a CONFIG SET value as Redis's config.c words its errors, returning the text after
   * "CONFIG SET failed (possibly related to argument ...) - ", or null if it may be applied.
   */
  public String check(String name, String value) {
    switch (name) {
      case "replica-read-only", "replica-serve-stale-data" -> {
        return value.equalsIgnoreCase("yes") || value.equalsIgnoreCase("no")
            ? null
            : "argument must be 'yes' or 'no'";
      }
      case "replica-priority", "min-replicas-to-write", "min-replicas-max-lag" -> {
        return integer(value, 0, Integer.MAX_VALUE);
      }
      case "replica-announce-port" -> {
        return integer(value, 0, 65535);
      }
      case "repl-backlog-size", "repl-ping-replica-period", "repl-timeout" -> {
        return value.equals(values().get(name)) ? null : "this server sets it only at start-up";
      }
      default -> {
        return null;
      }
    }
  }

  private static String integer(String value, long min, long max) {
    long number;
    try {
      number = Long.parseLong(value);
    } catch (NumberFormatException e) {
      return "argument couldn't be parsed into an integer";
    }
    return number < min || number > max
        ? "argument must be between " + min + " and " + max + " inclusive"
        : null;
  }

  /** Applies a value {@link #check} accepted. */
  public void apply(String name, String value) {
    switch (name) {
      case "masterauth" -> masterAuth = value.isEmpty() ? null : value;
      case "masteruser" -> masterUser = value.isEmpty() ? null : value;
      case "replica-read-only" -> replicaReadOnly = value.equalsIgnoreCase("yes");
      case "replica-serve-stale-data" -> replicaServeStaleData = value.equalsIgnoreCase("yes");
      case "replica-priority" -> replicaPriority = Integer.parseInt(value);
      case "replica-announce-ip" -> announceIp = value.isEmpty() ? null : value;
      case "replica-announce-port" -> announcePort = Integer.parseInt(value);
      case "min-replicas-to-write" -> minReplicasToWrite = Integer.parseInt(value);
      case "min-replicas-max-lag" -> minReplicasMaxLag = Integer.parseInt(value);
      default -> {
        // start-up only: check accepted the current value
      }
    }
  }
}
