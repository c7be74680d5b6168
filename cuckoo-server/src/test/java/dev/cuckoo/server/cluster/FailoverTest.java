package dev.cuckoo.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Election, voting and manual failover on one node's state, with links that record what is sent and
 * a replication that records what it is asked: the masters' voting rules, the replica's delay,
 * quorum and takeover, the manual failover's handshake, a master that lost its slots turning into a
 * replica, and a node that cannot write nodes.conf stopping.
 */
class FailoverTest {
  private static final String ME = "1".repeat(40);
  private static final String X = "9".repeat(40);
  private static final String Y = "5".repeat(40);
  private static final String Z = "7".repeat(40);
  private static final String R = "3".repeat(40);
  private static final String R2 = "2".repeat(40);
  private static final List<String> ORDER = List.of(ME, X, Y, Z, R, R2);

  /** A replication that records what the cluster asks of it. */
  private static final class RecordingReplication implements NodeReplication {
    final List<String> calls = new ArrayList<>();
    String following;
    long offset = 100;
    long pausedUntil;

    @Override
    public void follow(String ip, int port) {
      following = ip + ":" + port;
      calls.add("follow " + following);
    }

    @Override
    public void promote() {
      following = null;
      calls.add("promote");
    }

    @Override
    public boolean following() {
      return following != null;
    }

    @Override
    public long offset() {
      return offset;
    }

    @Override
    public long masterDataAgeMillis() {
      return 0;
    }

    @Override
    public void pauseWrites(long untilMillis) {
      pausedUntil = untilMillis;
      calls.add("pause");
    }

    @Override
    public void unpauseWrites() {
      calls.add("unpause");
    }

    @Override
    public FailoverSettings settings() {
      return new FailoverSettings(10, 1, true, 10_000);
    }
  }

  private final Map<String, RecordingLink> outbound = new HashMap<>();
  private final long[] now = {1_000_000};
  private final RecordingReplication replication = new RecordingReplication();
  private final List<String> saved = new ArrayList<>();
  private boolean saveFails;
  private String fatal;
  private ClusterState state;

  /** Loads ME as described by {@code myLine}, with masters X, Y, Z and X's replicas R and R2. */
  private void start(String myLine) throws Exception {
    start(myLine, "");
  }

  /** As {@link #start(String)}, with more nodes.conf lines before the vars line. */
  private void start(String myLine, String moreLines) throws Exception {
    state =
        new ClusterState(
            // not full coverage: the cluster is ok with the few slots these tests assign
            new ClusterState.Settings(30001, 40001, 1000, false),
            node -> {
              RecordingLink link = new RecordingLink(node, false, RecordingLink.NEVER_OLD);
              outbound.put(node.name(), link);
              return link;
            },
            SlotKeys.NONE,
            () -> now[0],
            (content, fsync) -> {
              if (saveFails) {
                throw new IOException("No space left on device");
              }
              saved.add(content);
            });
    state.replication(replication);
    state.onFatal(reason -> fatal = reason);
    String text =
        ME
            + " 127.0.0.1:30001@40001 "
            + myLine
            + "\n"
            + X
            + " 127.0.0.1:30002@40002 master - 0 0 1 connected 10-19\n"
            + Y
            + " 127.0.0.1:30003@40003 master - 0 0 2 connected 20-29\n"
            + Z
            + " 127.0.0.1:30004@40004 master - 0 0 4 connected 30-39\n"
            + R
            + " 127.0.0.1:30005@40005 slave "
            + X
            + " 0 0 1 connected\n"
            + R2
            + " 127.0.0.1:30006@40006 slave "
            + X
            + " 0 0 1 connected\n"
            + moreLines
            + "vars currentEpoch 4 lastVoteEpoch 0\n";
    state.load(NodesFile.parse(Path.of("nodes.conf"), text));
    state.cron(); // opens a link to each node
    for (RecordingLink link : outbound.values()) {
      state.linkConnected(link);
    }
  }

  /** A header-only message from {@code sender}: its role, epochs, slots, flags. */
  private static ClusterMessage message(
      int type, String sender, String master, long currentEpoch, long configEpoch, int[] slots) {
    ClusterMessage m = new ClusterMessage(type);
    m.sender = sender;
    m.slaveOf = master;
    m.currentEpoch = currentEpoch;
    m.configEpoch = configEpoch;
    m.flags = master == null ? ClusterNode.MASTER : ClusterNode.SLAVE;
    int index = ORDER.indexOf(sender);
    m.port = 30001 + index;
    m.cport = 40001 + index;
    for (int slot = slots[0]; slot <= slots[1]; slot++) {
      m.mySlots[slot >>> 3] |= (byte) (1 << (slot & 7));
    }
    return m;
  }

