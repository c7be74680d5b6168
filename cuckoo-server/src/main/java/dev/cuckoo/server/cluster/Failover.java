package dev.cuckoo.server.cluster;

import java.lang.System.Logger.Level;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Replica election and manual failover, as Redis's cluster does them (clusterHandleSlaveFailover,
 * clusterSendFailoverAuthIfNeeded, clusterHandleManualFailover, clusterHandleSlaveMigration). One
 * instance belongs to a {@link ClusterState} and runs under its lock: the state's cron and message
 * handling call in, and this class changes the state through the state's package-private methods.
 */
final class Failover {
  private static final System.Logger LOGGER = System.getLogger(Failover.class.getName());

  /* Redis 7's cluster.h: a manual failover has 5 s; the master pauses its writers twice as long; a
   * replica migrates to an orphaned master only once it has been orphaned for 5 s; a replica that
   * cannot fail over says why at most every 10 s. The election delay is 500 ms (to let the FAIL
   * message spread) + 0..500 ms at random (so that replicas do not start together) + 1 s per rank
   * (replicas with more of the master's stream go first). */
  static final long MF_TIMEOUT_MILLIS = 5000;
  private static final int MF_PAUSE_MULT = 2;
  private static final long MIGRATION_DELAY_MILLIS = 5000;
  private static final long CANT_FAILOVER_RELOG_MILLIS = 10_000;
  private static final long ELECTION_FIXED_DELAY_MILLIS = 500;
  private static final int ELECTION_RANDOM_DELAY_MILLIS = 500;
  private static final long RANK_DELAY_MILLIS = 1000;
  private static final long MIN_AUTH_TIMEOUT_MILLIS = 2000;

  private enum CantFailover {
    NONE(""),
    DATA_AGE(
        "Disconnected from master for longer than allowed. Please check the"
            + " 'cluster-replica-validity-factor' configuration option."),
    WAITING_DELAY("Waiting the delay before I can start a new failover."),
    EXPIRED("Failover attempt expired."),
    WAITING_VOTES("Waiting for votes, but majority still not reached.");

    final String text;

    CantFailover(String text) {
      this.text = text;
    }
  }

  private final ClusterState cluster;
  private final long nodeTimeoutMillis;

  // the election (failover_auth_* in Redis)
  private long authTimeMillis;
  private int authCount;
  private boolean authSent;
  private int authRank;
  private long authEpoch;
  private CantFailover cantFailover = CantFailover.NONE;
  private long cantFailoverLoggedMillis;

  // the manual failover (mf_* in Redis): on a replica mfEnd, mfCanStart and mfMasterOffset; on a
  // master mfEnd and the replica that asked
  private long mfEndMillis;
  private boolean mfCanStart;
  private ClusterNode mfReplica;
  private long mfMasterOffset = -1;

  Failover(ClusterState cluster, long nodeTimeoutMillis) {
    this.cluster = cluster;
    this.nodeTimeoutMillis = nodeTimeoutMillis;
  }

  // ---------------------------------------------------------------- cron

  /**
   * One round of the cron's failover work: ends a manual failover that timed out, and on a replica
   * moves the manual failover and the election on, then considers replica migration.
   */
  void cron(int orphanedMasters, int maxReplicas, int myMastersReplicas) {
    long now = cluster.now();
    if (mfEndMillis != 0 && mfEndMillis < now) {
      LOGGER.log(Level.WARNING, "Manual failover timed out.");
      reset();
    }
    ClusterNode myself = cluster.myself();
    if (!myself.isSlave()) {
      return;
    }
    handleManualFailover();
    handleReplicaFailover();
    if (orphanedMasters > 0
        && maxReplicas >= 2
        && myMastersReplicas == maxReplicas
        && cluster.replication().settings().allowReplicaMigration()) {
      handleReplicaMigration(maxReplicas);
    }
  }

  // ---------------------------------------------------------------- election (replica side)

  private int neededQuorum() {
    return cluster.size() / 2 + 1;
  }

