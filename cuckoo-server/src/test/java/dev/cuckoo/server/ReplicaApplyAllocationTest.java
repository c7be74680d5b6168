package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * Heap bytes the replica's link thread allocates per write it applies from its master's stream,
 * read from the JVM's per-thread allocation counter ({@code
 * com.sun.management.ThreadMXBean#getThreadAllocatedBytes}) around a burst of CF.ADDs: about 370
 * bytes (reading the stream, the arguments, the write), where a reply built for each write and
 * dropped cost about 4,100.
 */
class ReplicaApplyAllocationTest {
  private static final int WRITES = 20_000;

  @Test
  void applyCfAdd_linkThread_allocatesNoReplyPerWrite() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer replica =
            CuckooServer.start(
                TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + master.port()).build());
        RespClient writer = new RespClient(master.port())) {
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      assertEquals(new RespClient.Simple("OK"), writer.call("CF.RESERVE", "k", 1_000_000));
      Thread link = linkThread(master.port());
      com.sun.management.ThreadMXBean threads =
          (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long perWrite = 0;
      for (int round = 0; round < 3; round++) {
        ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
        long before = threads.getThreadAllocatedBytes(link.getId());
        write(writer, "r" + round);
        ReplicaState.awaitInSync(master.port(), replica.port(), 30_000);
        perWrite = (threads.getThreadAllocatedBytes(link.getId()) - before) / WRITES;
        System.out.println("round " + round + ": " + perWrite + " bytes per applied CF.ADD");
      }
      assertTrue(perWrite < 1024, perWrite + " bytes per applied CF.ADD");
    }
  }

  private static void write(RespClient writer, String prefix) throws IOException {
    for (int from = 0; from < WRITES; from += 1000) {
      ByteArrayOutputStream batch = new ByteArrayOutputStream();
      for (int i = from; i < from + 1000; i++) {
        batch.writeBytes(RespClient.encode("CF.ADD", "k", prefix + ":" + i));
      }
      writer.sendRaw(batch.toByteArray());
      for (int i = from; i < from + 1000; i++) {
        assertEquals(1L, writer.read());
      }
    }
  }

  private static Thread linkThread(int masterPort) {
    String name = "replica-of-127.0.0.1:" + masterPort;
    Thread found = null;
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.getName().equals(name)) {
        found = thread;
      }
    }
    assertNotNull(found, name);
    return found;
  }
}
