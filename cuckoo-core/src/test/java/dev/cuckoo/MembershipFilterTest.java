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
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shared interface used across the three filter types, and the builders' rejections. */
class MembershipFilterTest {
  private static List<MembershipFilter<CharSequence>> filters() {
    return List.of(
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(1000).build(),
        ConcurrentCuckooFilter.builder(ItemHashers.utf8()).expectedItems(1000).build(),
        ScalableCuckooFilter.builder(ItemHashers.utf8()).expectedItems(100).build(),
        ScalableCuckooFilter.builder(ItemHashers.redisUtf8())
            .scheme(Scheme.REDISBLOOM)
            .expectedItems(100)
            .build());
  }

  @Test
  void itemAndHashOperations_everyType_agree() {
    for (MembershipFilter<CharSequence> filter : filters()) {
      String where = filter.getClass().getSimpleName() + " " + filter.scheme();
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
      assertTrue(filter.loadFactor() > 0 && filter.loadFactor() <= 1, where);
      assertTrue(filter.expectedFalsePositiveRate() > 0, where);
      assertTrue(
          filter.expectedFalsePositiveRate() <= filter.falsePositiveRateAtCapacity() + 1e-12,
          where);
      assertTrue(filter.capacity() >= 500, where);
      assertTrue(filter.sizeInBytes() > 0, where);
      filter.clear();
      assertTrue(filter.isEmpty(), where);
    }
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