  /**
   * If this replica's master is FAIL (or a manual failover may start): checks that its data is
   * recent enough, schedules the election after Redis's delay, asks the masters for their votes
   * once it is due, and takes the master's slots once a majority voted.
   */
  void handleReplicaFailover() {
    ClusterNode myself = cluster.myself();
    ClusterNode master = myself.slaveOf;
    long now = cluster.now();
    long authAge = now - authTimeMillis;
    boolean manual = mfEndMillis != 0 && mfCanStart;
    long authTimeout = Math.max(nodeTimeoutMillis * 2, MIN_AUTH_TIMEOUT_MILLIS);
    long authRetryTime = authTimeout * 2;
    if (myself.isMaster()
        || master == null
        || (!master.has(ClusterNode.FAIL) && !manual)
        || (myself.has(ClusterNode.NOFAILOVER) && !manual)
        || master.numSlots == 0) {
      cantFailover = CantFailover.NONE;
      return;
    }
    NodeReplication replication = cluster.replication();
    NodeReplication.FailoverSettings settings = replication.settings();
    long dataAge = replication.masterDataAgeMillis();
    if (dataAge > nodeTimeoutMillis) {
      // the time the master was down before it was flagged does not count
      dataAge -= nodeTimeoutMillis;
    }
    if (settings.replicaValidityFactor() > 0
        && dataAge
            > settings.pingReplicaPeriodMillis()
                + nodeTimeoutMillis * settings.replicaValidityFactor()
        && !manual) {
      logCantFailover(CantFailover.DATA_AGE);
      return;
    }
    if (authAge > authRetryTime) {
      authTimeMillis =
          now
              + ELECTION_FIXED_DELAY_MILLIS
              + ThreadLocalRandom.current().nextInt(ELECTION_RANDOM_DELAY_MILLIS);
      authCount = 0;
      authSent = false;
      authRank = rank();
      authTimeMillis += authRank * RANK_DELAY_MILLIS;
      if (mfEndMillis != 0) {
        authTimeMillis = now;
        authRank = 0;
      }
      LOGGER.log(
          Level.INFO,
          "Start of election delayed for {0} milliseconds (rank #{1}, offset {2}).",
          Long.toString(authTimeMillis - now),
          authRank,
          Long.toString(replication.offset()));
      // the other replicas of the master learn this offset, and may rank themselves lower
      cluster.broadcastPong(true);
      if (mfEndMillis == 0) {
        return;
      }
      authAge = now - authTimeMillis;
    }
    if (!authSent && mfEndMillis == 0) {
      int newRank = rank();
      if (newRank > authRank) {
        long added = (newRank - authRank) * RANK_DELAY_MILLIS;
        authTimeMillis += added;
        authRank = newRank;
        LOGGER.log(
            Level.INFO,
            "Replica rank updated to #{0}, added {1} milliseconds of delay.",
            newRank,
            Long.toString(added));
      }
    }
    if (now < authTimeMillis) {
      logCantFailover(CantFailover.WAITING_DELAY);
      return;
    }
    if (authAge > authTimeout) {
      logCantFailover(CantFailover.EXPIRED);
      return;
    }
    if (!authSent) {
      authEpoch = cluster.incrementCurrentEpoch();
      LOGGER.log(
          Level.INFO,
          "Starting a failover election for epoch {0}.",
          Long.toUnsignedString(authEpoch));
      // the epoch is on disk before any master hears of it
      cluster.saveOrDie();
      ClusterMessage request = cluster.header(ClusterMessage.FAILOVER_AUTH_REQUEST);
      if (mfEndMillis != 0) {
        request.mflags[0] |= ClusterMessage.MFLAG0_FORCEACK;
      }
      cluster.broadcast(request);
      authSent = true;
      cluster.todo(true, true);
      return;
    }
    if (authCount >= neededQuorum()) {
      LOGGER.log(Level.INFO, "Failover election won: I''m the new master.");
      if (Long.compareUnsigned(myself.configEpoch, authEpoch) < 0) {
        myself.configEpoch = authEpoch;
        LOGGER.log(
            Level.INFO,
            "configEpoch set to {0} after successful failover",
            Long.toUnsignedString(authEpoch));
      }
      replaceMaster();
    } else {
      logCantFailover(CantFailover.WAITING_VOTES);
    }
  }

