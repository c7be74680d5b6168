package dev.cuckoo;

import static dev.cuckoo.RedisChainKnownAnswerTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random adds, conditional adds, removes, replaces, compactions and clears on a {@link
 * RedisCuckooFilter}, checked after every step against a multiset (no false negatives, size equals
 * the model, count at least the model's), and in lockstep with a reference given the same
 * operations, held as a full {@link RedisChain} from the start (never in the compact form). Every
 * reply, counter, debug string, dump and serialized byte must agree; the seed is in every failure
 * message ({@code -Dcuckoo.test.seed=N} replays one; the seeds are {@link
 * RedisChainModelTest#seeds}'s).
 */
class RedisCuckooFilterModelTest {

  /** The filter and its reference, given the same operations. */
  private static final class Pair {
    final RedisCuckooFilter<byte[]> filter;
    final RedisCuckooFilter<byte[]> reference;

    Pair(long capacity, int bucketSize, int maxIterations, int expansion) {
      filter = RedisCuckooFilter.reserve(capacity, bucketSize, maxIterations, expansion);
      reference =
          RedisCuckooFilter.chained(
              ItemHashers.redisBytes(),
              RedisChain.create(
                  filter.baseBucketCount(), bucketSize, maxIterations, filter.expansion()));
    }

    AddOutcome tryAdd(byte[] item, boolean ifAbsent, String at) {
      AddOutcome result = ifAbsent ? filter.addIfAbsentWithOutcome(item) : filter.tryAdd(item);
      AddOutcome expected =
          ifAbsent ? reference.addIfAbsentWithOutcome(item) : reference.tryAdd(item);
      assertEquals(expected, result, at);
      return result;
    }

    boolean remove(byte[] item, String at) {
      boolean removed = filter.remove(item);
      assertEquals(reference.remove(item), removed, at);
      return removed;
    }

    boolean replace(byte[] oldItem, byte[] newItem, String at) {
      boolean replaced = filter.replace(oldItem, newItem);
      assertEquals(reference.replace(oldItem, newItem), replaced, at);
      return replaced;
    }

    boolean mightContain(byte[] item, String at) {
      boolean found = filter.mightContain(item);
      assertEquals(reference.mightContain(item), found, at);
      long count = filter.count(item);
      assertEquals(reference.count(item), count, at);
      return found;
    }

    void compact() {
      filter.compact();
      reference.compact();
    }

    void clear() {
      filter.clear();
      reference.clear();
    }

    /** Counters and properties after every step; dumps and bytes when {@code bytes}. */
    void assertSame(String at, boolean bytes) {
      assertEquals(reference.redisDebug(), filter.redisDebug(), at);
      assertEquals(reference.size(), filter.size(), at);
      assertEquals(reference.redisSize(), filter.redisSize(), at);
      assertEquals(reference.capacity(), filter.capacity(), at);
      assertEquals(reference.expectedFalsePositiveRate(), filter.expectedFalsePositiveRate(), at);
      assertEquals(reference.serializedSizeInBytes(), filter.serializedSizeInBytes(), at);
      if (bytes) {
        assertArrayEquals(reference.dumpHeader(), filter.dumpHeader(), at);
        List<ScanDumpChunk> dump = dump(filter::scanDump);
        assertDumpsEqual(dump(reference::scanDump), dump, at);
        byte[] written = FormatTestSupport.bytesOf(filter);
        assertArrayEquals(FormatTestSupport.bytesOf(reference), written, at);
        assertEquals(written.length, filter.serializedSizeInBytes(), at);
      }
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("dev.cuckoo.RedisChainModelTest#seeds")
  void randomOperations_matchMultisetModelAndOldPath(long seed) {
    try {
      run(seed);
    } catch (AssertionError e) {
      throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
    }
  }

  private static void run(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int bucketSize = 1 + random.nextInt(4);
    // duplicates of one item need a new link per 2·b copies: keep growth moderate
    int expansion = random.nextInt(4) == 0 ? 0 : 1 << random.nextInt(2);
    long capacity = 2L * bucketSize + random.nextInt(100);
    int maxIterations = 1 + random.nextInt(random.nextBoolean() ? 5 : 100);
    Pair pair = new Pair(capacity, bucketSize, maxIterations, expansion);
    String context = pair.filter.redisDebug();
    assertTrue(pair.filter.isCompact(), "a small reserve starts compact: " + context);
    Map<String, Integer> model = new HashMap<>();
    List<String> present = new ArrayList<>();
    int universe = 50 + random.nextInt(2000);
    boolean grew = false;
    for (int step = 0; step < 4000; step++) {
      int op = random.nextInt(100);
      String item = Integer.toString(random.nextInt(universe));
      String at = context + ", step " + step + ", op " + op;
      boolean wasCompact = pair.filter.isCompact();
      if (op < 50) {
        AddOutcome result = pair.tryAdd(bytes(item), false, at);
        if (result == AddOutcome.ADDED) {
          model.merge(item, 1, Integer::sum);
          present.add(item);
        } else {
          assertEquals(expansion == 0 ? AddOutcome.FULL : AddOutcome.NO_MEMORY, result, at);
        }
      } else if (op < 60) {
        boolean mightBePresent = pair.mightContain(bytes(item), at);
        AddOutcome result = pair.tryAdd(bytes(item), true, at);
        if (mightBePresent) {
          assertEquals(AddOutcome.ALREADY_PRESENT, result, at);
        } else if (result == AddOutcome.ADDED) {
          model.merge(item, 1, Integer::sum);
          present.add(item);
        }
      } else if (op < 82 && !present.isEmpty()) {
        String victim = present.remove(random.nextInt(present.size()));
        assertTrue(pair.remove(bytes(victim), at), "remove " + victim + " at " + at);
        model.merge(victim, -1, Integer::sum);
      } else if (op < 92 && !present.isEmpty()) {
        int index = random.nextInt(present.size());
        String old = present.get(index);
        if (pair.replace(bytes(old), bytes(item), at)) {
          present.set(index, item);
          model.merge(old, -1, Integer::sum);
          model.merge(item, 1, Integer::sum);
        }
      } else if (op < 95) {
        pair.compact();
        assertEquals(0, pair.filter.deletedCount(), at);
      } else if (op < 96 && random.nextInt(20) == 0) {
        pair.clear();
        model.clear();
        present.clear();
      } else {
        pair.mightContain(bytes(item), at);
      }
      grew |= wasCompact && !pair.filter.isCompact();
      assertEquals(present.size(), pair.filter.size(), "size at " + at);
      pair.assertSame(at, grew && step % 100 == 0 || step % 500 == 0);
      if (step % 200 == 0) {
        checkModel(pair.filter, model, at);
      }
    }
    pair.assertSame(context + ", end", true);
    checkModel(pair.filter, model, context + ", end");
    if (expansion == 0) {
      assertTrue(pair.filter.isCompact(), "a filter that never grows stays compact: " + context);
    } else {
      assertTrue(grew, "the compact form expanded on its first growth: " + context);
    }
  }

  private static void checkModel(
      RedisCuckooFilter<byte[]> filter, Map<String, Integer> model, String at) {
    long total = 0;
    for (Map.Entry<String, Integer> entry : model.entrySet()) {
      int copies = entry.getValue();
      total += copies;
      if (copies > 0) {
        if (!filter.mightContain(bytes(entry.getKey()))) {
          fail("false negative for " + entry.getKey() + " at " + at);
        }
        assertTrue(filter.count(bytes(entry.getKey())) >= copies, "count of " + entry.getKey());
      }
    }
    assertEquals(total, filter.size(), at);
    long occupied = 0;
    for (RedisLink link : filter.redisChain().links()) {
      occupied += link.table.countOccupied();
    }
    assertEquals(total, occupied, "slots in use at " + at);
  }

  /** Adds to a tiny filter until its third link, comparing everything after every add. */
  @Test
  void tryAdd_firstExpansionOfCompactFilter_sameAsOldPathAndReference() {
    Pair pair = new Pair(4, 2, 20, 1);
    assertTrue(pair.filter.isCompact());
    int expandedAt = -1;
    int added = 0;
    for (int i = 0; pair.filter.linkCount() < 3; i++, added++) {
      boolean wasCompact = pair.filter.isCompact();
      assertEquals(AddOutcome.ADDED, pair.tryAdd(bytes("item" + i), false, "add " + i));
      if (wasCompact && !pair.filter.isCompact()) {
        expandedAt = i;
        assertEquals(2, pair.filter.linkCount(), "the add that expanded made the second link");
      }
      pair.assertSame("add " + i, true);
      assertTrue(i < 1000, "the filter grows within 1000 adds");
    }
    assertTrue(expandedAt > 0, "the compact form expanded");
    assertFalse(pair.filter.isCompact());
    for (int i = 0; i < added; i++) {
      assertTrue(pair.filter.mightContain(bytes("item" + i)), "item" + i);
    }
  }

  private static List<ScanDumpChunk> dump(java.util.function.LongFunction<ScanDumpChunk> scan) {
    List<ScanDumpChunk> chunks = new ArrayList<>();
    for (long it = 0; ; ) {
      ScanDumpChunk chunk = scan.apply(it);
      if (chunk.iterator() == 0) {
        return chunks;
      }
      chunks.add(chunk);
      it = chunk.iterator();
    }
  }

  private static void assertDumpsEqual(List<ScanDumpChunk> a, List<ScanDumpChunk> b, String at) {
    assertEquals(a.size(), b.size(), at);
    for (int i = 0; i < a.size(); i++) {
      assertEquals(a.get(i).iterator(), b.get(i).iterator(), at);
      assertArrayEquals(a.get(i).data(), b.get(i).data(), at);
    }
  }
}
