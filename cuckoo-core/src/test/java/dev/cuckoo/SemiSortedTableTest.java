package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** White-box tests of the semi-sorted bucket codec against a plain array of slots. */
class SemiSortedTableTest {

  @Test
  void rank_everySortedNibbleTuple_isABijectionOnto3876() {
    BitSet seen = new BitSet();
    int tuples = 0;
    for (int a0 = 0; a0 < 16; a0++) {
      for (int a1 = a0; a1 < 16; a1++) {
        for (int a2 = a1; a2 < 16; a2++) {
          for (int a3 = a2; a3 < 16; a3++) {
            int rank = SemiSortedTable.rank(a0, a1, a2, a3);
            assertTrue(rank >= 0 && rank < SemiSortedTable.TUPLES, "rank " + rank);
            assertFalse(seen.get(rank), "rank " + rank + " twice");
            seen.set(rank);
            tuples++;
          }
        }
      }
    }
    assertEquals(3876, tuples);
    assertEquals(3876, seen.cardinality());
    assertEquals(0, SemiSortedTable.rank(0, 0, 0, 0)); // an empty bucket is all zero bits
    assertEquals(3875, SemiSortedTable.rank(15, 15, 15, 15));
  }

  @Test
  void set_knownBucket_givesHandComputedBits() {
    // f = 12: sorted 0, 0x0FF, 0x123, 0x800 -> nibbles (0, 0, 1, 8), low bytes 00 FF 23 00;
    // index C(0,1) + C(1,2) + C(3,3) + C(11,4) = 0 + 0 + 1 + 330 = 331 = 0x14B;
    // bits = 0x14B | 0x00 << 12 | 0xFF << 20 | 0x23 << 28 | 0x00 << 36 = 0x2_3FF0_014B (44 bits)
    SemiSortedTable table = new SemiSortedTable(2, 12);
    table.insert(0, 0x123);
    table.insert(0, 0x0FF);
    table.insert(0, 0x800);
    byte[] payload = new byte[(int) table.payloadBytes()];
    table.readPayload(0, payload, 0, payload.length);
    assertEquals(11, payload.length); // 2 buckets × 44 bits
    assertArrayEquals(new byte[] {0x4B, 0x01, (byte) 0xF0, 0x3F, 0x02, 0, 0, 0, 0, 0, 0}, payload);
    assertEquals(0, table.get(0, 0));
    assertEquals(0x0FF, table.get(0, 1));
    assertEquals(0x123, table.get(0, 2));
    assertEquals(0x800, table.get(0, 3));
  }

