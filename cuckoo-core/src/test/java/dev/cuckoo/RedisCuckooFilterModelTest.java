package dev.cuckoo;

import static dev.cuckoo.RedisChainKnownAnswerTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cuckoo.RedisCuckooFilter.AddResult;
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
 * the model, count at least the model's), and in lockstep with two other filters given the same
 * operations: the same filter through the older facade ({@link ScalableCuckooFilter} with {@link
 * Scheme#REDISBLOOM}) and a reference held as a full {@link RedisChain} from the start (never in
 * the compact form). Every reply, counter, debug string, dump and serialized byte must agree; the
 * seed is in every failure message ({@code -Dcuckoo.test.seed=N} replays one; the seeds are {@link
 * RedisChainModelTest#seeds}'s).
 */
class RedisCuckooFilterModelTest {

  /** The three filters given the same operations. */
  private static final class Trio {
    final RedisCuckooFilter<byte[]> filter;
    final ScalableCuckooFilter<byte[]> facade;
    final RedisCuckooFilter<byte[]> reference;

    Trio(long capacity, int bucketSize, int maxIterations, int expansion) {
      filter = RedisCuckooFilter.reserve(capacity, bucketSize, maxIterations, expansion);
      facade =
          ScalableCuckooFilter.builder(ItemHashers.redisBytes())
              .scheme(Scheme.REDISBLOOM)
              .expectedItems(capacity)
              .bucketSize(bucketSize)
              .maxKicks(maxIterations)
              .expansion(expansion)
              .build();
      reference =
          RedisCuckooFilter.chained(
              ItemHashers.redisBytes(),
              RedisChain.create(
                  filter.baseBucketCount(), bucketSize, maxIterations, filter.expansion()));
    }

    AddResult tryAdd(byte[] item, boolean ifAbsent, String at) {
      AddResult result = ifAbsent ? filter.tryAddIfAbsent(item) : filter.tryAdd(item);
      ScalableCuckooFilter.AddResult old =
          ifAbsent ? facade.tryAddIfAbsent(item) : facade.tryAdd(item);
      AddResult expected = ifAbsent ? reference.tryAddIfAbsent(item) : reference.tryAdd(item);
      assertEquals(expected, result, at);
      assertEquals(result.name(), old.name(), at);
      return result;
    }

    boolean remove(byte[] item, String at) {
      boolean removed = filter.remove(item);
      assertEquals(reference.remove(item), removed, at);
      assertEquals(removed, facade.remove(item), at);
      return removed;
    }

    boolean replace(byte[] oldItem, byte[] newItem, String at) {
      boolean replaced = filter.replace(oldItem, newItem);
      assertEquals(reference.replace(oldItem, newItem), replaced, at);
      assertEquals(replaced, facade.replace(oldItem, newItem), at);
      return replaced;
    }

    boolean mightContain(byte[] item, String at) {
      boolean found = filter.mightContain(item);
      assertEquals(reference.mightContain(item), found, at);
      assertEquals(found, facade.mightContain(item), at);
      long count = filter.count(item);
      assertEquals(reference.count(item), count, at);
      assertEquals(count, facade.count(item), at);
      return found;
    }

    void compact() {
      filter.compact();
      facade.compact();
      reference.compact();
    }

    void clear() {
      filter.clear();
      facade.clear();
      reference.clear();
    }

    /** Counters and properties after every step; dumps and bytes when {@code bytes}. */
    void assertSame(String at, boolean bytes) {
      assertEquals(reference.redisDebug(), filter.redisDebug(), at);
      assertEquals(filter.redisDebug(), facade.redisDebug(), at);
      assertEquals(reference.size(), filter.size(), at);
      assertEquals(filter.size(), facade.size(), at);
      assertEquals(filter.deletedCount(), facade.deletedCount(), at);
      assertEquals(filter.linkCount(), facade.linkCount(), at);
      assertEquals(reference.redisSize(), filter.redisSize(), at);
      assertEquals(filter.redisSize(), facade.redisSize(), at);
      assertEquals(reference.capacity(), filter.capacity(), at);
      assertEquals(filter.capacity(), facade.capacity(), at);
      assertEquals(filter.loadFactor(), facade.loadFactor(), at);
      assertEquals(reference.expectedFalsePositiveRate(), filter.expectedFalsePositiveRate(), at);
      assertEquals(filter.falsePositiveRateAtCapacity(), facade.falsePositiveRateAtCapacity(), at);
      assertEquals(filter.sizeInBytes() + 24, facade.sizeInBytes(), "facade's own object: " + at);
      assertEquals(reference.serializedSizeInBytes(), filter.serializedSizeInBytes(), at);
      assertEquals(filter.serializedSizeInBytes(), facade.serializedSizeInBytes(), at);
      if (bytes) {
        assertArrayEquals(reference.dumpHeader(), filter.dumpHeader(), at);
        assertArrayEquals(filter.dumpHeader(), facade.dumpHeader(), at);
        List<ScanDumpChunk> dump = dump(filter::scanDump);
        assertDumpsEqual(dump(reference::scanDump), dump, at);
        assertDumpsEqual(dump, dump(facade::scanDump), at);
        byte[] written = FormatTestSupport.bytesOf(filter);
        assertArrayEquals(FormatTestSupport.bytesOf(reference), written, at);
        assertArrayEquals(written, FormatTestSupport.bytesOf(facade), at);
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
    Trio trio = new Trio(capacity, bucketSize, maxIterations, expansion);
    String context = trio.filter.redisDebug();
    assertTrue(trio.filter.isCompact(), "a small reserve starts compact: " + context);
    Map<String, Integer> model = new HashMap<>();
    List<String> present = new ArrayList<>();
    int universe = 50 + random.nextInt(2000);
    boolean grew = false;
    for (int step = 0; step < 4000; step++) {
      int op = random.nextInt(100);
      String item = Integer.toString(random.nextInt(universe));
      String at = context + ", step " + step + ", op " + op;
      boolean wasCompact = trio.filter.isCompact();
      if (op < 50) {
        AddResult result = trio.tryAdd(bytes(item), false, at);
        if (result == AddResult.ADDED) {
          model.merge(item, 1, Integer::sum);
          present.add(item);
        } else {
          assertEquals(expansion == 0 ? AddResult.FULL : AddResult.NO_MEMORY, result, at);
        }
      } else if (op < 60) {
        boolean mightBePresent = trio.mightContain(bytes(item), at);
        AddResult result = trio.tryAdd(bytes(item), true, at);
        if (mightBePresent) {
          assertEquals(AddResult.EXISTS, result, at);
        } else if (result == AddResult.ADDED) {
          model.merge(item, 1, Integer::sum);
          present.add(item);
        }
      } else if (op < 82 && !present.isEmpty()) {
        String victim = present.remove(random.nextInt(present.size()));
        assertTrue(trio.remove(bytes(victim), at), "remove " + victim + " at " + at);
        model.merge(victim, -1, Integer::sum);
      } else if (op < 92 && !present.isEmpty()) {
        int index = random.nextInt(present.size());
        String old = present.get(index);
        if (trio.replace(bytes(old), bytes(item), at)) {
          present.set(index, item);
          model.merge(old, -1, Integer::sum);
          model.merge(item, 1, Integer::sum);
        }
      } else if (op < 95) {
        trio.compact();
        assertEquals(0, trio.filter.deletedCount(), at);
      } else if (op < 96 && random.nextInt(20) == 0) {
        trio.clear();
        model.clear();
        present.clear();
      } else {
        trio.mightContain(bytes(item), at);
      }
      grew |= wasCompact && !trio.filter.isCompact();
      assertEquals(present.size(), trio.filter.size(), "size at " + at);
      trio.assertSame(at, grew && step % 100 == 0 || step % 500 == 0);
      if (step % 200 == 0) {
        checkModel(trio.filter, model, at);
      }
    }
    trio.assertSame(context + ", end", true);
    checkModel(trio.filter, model, context + ", end");
    if (expansion == 0) {
      assertTrue(trio.filter.isCompact(), "a filter that never grows stays compact: " + context);
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
    Trio trio = new Trio(4, 2, 20, 1);
    assertTrue(trio.filter.isCompact());
    int expandedAt = -1;
    int added = 0;
    for (int i = 0; trio.filter.linkCount() < 3; i++, added++) {
      boolean wasCompact = trio.filter.isCompact();
      assertEquals(AddResult.ADDED, trio.tryAdd(bytes("item" + i), false, "add " + i));
      if (wasCompact && !trio.filter.isCompact()) {
        expandedAt = i;
        assertEquals(2, trio.filter.linkCount(), "the add that expanded made the second link");
      }
      trio.assertSame("add " + i, true);
      assertTrue(i < 1000, "the filter grows within 1000 adds");
    }
    assertTrue(expandedAt > 0, "the compact form expanded");
    assertFalse(trio.filter.isCompact());
    for (int i = 0; i < added; i++) {
      assertTrue(trio.filter.mightContain(bytes("item" + i)), "item" + i);
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
