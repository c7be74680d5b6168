package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The shared interface used across the four filter types, and the builders' rejections. */
class MembershipFilterTest {
  /** One filter of each type that {@link FilterFile} reads back. */
  private static List<MembershipFilter<CharSequence>> filters() {
    return List.of(
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(1000).build(),
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(1000).semiSorted(true).build(),
        ConcurrentCuckooFilter.builder(ItemHashers.utf8()).expectedItems(1000).build(),
        ScalableCuckooFilter.builder(ItemHashers.utf8()).expectedItems(100).build(),
        RedisCuckooFilter.reserve(ItemHashers.redisUtf8(), 100, 2, 20, 1));
  }

  /** {@link #filters()} and a sharded filter. */
  private static List<MembershipFilter<CharSequence>> everyType() {
    List<MembershipFilter<CharSequence>> all = new ArrayList<>(filters());
    all.add(
        ShardedCuckooFilter.builder(ItemHashers.utf8()).expectedItems(1000).shardBits(2).build());
    return all;
  }

  private static String where(MembershipFilter<?> filter) {
    return filter.getClass().getSimpleName() + " " + filter.scheme();
  }

  @Test
  void itemAndHashOperations_everyType_agree() {
    for (MembershipFilter<CharSequence> filter : everyType()) {
      String where = where(filter);
      assertTrue(filter.isEmpty(), where);
      for (int i = 0; i < 500; i++) {
        assertTrue(filter.add("item" + i), where);
      }
      assertEquals(500, filter.size(), where);
      assertFalse(filter.isEmpty(), where);
      for (int i = 0; i < 500; i++) {
        long hash = filter.hasher().hash("item" + i);
        assertTrue(filter.mightContain("item" + i), where);
        assertTrue(filter.mightContainHash(hash), where);
        assertEquals(filter.count("item" + i), filter.countHash(hash), where);
        assertTrue(filter.count("item" + i) >= 1, where);
      }
      assertTrue(filter.removeHash(filter.hasher().hash("item0")), where);
      assertTrue(filter.replace("item1", "other1"), where);
      assertTrue(filter.mightContain("other1"), where);
      assertTrue(filter.addIfAbsentHash(filter.hasher().hash("fresh")), where);
      assertFalse(filter.addIfAbsent("fresh"), where);
      assertEquals(500, filter.size(), where);
      assertEquals(AddOutcome.ADDED, filter.addIfAbsentWithOutcome("fresher"), where);
      assertEquals(
          AddOutcome.ALREADY_PRESENT,
          filter.addIfAbsentWithOutcomeHash(filter.hasher().hash("fresher")),
          where);
      assertTrue(filter.remove("fresher"), where);
      assertEquals(500, filter.size(), where);
      assertTrue(filter.loadFactor() > 0 && filter.loadFactor() <= 1, where);
      assertTrue(filter.expectedFalsePositiveRate() > 0, where);
      assertTrue(
          filter.expectedFalsePositiveRate() <= filter.falsePositiveRateAtCapacity() + 1e-12,
          where);
      assertTrue(filter.capacity() >= 500, where);
      assertTrue(filter.sizeInBytes() > 0, where);
      filter.clear();
      assertTrue(filter.isEmpty(), where);
      assertFalse(filter.mightContain("item2"), where);
    }
  }

  @Test
  void itemForms_nullItem_throwNamingItem() {
    for (MembershipFilter<CharSequence> filter : everyType()) {
      List<Runnable> calls =
          List.of(
              () -> filter.add(null),
              () -> filter.addIfAbsent(null),
              () -> filter.addIfAbsentWithOutcome(null),
              () -> filter.mightContain(null),
              () -> filter.remove(null),
              () -> filter.count(null),
              () -> filter.replace(null, "x"),
              () -> filter.replace("x", null));
      for (Runnable call : calls) {
        NullPointerException e = assertThrows(NullPointerException.class, call::run, where(filter));
        assertEquals("item must not be null", e.getMessage(), where(filter));
      }
      assertTrue(filter.isEmpty(), where(filter));
    }
  }

  @Test
  void addIfAbsentWithOutcome_falsePositive_returnsAlreadyPresentAndStoresNothing() {
    for (MembershipFilter<CharSequence> filter : everyType()) {
      for (int i = 0; i < 500; i++) {
        filter.add("item" + i);
      }
      // an item never added that the filter answers "might contain" for: a false positive
      String probe = null;
      for (int i = 0; probe == null; i++) {
        if (filter.mightContain("probe" + i)) {
          probe = "probe" + i;
        }
      }
      long size = filter.size();
      long count = filter.count(probe);
      assertEquals(AddOutcome.ALREADY_PRESENT, filter.addIfAbsentWithOutcome(probe), where(filter));
      assertFalse(filter.addIfAbsent(probe), where(filter));
      assertEquals(size, filter.size(), where(filter));
      assertEquals(count, filter.count(probe), where(filter));
    }
  }