  @ParameterizedTest(name = "f={0}")
  @ValueSource(ints = {5, 6, 7, 8, 9, 11, 12, 13, 15, 16})
  void operations_randomWrites_matchPlainSlots(int bits) {
    long seed = TestSeeds.seed() + bits;
    SplittableRandom random = new SplittableRandom(seed);
    int buckets = 14; // odd bucket offsets test the 4-bit shifts of f − 1 odd
    SemiSortedTable table = new SemiSortedTable(buckets, bits);
    Indexer indexer = new Indexer(Scheme.STANDARD_FAST, buckets, bits);
    long[] alternates = new long[1 + 4];
    long[][] model = new long[buckets][4];
    long max = (1L << bits) - 1;
    for (int step = 0; step < 20_000; step++) {
      String where = "f=" + bits + " seed=" + seed + " step " + step;
      int bucket = random.nextInt(buckets);
      long fingerprint = 1 + random.nextLong(max);
      if (random.nextBoolean()) {
        boolean room = Arrays.stream(model[bucket]).anyMatch(v -> v == 0);
        assertEquals(room, table.insert(bucket, fingerprint), where);
        if (room) {
          replaceOne(model[bucket], 0, fingerprint);
        }
      } else {
        int slot = random.nextInt(4);
        long old = table.get(bucket, slot);
        int landed = table.set(bucket, slot, fingerprint);
        assertEquals(fingerprint, table.get(bucket, landed), where);
        replaceOne(model[bucket], old, fingerprint);
        if (random.nextInt(4) == 0) { // undo: writing the old value where the new one landed
          table.set(bucket, landed, old);
          replaceOne(model[bucket], fingerprint, old);
        }
      }
      for (int b = 0; b < buckets; b++) {
        long[] sorted = model[b].clone();
        Arrays.sort(sorted);
        for (int slot = 0; slot < 4; slot++) {
          assertEquals(sorted[slot], table.get(b, slot), where + " bucket " + b);
        }
      }
      // the neighbour probe's decoding of a whole bucket: slot s's alternate at out[at + s]
      long[] sorted = model[bucket].clone();
      Arrays.sort(sorted);
      table.alternates(indexer, bucket, table.bucketWord(bucket), alternates, 1);
      for (int slot = 0; slot < 4; slot++) {
        assertEquals(
            indexer.alternateBucket(bucket, sorted[slot]),
            alternates[1 + slot],
            where + " slot " + slot);
      }
      long probe = random.nextInt(4) == 0 ? model[bucket][random.nextInt(4)] : fingerprint;
      long copies = Arrays.stream(model[bucket]).filter(v -> v == probe).count();
      assertEquals(copies, table.count(bucket, probe), where);
      assertEquals(copies > 0, table.contains(bucket, probe), where);
      assertEquals(copies > 0, table.find(bucket, probe) >= 0, where);
      int other = (bucket + 1) % buckets;
      assertEquals(
          copies > 0 || Arrays.stream(model[other]).anyMatch(v -> v == probe),
          table.containsEither(other, bucket, probe),
          where);
    }
    long occupied = Arrays.stream(model).flatMapToLong(Arrays::stream).filter(v -> v != 0).count();
    assertEquals(occupied, table.countOccupied());
    table.checkEncoding(0);
  }

  /**
   * Every sorted nibble tuple, with low parts drawn to make ties likely, every slot and every new
   * nibble: set and insert, which place the new fingerprint among the stored bits without decoding,
   * must write the bits of the reference codec (decode, replace, sort, encode) into the middle of
   * three buckets and leave the neighbours' bits alone.
   */
  @ParameterizedTest(name = "f={0}")
  @ValueSource(ints = {5, 6, 9, 13, 16})
  void setAndInsert_everyTupleSlotAndNibble_matchReferenceCodec(int bits) {
    long seed = TestSeeds.seed() + bits;
    SplittableRandom random = new SplittableRandom(seed);
    int w = bits - 4;
    long lowMask = (1L << w) - 1;
    int bucketBits = 4 * (bits - 1);
    SemiSortedTable table = new SemiSortedTable(3, bits);
    byte[] before = new byte[(int) table.payloadBytes()];
    byte[] expected = new byte[before.length];
    int cases = 0;
    for (int a0 = 0; a0 < 16; a0++) {
      for (int a1 = a0; a1 < 16; a1++) {
        for (int a2 = a1; a2 < 16; a2++) {
          for (int a3 = a2; a3 < 16; a3++) {
            int[] nibbles = {a0, a1, a2, a3};
            long[] values = new long[4];
            for (int i = 0; i < 4; i++) {
              values[i] = (long) nibbles[i] << w | pickLow(random, lowMask, values, i);
            }
            Arrays.sort(values);
            for (int n = 0; n < 16; n++) {
              long value = (long) n << w | pickLow(random, lowMask, values, 4);
              String where = "f=" + bits + " seed=" + seed + " bucket " + Arrays.toString(values);
              where += " value " + value;
              long neighbours = random.nextLong();
              Arrays.fill(before, (byte) 0);
              setBits(before, 0, bucketBits, neighbours);
              setBits(before, bucketBits, bucketBits, referenceBits(values, bits));
              setBits(before, 2L * bucketBits, bucketBits, ~neighbours);
              for (int slot = 0; slot < 4; slot++) {
                table.writePayload(0, before, 0, before.length);
                long[] after = values.clone();
                after[slot] = value;
                System.arraycopy(before, 0, expected, 0, before.length);
                setBits(expected, bucketBits, bucketBits, referenceBits(after, bits));
                int landed = table.set(1, slot, value);
                assertArrayEquals(expected, payload(table), where + " set slot " + slot);
                assertEquals(value, table.get(1, landed), where + " set slot " + slot);
                cases++;
              }
              if (value != 0) {
                table.writePayload(0, before, 0, before.length);
                boolean room = values[0] == 0;
                assertEquals(room, table.insert(1, value), where + " insert");
                if (room) {
                  long[] after = values.clone();
                  after[0] = value;
                  System.arraycopy(before, 0, expected, 0, before.length);
                  setBits(expected, bucketBits, bucketBits, referenceBits(after, bits));
                  assertArrayEquals(expected, payload(table), where + " insert");
                } else {
                  assertArrayEquals(before, payload(table), where + " insert into a full bucket");
                }
              }
            }
          }
        }
      }
    }
    assertEquals(3876 * 16 * 4, cases);
  }

