package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NeighbourProbeTest {
  private static final double[] FILLS = {0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 1.0};

  /**
   * Runs the probe on one table and a slot-by-slot reference on an identical one: the first of the
   * 2·b candidates (first's slots in order, then second's) whose alternate bucket has an empty slot
   * moves there, and the new fingerprint takes its slot; else, with two moves allowed, the first of
   * the 2·b·b fingerprints of those (full) alternate buckets, in the same order, whose own
   * alternate bucket has room moves on and frees a slot for the first level's move; with no such
   * candidate nothing changes.
   */
  @ParameterizedTest
  @CsvSource({"2, 8", "2, 16", "4, 7", "4, 13", "4, 16", "8, 8"})
  void insert_equalsSlotBySlotReference(int bucketSize, int bits) {
    long seed = 0x5EEDL * bucketSize + bits;
    System.out.printf("NeighbourProbeTest b=%d f=%d seed=%d%n", bucketSize, bits, seed);
    SplittableRandom random = new SplittableRandom(seed);
    int[] outcomes = new int[3];
    for (int round = 0; round < 600; round++) {
      long roundSeed = random.nextLong();
      // fill fractions from half full to full: every outcome occurs for every b
      double fill = FILLS[random.nextInt(FILLS.length)];
      int maxMoves = 1 + random.nextInt(2);
      CuckooFilter<byte[]> probed = filledFilter(bucketSize, bits, fill, roundSeed);
      CuckooFilter<byte[]> reference = filledFilter(bucketSize, bits, fill, roundSeed);
      BucketTable table = probed.table();
      long first = random.nextLong(table.bucketCount());
      long fingerprint = 1 + random.nextLong(probed.fingerprintRange());
      long second = probed.indexer().alternateBucket(first, fingerprint);
      fillBucket(probed.table(), first, roundSeed);
      fillBucket(probed.table(), second, roundSeed + 1);
      fillBucket(reference.table(), first, roundSeed);
      fillBucket(reference.table(), second, roundSeed + 1);
      String where = "b=" + bucketSize + " f=" + bits + " round=" + round + " moves=" + maxMoves;

      boolean inserted =
          new NeighbourProbe(bucketSize)
              .insert(probed.indexer(), table, first, second, fingerprint, maxMoves);
      int level = referenceInsert(reference, first, second, fingerprint, maxMoves);
      outcomes[level]++;
      assertEquals(level > 0, inserted, where);
      assertArrayEquals(slots(reference.table()), slots(table), where);
      if (inserted) {
        assertTrue(
            table.find(first, fingerprint) >= 0 || table.find(second, fingerprint) >= 0, where);
      }
    }
    System.out.printf(
        "  no room %d, one move %d, two moves %d%n", outcomes[0], outcomes[1], outcomes[2]);
    for (int level = 0; level < 3; level++) {
      assertTrue(outcomes[level] >= 10, "outcome " + level + " exercised: " + outcomes[level]);
    }
  }

  /** Returns the number of moves the reference made: 0 (nothing changed), 1 or 2. */
  private static int referenceInsert(
      CuckooFilter<?> filter, long first, long second, long fingerprint, int maxMoves) {
    BucketTable table = filter.table();
    int b = table.bucketSize();
    for (int k = 0; k < 2 * b; k++) {
      long from = k < b ? first : second;
      int slot = k % b;
      long moved = table.get(from, slot);
      long target = filter.indexer().alternateBucket(from, moved);
      int empty = table.firstEmpty(target);
      if (empty >= 0) {
        table.set(target, empty, moved);
        table.set(from, slot, fingerprint);
        return 1;
      }
    }
    if (maxMoves < 2) {
      return 0;
    }
    for (int k = 0; k < 2 * b; k++) {
      long from = k < b ? first : second;
      int slot = k % b;
      long child = filter.indexer().alternateBucket(from, table.get(from, slot));
      for (int childSlot = 0; childSlot < b; childSlot++) {
        long moved = table.get(child, childSlot);
        long target = filter.indexer().alternateBucket(child, moved);
        int empty = table.firstEmpty(target);
        if (empty >= 0) {
          table.set(target, empty, moved);
          table.set(child, childSlot, table.get(from, slot));
          table.set(from, slot, fingerprint);
          return 2;
        }
      }
    }
    return 0;
  }

  private static CuckooFilter<byte[]> filledFilter(
      int bucketSize, int bits, double fill, long seed) {
    CuckooFilter<byte[]> filter =
        CuckooFilter.builder(ItemHashers.bytes())
            .expectedItems(512)
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
