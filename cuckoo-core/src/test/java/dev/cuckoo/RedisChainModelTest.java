package dev.cuckoo;

import static dev.cuckoo.RedisChainKnownAnswerTest.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random adds, conditional adds, removes, replaces and compactions on RedisBloom chains, checked
 * after every step against a multiset: no false negatives, size equals the model, count at least
 * the model's count.
 */
@SuppressWarnings("deprecation") // also the tests of the deprecated redisBloom factory
class RedisChainModelTest {

  /**
   * Fixed seeds, {@link TestSeeds#seed()}, and more with {@code -Dcuckoo.modelSeeds=N} (seeds
   * 100..).
   */
  static List<Long> seeds() {
    List<Long> seeds = new ArrayList<>(List.of(1L, 2L, 3L, 0x5eedL, TestSeeds.seed()));
    for (long i = 0; i < Long.getLong("cuckoo.modelSeeds", 0); i++) {
      seeds.add(100 + i);
    }
    return seeds;
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void randomOperations_matchMultisetModel(long seed) {
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
    long capacity = 2L * bucketSize + random.nextInt(200);
    int maxIterations = 1 + random.nextInt(random.nextBoolean() ? 5 : 100);
    RedisCuckooFilter<byte[]> filter =
        RedisCuckooFilter.reserve(capacity, bucketSize, maxIterations, expansion);
    Map<String, Integer> model = new HashMap<>();
    List<String> present = new ArrayList<>();
    long size = 0;
    int universe = 50 + random.nextInt(3000);
    for (int step = 0; step < 6000; step++) {
      int op = random.nextInt(100);
      String item = Integer.toString(random.nextInt(universe));
      if (op < 50) {
        AddOutcome result = filter.tryAdd(bytes(item));
        if (result == AddOutcome.ADDED) {
          model.merge(item, 1, Integer::sum);
          present.add(item);
          size++;
        } else {
          assertEquals(expansion == 0 ? AddOutcome.FULL : AddOutcome.NO_MEMORY, result);
        }
      } else if (op < 60) {
        boolean mightBePresent = filter.mightContain(bytes(item));
        AddOutcome result = filter.addIfAbsentWithOutcome(bytes(item));
        if (mightBePresent) {
          assertEquals(AddOutcome.ALREADY_PRESENT, result);
        } else if (result == AddOutcome.ADDED) {
          model.merge(item, 1, Integer::sum);
          present.add(item);
          size++;
        }
      } else if (op < 85 && !present.isEmpty()) {
        String victim = present.remove(random.nextInt(present.size()));
        long deletes = filter.deletedCount();
        assertTrue(filter.remove(bytes(victim)), "remove " + victim);
        model.merge(victim, -1, Integer::sum);
        size--;
        assertTrue(filter.deletedCount() == deletes + 1 || filter.deletedCount() == 0);
      } else if (op < 95 && !present.isEmpty()) {
        int index = random.nextInt(present.size());
        String old = present.get(index);
        if (filter.replace(bytes(old), bytes(item))) {
          present.set(index, item);
          model.merge(old, -1, Integer::sum);
          model.merge(item, 1, Integer::sum);
        }
      } else if (op < 97) {
        filter.compact();
        assertEquals(0, filter.deletedCount());
      } else {
        String absent = "absent" + step;
        if (!filter.mightContain(bytes(absent))) {
          assertTrue(!filter.remove(bytes(absent)), "a fingerprint not found cannot be removed");
        }
      }
      assertEquals(size, filter.size(), "size at step " + step);
      if (step % 250 == 0 || step > 5990) {
        checkModel(filter, model, step);
      }
    }
    checkModel(filter, model, -1);
  }

  private static void checkModel(
      RedisCuckooFilter<byte[]> filter, Map<String, Integer> model, int step) {
    long total = 0;
    for (Map.Entry<String, Integer> entry : model.entrySet()) {
      int copies = entry.getValue();
      total += copies;
      if (copies > 0) {
        if (!filter.mightContain(bytes(entry.getKey()))) {
          fail("false negative for " + entry.getKey() + " at step " + step);
        }
        assertTrue(filter.count(bytes(entry.getKey())) >= copies, "count of " + entry.getKey());
      }
    }
    assertEquals(total, filter.size());
    assertEquals(total, RedisChainKnownAnswerTest.occupiedSlots(filter), "slots in use");
    for (RedisLink link : filter.redisChain().links()) {
      assertEquals(link.table.countOccupied(), link.occupied, "a link's occupied count");
    }
    filter.redisChain().checkRoomIndex();
  }
}
