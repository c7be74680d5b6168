package dev.cuckoo.server.keyspace;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.ItemHashers;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.Scheme;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * The memory the server accounts for (filters' {@code sizeInBytes}, {@link Keyspace#usedBytes},
 * {@link Keyspace#usageBytes}: INFO used_memory, MEMORY USAGE, maxmemory) against the heap the
 * objects really retain, measured by walking the object graph with JOL.
 */
class KeyspaceMemoryTest {

  /** Filters as CF.RESERVE / CF.ADD make them. */
  static RedisCuckooFilter<byte[]> reserve(long capacity, int expansion) {
    return RedisCuckooFilter.reserve(capacity, 2, 20, expansion);
  }

  /** Bytes reachable from {@code root}, less what every filter shares (the hasher, the scheme). */
  static long retained(Object root) {
    return GraphLayout.parseInstance(root)
        .subtract(GraphLayout.parseInstance(ItemHashers.redisBytes(), Scheme.REDISBLOOM))
        .totalSize();
  }

  private static void assertWithinTenPercent(long measured, long accounted, String what) {
    assertTrue(
        Math.abs(accounted - measured) <= measured / 10,
        what + ": accounted " + accounted + " bytes, the heap walk found " + measured);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void sizeInBytes_smallFilter_withinTenPercentOfRetainedHeap() {
    RedisCuckooFilter<byte[]> filter = reserve(100, 1);
    for (int i = 0; i < 5; i++) {
      filter.add(bytes("item" + i));
    }
    assertWithinTenPercent(retained(filter), filter.sizeInBytes(), "CF.RESERVE k 100");
  }

  @Test
  void sizeInBytes_defaultFilter_withinTenPercentOfRetainedHeap() {
    RedisCuckooFilter<byte[]> filter = reserve(1024, 1); // cf-initial-size, as CF.ADD makes it
    filter.add(bytes("item"));
    assertWithinTenPercent(retained(filter), filter.sizeInBytes(), "CF.ADD's filter");
  }

  @Test
  void sizeInBytes_grownFilter_withinTenPercentOfRetainedHeap() {
    for (int expansion : new int[] {1, 2}) {
      RedisCuckooFilter<byte[]> filter = reserve(100, expansion);
      for (int i = 0; filter.linkCount() < 6; i++) {
        filter.add(bytes("item" + i));
      }
      assertWithinTenPercent(
          retained(filter), filter.sizeInBytes(), "grown to 6 links, expansion " + expansion);
    }
  }

  @Test
  void sizeInBytes_bigFilter_withinTenPercentOfRetainedHeap() {
    RedisCuckooFilter<byte[]> filter = reserve(10_000_000, 1);
    filter.add(bytes("item"));
    assertWithinTenPercent(retained(filter), filter.sizeInBytes(), "CF.RESERVE k 10000000");
  }

  @Test
  void usedBytes_tenThousandSmallKeys_withinTenPercentOfRetainedHeap() {
    Keyspace keyspace = new Keyspace();
    long empty = retained(keyspace);
    int keys = 10_000;
    for (int i = 0; i < keys; i++) {
      RedisCuckooFilter<byte[]> filter = reserve(100, 1);
      for (int j = 0; j < 5; j++) {
        filter.add(bytes("item:" + i + ":" + j));
      }
      keyspace.put(new Key(bytes("user:" + i)), filter);
    }
    for (int i = 0; i < keys; i += 10) {
      keyspace.expireAt(new Key(bytes("user:" + i)), System.currentTimeMillis() + 3_600_000);
    }
    long measured = retained(keyspace) - empty;
    assertWithinTenPercent(measured, keyspace.usedBytes(), "INFO used_memory of 10^4 keys");
    long usage = 0;
    for (int i = 0; i < keys; i++) {
      usage += keyspace.usageBytes(new Key(bytes("user:" + i)));
    }
    assertWithinTenPercent(measured, usage, "MEMORY USAGE summed over 10^4 keys");
  }

  @Test
  void usageBytes_bigAndGrownKeys_withinTenPercentOfRetainedHeap() {
    Keyspace keyspace = new Keyspace();
    long empty = retained(keyspace);
    RedisCuckooFilter<byte[]> grown = reserve(100, 2);
    for (int i = 0; grown.linkCount() < 4; i++) {
      grown.add(bytes("item" + i));
    }
    keyspace.put(new Key(bytes("grown")), grown);
    long afterGrown = retained(keyspace);
    assertWithinTenPercent(
        afterGrown - empty, keyspace.usageBytes(new Key(bytes("grown"))), "grown key");
    keyspace.put(new Key(bytes("big")), reserve(4_000_000, 1));
    assertWithinTenPercent(
        retained(keyspace) - afterGrown, keyspace.usageBytes(new Key(bytes("big"))), "big key");
    assertWithinTenPercent(retained(keyspace) - empty, keyspace.usedBytes(), "both keys");
  }
}
