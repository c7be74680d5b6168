package dev.cuckoo.server.cluster;

/**
 * What a cluster node asks of the server's replication and clients (Redis's replicationSetMaster,
 * replicationUnsetMaster, replication offsets and pauseActions): a replica follows its master's
 * stream, a promoted replica stops following it, and a master pauses its writers during a manual
 * failover. The cluster state calls it with its own lock held, so an implementation never calls
 * back into the cluster state.
 */
public interface NodeReplication {
  /** Follows the master at this address (its client port) from now on. */
  void follow(String ip, int port);

  /** Stops following a master and becomes a master, keeping the data and the stream's history. */
  void promote();

  /** Returns whether a master is being followed (the replication link is set). */
  boolean following();

  /** Returns where this node's stream stands: a replica's applied offset, a master's own offset. */
  long offset();

  /**
   * Returns a replica's data age: milliseconds since it last heard its master while connected, or
   * since the link went down ({@link Long#MAX_VALUE} if it never came up).
   */
  long masterDataAgeMillis();

  /**
   * Pauses clients' writes until {@code untilMillis} (Unix milliseconds), as the failover purpose
   * of the server's one client pause (Redis's PAUSE_DURING_FAILOVER: CLIENT UNPAUSE does not end
   * it).
   */
  void pauseWrites(long untilMillis);

  /** Ends a pause of writes started by {@link #pauseWrites}. */
  void unpauseWrites();

  /**
   * Returns the failover parameters as they stand now.
   *
   * @return cluster-replica-validity-factor, cluster-migration-barrier,
   *     cluster-allow-replica-migration and repl-ping-replica-period, read together
   */
  FailoverSettings settings();

  /**
   * The parameters of failover and replica migration.
   *
   * @param replicaValidityFactor cluster-replica-validity-factor (0: a replica may always fail
   *     over)
   * @param migrationBarrier cluster-migration-barrier
   * @param allowReplicaMigration cluster-allow-replica-migration
   * @param pingReplicaPeriodMillis repl-ping-replica-period, in milliseconds
   */
  record FailoverSettings(
      long replicaValidityFactor,
      long migrationBarrier,
      boolean allowReplicaMigration,
      long pingReplicaPeriodMillis) {}

  /** No replication (a node without a keyspace, tests): offsets stay 0, nothing is followed. */
  NodeReplication NONE =
      new NodeReplication() {
        @Override
        public void follow(String ip, int port) {}

        @Override
        public void promote() {}

        @Override
        public boolean following() {
          return false;
        }

        @Override
        public long offset() {
          return 0;
        }

        @Override
        public long masterDataAgeMillis() {
          return 0;
        }

        @Override
        public void pauseWrites(long untilMillis) {}

        @Override
        public void unpauseWrites() {}

        @Override
        public FailoverSettings settings() {
          return new FailoverSettings(10, 1, true, 10_000);
        }
      };
}
