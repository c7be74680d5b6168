package dev.cuckoo.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.cluster.SlotTable.Route;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The slot table published after each change, made from the last one and the slots that changed,
 * against a table built from scratch; and nodes.conf, written before a command returns, against the
 * state: random sequences of SETSLOT, ADDSLOTS, DELSLOTS, claims and UPDATEs from the bus and
 * address changes (the seed is printed with a failure).
 */
class SlotTableUpdaterTest {
  private static final String ME = "1".repeat(40);
  private static final String X = "9".repeat(40);
  private static final String Y = "5".repeat(40);
  private static final String Z = "7".repeat(40);
  private static final List<String> NAMES = List.of(ME, X, Y, Z);

  private final Map<String, RecordingLink> outbound = new HashMap<>();
  private final long[] now = {1_000_000};
  private final String[] saved = {null};
  private final long[] epochs = {3, 1, 2, 4};
  private final int[] ports = {30001, 30002, 30003, 30004};
  private ClusterState state;

  @BeforeEach
  void setUp() throws Exception {
    state = newState();
    state.load(
        NodesFile.parse(
            Path.of("nodes.conf"),
            ME
                + " 127.0.0.1:30001@40001 myself,master - 0 0 3 connected 0-4000\n"
                + X
                + " 127.0.0.1:30002@40002 master - 0 0 1 connected 4001-8000\n"
                + Y
                + " 127.0.0.1:30003@40003 master - 0 0 2 connected 8001-12000\n"
                + Z
                + " 127.0.0.1:30004@40004 master - 0 0 4 connected 12001-16000\n"
                + "vars currentEpoch 4 lastVoteEpoch 0\n"));
    // written once, as a node's first start does: a command refused later leaves it as it is
    assertNull(state.saveConfig());
    state.cron();
    for (RecordingLink link : outbound.values()) {
      state.linkConnected(link);
    }
  }

  private ClusterState newState() {
    return new ClusterState(
        new ClusterState.Settings(30001, 40001, 1000, false),
        node -> {
          RecordingLink link = new RecordingLink(node, false, 0);
          outbound.put(node.name(), link);
          return link;
        },
        SlotKeys.NONE,
        () -> now[0],
        (content, fsync) -> saved[0] = content);
  }

  @Test
  void randomChanges_tableEqualsOneBuiltFromScratch_fileHoldsEveryAcknowledgedChange()
      throws Exception {
    long seed = System.nanoTime();
    SplittableRandom random = new SplittableRandom(seed);
    String context = "seed " + seed;
    for (int step = 0; step < 800; step++) {
      String operation = randomChange(random);
      String at = context + ", step " + step + " (" + operation + ")";
      SlotTable published = state.slotTable();
      assertTrue(published.routesEqual(state.slotTableFromScratch()), at);
      assertOneRoutePerNode(published, at);
      if (operation.startsWith("command")) {
        assertFileHoldsSlotMap(at);
      }
    }
  }

  @Test
  void noChange_sameTableObject_changeOfOneSlot_newTableSharingTheOtherPages() {
    SlotTable before = state.slotTable();
    state.cron();
    assertSame(before, state.slotTable(), "nothing changed: the same table");
    assertEquals(null, state.setSlot(5, "migrating", X));
    SlotTable after = state.slotTable();
    assertNotSame(before, after);
    assertEquals(X, after.migratingTo(5).name());
    assertSame(
        before.ownerPages()[100], after.ownerPages()[100], "a page without change is shared");
    assertSame(before.owner(4000), after.owner(4000), "routes are kept from one table to the next");
  }

  @Test
  void hasMigrations_whileAnySlotMigratesOrIsImported() {
    assertFalse(state.slotTable().hasMigrations());
    assertEquals(null, state.setSlot(5, "migrating", X));
    assertTrue(state.slotTable().hasMigrations());
    assertEquals(null, state.setSlot(9000, "importing", Y));
    assertEquals(null, state.setSlot(5, "stable", null));
    assertTrue(state.slotTable().hasMigrations(), "9000 is still imported");
    assertEquals(null, state.setSlot(9000, "stable", null));
    assertFalse(state.slotTable().hasMigrations());
    assertFalse(state.slotTableFromScratch().hasMigrations());
  }

  @Test
  void addressChange_everyRouteMadeAgain() {
    SlotTable before = state.slotTable();
    state.process(
        new RecordingLink(null, true, 0), claim(ClusterMessage.PING, 1, 4001, 8000, 30012));
    SlotTable after = state.slotTable();
    assertEquals("127.0.0.1:30012", after.owner(4001).endpoint());
    assertEquals("127.0.0.1:30001", after.owner(0).endpoint());
    assertNotSame(before.owner(0), after.owner(0), "a table is built again with new routes");
  }

  @Test
  void nodesDescription_slotsOfEveryNodeInOnePass_sameAsEachNodeAlone() {
    assertEquals(null, state.setSlot(7, "migrating", X));
    assertEquals(null, state.setSlot(9000, "importing", Y));
    boolean[] wanted = new boolean[HashSlots.SLOTS];
    wanted[16383] = true;
    wanted[16001] = true;
    assertEquals(null, state.changeSlots(wanted, false));
    StringBuilder oneByOne = new StringBuilder();
    for (ClusterNode n : state.nodes()) {
      oneByOne.append(state.describe(n)).append('\n');
    }
    String all = state.nodesDescription(0);
    assertEquals(oneByOne.toString(), all);
    assertTrue(all.contains(" 0-4000 16001 16383 [7->-" + X + "] [9000-<-" + Y + "]"), all);
  }

