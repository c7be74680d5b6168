package dev.cuckoo.examples.logstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OffsetIndexTest {
  private static final long SEED = 0x5EED_0001L;

  /** Random inserts, moves and removes against a map of offset to hash; growth included. */
  @Test
  void insertReplaceRemove_randomAgainstModel_neverLosesAnEntry() throws IOException {
    Random random = new Random(SEED);
    OffsetIndex index = new OffsetIndex(8, 2);
    Map<Long, Long> model = new HashMap<>();
    List<Long> live = new ArrayList<>();
    long nextOffset = 8;
    long[] out = new long[2 * OffsetIndex.BUCKET_SIZE];
    for (int step = 0; step < 60_000; step++) {
      int op = random.nextInt(10);
      if (op < 6 || live.isEmpty()) {
        long hash = random.nextLong();
        long offset = nextOffset++;
        model.put(offset, hash);
        long homeless = index.insert(hash, offset);
        if (homeless != 0) {
          index.grow(homeless, at -> model.get(at));
        }
        live.add(offset);
      } else {
        int pick = random.nextInt(live.size());
        long offset = live.get(pick);
        long hash = model.get(offset);
        if (op < 8) {
          long moved = nextOffset++;
          assertTrue(index.replace(hash, offset, moved), "seed " + SEED + " step " + step);
          model.remove(offset);
          model.put(moved, hash);
          live.set(pick, moved);
        } else {
          assertTrue(index.remove(hash, offset), "seed " + SEED + " step " + step);
          assertFalse(index.remove(hash, offset), "seed " + SEED + " step " + step);
          model.remove(offset);
          live.set(pick, live.get(live.size() - 1));
          live.remove(live.size() - 1);
        }
      }
      assertEquals(model.size(), index.size(), "seed " + SEED + " step " + step);
      if (step % 1000 == 0) {
        for (Map.Entry<Long, Long> entry : model.entrySet()) {
          assertTrue(
              contains(out, index.candidates(entry.getValue(), out), entry.getKey()),
              "seed " + SEED + " step " + step + ": offset " + entry.getKey() + " lost");
        }
      }
    }
    assertTrue(index.bucketCount() > 2, "the index grew");
    assertTrue(index.loadFactor() > 0.3, "load " + index.loadFactor());
  }

  @Test
  void candidates_sameTagSameBucket_returnsBothOffsets() {
    OffsetIndex index = new OffsetIndex(16, 1024);
    long hash = 0x1234_5678_9ABC_DEF0L;
    assertEquals(0, index.insert(hash, 100));
    assertEquals(0, index.insert(hash, 200));
    long[] out = new long[8];
    assertEquals(2, index.candidates(hash, out));
    assertTrue(contains(out, 2, 100) && contains(out, 2, 200));
    assertEquals(0, index.candidates(hash ^ (1L << 63), out), "different tag, same buckets");
  }

  @Test
  void insert_nineCopiesOfOneHash_returnsHomelessAndGrowCannotHelp() throws IOException {
    OffsetIndex index = new OffsetIndex(16, 1024);
    long hash = 42;
    for (int i = 0; i < 2 * OffsetIndex.BUCKET_SIZE; i++) {
      assertEquals(0, index.insert(hash, i + 8));
    }
    long homeless = index.insert(hash, 99);
    assertTrue(homeless != 0, "two buckets hold at most 8 equal entries");
    assertEquals(8, index.size(), "every entry but the homeless one is kept");
    assertThrows(IllegalStateException.class, () -> index.grow(homeless, at -> hash));
    assertEquals(8, index.size(), "a failed growth leaves the table as it was");
    assertEquals(1024, index.bucketCount());
  }

  @Test
  void tag_zeroTopBits_isRemappedToOne() {
    OffsetIndex index = new OffsetIndex(16, 2);
    assertEquals(1, index.tag(0x0000_FFFF_FFFF_FFFFL));
    assertEquals(0xFFFF, index.tag(-1L));
  }

  @Test
  void tagMatchProbability_sixteenBits_isExact() {
    assertEquals(65538.0 / 4294967296.0, OffsetIndex.tagMatchProbability(16), 1e-20);
  }

  @Test
  void constructor_badArguments_namesParameterAndRange() {
    IllegalArgumentException tag =
        assertThrows(IllegalArgumentException.class, () -> new OffsetIndex(25, 2));
    assertEquals("fingerprintBits: 25 (expected: 4 <= fingerprintBits <= 24)", tag.getMessage());
    IllegalArgumentException buckets =
        assertThrows(IllegalArgumentException.class, () -> new OffsetIndex(16, 6));
    assertTrue(buckets.getMessage().startsWith("bucketCount: 6 (expected: a power of two"));
    assertThrows(IllegalArgumentException.class, () -> new OffsetIndex(16, 2).insert(1, -1));
  }

  private static boolean contains(long[] values, int count, long wanted) {
    for (int i = 0; i < count; i++) {
      if (values[i] == wanted) {
        return true;
      }
    }
    return false;
  }
}
