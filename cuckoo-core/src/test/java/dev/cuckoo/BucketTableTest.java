package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BucketTableTest {

  /** Every (b, f) the filters use, plus odd ones, in one page and in many small pages. */
  @Test
  void operations_randomAgainstArrayModel_agree() {
    int[] bucketSizes = {1, 2, 3, 4, 8, 16};
    long seed = 20261122;
    SplittableRandom random = new SplittableRandom(seed);
    for (int bucketSize : bucketSizes) {
      for (int bits = 4; bits <= 32; bits++) {
        for (long pageBytes : new long[] {BucketTable.MAX_PAGE_BYTES, 64}) {
          long buckets = 50 + random.nextInt(200);
          checkAgainstModel(buckets, bucketSize, bits, pageBytes, random.nextLong());
        }
      }
    }
  }

  private static void checkAgainstModel(
      long buckets, int bucketSize, int bits, long pageBytes, long seed) {
    String where = "b=" + bucketSize + " f=" + bits + " m=" + buckets + " page=" + pageBytes
        + " seed=" + seed;
    BucketTable table = new BucketTable(buckets, bucketSize, bits, pageBytes);
    long[][] model = new long[(int) buckets][bucketSize];
    SplittableRandom random = new SplittableRandom(seed);
    long mask = (1L << bits) - 1;
    for (int op = 0; op < 4000; op++) {
      int bucket = random.nextInt((int) buckets);
      // small fingerprint alphabet so that matches and duplicates are frequent
      long fp = 1 + random.nextInt((int) Math.min(6, mask));
      if (random.nextBoolean()) {
        fp = (fp * 0x9E3779B97F4A7C15L & mask) | 1;
      }
      switch (random.nextInt(4)) {
        case 0:
          int slot = random.nextInt(bucketSize);
          table.set(bucket, slot, fp);
          model[bucket][slot] = fp;
          break;
        case 1:
          boolean inserted = table.insert(bucket, fp);
          int empty = indexOf(model[bucket], 0);
          assertEquals(empty >= 0, inserted, where);
          if (empty >= 0) {
            model[bucket][empty] = fp;
          }
          break;
        case 2:
          int found = indexOf(model[bucket], fp);
          assertEquals(found, table.find(bucket, fp), where);
          if (found >= 0) {
            table.set(bucket, found, 0);
            model[bucket][found] = 0;
          }
          break;
        default:
          break;
      }
      assertEquals(indexOf(model[bucket], fp) >= 0, table.contains(bucket, fp), where);
      int other = random.nextInt((int) buckets);
      assertEquals(
          indexOf(model[bucket], fp) >= 0 || indexOf(model[other], fp) >= 0,
          table.containsEither(bucket, other, fp),
          where);
      if (table.isSwar()) {
        // the split address computation of ConcurrentCuckooFilter finds the same word and lanes
        long word = BucketTable.wordAt(table.pageOf(bucket), table.bitInPage(bucket));
        long bucketMask = -1L >>> (64 - bucketSize * bits);
        assertEquals(table.bucketWord(bucket) & bucketMask, word & bucketMask, where);
        assertEquals(
            indexOf(model[bucket], fp) >= 0,
            BucketTable.matchingLanes(
                    word, table.broadcast(fp), table.lanesLow(), table.lanesHigh())
                != 0,
            where);
      }
      assertEquals(count(model[bucket], fp), table.count(bucket, fp), where);
      assertEquals(indexOf(model[bucket], 0), table.firstEmpty(bucket), where);
      assertEquals(bucketSize - count(model[bucket], 0), table.occupied(bucket), where);
    }
    for (int bucket = 0; bucket < buckets; bucket++) {
      for (int slot = 0; slot < bucketSize; slot++) {
        assertEquals(model[bucket][slot], table.get(bucket, slot), where);
      }
    }
    // the payload bytes are those of one unpaged table
    BucketTable unpaged = new BucketTable(buckets, bucketSize, bits);
    byte[] payload = new byte[(int) table.payloadBytes()];
    table.readPayload(0, payload, 0, payload.length);
    unpaged.writePayload(0, payload, 0, payload.length);
    for (int bucket = 0; bucket < buckets; bucket++) {
      for (int slot = 0; slot < bucketSize; slot++) {
        assertEquals(model[bucket][slot], unpaged.get(bucket, slot), where);
      }
    }
    table.clear();
    for (int bucket = 0; bucket < buckets; bucket++) {
      assertEquals(0, table.occupied(bucket), where);
    }
  }

  @Test
  void isNonZero_everySignAndBit_equalsComparison() {
    assertFalse(BucketTable.isNonZero(0));
    for (int bit = 0; bit < 64; bit++) {
      assertTrue(BucketTable.isNonZero(1L << bit), "bit " + bit);
      assertTrue(BucketTable.isNonZero(-(1L << bit)), "minus bit " + bit);
    }
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 10_000; i++) {
      long x = random.nextLong() >>> random.nextInt(64);
      assertEquals(x != 0, BucketTable.isNonZero(x), "x " + x);
    }
  }

  @Test
  void set_fullWidthFingerprint_doesNotDisturbNeighbours() {
    BucketTable table = new BucketTable(10, 2, 32);
    table.set(3, 0, 0xFFFFFFFFL);
    table.set(3, 1, 0x80000001L);
    assertEquals(0xFFFFFFFFL, table.get(3, 0));
    assertEquals(0x80000001L, table.get(3, 1));
    assertEquals(0, table.get(2, 1));
    assertEquals(0, table.get(4, 0));
    assertTrue(table.contains(3, 0x80000001L));
    assertFalse(table.contains(4, 0x80000001L));
  }

  @Test
  void pages_manySmallPages_payloadIsContiguousBitString() {
    BucketTable paged = new BucketTable(1000, 4, 13, 64);
    assertTrue(paged.pageCount() > 10, "pages " + paged.pageCount());
    assertEquals(BucketTable.payloadBytes(1000, 4, 13), paged.payloadBytes());
    long total = 0;
    for (int i = 0; i < paged.pageCount(); i++) {
      total += paged.pagePayloadBytes(i);
    }
    assertEquals(paged.payloadBytes(), total);
    byte[] bytes = new byte[(int) paged.payloadBytes()];
    new SplittableRandom(1).nextBytes(bytes);
    bytes[bytes.length - 1] &= 0x0F; // 1000·52 bits = 6500 bytes exactly; keep it simple
    paged.writePayload(0, bytes, 0, bytes.length);
    byte[] back = new byte[bytes.length];
    paged.readPayload(0, back, 0, back.length);
    assertArrayEquals(bytes, back);
  }

  @Test
  void writePayload_lastByteUnusedBits_areCleared() {
    BucketTable table = new BucketTable(3, 1, 5); // 15 bits: the top bit of byte 1 is unused
    table.writePayload(0, new byte[] {(byte) 0xFF, (byte) 0xFF}, 0, 2);
    byte[] back = new byte[2];
    table.readPayload(0, back, 0, 2);
    assertEquals((byte) 0x7F, back[1]);
  }

  @Test
  void readPayload_outOfRange_throws() {
    BucketTable table = new BucketTable(8, 4, 8);
    assertThrows(IndexOutOfBoundsException.class, () -> table.readPayload(30, new byte[4], 0, 4));
    assertThrows(IndexOutOfBoundsException.class, () -> table.readPayload(-1, new byte[4], 0, 1));
  }

  @Test
  void swar_usedWhereABucketFitsInOneWord() {
    assertTrue(new BucketTable(10, 4, 16).isSwar());
    assertTrue(new BucketTable(10, 4, 13).isSwar());
    assertTrue(new BucketTable(10, 8, 8).isSwar());
    assertTrue(new BucketTable(10, 2, 32).isSwar());
    assertFalse(new BucketTable(10, 8, 12).isSwar());
    assertFalse(new BucketTable(10, 4, 17).isSwar());
  }

  private static int indexOf(long[] bucket, long value) {
    for (int i = 0; i < bucket.length; i++) {
      if (bucket[i] == value) {
        return i;
      }
    }
    return -1;
  }

  private static int count(long[] bucket, long value) {
    int count = 0;
    for (long v : bucket) {
      if (v == value) {
        count++;
      }
    }
    return count;
  }
}
