package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class CuckooFilterTest {

  /** The README's usage example, compiled and run. */
  @Test
  void readmeExample_runs() {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(1_000_000)
            .falsePositiveRate(0.001)
            .build();
    filter.add("https://example.com/");
    assertTrue(filter.mightContain("https://example.com/")); // never a false negative
    assertFalse(filter.mightContain("https://example.org/")); // true only with probability <= 0.1%
    assertEquals(1, filter.count("https://example.com/"));
    assertTrue(filter.remove("https://example.com/"));
    assertTrue(filter.isEmpty());
    assertTrue(filter.bitsPerItem() < 14);
  }

  private static byte[] payload(CuckooFilter<?> filter) {
    BucketTable table = filter.table();
    byte[] bytes = new byte[(int) table.payloadBytes()];
    table.readPayload(0, bytes, 0, bytes.length);
    return bytes;
  }

  @ParameterizedTest(name = "{0} b={1}")
  @CsvSource({"STANDARD, 2", "STANDARD, 4", "STANDARD, 8", "REDISBLOOM, 2", "REDISBLOOM, 4"})
  void add_untilFirstFailure_filterUnchangedAndNothingLost(Scheme scheme, int bucketSize) {
    for (long seed = 1; seed <= 5; seed++) {
      CuckooFilter.Builder<Long> builder = CuckooFilter.builder(ItemHashers.longs());
      // the package's own REDISBLOOM table, which the public scheme(...) refuses
      builder = scheme == Scheme.REDISBLOOM ? builder.redisBloomScheme() : builder.scheme(scheme);
      CuckooFilter<Long> filter = builder.expectedItems(5000).bucketSize(bucketSize).build();
      SplittableRandom random = new SplittableRandom(seed);
      List<Long> added = new ArrayList<>();
      while (true) {
        long key = random.nextLong();
        byte[] before = payload(filter);
        if (!filter.add(key)) {
          assertArrayEquals(before, payload(filter), "seed " + seed + ": failed add changed bytes");
          break;
        }
        added.add(key);
      }
      assertEquals(added.size(), filter.size());
      for (long key : added) {
        assertTrue(filter.mightContain(key), "seed " + seed + ": lost " + key);
      }
      // and it keeps failing without changes, also for addIfAbsent and replace
      long key = random.nextLong();
      byte[] before = payload(filter);
      for (int i = 0; i < 20 && filter.mightContain(key); i++) {
        key = random.nextLong();
      }
      if (!filter.addIfAbsent(key)) {
        assertArrayEquals(before, payload(filter));
      }
    }
  }

  @ParameterizedTest(name = "b={0}")
  @CsvSource({"2", "4", "8"})
  void add_sameItemTwiceBucketSizeTimes_nextFailsAndChangesNothing(int bucketSize) {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(10_000)
            .bucketSize(bucketSize)
            .build();
    for (int i = 0; i < 100; i++) {
      filter.add("other" + i);
    }
    for (int i = 0; i < 2 * bucketSize; i++) {
      assertTrue(filter.add("dup"), "copy " + (i + 1));
    }
    assertEquals(2 * bucketSize, filter.count("dup"));
    byte[] before = payload(filter);
    long size = filter.size();
    assertFalse(filter.add("dup"));
    assertArrayEquals(before, payload(filter));
    assertEquals(size, filter.size());
    assertFalse(filter.addIfAbsent("dup"));
    for (int i = 0; i < 2 * bucketSize; i++) {
      assertTrue(filter.remove("dup"));
    }
    assertFalse(filter.remove("dup"));
    assertEquals(0, filter.count("dup"));
    for (int i = 0; i < 100; i++) {
      assertTrue(filter.mightContain("other" + i));
    }
  }

  @Test
  void replace_presentOld_swapsAtomically() {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(100).build();
    filter.add("old");
    assertTrue(filter.replace("old", "new"));
    assertTrue(filter.mightContain("new"));
    assertEquals(0, filter.count("old"));
    assertEquals(1, filter.size());
    byte[] before = payload(filter);
    assertFalse(filter.replace("missing", "x"));
    assertArrayEquals(before, payload(filter));
    assertEquals(1, filter.size());
  }

  @Test
  void replace_newDoesNotFit_nothingChanges() {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(100).bucketSize(2).build();
    for (int i = 0; i < 4; i++) {
      assertTrue(filter.add("dup"));
    }
    filter.add("old");
    byte[] before = payload(filter);
    long size = filter.size();
    // "dup" already fills both of its buckets: the replacement cannot be stored
    assertFalse(filter.replace("old", "dup"));
    assertArrayEquals(before, payload(filter));
    assertEquals(size, filter.size());
    assertTrue(filter.mightContain("old"));
  }

  @Test
  void clear_afterAdds_emptiesEverything() {
    CuckooFilter<Long> filter =
        CuckooFilter.builder(ItemHashers.longs()).expectedItems(1000).build();
    for (long i = 0; i < 900; i++) {
      filter.add(i);
    }
    filter.clear();
    assertTrue(filter.isEmpty());
    assertEquals(0, filter.loadFactor());
    assertEquals(0, filter.expectedFalsePositiveRate());
    for (long i = 0; i < 900; i++) {
      assertFalse(filter.mightContain(i));
    }
  }

  @Test
  void properties_defaultBuilder_documentedDefaults() {
    CuckooFilter<Long> filter =
        CuckooFilter.builder(ItemHashers.longs()).expectedItems(100_000).build();
    assertEquals(Scheme.STANDARD_FAST, filter.scheme());
    assertEquals(4, filter.bucketSize());
    assertEquals(500, filter.maxKicks());
    assertEquals(0, filter.seed());
    assertEquals(10, filter.fingerprintBits()); // ε = 1%: ceil(log2(2·4·0.945/0.01 + 1)) = 10
    assertTrue(filter.falsePositiveRateAtCapacity() <= 0.01);
    assertEquals(0, filter.bucketCount() % 2);
    assertTrue(filter.capacity() >= 100_000);
    long payload = filter.bucketCount() * 4 * 10 / 8;
    assertTrue(filter.sizeInBytes() >= payload && filter.sizeInBytes() <= payload * 1.01 + 20_000);
    assertTrue(filter.toString().contains("STANDARD"));
  }

  @Test
  void hashLevel_longKeys_equalItemLevel() {
    CuckooFilter<Long> a =
        CuckooFilter.builder(ItemHashers.longs()).expectedItems(1000).seed(9).build();
    CuckooFilter<Long> b =
        CuckooFilter.builder(ItemHashers.longs()).expectedItems(1000).seed(9).build();
    for (long key = 0; key < 900; key++) {
      a.add(key);
      b.addHash(ItemHashers.hashLong(key));
    }
    assertArrayEquals(payload(a), payload(b));
    for (long key = 0; key < 2000; key++) {
      assertEquals(a.mightContain(key), b.mightContainHash(ItemHashers.hashLong(key)));
      assertEquals(a.count(key), b.countHash(ItemHashers.hashLong(key)));
    }
  }

  @Test
  void seed_differentSeeds_independentFalsePositives() {
    CuckooFilter<Long> a =
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(10_000)
            .fingerprintBits(6)
            .seed(1)
            .build();
    CuckooFilter<Long> b =
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(10_000)
            .fingerprintBits(6)
            .seed(2)
            .build();
    for (long key = 0; key < 10_000; key++) {
      a.add(key);
      b.add(key);
    }
    long onlyA = 0;
    long both = 0;
    for (long key = 10_000; key < 110_000; key++) {
      boolean inA = a.mightContain(key);
      boolean inB = b.mightContain(key);
      onlyA += inA ? 1 : 0;
      both += inA && inB ? 1 : 0;
    }
    double rate = onlyA / 100_000.0;
    // independent: P(both) ≈ rate²; identical hashing would give P(both) = rate
    assertTrue(both < 100_000 * rate * rate * 2 + 50, "both " + both + " rate " + rate);
  }

  @Test
  void builder_badArguments_namedInMessage() {
    CuckooFilter.Builder<Long> builder = CuckooFilter.builder(ItemHashers.longs());
    assertMessage(
        IllegalArgumentException.class, () -> builder.expectedItems(0), "expectedItems: 0");
    assertMessage(
        IllegalArgumentException.class, () -> builder.expectedItems(-5), "expectedItems: -5");
    assertMessage(
        IllegalArgumentException.class,
        () -> builder.expectedItems(Long.MAX_VALUE),
        "expectedItems");
    assertMessage(
        IllegalArgumentException.class,
        () -> builder.falsePositiveRate(0),
        "falsePositiveRate: 0.0");
    assertMessage(
        IllegalArgumentException.class,
        () -> builder.falsePositiveRate(1),
        "falsePositiveRate: 1.0");
    assertMessage(
        IllegalArgumentException.class,
        () -> builder.falsePositiveRate(Double.NaN),
        "falsePositiveRate: NaN");
    assertMessage(
        IllegalArgumentException.class, () -> builder.fingerprintBits(40), "fingerprintBits: 40");
    assertMessage(
        IllegalArgumentException.class, () -> builder.fingerprintBits(3), "fingerprintBits: 3");
    assertMessage(IllegalArgumentException.class, () -> builder.maxKicks(-1), "maxKicks: -1");
    assertMessage(
        IllegalArgumentException.class,
        () -> CuckooFilter.builder(ItemHashers.longs()).expectedItems(10).bucketSize(3).build(),
        "bucketSize: 3");
    assertMessage(
        IllegalArgumentException.class,
        () ->
            CuckooFilter.builder(ItemHashers.longs())
                .expectedItems(10)
                .falsePositiveRate(1e-12)
                .build(),
        "falsePositiveRate: 1.0E-12");
    assertMessage(
        IllegalArgumentException.class,
        () ->
            CuckooFilter.builder(ItemHashers.longs())
                .expectedItems(60_000_000_000L)
                .bucketSize(2)
                .build(),
        "expectedItems: 60000000000");
    assertMessage(
        IllegalArgumentException.class,
        () ->
            CuckooFilter.builder(ItemHashers.longs())
                .redisBloomScheme()
                .expectedItems(10)
                .fingerprintBits(12)
                .build(),
        "fingerprintBits: 12");
    assertMessage(
        IllegalStateException.class,
        () -> CuckooFilter.builder(ItemHashers.longs()).build(),
        "expectedItems");
    assertMessage(NullPointerException.class, () -> CuckooFilter.builder(null), "hasher");
    assertMessage(NullPointerException.class, () -> builder.scheme(null), "scheme");
    CuckooFilter<Long> filter = CuckooFilter.builder(ItemHashers.longs()).expectedItems(10).build();
    assertMessage(NullPointerException.class, () -> filter.add(null), "item");
    assertMessage(NullPointerException.class, () -> filter.mightContain(null), "item");
    assertMessage(NullPointerException.class, () -> filter.remove(null), "item");
    assertMessage(NullPointerException.class, () -> filter.replace(1L, null), "item");
  }

  private static void assertMessage(Class<? extends Throwable> type, Executable call, String text) {
    Throwable thrown = assertThrows(type, call);
    assertTrue(
        thrown.getMessage().contains(text),
        "message '" + thrown.getMessage() + "' lacks '" + text + "'");
  }

  @ParameterizedTest
  @EnumSource(Scheme.class)
  void scheme_id_roundTrips(Scheme scheme) {
    assertEquals(scheme, Scheme.byId(scheme.id()));
  }

  @Test
  void builderScheme_redisBloom_refusedNamingRedisCuckooFilterReserve() {
    CuckooFilter.Builder<CharSequence> builder =
        CuckooFilter.builder(ItemHashers.redisUtf8()).expectedItems(1000);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> builder.scheme(Scheme.REDISBLOOM));
    assertEquals(
        "scheme: REDISBLOOM (expected: STANDARD or STANDARD_FAST; a CuckooFilter does not take"
            + " REDISBLOOM: use RedisCuckooFilter.reserve(capacity, bucketSize, maxIterations,"
            + " expansion), expansion 0 for a filter that never grows)",
        e.getMessage());
    // the refused call left the builder as it was: a STANDARD_FAST filter
    assertEquals(Scheme.STANDARD_FAST, builder.build().scheme());
    assertEquals(Scheme.STANDARD, builder.scheme(Scheme.STANDARD).build().scheme());
  }

  @Test
  void builderBucketSize_redisBloomSizes_refusedWhenSet() {
    CuckooFilter.Builder<CharSequence> builder = CuckooFilter.builder(ItemHashers.utf8());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> builder.bucketSize(3));
    assertEquals("bucketSize: 3 (expected: 2, 4 or 8)", e.getMessage());
  }

  @Test
  void redisBloom_geometry_likeRedisBloom() {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.redisUtf8())
            .redisBloomScheme()
            .expectedItems(1000)
            .build();
    assertEquals(512, filter.bucketCount());
    assertEquals(2, filter.bucketSize());
    assertEquals(8, filter.fingerprintBits());
    assertEquals(20, filter.maxKicks());
    assertEquals(1024, filter.capacity());
    CuckooFilter<CharSequence> wide =
        CuckooFilter.builder(ItemHashers.redisUtf8())
            .redisBloomScheme()
            .expectedItems(200)
            .bucketSize(10)
            .build();
    assertEquals(32, wide.bucketCount());
  }
}
