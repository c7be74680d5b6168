package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
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
        ScalableCuckooFilter.builder(ItemHashers.redisUtf8())
            .scheme(Scheme.REDISBLOOM)
            .expectedItems(100)
            .build());
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
            ScalableCuckooFilter.builder(ItemHashers.redisUtf8())
                .scheme(Scheme.REDISBLOOM)
                .expectedItems(8)
                .expansion(0)
                .build(),
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
        case FULL -> throw new IllegalStateException("filter full after " + stored + " items");
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
      assertEquals(filter instanceof ScalableCuckooFilter, file.isChain());
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
        CuckooFilter.builder(ItemHashers.redisUtf8())
            .scheme(Scheme.REDISBLOOM)
            .expectedItems(64)
            .build();
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
  @SuppressWarnings("deprecation") // compares with the deprecated factory
  void scalableBuilder_redisBloom_sameFilterAsRedisBloomFactory() {
    int[][] settings = {{1000, 2, 20, 1}, {64, 4, 50, 2}, {500, 1, 1, 0}, {30, 3, 7, 3}};
    for (int[] setting : settings) {
      ScalableCuckooFilter<byte[]> factory =
          ScalableCuckooFilter.redisBloom(setting[0], setting[1], setting[2], setting[3]);
      ScalableCuckooFilter<byte[]> built =
          ScalableCuckooFilter.builder(ItemHashers.redisBytes())
              .scheme(Scheme.REDISBLOOM)
              .bucketSize(setting[1])
              .expectedItems(setting[0])
              .maxKicks(setting[2])
              .expansion(setting[3])
              .build();
      for (int i = 0; i < 3 * setting[0]; i++) {
        byte[] item = ("x" + i).getBytes(StandardCharsets.UTF_8);
        assertEquals(factory.tryAdd(item), built.tryAdd(item));
      }
      assertEquals(factory.redisDebug(), built.redisDebug());
      for (long it = 0; ; ) {
        ScanDumpChunk expected = factory.scanDump(it);
        ScanDumpChunk actual = built.scanDump(it);
        assertEquals(expected.iterator(), actual.iterator());
        assertArrayEquals(expected.data(), actual.data());
        if (expected.iterator() == 0) {
          break;
        }
        it = expected.iterator();
      }
    }
  }

  @Test
  void scalableBuilder_redisBloomDefaults_areCfReserveDefaults() {
    ScalableCuckooFilter<byte[]> filter =
        ScalableCuckooFilter.builder(ItemHashers.redisBytes())
            .scheme(Scheme.REDISBLOOM)
            .expectedItems(1000)
            .build();
    assertEquals(
        "bktsize:2 buckets:512 items:0 deletes:0 filters:1 max_iterations:20 expansion:1",
        filter.redisDebug());
  }

  @Test
  void scalableBuilder_settingOfTheOtherScheme_rejectedNamingIt() {
    assertRejected(
        "falsePositiveRate: 0.01",
        () ->
            ScalableCuckooFilter.builder(ItemHashers.redisBytes())
                .scheme(Scheme.REDISBLOOM)
                .expectedItems(100)
                .falsePositiveRate(0.01)
                .build());
    assertRejected(
        "growthFactor: 2.0",
        () ->
            ScalableCuckooFilter.builder(ItemHashers.redisBytes())
                .scheme(Scheme.REDISBLOOM)
                .expectedItems(100)
                .growthFactor(2)
                .build());
    assertRejected(
        "seed: 3",
        () ->
            ScalableCuckooFilter.builder(ItemHashers.redisBytes())
                .scheme(Scheme.REDISBLOOM)
                .expectedItems(100)
                .seed(3)
                .build());
    assertRejected(
        "expansion: 2",
        () ->
            ScalableCuckooFilter.builder(ItemHashers.utf8())
                .expectedItems(100)
                .expansion(2)
                .build());
    assertRejected(
        "maxKicks: 0",
        () ->
            ScalableCuckooFilter.builder(ItemHashers.redisBytes())
                .scheme(Scheme.REDISBLOOM)
                .expectedItems(100)
                .maxKicks(0)
                .build());
    assertRejected(
        "bucketSize: 3",
        () ->
            ScalableCuckooFilter.builder(ItemHashers.utf8())
                .scheme(Scheme.REDISBLOOM)
                .bucketSize(3)
                .scheme(Scheme.STANDARD)
                .expectedItems(100)
                .build());
    assertRejected(
        "expectedItems: 68719476737",
        () ->
            ScalableCuckooFilter.builder(ItemHashers.utf8()).expectedItems((1L << 36) + 1).build());
  }

  @Test
  void cuckooFilterBuilder_falsePositiveRateWithRedisBloom_rejectedNamingIt() {
    assertRejected(
        "falsePositiveRate: 0.001",
        () ->
            CuckooFilter.builder(ItemHashers.redisUtf8())
                .scheme(Scheme.REDISBLOOM)
                .expectedItems(100)
                .falsePositiveRate(0.001)
                .build());
  }

  @Test
  @SuppressWarnings("deprecation") // the deprecated alias
  void scalableBuilder_initialCapacity_aliasOfExpectedItems() {
    ScalableCuckooFilter<CharSequence> alias =
        ScalableCuckooFilter.builder(ItemHashers.utf8()).initialCapacity(300).build();
    ScalableCuckooFilter<CharSequence> named =
        ScalableCuckooFilter.builder(ItemHashers.utf8()).expectedItems(300).build();
    assertEquals(named.capacity(), alias.capacity());
    assertEquals(named.baseBucketCount(), alias.baseBucketCount());
  }

  private static void assertRejected(String messageStart, Runnable build) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::run);
    assertTrue(e.getMessage().startsWith(messageStart), e.getMessage());
  }
}
