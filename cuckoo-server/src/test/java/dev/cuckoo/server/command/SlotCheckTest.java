package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cuckoo.server.cluster.HashSlots;
import dev.cuckoo.server.cluster.SlotTable;
import dev.cuckoo.server.cluster.SlotTable.Route;
import dev.cuckoo.server.keyspace.Key;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The cluster's slot check, by Redis's recorded texts and against a model over random requests. */
class SlotCheckTest {
  private static final Route ME = new Route("me", "127.0.0.1:7000", true);
  private static final Route B = new Route("b", "127.0.0.1:7001", false);
  private static final Route C = new Route("c", "127.0.0.1:7002", false);

  private static Key key(String name) {
    return new Key(name.getBytes(StandardCharsets.UTF_8));
  }

  private static int slot(String name) {
    return HashSlots.slot(name.getBytes(StandardCharsets.UTF_8));
  }

  private static SlotCheck.Context flags(boolean asking, boolean readOnly, Set<String> existing) {
    return new SlotCheck.Context(
        asking,
        readOnly,
        false,
        name -> existing.contains(new String(name, StandardCharsets.UTF_8)));
  }

  private static Route[] owners(Route owner) {
    Route[] owners = new Route[HashSlots.SLOTS];
    java.util.Arrays.fill(owners, owner);
    return owners;
  }

  @Test
  void refusal_redirectsAndRefusals_useRedisTexts() {
    SlotTable mineAndB = new SlotTable(owners(ME), null, null, true, null);
    SlotCheck.Context none = flags(false, false, Set.of());
    assertNull(SlotCheck.refusal(mineAndB, new Key[] {key("a"), key("a")}, true, false, none));
    assertEquals(
        "CROSSSLOT Keys in request don't hash to the same slot",
        SlotCheck.refusal(mineAndB, new Key[] {key("a"), key("b")}, false, false, none));
    assertNull(
        SlotCheck.refusal(mineAndB, new Key[] {key("{u}a"), key("{u}b")}, false, false, none));
    SlotTable ofB = new SlotTable(owners(B), null, null, true, null);
    assertEquals(
        "MOVED " + slot("k") + " 127.0.0.1:7001",
        SlotCheck.refusal(ofB, new Key[] {key("k")}, false, false, none));
    assertEquals(
        "CLUSTERDOWN Hash slot not served",
        SlotCheck.refusal(
            new SlotTable(null, null, null, false, null),
            new Key[] {key("k")},
            false,
            false,
            none));
    assertEquals(
        "CLUSTERDOWN The cluster is down",
        SlotCheck.refusal(
            new SlotTable(owners(ME), null, null, false, null),
            new Key[] {key("k")},
            false,
            false,
            none));
  }

  @Test
  void refusal_migratingAndImporting_askOrTryAgainAsRedis() {
    Route[] toC = new Route[HashSlots.SLOTS];
    toC[slot("{m}x")] = C;
    SlotTable migrating = new SlotTable(owners(ME), toC, null, true, null);
    Key[] two = {key("{m}x"), key("{m}y")};
    assertEquals(
        "ASK " + slot("{m}x") + " 127.0.0.1:7002",
        SlotCheck.refusal(migrating, two, false, false, flags(false, false, Set.of())));
    assertEquals(
        "TRYAGAIN Multiple keys request during rehashing of slot",
        SlotCheck.refusal(migrating, two, false, false, flags(false, false, Set.of("{m}x"))));
    assertNull(
        SlotCheck.refusal(
            migrating, two, false, false, flags(false, false, Set.of("{m}x", "{m}y"))));
    Route[] fromB = new Route[HashSlots.SLOTS];
    fromB[slot("{m}x")] = B;
    SlotTable importing = new SlotTable(owners(B), null, fromB, true, null);
    assertEquals(
        "MOVED " + slot("{m}x") + " 127.0.0.1:7001",
        SlotCheck.refusal(importing, two, true, false, flags(false, false, Set.of())));
    assertNull(
        SlotCheck.refusal(importing, two, true, false, flags(true, false, Set.of("{m}x", "{m}y"))));
    assertEquals(
        "TRYAGAIN Multiple keys request during rehashing of slot",
        SlotCheck.refusal(importing, two, true, false, flags(true, false, Set.of("{m}x"))));
    assertNull(
        SlotCheck.refusal(
            importing, new Key[] {two[0], two[0]}, true, false, flags(true, false, Set.of())));
  }

