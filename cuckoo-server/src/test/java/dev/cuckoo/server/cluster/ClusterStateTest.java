package dev.cuckoo.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The state's rules on messages, with links that record what is sent: slots follow the higher
 * configEpoch, an old claim gets an UPDATE, equal epochs collide, failure reports make FAIL.
 */
class ClusterStateTest {
  private static final String ME = "1".repeat(40);
  private static final String X = "9".repeat(40);
  private static final String Y = "5".repeat(40);
  private static final String Z = "7".repeat(40);

  private final Map<String, RecordingLink> outbound = new HashMap<>();
  private final long[] now = {1_000_000};
  private ClusterState state;

  @BeforeEach
  void setUp() throws Exception {
    state =
        new ClusterState(
            new ClusterState.Settings(30001, 40001, 1000, true),
            node -> {
              RecordingLink link = new RecordingLink(node, false, 0);
              outbound.put(node.name(), link);
              return link;
            },
            SlotKeys.NONE,
            () -> now[0],
            (content, fsync) -> {});
    String text =
        ME
            + " 127.0.0.1:30001@40001 myself,master - 0 0 3 connected 0-9\n"
            + X
            + " 127.0.0.1:30002@40002 master - 0 0 1 connected 10-19\n"
            + Y
            + " 127.0.0.1:30003@40003 master - 0 0 2 connected 20-29\n"
            + Z
            + " 127.0.0.1:30004@40004 master - 0 0 4 connected 30-39\n"
            + "vars currentEpoch 4 lastVoteEpoch 0\n";
    state.load(NodesFile.parse(Path.of("nodes.conf"), text));
    state.cron(); // opens a link to each node
    for (RecordingLink link : outbound.values()) {
      state.linkConnected(link);
    }
  }

  private static ClusterMessage ping(int type, String sender, long configEpoch, int from, int to) {
    ClusterMessage m = new ClusterMessage(type);
    m.sender = sender;
    m.configEpoch = configEpoch;
    m.currentEpoch = configEpoch;
    m.flags = ClusterNode.MASTER;
    // the address the node has in nodes.conf: a PING from another address would move it
    int index = List.of(ME, X, Y, Z).indexOf(sender);
    m.port = 30001 + index;
    m.cport = 40001 + index;
    for (int slot = from; slot <= to; slot++) {
      m.mySlots[slot >>> 3] |= (byte) (1 << (slot & 7));
    }
    return m;
  }

  @Test
  void linkConnected_sendsPingWithOurHeader() {
    ClusterMessage first = outbound.get(X).sent.get(0);
    assertEquals(ClusterMessage.PING, first.type);
    assertEquals(ME, first.sender);
    assertEquals(3, first.configEpoch);
    assertTrue(ClusterMessage.slotBit(first.mySlots, 9));
    assertTrue(!ClusterMessage.slotBit(first.mySlots, 10));
  }

  @Test
  void pong_higherConfigEpochClaim_takesTheSlots() {
    // X (epoch 1 -> 5) now claims its own slots and Y's 20-24
    ClusterMessage claim = ping(ClusterMessage.PONG, X, 5, 10, 24);
    state.process(outbound.get(X), claim);
    assertEquals(X, state.slotOwner(24).name());
    assertEquals(Y, state.slotOwner(25).name());
    assertEquals(5, state.currentEpoch());
  }

  @Test
  void ping_olderConfigEpochClaim_answeredWithUpdate() {
    // Y (epoch 2) claims slot 35, which Z serves at epoch 4
    RecordingLink fromY = new RecordingLink(null, true, 0);
    state.process(fromY, ping(ClusterMessage.PING, Y, 2, 20, 35));
    assertEquals(Z, state.slotOwner(35).name());
    ClusterMessage update =
        outbound.get(Y).sent.stream()
            .filter(m -> m.type == ClusterMessage.UPDATE)
            .findFirst()
            .orElseThrow();
    assertEquals(Z, update.updateNode);
    assertEquals(4, update.updateConfigEpoch);
    assertTrue(ClusterMessage.slotBit(update.updateSlots, 35));
    assertEquals(ClusterMessage.PONG, fromY.sent.get(0).type, "a PING is answered on its link");
  }

  @Test
  void pong_sameConfigEpochFromHigherId_bumpsOurs() {
    state.process(outbound.get(X), ping(ClusterMessage.PONG, X, 3, 10, 19));
    assertEquals(5, state.currentEpoch());
    assertTrue(
        state.nodesDescription(0).contains(ME + " 127.0.0.1:30001@40001 myself,master - 0 0 5 "));
  }

  @Test
  void silentNode_pfailThenFailOnMajorityReports_failBroadcast() {
    for (String name : List.of(X, Y, Z)) {
      state.process(outbound.get(name), ping(ClusterMessage.PONG, name, 0, 0, -1));
    }
    now[0] += 1500; // Z has not answered our next ping
    for (String name : List.of(X, Y)) {
      state.process(outbound.get(name), ping(ClusterMessage.PONG, name, 0, 0, -1));
    }
    state.cron();
    now[0] += 1500;
    for (String name : List.of(X, Y)) {
      state.process(outbound.get(name), ping(ClusterMessage.PONG, name, 0, 0, -1));
    }
    state.cron();
    assertTrue(state.nodesDescription(0).contains(Z + " 127.0.0.1:30004@40004 master,fail? "));
    // X reports Z failing too: with mine that is 2 of 4 masters, short of the quorum of 3
    ClusterMessage fromX = ping(ClusterMessage.PING, X, 0, 0, -1);
    fromX.gossip.add(
        new Gossip(Z, 0, 0, "127.0.0.1", 30004, 40004, ClusterNode.MASTER | ClusterNode.PFAIL, 0));
    state.process(outbound.get(X), fromX);
    assertEquals(1, state.countFailureReports(Z));
    assertTrue(state.nodesDescription(0).contains(Z + " 127.0.0.1:30004@40004 master,fail? "));
    ClusterMessage fromY = ping(ClusterMessage.PING, Y, 0, 0, -1);
    fromY.gossip.add(
        new Gossip(Z, 0, 0, "127.0.0.1", 30004, 40004, ClusterNode.MASTER | ClusterNode.FAIL, 0));
    state.process(outbound.get(Y), fromY);
    assertTrue(state.nodesDescription(0).contains(Z + " 127.0.0.1:30004@40004 master,fail "));
    ClusterMessage fail =
        outbound.get(X).sent.stream()
            .filter(m -> m.type == ClusterMessage.FAIL)
            .findFirst()
            .orElseThrow();
    assertEquals(Z, fail.failing);
  }
}
