package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The heap a reserved filter takes, against the Size RedisBloom reports for it. */
@ExtendWith(LeakCheck.class)
class MemoryFootprintTest {
  private static long usedHeapAfterGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  @Test
  void reserve100Million_heapWithinTenPercentOfRedisBloomSize() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      long before = usedHeapAfterGc();
      assertEquals(new Simple("OK"), client.call("CF.RESERVE", "k", "100000000"));
      long after = usedHeapAfterGc();
      long size = (Long) ((List<?>) client.call("CF.INFO", "k")).get(1);
      assertEquals(40L + 16 + 134_217_728, size, "RedisBloom: 2^26 buckets of 2 slots");
      long heap = after - before;
      assertTrue(
          Math.abs(heap - size) <= size / 10, "heap grew by " + heap + " bytes for Size " + size);
      assertEquals(1L, client.call("DEL", "k"));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