  private static final int[] X_SLOTS = {10, 19};
  private static final int[] NONE = {0, -1};

  private void failX() {
    ClusterMessage fail = message(ClusterMessage.FAIL, Y, null, 4, 2, new int[] {20, 29});
    fail.failing = X;
    state.process(outbound.get(Y), fail);
  }

  private ClusterMessage authRequest(String replica, long epoch, int[] slots) {
    return message(ClusterMessage.FAILOVER_AUTH_REQUEST, replica, X, epoch, 1, slots);
  }

  @Test
  void authRequest_failedMaster_oneVotePerEpoch_savedBeforeTheAck() throws Exception {
    start("myself,master - 0 0 3 connected 0-9");
    failX();
    state.process(outbound.get(R), authRequest(R, 5, X_SLOTS));
    assertEquals(1, outbound.get(R).count(ClusterMessage.FAILOVER_AUTH_ACK));
    assertTrue(
        saved.get(saved.size() - 1).endsWith("vars currentEpoch 5 lastVoteEpoch 5\n"),
        "the vote is in nodes.conf");
    // R2 asks in the same epoch: no second vote
    state.process(outbound.get(R2), authRequest(R2, 5, X_SLOTS));
    assertEquals(0, outbound.get(R2).count(ClusterMessage.FAILOVER_AUTH_ACK));
    // a later epoch, but within two node timeouts of the vote about X: still no
    now[0] += 1500;
    state.process(outbound.get(R2), authRequest(R2, 6, X_SLOTS));
    assertEquals(0, outbound.get(R2).count(ClusterMessage.FAILOVER_AUTH_ACK));
    now[0] += 600;
    state.process(outbound.get(R2), authRequest(R2, 7, X_SLOTS));
    assertEquals(1, outbound.get(R2).count(ClusterMessage.FAILOVER_AUTH_ACK));
  }

  @Test
  void authRequest_masterUpStaleEpochOrAsReplica_denied() throws Exception {
    start("myself,master - 0 0 3 connected 0-9");
    // X is up: no vote unless the request forces it (manual failover)
    state.process(outbound.get(R), authRequest(R, 5, X_SLOTS));
    assertEquals(0, outbound.get(R).count(ClusterMessage.FAILOVER_AUTH_ACK));
    ClusterMessage forced = authRequest(R, 6, X_SLOTS);
    forced.mflags[0] |= ClusterMessage.MFLAG0_FORCEACK;
    state.process(outbound.get(R), forced);
    assertEquals(1, outbound.get(R).count(ClusterMessage.FAILOVER_AUTH_ACK));
    // an epoch older than ours
    failX();
    now[0] += 5000;
    state.process(outbound.get(R2), authRequest(R2, 3, X_SLOTS));
    assertEquals(0, outbound.get(R2).count(ClusterMessage.FAILOVER_AUTH_ACK));
    // a claim on Z's slots (configEpoch 4) with configEpoch 1
    state.process(outbound.get(R2), authRequest(R2, 8, new int[] {10, 39}));
    assertEquals(0, outbound.get(R2).count(ClusterMessage.FAILOVER_AUTH_ACK));
    // a request from a node nobody knows changes nothing
    RecordingLink stranger = new RecordingLink(null, false, RecordingLink.NEVER_OLD);
    ClusterMessage unknown = authRequest("8".repeat(40), 9, X_SLOTS);
    state.process(stranger, unknown);
    assertTrue(stranger.sent.isEmpty());
  }