  @Test
  void addIfAbsentWithOutcome_noRoom_returnsFullAndChangesNothing() throws IOException {
    List<MembershipFilter<CharSequence>> full =
        List.of(
            CuckooFilter.builder(ItemHashers.utf8()).expectedItems(10).maxKicks(0).build(),
            ConcurrentCuckooFilter.builder(ItemHashers.utf8())
                .expectedItems(10)
                .maxKicks(0)
                .build(),
            RedisCuckooFilter.reserve(ItemHashers.redisUtf8(), 8, 2, 20, 0),
            ShardedCuckooFilter.builder(ItemHashers.utf8()).expectedItems(10).shardBits(1).build());
    for (MembershipFilter<CharSequence> filter : full) {
      AddOutcome outcome = AddOutcome.ADDED;
      int i = 0;
      while (outcome != AddOutcome.FULL) {
        outcome = filter.addIfAbsentWithOutcome("item" + i++);
        assertTrue(i < 100_000, where(filter) + " never full");
      }
      String last = "item" + (i - 1);
      byte[] before = bytes(filter);
      long size = filter.size();
      assertEquals(AddOutcome.FULL, filter.addIfAbsentWithOutcome(last), where(filter));
      assertFalse(filter.addIfAbsent(last), where(filter));
      assertEquals(size, filter.size(), where(filter));
      assertArrayEquals(before, bytes(filter), where(filter));
    }
  }

  @Test
  void addIfAbsentWithOutcome_javadocExample_countsEachOutcome() {
    MembershipFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(100).build();
    int stored = 0;
    int skipped = 0;
    for (String line : List.of("a", "b", "a", "c", "b")) {
      switch (filter.addIfAbsentWithOutcome(line)) {
        case ADDED -> stored++;
        case ALREADY_PRESENT -> skipped++; // a duplicate, or rarely a false positive
        case FULL, NO_MEMORY ->
            throw new IllegalStateException("no room after " + stored + " items");
      }
    }
    assertEquals(3, stored);
    assertEquals(2, skipped);
    assertEquals(3, filter.size());
  }

