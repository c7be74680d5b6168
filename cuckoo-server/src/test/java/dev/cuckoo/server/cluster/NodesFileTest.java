package dev.cuckoo.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nodes.conf in Redis's format: written atomically, read back exactly, refused when corrupt. */
class NodesFileTest {
  private static final String ME = "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca";
  private static final String OTHER = "67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1";

  /** A file as Redis 7.0 writes it (from a real node, addresses changed). */
  private static final String REDIS_FILE =
      ME
          + " 127.0.0.1:30001@40001 myself,master - 0 0 1 connected 0-5460 [5461-<-"
          + OTHER
          + "]\n"
          + OTHER
          + " 127.0.0.1:30002@40002,host-2 master - 0 1700000000000 2 connected 5461-10922 16383\n"
          + "vars currentEpoch 6 lastVoteEpoch 3\n";

  @TempDir Path dir;

  private ClusterState state(List<String> saved) {
    return state((content, fsync) -> saved.add(content));
  }

  private static ClusterState state(ClusterState.Saver saver) {
    return new ClusterState(
        new ClusterState.Settings(30001, 40001, 15000, true),
        node -> {
          throw new AssertionError("no links in this test");
        },
        SlotKeys.NONE,
        System::currentTimeMillis,
        saver);
  }

  @Test
  void save_slotChangesUnforced_epochsAndSaveConfigForced() {
    // Redis's clusterSaveConfig(do_fsync): SETSLOT and ADDSLOTS write nodes.conf without an
    // fsync, a new configEpoch and CLUSTER SAVECONFIG force it
    List<String> saves = new ArrayList<>();
    ClusterState state = state((content, fsync) -> saves.add(fsync ? "forced" : "written"));
    assertNull(state.saveConfig()); // as a node's first start does
    boolean[] slots = new boolean[HashSlots.SLOTS];
    slots[7] = true;
    assertNull(state.changeSlots(slots, false));
    assertNull(state.setSlot(7, "stable", null));
    assertEquals("BUMPED 1", state.bumpEpoch());
    assertNull(state.saveConfig());
    assertEquals(List.of("forced", "written", "written", "forced", "forced"), saves);
  }

  @Test
  void write_unforced_replacesTheFileAtomically() throws Exception {
    Path file = dir.resolve("nodes.conf");
    NodesFile.write(file, "old\n");
    NodesFile.write(file, REDIS_FILE, false);
    assertEquals(REDIS_FILE, Files.readString(file, StandardCharsets.UTF_8));
    try (var files = Files.list(dir)) {
      assertEquals(1, files.count(), "no temporary file is left");
    }
  }

  @Test
  void read_redisWrittenFile_loadsSlotsEpochsAndWritesTheSameLines() throws Exception {
    Path file = dir.resolve("nodes.conf");
    Files.writeString(file, REDIS_FILE);
    List<String> saved = new ArrayList<>();
    ClusterState state = state(saved);
    state.load(NodesFile.read(file));
    assertEquals(ME, state.myId());
    assertEquals(6, state.currentEpoch());
    assertEquals(ME, state.slotOwner(0).name());
    assertEquals(ME, state.slotOwner(5460).name());
    assertEquals(OTHER, state.slotOwner(5461).name());
    assertEquals(OTHER, state.slotOwner(16383).name());
    assertNull(state.slotOwner(16382));
    String text = state.configText();
    assertTrue(
        text.startsWith(
            ME
                + " 127.0.0.1:30001@40001 myself,master - 0 0 1 connected 0-5460 [5461-<-"
                + OTHER
                + "]\n"),
        text);
    assertTrue(text.contains(OTHER + " 127.0.0.1:30002@40002,host-2 master - "), text);
    assertTrue(text.contains(" 2 disconnected 5461-10922 16383\n"), text);
    assertTrue(text.endsWith("vars currentEpoch 6 lastVoteEpoch 3\n"), text);
  }

  @Test
  void write_thenRead_roundTrips() throws Exception {
    Path file = dir.resolve("nodes.conf");
    NodesFile.write(file, REDIS_FILE);
    assertEquals(REDIS_FILE, Files.readString(file, StandardCharsets.UTF_8));
    try (var files = Files.list(dir)) {
      assertEquals(1, files.count(), "no temporary file is left");
    }
    NodesFile.Content content = NodesFile.read(file);
    assertEquals(2, content.nodes().size());
    assertEquals(3, content.lastVoteEpoch());
  }

  @Test
  void read_missingOrEmpty_isAFirstStart() throws Exception {
    assertNull(NodesFile.read(dir.resolve("none.conf")));
    Path empty = Files.createFile(dir.resolve("empty.conf"));
    assertNull(NodesFile.read(empty));
  }

  @Test
  void read_fileCutAnywhere_refusedNamingTheLineNeverAShorterSlotMap() throws Exception {
    Path file = dir.resolve("nodes.conf");
    for (int length = 1; length < REDIS_FILE.length(); length++) {
      Files.writeString(file, REDIS_FILE.substring(0, length));
      CorruptNodesFile error =
          assertThrows(CorruptNodesFile.class, () -> NodesFile.read(file), "cut at " + length);
      assertTrue(error.getMessage().contains("nodes.conf"), error.getMessage());
    }
  }

  @Test
  void read_badFields_errorNamesLineAndField() throws Exception {
    Path file = dir.resolve("nodes.conf");
    Files.writeString(file, REDIS_FILE.replace("0-5460", "0-16384"));
    assertTrue(
        assertThrows(CorruptNodesFile.class, () -> NodesFile.read(file))
            .getMessage()
            .endsWith("line 1: slot 16384 (expected: 0..16383)"));
    Files.writeString(file, REDIS_FILE.replace("myself,master", "myself,boss"));
    assertTrue(
        assertThrows(CorruptNodesFile.class, () -> NodesFile.read(file))
            .getMessage()
            .endsWith("line 1: unknown flag 'boss'"));
    Files.writeString(file, REDIS_FILE.replace("myself,master", "master"));
    ClusterState state = state(new ArrayList<>());
    assertTrue(
        assertThrows(CorruptNodesFile.class, () -> state.load(NodesFile.read(file)))
            .getMessage()
            .endsWith("no line has the 'myself' flag"));
  }
}