  /**
   * Returns this replica's rank among its master's replicas: how many others that may fail over
   * claim a larger replication offset (0: the most up to date).
   */
  private int rank() {
    ClusterNode myself = cluster.myself();
    ClusterNode master = myself.slaveOf;
    if (master == null) {
      return 0;
    }
    long myOffset = cluster.replication().offset();
    int rank = 0;
    for (ClusterNode replica : master.replicas) {
      if (replica != myself
          && !replica.has(ClusterNode.NOFAILOVER)
          && replica.replOffset > myOffset) {
        rank++;
      }
    }
    return rank;
  }

  private void logCantFailover(CantFailover reason) {
    long now = cluster.now();
    if (reason == cantFailover && now - cantFailoverLoggedMillis < CANT_FAILOVER_RELOG_MILLIS) {
      return;
    }
    cantFailover = reason;
    ClusterNode master = cluster.myself().slaveOf;
    // a failover that starts in a reasonable time is not worth a line
    if (master != null
        && master.has(ClusterNode.FAIL)
        && now - master.failTimeMillis < nodeTimeoutMillis + 5000) {
      return;
    }
    cantFailoverLoggedMillis = now;
    LOGGER.log(Level.INFO, "Currently unable to failover: {0}", reason.text);
    if (reason == CantFailover.WAITING_VOTES || reason == CantFailover.EXPIRED) {
      LOGGER.log(
          Level.INFO,
          "Needed quorum: {0}. Number of votes received so far: {1}",
          neededQuorum(),
          authCount);
    }
  }

  /**
   * The end of a failover (Redis's clusterFailoverReplaceYourMaster): this node becomes a master,
   * stops following, takes its old master's slots, writes nodes.conf and tells every node with a
   * PONG. The caller has set the new configEpoch.
   */
  private void replaceMaster() {
    ClusterNode myself = cluster.myself();
    ClusterNode oldMaster = myself.slaveOf;
    if (myself.isMaster() || oldMaster == null) {
      return;
    }
    cluster.setNodeAsMaster(myself);
    cluster.replication().promote();
    cluster.takeSlotsOf(oldMaster);
    cluster.updateState();
    cluster.saveOrDie();
    cluster.broadcastPong(false);
    reset();
  }

  /** A master's vote reached this replica: counted if it is one for this election. */
  void authAckReceived(ClusterNode sender, long senderCurrentEpoch) {
    if (sender.isMaster()
        && sender.numSlots > 0
        && Long.compareUnsigned(senderCurrentEpoch, authEpoch) >= 0) {
      authCount++;
      handleReplicaFailover();
    }
  }

  // ---------------------------------------------------------------- voting (master side)

