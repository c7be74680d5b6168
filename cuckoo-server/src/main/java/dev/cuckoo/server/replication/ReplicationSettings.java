package dev.cuckoo.server.replication;

import dev.cuckoo.server.ServerConfig;

/**
 * The replication settings, from the start-up configuration; those Redis lets CONFIG SET change
 * are mutable here.
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

  /** Sets min-replicas-to-write (CONFIG SET). */
  public void minReplicasToWrite(int replicas) {
    this.minReplicasToWrite = replicas;
  }

  /** Sets min-replicas-max-lag in seconds (CONFIG SET). */
  public void minReplicasMaxLag(int seconds) {
    this.minReplicasMaxLag = seconds;
  }

  /** Sets replica-read-only (CONFIG SET). */
  public void replicaReadOnly(boolean on) {
    this.replicaReadOnly = on;
  }

  /** Sets replica-serve-stale-data (CONFIG SET). */
  public void replicaServeStaleData(boolean on) {
    this.replicaServeStaleData = on;
  }

  /** Sets replica-priority (CONFIG SET). */
  public void replicaPriority(int priority) {
    this.replicaPriority = priority;
  }

  /** Sets masterauth (CONFIG SET). */
  public void masterAuth(String password) {
    this.masterAuth = password;
  }

  /** Returns min-replicas-to-write. */
  public int minReplicasToWrite() {
    return minReplicasToWrite;
  }

  /** Returns min-replicas-max-lag. */
  public int minReplicasMaxLag() {
    return minReplicasMaxLag;
  }

  /** Returns replica-read-only. */
  public boolean replicaReadOnly() {
    return replicaReadOnly;
  }

  /** Returns replica-serve-stale-data. */
  public boolean replicaServeStaleData() {
    return replicaServeStaleData;
  }

  /** Returns replica-priority. */
  public int replicaPriority() {
    return replicaPriority;
  }
}
