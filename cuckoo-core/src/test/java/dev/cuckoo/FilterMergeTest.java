package dev.cuckoo;

import static dev.cuckoo.FormatTestSupport.bytesOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class FilterMergeTest {
  private static final int UNIVERSE = 4_000;

  private static CuckooFilter<CharSequence> filter(Scheme scheme, int maxKicks) {
    if (scheme == Scheme.REDISBLOOM) {
      return CuckooFilter.builder(ItemHashers.redisUtf8())
          .redisBloomScheme()
          .expectedItems(2048)
          .bucketSize(4)
          .maxKicks(maxKicks)
          .build();
    }
    return CuckooFilter.builder(ItemHashers.utf8())
        .expectedItems(2000)
        .fingerprintBits(10)
        .bucketSize(4)
        .seed(7)
        .maxKicks(maxKicks)
        .build();
  }

  /** Adds {@code n} random items (with repeats) to the filter and the multiset model. */
  private static void fill(
      CuckooFilter<CharSequence> filter, Map<String, Integer> model, Random random, int n) {
    for (int i = 0; i < n; i++) {
      String item = "k" + random.nextInt(UNIVERSE);
      if (filter.add(item)) {
        model.merge(item, 1, Integer::sum);
      }
    }
  }

  private static long[] counts(CuckooFilter<CharSequence> filter) {
    long[] counts = new long[UNIVERSE + 1000];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = filter.count("k" + i);
    }
    return counts;
  }

  @ParameterizedTest
  @EnumSource(Scheme.class)
  void addAll_randomFilters_matchesUnionOfMultisets(Scheme scheme) {
    for (long seed = 1; seed <= 30; seed++) {
      Random random = new Random(seed);
      String replay = scheme + " random seed " + seed;
      CuckooFilter<CharSequence> target = filter(scheme, 500);
      CuckooFilter<CharSequence> source = filter(scheme, 500);
      Map<String, Integer> model = new HashMap<>();
      Map<String, Integer> sourceModel = new HashMap<>();
      int slots = (int) (target.bucketCount() * target.bucketSize());
      fill(target, model, random, random.nextInt(slots / 2));
      fill(source, sourceModel, random, random.nextInt(slots * 4 / 10));
      sourceModel.forEach((item, n) -> model.merge(item, n, Integer::sum));
      long[] targetCounts = counts(target);
      long[] sourceCounts = counts(source);
      byte[] sourceBytes = bytesOf(source);
      long expectedSize = target.size() + source.size();

      assertTrue(target.addAll(source), replay);

      assertEquals(expectedSize, target.size(), replay);
      assertEquals(expectedSize, target.table().countOccupied(), replay);
      long modelSize = model.values().stream().mapToLong(Integer::longValue).sum();
      assertEquals(modelSize, target.size(), replay);
      long[] merged = counts(target);
      for (int i = 0; i < merged.length; i++) {
        assertEquals(targetCounts[i] + sourceCounts[i], merged[i], replay + ", item k" + i);
      }
      for (Map.Entry<String, Integer> entry : model.entrySet()) {
        assertTrue(target.count(entry.getKey()) >= entry.getValue(), replay + " " + entry);
      }
      assertArrayEquals(sourceBytes, bytesOf(source), replay + ": source changed");
      // removing the source's items again leaves the target's own counts
      sourceModel.forEach(
          (item, n) -> {
            for (int i = 0; i < n; i++) {
              assertTrue(target.remove(item), replay + " remove " + item);
            }
          });
      assertArrayEquals(targetCounts, counts(target), replay);
    }
  }

  @ParameterizedTest
  @EnumSource(Scheme.class)
  void addAll_pairOverflowAfterOtherMoves_returnsFalseAndLeavesTargetExactlyUnchanged(
      Scheme scheme) {
    Random random = new Random(11);
    CuckooFilter<CharSequence> target = filter(scheme, 500);
    CuckooFilter<CharSequence> source = filter(scheme, 500);
    int slots = (int) (target.bucketCount() * target.bucketSize());
    // the item's bucket pair holds 2 × bucketSize = 8 fingerprints at most: 4 + 5 cannot fit;
    // its buckets come late in the scan, so other fingerprints have moved (with kicks) before
    String item = itemWithLateBuckets(target);
    for (int i = 0; i < 4; i++) {
      assertTrue(target.add(item));
    }
    for (int i = 0; i < 5; i++) {
      assertTrue(source.add(item));
    }
    fill(target, new HashMap<>(), random, slots * 85 / 100);
    fill(source, new HashMap<>(), random, slots / 20);
    assertTrue(target.size() + source.size() <= slots, "not the early size check");
    byte[] before = bytesOf(target);
    byte[] sourceBefore = bytesOf(source);
    long size = target.size();

    assertFalse(target.addAll(source));

    assertArrayEquals(before, bytesOf(target));
    assertEquals(size, target.size());
    assertArrayEquals(sourceBefore, bytesOf(source));
  }

  /** Returns an item whose two buckets are both in the upper half of the table. */
  private static String itemWithLateBuckets(CuckooFilter<CharSequence> filter) {
    for (int i = 0; ; i++) {
      String item = "pair-" + i;
      long h = filter.indexer().remix(filter.hash(item));
      long b1 = filter.indexer().firstBucket(h);
      long b2 = filter.indexer().alternateBucket(b1, filter.indexer().fingerprint(h));
      if (Math.min(b1, b2) > filter.bucketCount() / 2) {
        return item;
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Scheme.class)
  void addAll_nearlyFullWithFewKicks_eitherSumsOrLeavesTargetUnchanged(Scheme scheme) {
    int failures = 0;
    for (long seed = 100; seed < 120; seed++) {
      Random random = new Random(seed);
      String replay = scheme + " random seed " + seed;
      CuckooFilter<CharSequence> target = filter(scheme, 3);
      CuckooFilter<CharSequence> source = filter(scheme, 3);
      int slots = (int) (target.bucketCount() * target.bucketSize());
      fill(target, new HashMap<>(), random, slots * 55 / 100);
      fill(source, new HashMap<>(), random, slots * 40 / 100);
      if (target.size() + source.size() > slots) {
        continue;
      }
      byte[] before = bytesOf(target);
      long[] targetCounts = counts(target);
      long[] sourceCounts = counts(source);
      long size = target.size();
      if (target.addAll(source)) {
        assertEquals(size + source.size(), target.size(), replay);
        long[] merged = counts(target);
        for (int i = 0; i < merged.length; i++) {
          assertEquals(targetCounts[i] + sourceCounts[i], merged[i], replay + ", item k" + i);
        }
      } else {
        failures++;
        assertArrayEquals(before, bytesOf(target), replay);
        assertEquals(size, target.size(), replay);
      }
    }
    assertTrue(failures > 0, "the failure path was never taken");
  }

  @Test
  void addAll_sizesTooLargeTogether_returnsFalseUnchanged() {
    CuckooFilter<CharSequence> target = filter(Scheme.STANDARD, 500);
    CuckooFilter<CharSequence> source = filter(Scheme.STANDARD, 500);
    int slots = (int) (target.bucketCount() * target.bucketSize());
    Random random = new Random(5);
    fill(target, new HashMap<>(), random, slots * 7 / 10);
    fill(source, new HashMap<>(), random, slots * 4 / 10);
    byte[] before = bytesOf(target);
    assertFalse(target.addAll(source));
    assertArrayEquals(before, bytesOf(target));
  }

  @Test
  void addAll_emptyOther_returnsTrueAndChangesNothing() {
    CuckooFilter<CharSequence> target = filter(Scheme.STANDARD, 500);
    target.add("a");
    byte[] before = bytesOf(target);
    assertTrue(target.addAll(filter(Scheme.STANDARD, 500)));
    assertArrayEquals(before, bytesOf(target));
  }

  @Test
  void addAll_incompatibleFilters_throwsNamingTheParameter() {
    CuckooFilter<CharSequence> base = filter(Scheme.STANDARD, 500);
    assertDiffers(
        "scheme",
        base,
        CuckooFilter.builder(ItemHashers.utf8())
            .redisBloomScheme()
            .expectedItems(2048)
            .bucketSize(4)
            .build());
    assertDiffers("seed", base, builder().seed(8).build());
    assertDiffers("bucketCount", base, builder().expectedItems(3000).build());
    assertDiffers("bucketSize", base, builder().bucketSize(2).build());
    assertDiffers("fingerprintBits", base, builder().fingerprintBits(11).build());
    CuckooFilter<CharSequence> otherHasher =
        CuckooFilter.builder(ItemHashers.redisUtf8())
            .expectedItems(2000)
            .fingerprintBits(10)
            .seed(7)
            .build();
    assertDiffers("hasher id", base, otherHasher);
    IllegalArgumentException self =
        assertThrows(IllegalArgumentException.class, () -> base.addAll(base));
    assertTrue(self.getMessage().startsWith("other"), self.getMessage());
    assertThrows(NullPointerException.class, () -> base.addAll(null));
  }

  private static CuckooFilter.Builder<CharSequence> builder() {
    return CuckooFilter.builder(ItemHashers.utf8()).expectedItems(2000).fingerprintBits(10).seed(7);
  }

  private static void assertDiffers(
      String parameter, CuckooFilter<CharSequence> target, CuckooFilter<CharSequence> other) {
    other.add("x");
    byte[] before = bytesOf(target);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> target.addAll(other));
    assertTrue(e.getMessage().startsWith(parameter + " differs"), e.getMessage());
    assertArrayEquals(before, bytesOf(target));
  }
}