  @Test
  void replica_masterFails_electionAfterDelay_quorumTakesSlotsAndPromotes() throws Exception {
    start("myself,slave " + X + " 0 0 0 connected");
    assertEquals("follow 127.0.0.1:30002", replication.calls.get(0), "the replica follows X");
    // R has a larger offset: this replica ranks #1, a second more than 500..999 ms
    ClusterMessage fromR = message(ClusterMessage.PING, R, X, 4, 1, NONE);
    fromR.offset = 200;
    state.process(outbound.get(R), fromR);
    failX();
    state.cron();
    assertEquals(0, outbound.get(Y).count(ClusterMessage.FAILOVER_AUTH_REQUEST), "the delay");
    now[0] += 1499;
    state.cron();
    assertEquals(0, outbound.get(Y).count(ClusterMessage.FAILOVER_AUTH_REQUEST));
    now[0] += 501;
    state.cron();
    assertEquals(1, outbound.get(Y).count(ClusterMessage.FAILOVER_AUTH_REQUEST));
    ClusterMessage request =
        outbound.get(Z).sent.stream()
            .filter(m -> m.type == ClusterMessage.FAILOVER_AUTH_REQUEST)
            .findFirst()
            .orElseThrow();
    assertEquals(5, request.currentEpoch);
    assertEquals(100, request.offset);
    assertEquals(0, request.mflags[0] & ClusterMessage.MFLAG0_FORCEACK);
    // one vote of the three masters with slots is not a majority; two are
    state.process(
        outbound.get(Y),
        message(ClusterMessage.FAILOVER_AUTH_ACK, Y, null, 5, 2, new int[] {20, 29}));
    assertEquals(ClusterNode.SLAVE, state.myself().flags() & ClusterNode.SLAVE);
    state.process(
        outbound.get(Z),
        message(ClusterMessage.FAILOVER_AUTH_ACK, Z, null, 5, 4, new int[] {30, 39}));
    assertEquals(ClusterNode.MASTER, state.myself().flags() & ClusterNode.MASTER);
    assertEquals(ME, state.slotOwner(15).name());
    assertTrue(replication.calls.contains("promote"));
    assertTrue(
        state.nodesDescription(0).contains(ME + " 127.0.0.1:30001@40001 myself,master - 0 0 5 "));
    assertTrue(outbound.get(Y).count(ClusterMessage.PONG) >= 1, "the new master told everyone");
  }

  @Test
  void takenSlots_masterBecomesReplicaOfTheNewOwner() throws Exception {
    start("myself,master - 0 0 3 connected 0-9");
    ClusterMessage update = message(ClusterMessage.UPDATE, Y, null, 9, 2, new int[] {20, 29});
    update.updateNode = R;
    update.updateConfigEpoch = 9;
    update.updateSlots = new byte[HashSlots.SLOTS / 8];
    for (int slot = 0; slot <= 19; slot++) {
      update.updateSlots[slot >>> 3] |= (byte) (1 << (slot & 7));
    }
    state.process(outbound.get(Y), update);
    assertEquals(R, state.slotOwner(5).name());
    assertEquals(R, state.myself().slaveOf.name);
    assertEquals("follow 127.0.0.1:30005", replication.calls.get(replication.calls.size() - 1));
    assertTrue(state.nodesDescription(0).contains(ME + " 127.0.0.1:30001@40001 myself,slave " + R));
  }

  @Test
  void manualFailover_masterPauses_replicaWaitsForItsOffset_forcedVoteRequest() throws Exception {
    start("myself,slave " + X + " 0 0 0 connected");
    assertEquals("ERR Unknown node " + "8".repeat(40), state.replicate("8".repeat(40)));
    assertEquals("ERR Can't replicate myself", state.replicate(ME));
    assertEquals("ERR I can only replicate a master, not a replica.", state.replicate(R));
    assertNull(state.failover(false, false));
    assertEquals(1, outbound.get(X).count(ClusterMessage.MFSTART));
    // the master answers with its paused offset, which this replica has not reached yet
    ClusterMessage paused = message(ClusterMessage.PING, X, null, 4, 1, X_SLOTS);
    paused.mflags[0] |= ClusterMessage.MFLAG0_PAUSED;
    paused.offset = 150;
    state.process(outbound.get(X), paused);
    assertEquals(0, outbound.get(Y).count(ClusterMessage.FAILOVER_AUTH_REQUEST));
    replication.offset = 150;
    state.cron();
    ClusterMessage request =
        outbound.get(Y).sent.stream()
            .filter(m -> m.type == ClusterMessage.FAILOVER_AUTH_REQUEST)
            .findFirst()
            .orElseThrow();
    assertEquals(
        ClusterMessage.MFLAG0_FORCEACK, request.mflags[0] & ClusterMessage.MFLAG0_FORCEACK);
    // without votes the manual failover ends after 5 s
    now[0] += Failover.MF_TIMEOUT_MILLIS + 1;
    state.cron();
    assertEquals(ClusterNode.SLAVE, state.myself().flags() & ClusterNode.SLAVE);
  }

