package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BatchLookupTest {
  private static final long SEED = TestSeeds.seed();

  private static String replay() {
    return "replay with seed " + SEED;
  }

  /** Filters of every table shape: SWAR words of several widths, a non-SWAR one, both schemes. */
  private static List<CuckooFilter<CharSequence>> filters() {
    return List.of(
        CuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(3000)
            .falsePositiveRate(0.001)
            .build(),
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(3000).fingerprintBits(4).build(),
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(3000).fingerprintBits(16).build(),
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(3000).fingerprintBits(32).build(),
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(3000).bucketSize(2).seed(42).build(),
        CuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(3000)
            .bucketSize(8)
            .fingerprintBits(7)
            .build(),
        CuckooFilter.builder(ItemHashers.redisUtf8())
            .expectedItems(3000)
            .redisBloomScheme()
            .build());
  }

  @Test
  void mightContainAll_randomHashes_equalsSingleLookups() {
    SplittableRandom random = new SplittableRandom(SEED);
    for (CuckooFilter<CharSequence> filter : filters()) {
      long[] hashes = new long[5000];
      for (int i = 0; i < hashes.length; i++) {
        hashes[i] = random.nextLong();
        if (i % 2 == 0) {
          filter.addHash(hashes[i]);
        }
      }
      // low fingerprint widths make many false positives, so both answers occur often
      for (int trial = 0; trial < 200; trial++) {
        int from = random.nextInt(hashes.length + 1);
        int to = from + random.nextInt(hashes.length - from + 1);
        assertRange(filter, hashes, from, to);
      }
      assertRange(filter, hashes, 0, hashes.length);
    }
  }

  @Test
  void mightContainAll_edgeRanges_equalsSingleLookups() {
    SplittableRandom random = new SplittableRandom(SEED + 1);
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(1000).fingerprintBits(6).build();
    long[] hashes = random.longs(300).toArray();
    for (int i = 0; i < hashes.length; i += 3) {
      filter.addHash(hashes[i]);
    }
    int[] lengths = {0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 192, 299};
    for (int length : lengths) {
      for (int from : new int[] {0, 1, 63, 64, 300 - length}) {
        if (from + length <= hashes.length) {
          assertRange(filter, hashes, from, from + length);
        }
      }
    }
  }

  @Test
  void mightContainAll_emptyRange_touchesNoWord() {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(10).build();
    long[] bits = {-1L};
    filter.mightContainAll(new long[] {1, 2, 3}, 2, 2, bits);
    filter.mightContainAll(new String[] {"a"}, 1, 1, bits);
    assertEquals(-1L, bits[0]);
  }

  @Test
  void mightContainAll_items_equalsSingleLookups() {
    SplittableRandom random = new SplittableRandom(SEED + 2);
    for (CuckooFilter<CharSequence> filter : filters()) {
      String[] items = new String[700];
      for (int i = 0; i < items.length; i++) {
        items[i] = "https://example.com/" + Long.toHexString(random.nextLong());
        if (i % 3 != 0) {
          assertTrue(filter.add(items[i]), replay());
        }
      }
      for (int trial = 0; trial < 50; trial++) {
        int from = random.nextInt(items.length + 1);
        int to = from + random.nextInt(items.length - from + 1);
        long[] bits = filledWords(to - from + 64);
        filter.mightContainAll(items, from, to, bits);
        for (int i = from; i < to; i++) {
          assertEquals(filter.mightContain(items[i]), bit(bits, i - from), replay() + " at " + i);
        }
        for (int i = 0; i < items.length; i += 3) {
          // added items are never reported absent
          if (i % 3 != 0 && i >= from && i < to) {
            assertTrue(bit(bits, i - from), replay());
          }
        }
        assertUnusedBits(bits, to - from);
      }
    }
  }

  @Test
  void mightContainAll_badRange_throwsNamingTheRange() {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(10).build();
    long[] bits = new long[4];
    long[] hashes = new long[10];
    IndexOutOfBoundsException e =
        assertThrows(
            IndexOutOfBoundsException.class, () -> filter.mightContainAll(hashes, 5, 11, bits));
    assertTrue(e.getMessage().contains("[5, 11)"), e.getMessage());
    assertThrows(
        IndexOutOfBoundsException.class, () -> filter.mightContainAll(hashes, -1, 3, bits));
    assertThrows(IndexOutOfBoundsException.class, () -> filter.mightContainAll(hashes, 4, 3, bits));
    assertThrows(
        IndexOutOfBoundsException.class, () -> filter.mightContainAll(new String[2], 0, 3, bits));
  }

  @Test
  void mightContainAll_shortResult_throwsNamingTheLength() {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(10).build();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> filter.mightContainAll(new long[65], 0, 65, new long[1]));
    assertTrue(e.getMessage().contains("resultBits.length: 1"), e.getMessage());
    assertThrows(
        NullPointerException.class, () -> filter.mightContainAll((long[]) null, 0, 0, new long[1]));
    assertThrows(NullPointerException.class, () -> filter.mightContainAll(new long[1], 0, 1, null));
    assertThrows(
        NullPointerException.class,
        () -> filter.mightContainAll(new String[] {"a", null}, 0, 2, new long[1]));
  }

  private static void assertRange(CuckooFilter<?> filter, long[] hashes, int from, int to) {
    long[] bits = filledWords(to - from + 64);
    filter.mightContainAll(hashes, from, to, bits);
    for (int i = from; i < to; i++) {
      assertEquals(
          filter.mightContainHash(hashes[i]),
          bit(bits, i - from),
          replay() + ": " + filter + " range [" + from + ", " + to + ") at " + i);
    }
    assertUnusedBits(bits, to - from);
  }

  /** Words after the results are untouched; bits after the last result in its word are clear. */
  private static void assertUnusedBits(long[] bits, int count) {
    int words = (count + 63) >>> 6;
    if ((count & 63) != 0) {
      assertEquals(0, bits[words - 1] >>> (count & 63), replay() + ": high bits of the last word");
    }
    for (int w = words; w < bits.length; w++) {
      assertEquals(-1L, bits[w], replay() + ": word " + w + " after the results");
    }
  }

  private static long[] filledWords(int bitCount) {
    long[] words = new long[(bitCount + 63) >>> 6];
    Arrays.fill(words, -1L);
    return words;
  }

  private static boolean bit(long[] words, int index) {
    return (words[index >>> 6] >>> index & 1) != 0;
  }
}