  /**
   * Redis's getNodeByQuery restated as rules over the whole request (not key by key): the model the
   * random requests are checked against.
   */
  private static String model(
      SlotTable table,
      List<String> keys,
      boolean write,
      boolean asking,
      boolean readOnly,
      Set<String> existing) {
    if (keys.isEmpty()) {
      return null;
    }
    int first = slot(keys.get(0));
    Route owner = table.owner(first);
    if (owner == null) {
      return SlotCheck.UNBOUND;
    }
    Set<Integer> slots = new HashSet<>();
    for (String key : keys) {
      slots.add(slot(key));
    }
    if (slots.size() > 1) {
      return SlotCheck.CROSSSLOT;
    }
    if (!table.ok()) {
      return SlotCheck.DOWN;
    }
    boolean migrating = owner.myself() && table.migratingTo(first) != null;
    boolean importing = !migrating && table.importingFrom(first) != null;
    long missing = keys.stream().filter(k -> !existing.contains(k)).count();
    boolean allMissing = missing == keys.size();
    if (migrating && missing > 0) {
      return allMissing
          ? "ASK " + first + " " + table.migratingTo(first).endpoint()
          : SlotCheck.TRYAGAIN;
    }
    if (importing && asking) {
      boolean differentKeys = new HashSet<>(keys).size() > 1;
      return differentKeys && missing > 0 ? SlotCheck.TRYAGAIN : null;
    }
    if (readOnly && !write && owner == table.myMaster()) {
      return null;
    }
    return owner.myself() ? null : "MOVED " + first + " " + owner.endpoint();
  }

  @Test
  void refusal_randomRequests_matchTheModel() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    String[] tags = {"a", "b", "c", "d", "e"};
    Route[] nodes = {null, ME, B, C};
    for (int round = 0; round < 20_000; round++) {
      Route[] owners = new Route[HashSlots.SLOTS];
      Route[] migrating = new Route[HashSlots.SLOTS];
      Route[] importing = new Route[HashSlots.SLOTS];
      for (String tag : tags) {
        int slot = slot("{" + tag + "}");
        owners[slot] = nodes[random.nextInt(nodes.length)];
        if (random.nextInt(3) == 0) {
          migrating[slot] = random.nextBoolean() ? B : C;
        }
        if (random.nextInt(3) == 0) {
          importing[slot] = random.nextBoolean() ? B : C;
        }
      }
      SlotTable table =
          new SlotTable(
              owners,
              migrating,
              importing,
              random.nextInt(8) != 0,
              random.nextBoolean() ? B : null);
      List<String> keys = new ArrayList<>();
      Set<String> existing = new HashSet<>();
      int count = random.nextInt(4);
      String tag = tags[random.nextInt(tags.length)];
      for (int i = 0; i < count; i++) {
        if (random.nextInt(6) == 0) {
          tag = tags[random.nextInt(tags.length)];
        }
        String name = "{" + tag + "}" + random.nextInt(3);
        keys.add(name);
        if (random.nextBoolean()) {
          existing.add(name);
        }
      }
      boolean write = random.nextBoolean();
      boolean asking = random.nextBoolean();
      boolean readOnly = random.nextBoolean();
      Key[] request = keys.stream().map(SlotCheckTest::key).toArray(Key[]::new);
      String expected = model(table, keys, write, asking, readOnly, existing);
      String actual =
          SlotCheck.refusal(table, request, write, false, flags(asking, readOnly, existing));
      assertEquals(
          expected,
          actual,
          "seed " + seed + " round " + round + " keys " + keys + " existing " + existing);
    }
  }
}