  @Test
  void forceAndTakeover_downMaster_electionWithoutTheMasterOrWithoutVotes() throws Exception {
    start("myself,slave " + X + " 0 0 0 connected");
    failX();
    assertEquals(
        "ERR Master is down or failed, please use CLUSTER FAILOVER FORCE",
        state.failover(false, false));
    assertNull(state.failover(true, false));
    state.cron();
    ClusterMessage request =
        outbound.get(Y).sent.stream()
            .filter(m -> m.type == ClusterMessage.FAILOVER_AUTH_REQUEST)
            .findFirst()
            .orElseThrow();
    assertEquals(
        ClusterMessage.MFLAG0_FORCEACK, request.mflags[0] & ClusterMessage.MFLAG0_FORCEACK);
    assertEquals(0, outbound.get(X).count(ClusterMessage.MFSTART), "FORCE does not ask the master");
    // TAKEOVER: no vote at all, a configEpoch of its own, the slots at once
    assertNull(state.failover(true, true));
    assertEquals(ClusterNode.MASTER, state.myself().flags() & ClusterNode.MASTER);
    assertEquals(ME, state.slotOwner(10).name());
    assertEquals(6, state.currentEpoch(), "one epoch for the election, one for the takeover");
    assertTrue(replication.calls.contains("promote"));
  }

  @Test
  void mfStart_fromOwnReplica_pausesWritesAndPingsPaused() throws Exception {
    start("myself,master - 0 0 3 connected 0-9 10-19");
    assertEquals("ERR You should send CLUSTER FAILOVER to a replica", state.failover(false, false));
    // R becomes our replica
    state.process(outbound.get(R), message(ClusterMessage.PING, R, ME, 4, 3, NONE));
    RecordingLink fromR = new RecordingLink(null, false, RecordingLink.NEVER_OLD);
    state.process(fromR, message(ClusterMessage.MFSTART, R, ME, 4, 3, NONE));
    assertTrue(replication.calls.contains("pause"));
    assertEquals(now[0] + 2 * Failover.MF_TIMEOUT_MILLIS, replication.pausedUntil);
    ClusterMessage ping =
        fromR.sent.stream().filter(m -> m.type == ClusterMessage.PING).findFirst().orElseThrow();
    assertEquals(ClusterMessage.MFLAG0_PAUSED, ping.mflags[0] & ClusterMessage.MFLAG0_PAUSED);
    assertEquals(100, ping.offset);
    // an MFSTART from a node that is not our replica changes nothing
    replication.calls.clear();
    state.process(outbound.get(Y), message(ClusterMessage.MFSTART, Y, null, 4, 2, NONE));
    assertFalse(replication.calls.contains("pause"));
    now[0] += Failover.MF_TIMEOUT_MILLIS + 1;
    state.cron();
    assertTrue(replication.calls.contains("unpause"), "the pause ends with the failover");
  }

  @Test
  void orphanedMaster_replicaOfTheBestCoveredMasterMigrates() throws Exception {
    // X has three working replicas (this node has the smallest id); Y's only replica W failed
    String w = "4".repeat(40);
    start(
        "myself,slave " + X + " 0 0 0 connected",
        w + " 127.0.0.1:30007@40007 slave,fail " + Y + " 0 0 2 connected\n");
    assertEquals("follow 127.0.0.1:30002", replication.calls.get(0));
    pongsThenCron(); // the cluster becomes ok
    pongsThenCron(); // Y is orphaned from now
    now[0] += 4000;
    pongsThenCron();
    assertEquals(X, state.myself().slaveOf.name, "not before Y was orphaned for 5 s");
    now[0] += 1001;
    pongsThenCron();
    assertEquals(Y, state.myself().slaveOf.name);
    assertEquals("follow 127.0.0.1:30003", replication.calls.get(replication.calls.size() - 1));
  }

  /** Every other node answers (so none is suspected), then the cron runs. */
  private void pongsThenCron() {
    for (String name : List.of(X, Y, Z)) {
      state.process(outbound.get(name), message(ClusterMessage.PONG, name, null, 4, 0, NONE));
    }
    for (String name : List.of(R, R2)) {
      state.process(outbound.get(name), message(ClusterMessage.PONG, name, X, 4, 0, NONE));
    }
    state.cron();
  }

  @Test
  void nodesConfNotWritable_nodeStopsWithReason_takesNoMoreMessages() throws Exception {
    start("myself,master - 0 0 3 connected 0-9");
    saveFails = true;
    failX(); // a change to save
    assertEquals("Fatal: can't update cluster config file: No space left on device", fatal);
    assertTrue(state.stopped());
    int sent = outbound.get(Y).sent.size();
    state.process(outbound.get(R), authRequest(R, 9, X_SLOTS));
    state.cron();
    assertEquals(sent, outbound.get(Y).sent.size(), "a stopped node sends nothing");
    assertEquals(0, outbound.get(R).count(ClusterMessage.FAILOVER_AUTH_ACK));
  }
}