  /**
   * A replica asks for this master's vote: granted at most once per epoch, only to a replica whose
   * master is FAIL (or that forces it for a manual failover), not twice for the same master within
   * two node timeouts, and only if no slot it claims has a newer configEpoch here.
   */
  void authRequested(ClusterNode node, ClusterMessage request) {
    ClusterNode myself = cluster.myself();
    if (myself.isSlave() || myself.numSlots == 0) {
      return;
    }
    long currentEpoch = cluster.currentEpoch();
    if (Long.compareUnsigned(request.currentEpoch, currentEpoch) < 0) {
      denied(
          node,
          "reqEpoch ("
              + Long.toUnsignedString(request.currentEpoch)
              + ") < curEpoch("
              + Long.toUnsignedString(currentEpoch)
              + ")");
      return;
    }
    if (cluster.lastVoteEpoch() == currentEpoch) {
      denied(node, "already voted for epoch " + Long.toUnsignedString(currentEpoch));
      return;
    }
    ClusterNode master = node.slaveOf;
    boolean forceAck = (request.mflags[0] & ClusterMessage.MFLAG0_FORCEACK) != 0;
    if (node.isMaster()) {
      denied(node, "it is a master node");
      return;
    }
    if (master == null) {
      denied(node, "I don't know its master");
      return;
    }
    if (!master.has(ClusterNode.FAIL) && !forceAck) {
      denied(node, "its master is up");
      return;
    }
    long now = cluster.now();
    if (now - master.votedTimeMillis < nodeTimeoutMillis * 2) {
      denied(
          node,
          "can't vote about this master before "
              + (nodeTimeoutMillis * 2 - (now - master.votedTimeMillis))
              + " milliseconds");
      return;
    }
    for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
      if (!ClusterMessage.slotBit(request.mySlots, slot)) {
        continue;
      }
      ClusterNode owner = cluster.slotOwner(slot);
      if (owner == null || Long.compareUnsigned(owner.configEpoch, request.configEpoch) <= 0) {
        continue;
      }
      denied(
          node,
          "slot "
              + slot
              + " epoch ("
              + Long.toUnsignedString(owner.configEpoch)
              + ") > reqEpoch ("
              + Long.toUnsignedString(request.configEpoch)
              + ")");
      return;
    }
    cluster.lastVoteEpoch(currentEpoch);
    master.votedTimeMillis = now;
    // the vote is on disk before the replica can count it
    cluster.saveOrDie();
    cluster.send(node.link, cluster.header(ClusterMessage.FAILOVER_AUTH_ACK));
    LOGGER.log(
        Level.INFO,
        "Failover auth granted to {0} for epoch {1}",
        node.name,
        Long.toUnsignedString(currentEpoch));
  }

  private static void denied(ClusterNode node, String why) {
    LOGGER.log(Level.WARNING, "Failover auth denied to {0}: {1}", node.name, why);
  }

  // ---------------------------------------------------------------- manual failover

  /**
   * CLUSTER FAILOVER [FORCE|TAKEOVER] on this node; returns Redis's error, or null once started.
   */
  String manualFailover(boolean force, boolean takeover) {
    ClusterNode myself = cluster.myself();
    ClusterNode master = myself.slaveOf;
    if (myself.isMaster()) {
      return "ERR You should send CLUSTER FAILOVER to a replica";
    }
    if (master == null) {
      return "ERR I'm a replica but my master is unknown to me";
    }
    if (!force && (master.has(ClusterNode.FAIL) || master.link == null)) {
      return "ERR Master is down or failed, please use CLUSTER FAILOVER FORCE";
    }
    reset();
    mfEndMillis = cluster.now() + MF_TIMEOUT_MILLIS;
    if (takeover) {
      // no vote, no agreement on the offset: a new configEpoch made here, and the slots
      LOGGER.log(Level.INFO, "Taking over the master (user request).");
      cluster.bumpEpochWithoutConsensus();
      replaceMaster();
    } else if (force) {
      LOGGER.log(Level.INFO, "Forced failover user request accepted.");
      mfCanStart = true;
    } else {
      LOGGER.log(Level.INFO, "Manual failover user request accepted.");
      cluster.send(master.link, cluster.header(ClusterMessage.MFSTART));
    }
    return null;
  }

  /**
   * MFSTART from one of this master's replicas: pauses writers for twice the manual failover time
   * and answers with a PING that carries the paused offset.
   */
  void mfStartReceived(ClusterNode sender, Link link) {
    if (sender == null || sender.slaveOf != cluster.myself()) {
      return;
    }
    reset();
    long now = cluster.now();
    mfEndMillis = now + MF_TIMEOUT_MILLIS;
    mfReplica = sender;
    cluster.replication().pauseWrites(now + MF_TIMEOUT_MILLIS * MF_PAUSE_MULT);
    LOGGER.log(Level.INFO, "Manual failover requested by replica {0}.", sender.name);
    cluster.sendPing(link, ClusterMessage.PING);
  }

  /**
   * A message from this replica's master during a manual failover: if the master says it is paused,
   * its offset is where this replica must be before the election.
   *
   * <p>Unlike Redis, which keeps the first paused offset, the latest one is kept: a write that was
   * running on another thread when the master paused may still move the master's offset once.
   */
  void masterOffsetHeard(ClusterNode sender, ClusterMessage m) {
    ClusterNode myself = cluster.myself();
    if (mfEndMillis == 0
        || mfCanStart
        || !myself.isSlave()
        || myself.slaveOf != sender
        || (m.mflags[0] & ClusterMessage.MFLAG0_PAUSED) == 0) {
      return;
    }
    if (mfMasterOffset == -1) {
      LOGGER.log(
          Level.INFO,
          "Received replication offset for paused master manual failover: {0}",
          Long.toString(sender.replOffset));
    }
    mfMasterOffset = sender.replOffset;
    handleManualFailover();
  }

  private void handleManualFailover() {
    if (mfEndMillis == 0 || mfCanStart || mfMasterOffset == -1) {
      return;
    }
    if (mfMasterOffset == cluster.replication().offset()) {
      mfCanStart = true;
      LOGGER.log(Level.INFO, "All master replication stream processed, manual failover can start.");
      handleReplicaFailover();
    }
  }

  /** Returns whether this master is paused for a replica's manual failover (PAUSED in headers). */
  boolean masterPaused() {
    return mfEndMillis != 0 && cluster.myself().isMaster();
  }

  /** Returns the replica this master pings continuously during its manual failover, or null. */
  ClusterNode manualFailoverReplica() {
    return mfEndMillis != 0 ? mfReplica : null;
  }

  /** Ends any manual failover (both roles); a paused master lets its writers go. */
  void reset() {
    if (mfReplica != null) {
      cluster.replication().unpauseWrites();
    }
    mfEndMillis = 0;
    mfCanStart = false;
    mfReplica = null;
    mfMasterOffset = -1;
  }

  /** A node leaves the table: it is no longer the replica of a manual failover. */
  void forget(ClusterNode node) {
    if (mfReplica == node) {
      reset();
    }
  }

  // ---------------------------------------------------------------- replica migration

  /**
   * Moves this replica to an orphaned master (one that had replicas and has no working one left) if
   * its own master keeps more than cluster-migration-barrier working replicas, and this replica has
   * the smallest id among those of the masters with the most replicas.
   */
  private void handleReplicaMigration(int maxReplicas) {
    if (cluster.state() != ClusterState.STATE_OK) {
      return;
    }
    ClusterNode myself = cluster.myself();
    ClusterNode myMaster = myself.slaveOf;
    if (myMaster == null) {
      return;
    }
    int okReplicas = 0;
    long now = cluster.now();
    for (ClusterNode replica : myMaster.replicas) {
      if (!replica.has(ClusterNode.FAIL) && !timedOut(replica)) {
        okReplicas++;
      }
    }
    if (okReplicas <= cluster.replication().settings().migrationBarrier()) {
      return;
    }
    ClusterNode target = null;
    ClusterNode candidate = myself;
    for (ClusterNode node : cluster.nodes()) {
      int working = 0;
      boolean orphaned =
          node.isMaster() && !node.has(ClusterNode.FAIL) && node.has(ClusterNode.MIGRATE_TO);
      if (node.isMaster()) {
        working = ClusterState.workingReplicas(node);
      }
      if (working > 0) {
        orphaned = false;
      }
      if (orphaned) {
        if (target == null && node.numSlots > 0) {
          target = node;
        }
        if (node.orphanedTimeMillis == 0) {
          node.orphanedTimeMillis = now;
        }
      } else {
        node.orphanedTimeMillis = 0;
      }
      if (working == maxReplicas) {
        for (ClusterNode replica : node.replicas) {
          if (replica.name.compareTo(candidate.name) < 0) {
            candidate = replica;
          }
        }
      }
    }
    if (target != null
        && candidate == myself
        && now - target.orphanedTimeMillis > MIGRATION_DELAY_MILLIS) {
      LOGGER.log(Level.INFO, "Migrating to orphaned master {0}", target.name);
      cluster.setMaster(target);
    }
  }

  private static boolean timedOut(ClusterNode node) {
    return node.has(ClusterNode.PFAIL);
  }
}
