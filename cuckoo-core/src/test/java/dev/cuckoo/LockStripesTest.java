package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The seqlock protocol of {@link LockStripes} and the narrow writes it relies on. */
class LockStripesTest {

  @Test
  void isUnchanged_noWriteBetween_true() {
    LockStripes stripes = new LockStripes(1024, 16);
    long v1 = stripes.readVersion(3);
    long v2 = stripes.readVersion(9);
    stripes.startRead();
    assertTrue(stripes.isUnchanged(3, v1, 9, v2));
  }

  @Test
  void isUnchanged_writeOpenOrCompletedBetween_false() {
    LockStripes stripes = new LockStripes(1024, 16);
    long v1 = stripes.readVersion(3);
    long v2 = stripes.readVersion(9);
    stripes.lock(9);
    stripes.beginWrite(9);
    assertEquals(1, stripes.readVersion(9) & 1, "odd while a write is open");
    assertFalse(stripes.isUnchanged(3, v1, 9, v2));
    long during = stripes.readVersion(9);
    assertFalse(stripes.isUnchanged(3, v1, 9, during), "odd version never validates");
    stripes.endWrite(9);
    stripes.unlock(9);
    assertFalse(stripes.isUnchanged(3, v1, 9, v2), "a completed write is seen too");
    assertEquals(v2 + 2, stripes.version(9));
    assertEquals(v1, stripes.version(3));
  }

  @Test
  void constructor_smallOrOddTables_stripesOfAtLeastEightBuckets() {
    assertEquals(1, new LockStripes(2, 1024).count());
    assertEquals(1, new LockStripes(8, 1024).count());
    assertEquals(2, new LockStripes(10, 1024).count());
    LockStripes stripes = new LockStripes(1_000_002, 1024);
    assertEquals(1024, stripes.bucketsPerStripe());
    assertEquals(977, stripes.count());
    assertEquals(976, stripes.stripeOf(1_000_001));
  }

  @Test
  void setNarrow_everyGeometry_changesOnlyTheSlotsBits() {
    SplittableRandom random = new SplittableRandom(7);
    for (int bucketSize : new int[] {1, 2, 3, 4, 8}) {
      for (int bits = 4; bits <= 32; bits++) {
        PlainBucketTable table = new PlainBucketTable(64, bucketSize, bits);
        PlainBucketTable reference = new PlainBucketTable(64, bucketSize, bits);
        long mask = (1L << bits) - 1;
        for (int i = 0; i < 2000; i++) {
          long bucket = random.nextInt(64);
          int slot = random.nextInt(bucketSize);
          long fingerprint = random.nextLong() & mask;
          table.setNarrow(bucket, slot, fingerprint);
          reference.set(bucket, slot, fingerprint);
          assertEquals(fingerprint, table.get(bucket, slot));
        }
        byte[] actual = new byte[(int) table.payloadBytes()];
        byte[] expected = new byte[actual.length];
        table.readPayload(0, actual, 0, actual.length);
        reference.readPayload(0, expected, 0, expected.length);
        assertArrayEquals(expected, actual, "b=" + bucketSize + " f=" + bits);
      }
    }
  }

  @Test
  void setNarrow_lastSlotOfStripe_leavesNextStripesBytes() {
    for (int bits = 4; bits <= 32; bits++) {
      PlainBucketTable table = new PlainBucketTable(16, 4, bits);
      long bucketBytes = 4L * bits; // 8 buckets = 4·bits bytes
      byte[] before = new byte[(int) table.payloadBytes()];
      table.page(0)[(int) bucketBytes] = (byte) 0xA5; // first byte of bucket 8, the next stripe
      table.readPayload(0, before, 0, before.length);
      table.setNarrow(7, 3, (1L << bits) - 1);
      byte[] after = new byte[before.length];
      table.readPayload(0, after, 0, after.length);
      for (int i = (int) bucketBytes; i < after.length; i++) {
        assertEquals(before[i], after[i], "f=" + bits + " byte " + i);
      }
      assertNotEquals(before[(int) bucketBytes - 1], after[(int) bucketBytes - 1]);
    }
  }
}
