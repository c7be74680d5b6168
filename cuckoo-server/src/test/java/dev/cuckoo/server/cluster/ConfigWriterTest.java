package dev.cuckoo.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * nodes.conf's writes: contents take their place in the order they were made, and a command's write
 * neither waits for a bus message's forced write nor is undone by it.
 */
class ConfigWriterTest {
  private static final String ME = "1".repeat(40);
  private static final String X = "9".repeat(40);

  @TempDir Path dir;

  @Test
  void write_olderContentStagedLast_newerStaysInPlace() throws Exception {
    Path file = dir.resolve("nodes.conf");
    ConfigWriter writer = new ConfigWriter(NodesFile.saver(file));
    long older = writer.nextSequence();
    long newer = writer.nextSequence();
    assertTrue(writer.write(newer, "newer\n", false));
    assertFalse(writer.write(older, "older\n", true), "an older content never replaces a newer");
    assertEquals("newer\n", Files.readString(file, StandardCharsets.UTF_8));
    try (var files = Files.list(dir)) {
      assertEquals(List.of(file), files.toList(), "the older content's temporary file is removed");
    }
  }

  @Test
  void command_whileBusWriteIsForcing_repliesWithoutWaiting_thenBusForcesTheNewest()
      throws Exception {
    Path file = dir.resolve("nodes.conf");
    ClusterState.Saver onDisk = NodesFile.saver(file);
    CountDownLatch busForcing = new CountDownLatch(1);
    CountDownLatch releaseBus = new CountDownLatch(1);
    AtomicReference<String> lastForced = new AtomicReference<>();
    ClusterState.Saver saver =
        new ClusterState.Saver() {
          @Override
          public void save(String content, boolean fsync) throws java.io.IOException {
            onDisk.save(content, fsync);
            if (fsync) {
              lastForced.set(content);
            }
          }

          @Override
          public ClusterState.StagedSave stage(String content, boolean fsync)
              throws java.io.IOException {
            ClusterState.StagedSave staged = onDisk.stage(content, fsync);
            if (fsync && Thread.currentThread().getName().equals("bus")) {
              // the first forced write of the bus thread takes long (a slow fsync)
              busForcing.countDown();
              await(releaseBus);
            }
            return () -> {
              staged.replace();
              if (fsync) {
                lastForced.set(content);
              }
            };
          }
        };
    ClusterState state =
        new ClusterState(
            new ClusterState.Settings(30001, 40001, 1000, true),
            node -> new RecordingLink(node, false, 0),
            SlotKeys.NONE,
            () -> 1_000_000L,
            saver);
    state.load(
        NodesFile.parse(
            file,
            ME
                + " 127.0.0.1:30001@40001 myself,master - 0 0 1 connected 0-99\n"
                + X
                + " 127.0.0.1:30002@40002 master - 0 0 2 connected 100-199\n"
                + "vars currentEpoch 2 lastVoteEpoch 0\n"));
    // X claims slot 50 with a higher configEpoch: Redis forces that change to disk
    ClusterMessage claim = new ClusterMessage(ClusterMessage.PONG);
    claim.sender = X;
    claim.configEpoch = 3;
    claim.currentEpoch = 3;
    claim.flags = ClusterNode.MASTER;
    claim.port = 30002;
    claim.cport = 40002;
    for (int slot = 50; slot < 200; slot++) {
      claim.mySlots[slot >>> 3] |= (byte) (1 << (slot & 7));
    }
    RecordingLink link = new RecordingLink(state.node(X), false, 0);
    Thread bus = new Thread(() -> state.process(link, claim), "bus");
    bus.start();
    assertTrue(busForcing.await(10, TimeUnit.SECONDS));
    long start = System.nanoTime();
    assertNull(state.setSlot(7, "migrating", X));
    long commandMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    String afterCommand = Files.readString(file, StandardCharsets.UTF_8);
    assertTrue(afterCommand.contains("[7->-" + X + "]"), afterCommand);
    assertTrue(afterCommand.contains(" 50-199\n"), "the bus's change is in the command's write");
    assertTrue(commandMillis < 5_000, "the command did not wait for the bus's write");
    releaseBus.countDown();
    bus.join(10_000);
    assertFalse(bus.isAlive());
    // the bus's forced write lost its place to the command's: the newest content is forced
    assertEquals(Files.readString(file, StandardCharsets.UTF_8), lastForced.get());
    assertTrue(lastForced.get().contains("[7->-" + X + "]"), lastForced.get());
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(10, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