  /** Makes one random change; returns what it was. */
  private String randomChange(SplittableRandom random) {
    int slot = random.nextInt(HashSlots.SLOTS);
    int other = 1 + random.nextInt(3);
    String name = NAMES.get(other);
    switch (random.nextInt(9)) {
      case 0 -> {
        return "command " + state.setSlot(slot, "migrating", name) + " migrating " + slot;
      }
      case 1 -> {
        return "command " + state.setSlot(slot, "importing", name) + " importing " + slot;
      }
      case 2 -> {
        return "command " + state.setSlot(slot, "stable", null) + " stable " + slot;
      }
      case 3 -> {
        String target = NAMES.get(random.nextInt(4));
        return "command " + state.setSlot(slot, "node", target) + " node " + slot + " " + target;
      }
      case 4 -> {
        boolean delete = random.nextBoolean();
        boolean[] wanted = new boolean[HashSlots.SLOTS];
        int count = 1 + random.nextInt(40);
        for (int i = 0; i < count && slot + i < HashSlots.SLOTS; i++) {
          wanted[slot + i] = true;
        }
        String error = state.changeSlots(wanted, delete);
        if (error != null) {
          // some slot was already (un)assigned: the slots one at a time
          for (int i = 0; i < count && slot + i < HashSlots.SLOTS; i++) {
            boolean[] one = new boolean[HashSlots.SLOTS];
            one[slot + i] = true;
            state.changeSlots(one, delete);
          }
        }
        return "command " + (delete ? "delslots " : "addslots ") + slot + " +" + count;
      }
      case 5, 6 -> {
        // a node claims a run of slots with a higher epoch (as after a reshard or a failover)
        epochs[other] = Math.max(epochs[other], state.currentEpoch()) + 1;
        int end = Math.min(HashSlots.SLOTS - 1, slot + random.nextInt(300));
        ClusterMessage pong = claim(ClusterMessage.PONG, other, slot, end, ports[other]);
        state.process(outbound.get(name), pong);
        return "claim by " + other + " of " + slot + "-" + end;
      }
      case 7 -> {
        ClusterMessage update = new ClusterMessage(ClusterMessage.UPDATE);
        update.sender = name;
        update.updateNode = name;
        epochs[other] = Math.max(epochs[other], state.currentEpoch()) + 1;
        update.updateConfigEpoch = epochs[other];
        update.updateSlots = new byte[HashSlots.SLOTS / 8];
        int end = Math.min(HashSlots.SLOTS - 1, slot + random.nextInt(50));
        for (int s = slot; s <= end; s++) {
          update.updateSlots[s >>> 3] |= (byte) (1 << (s & 7));
        }
        state.process(outbound.get(name), update);
        return "update of " + other + " with " + slot + "-" + end;
      }
      default -> {
        // a node seen at another client port: its routes change
        ports[other] = 31000 + random.nextInt(1000);
        ClusterMessage ping = claim(ClusterMessage.PING, other, 0, -1, ports[other]);
        state.process(new RecordingLink(null, true, 0), ping);
        return "address of " + other + " now port " + ports[other];
      }
    }
  }

  /** A PING or PONG from node {@code index} claiming slots {@code from..to}, at {@code port}. */
  private ClusterMessage claim(int type, int index, int from, int to, int port) {
    ClusterMessage m = new ClusterMessage(type);
    m.sender = NAMES.get(index);
    m.configEpoch = epochs[index];
    m.currentEpoch = Math.max(epochs[index], state.currentEpoch());
    m.flags = ClusterNode.MASTER;
    m.port = port;
    m.cport = 40001 + index;
    ClusterNode node = state.node(m.sender);
    for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
      boolean claimed = slot >= from && slot <= to || node != null && node.ownsSlot(slot);
      if (claimed) {
        m.mySlots[slot >>> 3] |= (byte) (1 << (slot & 7));
      }
    }
    return m;
  }

  private static void assertOneRoutePerNode(SlotTable table, String at) {
    Map<String, Route> seen = new HashMap<>();
    List<Route> routes = new ArrayList<>();
    for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
      routes.add(table.owner(slot));
      routes.add(table.migratingTo(slot));
      routes.add(table.importingFrom(slot));
    }
    routes.add(table.myMaster());
    for (Route route : routes) {
      if (route != null) {
        assertSame(seen.computeIfAbsent(route.name(), n -> route), route, at);
      }
    }
  }

  /** The last nodes.conf written, loaded into a new state, has the state's slot map. */
  private void assertFileHoldsSlotMap(String at) throws Exception {
    ClusterState loaded = newState();
    loaded.load(NodesFile.parse(Path.of("nodes.conf"), saved[0]));
    SlotTable mine = state.slotTable();
    SlotTable fromFile = loaded.slotTableFromScratch();
    for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
      assertEquals(name(mine.owner(slot)), name(fromFile.owner(slot)), at + ", slot " + slot);
      assertEquals(name(mine.migratingTo(slot)), name(fromFile.migratingTo(slot)), at);
      assertEquals(name(mine.importingFrom(slot)), name(fromFile.importingFrom(slot)), at);
    }
  }

  private static String name(Route route) {
    return route == null ? null : route.name();
  }
}
