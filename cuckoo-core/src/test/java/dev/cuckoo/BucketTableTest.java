package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
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
        for (long pageBytes : new long[] {BucketTable.PAGE_ARRAY_BYTES, 64, 200}) {
          long buckets = 50 + random.nextInt(200);
          checkAgainstModel(buckets, bucketSize, bits, pageBytes, random.nextLong());
        }
      }
    }
  }

  private static void checkAgainstModel(
      long buckets, int bucketSize, int bits, long pageBytes, long seed) {
    String where =
        "b=" + bucketSize + " f=" + bits + " m=" + buckets + " page=" + pageBytes + " seed=" + seed;
    PlainBucketTable table = new PlainBucketTable(buckets, bucketSize, bits, pageBytes);
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
    PlainBucketTable unpaged = new PlainBucketTable(buckets, bucketSize, bits);
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

  /** The limit is 2^32 buckets and 2^40 slots, whatever the fingerprint width. */
  @Test
  void maxBucketCount_everyBucketSize_twoTo32BucketsAndTwoTo40Slots() {
    for (int bucketSize = 1; bucketSize <= 255; bucketSize++) {
      long max = BucketTable.maxBucketCount(bucketSize);
      assertEquals(Math.min(1L << 32, (1L << 40) / bucketSize), max, "b " + bucketSize);
      assertTrue(max * bucketSize <= 1L << 40, "b " + bucketSize);
      assertTrue(max == 1L << 32 || (max + 1) * bucketSize > 1L << 40, "b " + bucketSize);
    }
  }

  /** Why the fingerprint width cannot matter: the widest table's sizes do not overflow. */
  @Test
  void payloadBytes_maxBucketCountAt32Bits_exactWithoutOverflow() {
    for (int bucketSize : new int[] {1, 2, 4, 8, 255}) {
      long buckets = BucketTable.maxBucketCount(bucketSize);
      long payload = BucketTable.payloadBytes(buckets, bucketSize, 32);
      assertEquals(buckets * bucketSize * 4, payload, "b " + bucketSize);
      long heap = BucketTable.pagedHeapBytes(buckets, bucketSize, 32);
      assertTrue(heap > payload && heap < payload + (payload >>> 20), "b " + bucketSize);
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
    PlainBucketTable table = new PlainBucketTable(10, 2, 32);
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
    PlainBucketTable paged = new PlainBucketTable(1000, 4, 13, 64);
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
  void quotient_reciprocalOfDivisor_equalsDivisionForEveryBucketIndex() {
    long seed = 20261124;
    SplittableRandom random = new SplittableRandom(seed);
    for (int trial = 0; trial < 2000; trial++) {
      long divisor =
          trial < 4
              ? new long[] {8, 9, 1L << 31, (1L << 31) - 1}[trial]
              : 8 + random.nextLong((1L << 31) - 7);
      long reciprocal = BucketTable.reciprocal(divisor);
      long last = (1L << 32) - 1;
      long top = last / divisor * divisor;
      long[] dividends = {
        0,
        1,
        divisor - 1,
        divisor,
        divisor + 1,
        top - 1,
        top,
        last,
        random.nextLong(1L << 32),
        random.nextLong(1L << 32) / divisor * divisor - 1
      };
      for (long dividend : dividends) {
        if (dividend >= 0) {
          assertEquals(
              dividend / divisor,
              BucketTable.quotient(dividend, reciprocal),
              dividend + " / " + divisor + ", seed " + seed);
        }
      }
    }
  }

  @Test
  void pages_fullPage_isOneHeapObjectOfExactly2To28Bytes() {
    // one-byte buckets: 2^28 - 24 of them fill a page's 2^28 - 16 array bytes with the padding
    long perPage = BucketTable.PAGE_ARRAY_BYTES - BucketTable.PAGE_PADDING_BYTES;
    BucketTable table = BucketTable.paged(perPage + 100, 1, 8);
    assertEquals(2, table.pageCount());
    assertEquals(BucketTable.PAGE_OBJECT_BYTES, BucketTable.arrayBytes(table.page(0).length));
    assertEquals(perPage, table.pagePayloadBytes(0));
    assertEquals(100, table.pagePayloadBytes(1));
    assertEquals(BucketTable.pagedHeapBytes(perPage + 100, 1, 8), table.sizeInBytes());
    long[] buckets = {0, perPage - 2, perPage - 1, perPage, perPage + 1, perPage + 99};
    for (int i = 0; i < buckets.length; i++) {
      table.set(buckets[i], 0, 10 + i);
    }
    for (int i = 0; i < buckets.length; i++) {
      assertEquals(10 + i, table.get(buckets[i], 0), "bucket " + buckets[i]);
      assertTrue(table.contains(buckets[i], 10 + i));
      assertEquals(1, table.count(buckets[i], 10 + i));
    }
    assertSame(table.page(0), table.pageOf(perPage - 1));
    assertEquals(perPage - 1, table.bitInPage(perPage - 1) / 8);
    assertSame(table.page(1), table.pageOf(perPage));
    assertEquals(0, table.bitInPage(perPage));
    byte[] across = new byte[4];
    table.readPayload(perPage - 2, across, 0, 4);
    assertArrayEquals(new byte[] {11, 12, 13, 14}, across);
  }

  @Test
  void pagedHeapBytes_oneGibibyteOfOneByteBuckets_fourFullPagesAndAShortOne() {
    // 4 pages of 2^28 - 24 buckets, then 96; the arrays: 4 × 2^28, 16 + 104; the page array
    // 16 + 5 × 4 (to 40) and the table object
    long pages = (1L << 30) + 120 + 40 + BucketTable.OBJECT_BYTES;
    assertEquals(pages, BucketTable.pagedHeapBytes(1L << 30, 1, 8));
    // one array would take 2^30 + 24 bytes, more than the one-array limit: paged alike
    assertEquals(pages, BucketTable.heapBytes(1L << 30, 1, 8));
  }

  @Test
  void heapBytes_halfAGibibyte_oneArrayUnlessPaged() {
    long oneArray = (1L << 29) + 24 + 24 + BucketTable.OBJECT_BYTES;
    assertEquals(oneArray, BucketTable.heapBytes(1L << 29, 1, 8));
    // paged: two full pages of 2^28 - 24 buckets and one of 48 (an array of 16 + 56 bytes), the
    // page array 16 + 3 × 4 (to 32)
    long paged = 2 * (1L << 28) + 72 + 32 + BucketTable.OBJECT_BYTES;
    assertEquals(paged, BucketTable.pagedHeapBytes(1L << 29, 1, 8));
  }

  @Test
  void paged_smallTables_oneArrayEqualToUnpaged() {
    BucketTable paged = BucketTable.paged(1000, 4, 13);
    assertEquals(1, paged.pageCount());
    assertEquals(new PlainBucketTable(1000, 4, 13).sizeInBytes(), paged.sizeInBytes());
    assertEquals(BucketTable.pagedHeapBytes(1000, 4, 13), paged.sizeInBytes());
  }

  @Test
  void sizeInBytes_smallTables_equalsHeapBytesOfGeometry() {
    int[][] shapes = {{1, 8}, {2, 8}, {4, 8}, {4, 12}, {4, 13}, {8, 16}, {3, 5}, {255, 8}};
    for (int[] shape : shapes) {
      for (long buckets : new long[] {1, 2, 7, 1000, 123_457}) {
        PlainBucketTable table = new PlainBucketTable(buckets, shape[0], shape[1]);
        assertEquals(
            BucketTable.heapBytes(buckets, shape[0], shape[1]),
            table.sizeInBytes(),
            "b=" + shape[0] + " f=" + shape[1] + " m=" + buckets);
      }
    }
  }

  @Test
  void writePayload_lastByteUnusedBits_areCleared() {
    PlainBucketTable table =
        new PlainBucketTable(3, 1, 5); // 15 bits: the top bit of byte 1 is unused
    table.writePayload(0, new byte[] {(byte) 0xFF, (byte) 0xFF}, 0, 2);
    byte[] back = new byte[2];
    table.readPayload(0, back, 0, 2);
    assertEquals((byte) 0x7F, back[1]);
  }

  @Test
  void readPayload_outOfRange_throws() {
    PlainBucketTable table = new PlainBucketTable(8, 4, 8);
    assertThrows(IndexOutOfBoundsException.class, () -> table.readPayload(30, new byte[4], 0, 4));
    assertThrows(IndexOutOfBoundsException.class, () -> table.readPayload(-1, new byte[4], 0, 1));
  }

  @Test
  void swar_usedWhereABucketFitsInOneWord() {
    assertTrue(new PlainBucketTable(10, 4, 16).isSwar());
    assertTrue(new PlainBucketTable(10, 4, 13).isSwar());
    assertTrue(new PlainBucketTable(10, 8, 8).isSwar());
    assertTrue(new PlainBucketTable(10, 2, 32).isSwar());
    assertFalse(new PlainBucketTable(10, 8, 12).isSwar());
    assertFalse(new PlainBucketTable(10, 4, 17).isSwar());
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
