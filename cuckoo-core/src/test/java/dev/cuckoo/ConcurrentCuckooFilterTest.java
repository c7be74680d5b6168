package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Single-threaded behaviour of {@link ConcurrentCuckooFilter}: the same contract as the plain
 * filter.
 */
class ConcurrentCuckooFilterTest {

  private static ConcurrentCuckooFilter<Long> filter(long expectedItems) {
    return ConcurrentCuckooFilter.<Long>builder(ItemHashers.longs())
        .expectedItems(expectedItems)
        .build();
  }

  @Test
  void builder_sameOptions_sameGeometryAsPlainFilter() {
    for (int bucketSize : new int[] {2, 4, 8}) {
      CuckooFilter<Long> plain =
          CuckooFilter.<Long>builder(ItemHashers.longs())
              .expectedItems(12_345)
              .falsePositiveRate(0.001)
              .bucketSize(bucketSize)
              .maxKicks(300)
              .seed(42)
              .build();
      ConcurrentCuckooFilter<Long> concurrent =
          ConcurrentCuckooFilter.<Long>builder(ItemHashers.longs())
              .expectedItems(12_345)
              .falsePositiveRate(0.001)
              .bucketSize(bucketSize)
              .maxKicks(300)
              .seed(42)
              .build();
      assertEquals(plain.bucketCount(), concurrent.bucketCount());
      assertEquals(plain.bucketSize(), concurrent.bucketSize());
      assertEquals(plain.fingerprintBits(), concurrent.fingerprintBits());
      assertEquals(plain.capacity(), concurrent.capacity());
      assertEquals(plain.bitsPerItem(), concurrent.bitsPerItem());
      assertEquals(plain.falsePositiveRateAtCapacity(), concurrent.falsePositiveRateAtCapacity());
      assertEquals(plain.seed(), concurrent.seed());
      assertEquals(plain.maxKicks(), concurrent.maxKicks());
      assertEquals(Scheme.STANDARD_FAST, concurrent.scheme());
      assertTrue(concurrent.sizeInBytes() > plain.table().sizeInBytes());
    }
  }

