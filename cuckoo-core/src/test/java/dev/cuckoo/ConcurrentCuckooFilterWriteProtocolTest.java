package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * White-box check of the writers' half of the lookup guarantee: every operation that changes a
 * stripe's bytes advances that stripe's version by a positive even number (a write was opened and
 * closed on it), and leaves every version even. A relocation that forgot one of its stripes would
 * fail here, while a stress test would almost never catch the nanosecond race it opens.
 */
class ConcurrentCuckooFilterWriteProtocolTest {

  @Test
  void everyOperation_changedStripes_versionAdvancedByEvenAmount() {
    long seed = TestSeeds.seed();
    SplittableRandom random = new SplittableRandom(seed);
    for (int bucketSize : new int[] {2, 4, 8}) {
      ConcurrentCuckooFilter<Long> f =
          ConcurrentCuckooFilter.<Long>builder(ItemHashers.longs())
              .expectedItems(3000)
              .bucketSize(bucketSize)
              .fingerprintBits(4 + random.nextInt(13))
              .stripes(64)
              .build();
      LockStripes stripes = f.lockStripes();
      BucketTable table = f.table();
      long relocatedBefore = 0;
      int relocationsChecked = 0;
      for (int step = 0; step < 20_000; step++) {
        byte[][] before = stripeBytes(table, stripes);
        long[] versions = versions(stripes);
        long key = random.nextLong(5000);
        int op = random.nextInt(10);
        if (op < 6) {
          f.add(key);
        } else if (op < 8) {
          f.remove(key);
        } else if (op < 9) {
          f.replace(key, random.nextLong(5000));
        } else {
          f.addIfAbsent(key);
        }
        byte[][] after = stripeBytes(table, stripes);
        for (int s = 0; s < stripes.count(); s++) {
          long advanced = stripes.version(s) - versions[s];
          String where = "seed " + seed + " b " + bucketSize + " step " + step + " stripe " + s;
          assertEquals(0, stripes.version(s) & 1, where);
          if (!Arrays.equals(before[s], after[s])) {
            assertTrue(advanced >= 2, where + ": bytes changed, version advanced " + advanced);
          }
        }
        if (f.relocations() > relocatedBefore) {
          relocationsChecked++;
          relocatedBefore = f.relocations();
        }
      }
      assertTrue(relocationsChecked > 100, "only " + relocationsChecked + " relocations");
    }
  }

  private static long[] versions(LockStripes stripes) {
    long[] versions = new long[stripes.count()];
    for (int s = 0; s < versions.length; s++) {
      versions[s] = stripes.version(s);
    }
    return versions;
  }

  /** The payload bytes of each stripe: stripes are byte-aligned ranges of buckets. */
  private static byte[][] stripeBytes(BucketTable table, LockStripes stripes) {
    long bytesPerStripe =
        stripes.bucketsPerStripe() * table.bucketSize() * table.fingerprintBits() / 8;
    byte[][] result = new byte[stripes.count()][];
    for (int s = 0; s < result.length; s++) {
      long from = s * bytesPerStripe;
      int length = (int) Math.min(bytesPerStripe, table.payloadBytes() - from);
      result[s] = new byte[length];
      table.readPayload(from, result[s], 0, length);
    }
    return result;
  }
}