  /** Returns a low part: often 0, 1, the largest, or one of {@code values[0 .. count)}'s. */
  private static long pickLow(SplittableRandom random, long lowMask, long[] values, int count) {
    switch (random.nextInt(5)) {
      case 0:
        return 0;
      case 1:
        return 1 & lowMask;
      case 2:
        return lowMask;
      case 3:
        return count == 0 ? 0 : values[random.nextInt(count)] & lowMask;
      default:
        return random.nextLong() & lowMask;
    }
  }

  /**
   * Returns the bits of a bucket holding {@code values} (any order) as docs/FORMAT.md, scheme 3,
   * describes them: the values sorted, the index of their nibbles, then their low parts.
   */
  private static long referenceBits(long[] values, int bits) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    int w = bits - 4;
    long result =
        SemiSortedTable.rank(
            (int) (sorted[0] >>> w),
            (int) (sorted[1] >>> w),
            (int) (sorted[2] >>> w),
            (int) (sorted[3] >>> w));
    for (int i = 0; i < 4; i++) {
      result |= (sorted[i] & ((1L << w) - 1)) << (12 + i * w);
    }
    return result;
  }

  /** Writes the low {@code count} bits of {@code value} at bit {@code offset}, bit 0 first. */
  private static void setBits(byte[] bytes, long offset, int count, long value) {
    for (int i = 0; i < count; i++) {
      long bit = offset + i;
      int mask = 1 << (bit & 7);
      if (((value >>> i) & 1) != 0) {
        bytes[(int) (bit >>> 3)] |= (byte) mask;
      } else {
        bytes[(int) (bit >>> 3)] &= (byte) ~mask;
      }
    }
  }

  @Test
  void payload_sameMultisetsInAnyOrder_sameBytes() {
    SemiSortedTable first = new SemiSortedTable(8, 13);
    SemiSortedTable second = new SemiSortedTable(8, 13);
    long[] values = {0x1FFF, 7, 0x1000, 7};
    for (int bucket = 0; bucket < 8; bucket++) {
      for (int i = 0; i < 4; i++) {
        first.insert(bucket, values[i]);
        second.insert(bucket, values[(i + bucket) % 4]);
      }
    }
    assertArrayEquals(payload(first), payload(second));
    assertEquals(8L * 4 * 12 / 8, first.payloadBytes());
  }

  @Test
  void constructor_fingerprintBitsOutOfRange_throws() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new SemiSortedTable(2, 4));
    assertEquals("fingerprintBits: 4 (expected: 5 <= fingerprintBits <= 16)", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new SemiSortedTable(2, 17));
  }

  private static byte[] payload(BucketTable table) {
    byte[] bytes = new byte[(int) table.payloadBytes()];
    table.readPayload(0, bytes, 0, bytes.length);
    return bytes;
  }

  private static void replaceOne(long[] slots, long old, long value) {
    for (int i = 0; i < slots.length; i++) {
      if (slots[i] == old) {
        slots[i] = value;
        return;
      }
    }
    throw new AssertionError("model has no " + old);
  }
}