  @Test
  void builder_redisBloomScheme_rejected() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ConcurrentCuckooFilter.builder(ItemHashers.utf8()).scheme(Scheme.REDISBLOOM));
    assertTrue(e.getMessage().contains("scheme: REDISBLOOM"), e.getMessage());
  }

  @Test
  void builder_stripesOutOfRange_messageNamesParameter() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ConcurrentCuckooFilter.builder(ItemHashers.utf8()).stripes(0));
    assertEquals("stripes: 0 (expected: 1 <= stripes <= 65536)", e.getMessage());
    assertThrows(
        IllegalStateException.class,
        () -> ConcurrentCuckooFilter.builder(ItemHashers.utf8()).build());
  }

  @Test
  void stripes_smallTable_atLeastEightBucketsEach() {
    ConcurrentCuckooFilter<Long> tiny = filter(10);
    assertEquals(1, tiny.stripes());
    ConcurrentCuckooFilter<Long> large =
        ConcurrentCuckooFilter.<Long>builder(ItemHashers.longs())
            .expectedItems(1_000_000)
            .stripes(100)
            .build();
    // 100 stripes requested: ranges of nextPowerOfTwo(ceil(m / 100)) buckets
    long perStripe = Sizing.nextPowerOfTwo((large.bucketCount() + 99) / 100);
    assertEquals((large.bucketCount() + perStripe - 1) / perStripe, large.stripes());
  }

  @Test
  void javadocExample_runsAsDocumented() throws InterruptedException {
    ConcurrentCuckooFilter<CharSequence> filter =
        ConcurrentCuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(1_000_000)
            .falsePositiveRate(0.001)
            .build();
    Thread writer = new Thread(() -> filter.add("https://example.com/"));
    writer.start();
    writer.join();
    assertTrue(filter.mightContain("https://example.com/"));
  }

  @Test
  void add_thenLookups_itemFoundAndCounted() {
    ConcurrentCuckooFilter<CharSequence> f =
        ConcurrentCuckooFilter.builder(ItemHashers.utf8()).expectedItems(1000).build();
    assertTrue(f.isEmpty());
    assertTrue(f.add("https://example.com/"));
    assertTrue(f.mightContain("https://example.com/"));
    assertEquals(1, f.count("https://example.com/"));
    assertFalse(f.addIfAbsent("https://example.com/"));
    assertEquals(1, f.size());
    assertTrue(f.remove("https://example.com/"));
    assertFalse(f.mightContain("https://example.com/"));
    assertFalse(f.remove("https://example.com/"));
    assertTrue(f.isEmpty());
  }

  @Test
  void modelBasedRandomOperations_matchMultisetModel() {
    long seed = TestSeeds.seed();
    SplittableRandom random = new SplittableRandom(seed);
    ConcurrentCuckooFilter<Long> f =
        ConcurrentCuckooFilter.<Long>builder(ItemHashers.longs())
            .expectedItems(3000)
            .stripes(16)
            .build();
    Map<Long, Integer> model = new HashMap<>();
    List<Long> copies = new ArrayList<>(); // one entry per stored copy
    for (int step = 0; step < 200_000; step++) {
      // mostly fresh keys (the capacity promise is for distinct items), some duplicates
      long key =
          random.nextInt(8) == 0 && !copies.isEmpty()
              ? copies.get(random.nextInt(copies.size()))
              : random.nextLong(1 << 20);
      int op = random.nextInt(10);
      String where = "seed " + seed + " step " + step + " key " + key;
      // duplicates need a little slack, and one key's copies share 2b slots: keep them <= 3
      boolean room = copies.size() < f.capacity() - 16 && model.getOrDefault(key, 0) < 3;
      if (op < 3 && room) {
        assertTrue(f.add(key), where + " size " + copies.size());
        model.merge(key, 1, Integer::sum);
        copies.add(key);
      } else if (op < 4 && room) {
        boolean added = f.addIfAbsent(key);
        if (model.containsKey(key)) {
          assertFalse(added, where);
        }
        if (added) {
          model.merge(key, 1, Integer::sum);
          copies.add(key);
        }
      } else if (op < 6 && !copies.isEmpty()) {
        int index = random.nextInt(copies.size());
        long victim = copies.get(index);
        copies.set(index, copies.get(copies.size() - 1));
        copies.remove(copies.size() - 1);
        assertTrue(f.remove(victim), where + " victim " + victim);
        model.merge(victim, -1, Integer::sum);
        model.remove(victim, 0);
      } else if (op < 7 && !copies.isEmpty() && room) {
        int index = random.nextInt(copies.size());
        long victim = copies.get(index);
        assertTrue(f.replace(victim, key), where + " victim " + victim);
        copies.set(index, key);
        model.merge(victim, -1, Integer::sum);
        model.remove(victim, 0);
        model.merge(key, 1, Integer::sum);
      } else {
        int expected = model.getOrDefault(key, 0);
        assertTrue(f.count(key) >= expected, where);
        assertTrue(f.mightContain(key) || expected == 0, where);
      }
      assertEquals(copies.size(), f.size(), where);
    }
    for (Map.Entry<Long, Integer> e : model.entrySet()) {
      assertTrue(f.count(e.getKey()) >= e.getValue(), "seed " + seed + " key " + e.getKey());
    }
  }

  @Test
  void add_upToCapacity_allSucceedAndRelocate() {
    for (int bucketSize : new int[] {2, 4, 8}) {
      ConcurrentCuckooFilter<Long> f =
          ConcurrentCuckooFilter.<Long>builder(ItemHashers.longs())
              .expectedItems(20_000)
              .bucketSize(bucketSize)
              .build();
      for (long i = 0; i < f.capacity(); i++) {
        assertTrue(f.addHash(ItemHashers.hashLong(i)), "b=" + bucketSize + " item " + i);
      }
      assertTrue(f.relocations() > 0);
      for (long i = 0; i < f.capacity(); i++) {
        assertTrue(f.mightContainHash(ItemHashers.hashLong(i)), "b=" + bucketSize + " item " + i);
      }
      assertEquals(f.capacity(), f.size());
    }
  }

  @Test
  void add_whenFull_returnsFalseAndKeepsEveryItem() {
    ConcurrentCuckooFilter<Long> f =
        ConcurrentCuckooFilter.<Long>builder(ItemHashers.longs())
            .expectedItems(2000)
            .maxKicks(50)
            .build();
    long added = 0;
    long next = 0;
    int failures = 0;
    while (failures < 100) {
      if (f.addHash(ItemHashers.hashLong(next++))) {
        added++;
      } else {
        failures++;
      }
    }
    assertEquals(added, f.size());
    assertTrue(f.loadFactor() > 0.9, "load " + f.loadFactor());
    int found = 0;
    for (long i = 0; i < next; i++) {
      if (f.mightContainHash(ItemHashers.hashLong(i))) {
        found++;
      }
    }
    // every stored item is found; the failed ones may be false positives
    assertTrue(found >= added, found + " < " + added);
  }

  @Test
  void maxKicksZero_noRelocation() {
    ConcurrentCuckooFilter<Long> f =
        ConcurrentCuckooFilter.<Long>builder(ItemHashers.longs())
            .expectedItems(1000)
            .maxKicks(0)
            .build();
    for (long i = 0; i < 2000; i++) {
      f.addHash(ItemHashers.hashLong(i));
    }
    assertEquals(0, f.relocations());
    assertTrue(f.size() < 2000);
  }

  @Test
  void replace_noRoomForNewItem_fallsBackToRelocationOrFailsUnchanged() {
    ConcurrentCuckooFilter<Long> f = filter(1000);
    long n = 0;
    while (f.addHash(ItemHashers.hashLong(n))) {
      n++;
    }
    long size = f.size();
    long replaced = 0;
    for (long i = 0; i < n; i++) {
      long newKey = 1_000_000 + i;
      if (f.replace(i, newKey)) {
        replaced++;
        assertTrue(f.mightContain(newKey));
      } else {
        assertTrue(f.mightContain(i));
      }
      assertEquals(size, f.size());
    }
    assertTrue(replaced > n / 2, replaced + " of " + n);
  }

  @Test
  void clear_afterAdds_emptyAndReusable() {
    ConcurrentCuckooFilter<Long> f = filter(1000);
    for (long i = 0; i < 900; i++) {
      f.add(i);
    }
    f.clear();
    assertEquals(0, f.size());
    for (long i = 0; i < 900; i++) {
      assertFalse(f.mightContain(i), "item " + i);
    }
    assertTrue(f.add(7L));
    assertEquals(1, f.size());
    assertTrue(f.expectedFalsePositiveRate() > 0);
    assertTrue(f.toString().contains("size=1"));
  }
}
