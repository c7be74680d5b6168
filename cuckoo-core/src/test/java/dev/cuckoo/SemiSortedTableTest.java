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
