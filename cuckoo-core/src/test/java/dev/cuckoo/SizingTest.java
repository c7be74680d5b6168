package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SizingTest {

  @ParameterizedTest(name = "n={0}")
  @ValueSource(longs = {10_000, 1_000_000, 10_000_000})
  void build_rate0001bucket4_atMost13point9BitsPerItem(long n) {
    CuckooFilter<Long> filter =
        CuckooFilter.builder(ItemHashers.longs()).expectedItems(n).falsePositiveRate(0.001).build();
    System.out.printf(
        "n=%d: f=%d buckets=%d capacity=%d bits/item=%.3f%n",
        n, filter.fingerprintBits(), filter.bucketCount(), filter.capacity(), filter.bitsPerItem());
    assertEquals(13, filter.fingerprintBits());
    assertTrue(filter.bitsPerItem() <= 13.9, "bits/item " + filter.bitsPerItem());
    assertTrue(filter.falsePositiveRateAtCapacity() <= 0.001);
    assertTrue(filter.capacity() >= n);
  }

  @Test
  void build_expectedItems_neverFailsToHoldThem() {
    SplittableRandom sizes = new SplittableRandom(7);
    int[] bucketSizes = {2, 4, 8};
    for (int run = 0; run < 600; run++) {
      int bucketSize = bucketSizes[run % 3];
      long n = run < 300 ? 1 + sizes.nextInt(200) : 1 + sizes.nextInt(20_000);
      long seed = sizes.nextLong();
      CuckooFilter<Long> filter =
          CuckooFilter.builder(ItemHashers.longs())
              .expectedItems(n)
              .bucketSize(bucketSize)
              .seed(seed)
              .build();
      SplittableRandom keys = new SplittableRandom(seed);
      for (long i = 0; i < filter.capacity(); i++) {
        long hash = keys.nextLong();
        assertTrue(
            filter.addHash(hash),
            "insert "
                + i
                + " of capacity "
                + filter.capacity()
                + " failed: n="
                + n
                + " b="
                + bucketSize
                + " seed="
                + seed);
      }
    }
  }

  @Test
  void build_million_expectedItemsAlwaysFit() {
    for (long seed = 1; seed <= 3; seed++) {
      CuckooFilter<Long> filter =
          CuckooFilter.builder(ItemHashers.longs())
              .expectedItems(1_000_000)
              .falsePositiveRate(0.001)
              .seed(seed)
              .build();
      SplittableRandom keys = new SplittableRandom(seed);
      for (long i = 0; i < filter.capacity(); i++) {
        assertTrue(filter.addHash(keys.nextLong()), "seed " + seed + " insert " + i);
      }
    }
  }
}
