package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NeighbourProbeTest {
  /**
   * Runs the probe on one table and a slot-by-slot reference on an identical one: the first of
   * the 2·b candidates (first's slots in order, then second's) whose alternate bucket has an empty
   * slot moves there, and the new fingerprint takes its slot; with no such candidate nothing
   * changes.
   */
  @ParameterizedTest
  @CsvSource({"2, 8", "2, 16", "4, 7", "4, 13", "4, 16", "8, 8"})
  void insert_equalsSlotBySlotReference(int bucketSize, int bits) {
    long seed = 0x5EEDL * bucketSize + bits;
    System.out.printf("NeighbourProbeTest b=%d f=%d seed=%d%n", bucketSize, bits, seed);
    SplittableRandom random = new SplittableRandom(seed);
    int found = 0;
    int notFound = 0;
    for (int round = 0; round < 400; round++) {
      long roundSeed = random.nextLong();
      // fill fraction from 0.5 to 1, mostly near 1: both outcomes occur for every b
      double u = random.nextDouble();
      double fill = 1 - 0.5 * u * u;
      CuckooFilter<byte[]> probed = filledFilter(bucketSize, bits, fill, roundSeed);
      CuckooFilter<byte[]> reference = filledFilter(bucketSize, bits, fill, roundSeed);
      BucketTable table = probed.table();
      long first = random.nextLong(table.bucketCount());
      long fingerprint = 1 + random.nextLong(probed.fingerprintRange());
      long second = probed.alternateBucket(first, fingerprint);
      fillBucket(probed.table(), first, roundSeed);
      fillBucket(probed.table(), second, roundSeed + 1);
      fillBucket(reference.table(), first, roundSeed);
      fillBucket(reference.table(), second, roundSeed + 1);
      String where = "b=" + bucketSize + " f=" + bits + " round=" + round;

      boolean inserted =
          new NeighbourProbe(bucketSize).insert(probed, table, first, second, fingerprint);
      boolean expected = referenceInsert(reference, first, second, fingerprint);
      assertEquals(expected, inserted, where);
      assertArrayEquals(slots(reference.table()), slots(table), where);
      if (inserted) {
        found++;
        assertTrue(
            table.find(first, fingerprint) >= 0 || table.find(second, fingerprint) >= 0, where);
      } else {
        notFound++;
      }
    }
    System.out.printf("  %d inserted, %d with no free neighbour%n", found, notFound);
    assertTrue(found > 20 && notFound > 20, "both outcomes exercised: " + found + "/" + notFound);
  }

  private static boolean referenceInsert(
      CuckooFilter<?> filter, long first, long second, long fingerprint) {
    BucketTable table = filter.table();
    int b = table.bucketSize();
    for (int k = 0; k < 2 * b; k++) {
      long from = k < b ? first : second;
      int slot = k % b;
      long moved = table.get(from, slot);
      long target = filter.alternateBucket(from, moved);
      int empty = table.firstEmpty(target);
      if (empty >= 0) {
        table.set(target, empty, moved);
        table.set(from, slot, fingerprint);
        return true;
      }
    }
    return false;
  }

  private static CuckooFilter<byte[]> filledFilter(
      int bucketSize, int bits, double fill, long seed) {
    CuckooFilter<byte[]> filter =
        CuckooFilter.builder(ItemHashers.bytes())
            .expectedItems(64)
            .bucketSize(bucketSize)
            .fingerprintBits(bits)
            .build();
    BucketTable table = filter.table();
    SplittableRandom random = new SplittableRandom(seed);
    for (long bucket = 0; bucket < table.bucketCount(); bucket++) {
      for (int slot = 0; slot < bucketSize; slot++) {
        if (random.nextDouble() < fill) {
          table.set(bucket, slot, 1 + random.nextLong(filter.fingerprintRange()));
        }
      }
    }
    return filter;
  }

  private static void fillBucket(BucketTable table, long bucket, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long range = (1L << table.fingerprintBits()) - 1;
    for (int slot = 0; slot < table.bucketSize(); slot++) {
      table.set(bucket, slot, 1 + random.nextLong(range));
    }
  }

  private static long[] slots(BucketTable table) {
    int b = table.bucketSize();
    long[] all = new long[(int) table.bucketCount() * b];
    for (long bucket = 0; bucket < table.bucketCount(); bucket++) {
      for (int slot = 0; slot < b; slot++) {
        all[(int) bucket * b + slot] = table.get(bucket, slot);
      }
    }
    return all;
  }
}