  @Test
  void addIfAbsentWithOutcome_concurrentThreadsSameItems_exactlyOneAddsEach() throws Exception {
    // 1e-6: no two of the 2000 items share a fingerprint and buckets, so each is added once
    ConcurrentCuckooFilter<CharSequence> filter =
        ConcurrentCuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(10_000)
            .falsePositiveRate(1e-6)
            .build();
    int threads = 4;
    AtomicIntegerArray added = new AtomicIntegerArray(2000);
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < added.length(); i++) {
                    if (filter.addIfAbsentWithOutcome("item" + i) == AddOutcome.ADDED) {
                      added.incrementAndGet(i);
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> future : done) {
        future.get();
      }
    } finally {
      pool.shutdownNow();
    }
    for (int i = 0; i < added.length(); i++) {
      assertEquals(1, added.get(i), "item" + i);
    }
    assertEquals(added.length(), filter.size());
  }

  private static byte[] bytes(MembershipFilter<?> filter) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeTo(out);
    return out.toByteArray();
  }

  @Test
  void writeTo_everyType_readsBackWithFilterFile() throws IOException {
    for (MembershipFilter<CharSequence> filter : filters()) {
      for (int i = 0; i < 200; i++) {
        filter.add("item" + i);
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      filter.writeTo(out);
      FilterFile<CharSequence> file =
          FilterFile.read(new ByteArrayInputStream(out.toByteArray()), id -> filter.hasher());
      assertEquals(filter.scheme(), file.scheme());
      assertEquals(filter.hasher().id(), file.hasherId());
      assertEquals(
          filter instanceof ScalableCuckooFilter || filter instanceof RedisCuckooFilter,
          file.isChain());
      assertEquals(200, file.filter().size());
      for (int i = 0; i < 200; i++) {
        assertTrue(file.filter().mightContain("item" + i));
      }
    }
  }

  @Test
  void concurrentWriteTo_sameAddsAsPlainFilter_sameBytes() throws IOException {
    CuckooFilter<CharSequence> plain =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(1000).seed(5).build();
    ConcurrentCuckooFilter<CharSequence> concurrent =
        ConcurrentCuckooFilter.builder(ItemHashers.utf8()).expectedItems(1000).seed(5).build();
    for (int i = 0; i < 300; i++) {
      plain.add("k" + i);
      concurrent.add("k" + i);
    }
    ByteArrayOutputStream plainBytes = new ByteArrayOutputStream();
    plain.writeTo(plainBytes);
    ByteArrayOutputStream concurrentBytes = new ByteArrayOutputStream();
    concurrent.writeTo(concurrentBytes);
    assertArrayEquals(plainBytes.toByteArray(), concurrentBytes.toByteArray());

    ConcurrentCuckooFilter<CharSequence> back =
        ConcurrentCuckooFilter.readFrom(
            new ByteArrayInputStream(concurrentBytes.toByteArray()), ItemHashers.utf8());
    assertEquals(300, back.size());
    assertEquals(5, back.seed());
    for (int i = 0; i < 300; i++) {
      assertTrue(back.mightContain("k" + i));
    }
    assertTrue(back.add("more"));
  }

  @Test
  void concurrentReadFrom_redisBloomFilter_throws() throws IOException {
    CuckooFilter<CharSequence> redis =
        CuckooFilter.builder(ItemHashers.redisUtf8()).redisBloomScheme().expectedItems(64).build();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    redis.writeTo(out);
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class,
            () ->
                ConcurrentCuckooFilter.readFrom(
                    new ByteArrayInputStream(out.toByteArray()), ItemHashers.redisUtf8()));
    assertEquals("scheme", e.field());
  }

  @Test
  void everyBuilder_commonSettingOutOfRange_rejectedWithTheSameMessage() {
    List<Supplier<FilterBuilder<CharSequence, ?>>> builders =
        List.of(
            () -> CuckooFilter.builder(ItemHashers.utf8()),
            () -> ConcurrentCuckooFilter.builder(ItemHashers.utf8()),
            () -> ShardedCuckooFilter.builder(ItemHashers.utf8()),
            () -> ScalableCuckooFilter.builder(ItemHashers.utf8()));
    for (Supplier<FilterBuilder<CharSequence, ?>> builder : builders) {
      assertRejected(
          "expectedItems: 0 (expected: 1 <= expectedItems <= 68719476736)",
          () -> builder.get().expectedItems(0));
      assertRejected(
          "expectedItems: 68719476737", () -> builder.get().expectedItems((1L << 36) + 1));
      assertRejected(
          "falsePositiveRate: 1.0 (expected: 0.0 < falsePositiveRate < 1.0)",
          () -> builder.get().falsePositiveRate(1.0));
      assertRejected("maxKicks: -1 (expected: 0 <= maxKicks <= ", () -> builder.get().maxKicks(-1));
      assertRejected("bucketSize: 0", () -> builder.get().bucketSize(0));
    }
    // the settings each builder checks its own way
    assertRejected(
        "bucketSize: 3 (expected: 2, 4 or 8)",
        () -> ScalableCuckooFilter.builder(ItemHashers.utf8()).bucketSize(3));
    assertRejected(
        "bucketSize: 3 (expected: 2, 4 or 8)",
        () -> ShardedCuckooFilter.builder(ItemHashers.utf8()).bucketSize(3));
    assertRejected(
        "bucketSize: 3 (expected: 2, 4 or 8)",
        () -> CuckooFilter.builder(ItemHashers.utf8()).bucketSize(3));
    assertRejected(
        "seed: 0 (expected: not 0", () -> ShardedCuckooFilter.builder(ItemHashers.utf8()).seed(0));
  }

  @Test
  void everyBuilder_commonSettings_reachTheFilter() {
    ScalableCuckooFilter<CharSequence> scalable =
        ScalableCuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(300)
            .bucketSize(2)
            .maxKicks(7)
            .build();
    assertEquals(2, scalable.bucketSize());
    assertEquals(7, scalable.maxKicks());
    ConcurrentCuckooFilter<CharSequence> concurrent =
        ConcurrentCuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(300)
            .bucketSize(8)
            .maxKicks(9)
            .seed(5)
            .build();
    assertEquals(8, concurrent.bucketSize());
    assertEquals(9, concurrent.maxKicks());
    ShardedCuckooFilter<CharSequence> sharded =
        ShardedCuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(300)
            .shardBits(1)
            .bucketSize(2)
            .maxKicks(11)
            .build();
    assertEquals(2, sharded.bucketSize());
    assertEquals(11, sharded.maxKicks());
  }

  @Test
  void cuckooFilterBuilder_falsePositiveRateWithRedisBloom_rejectedNamingIt() {
    assertRejected(
        "falsePositiveRate: 0.001",
        () ->
            CuckooFilter.builder(ItemHashers.redisUtf8())
                .redisBloomScheme()
                .expectedItems(100)
                .falsePositiveRate(0.001)
                .build());
  }

  private static void assertRejected(String messageStart, Runnable build) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::run);
    assertTrue(e.getMessage().startsWith(messageStart), e.getMessage());
  }
}
