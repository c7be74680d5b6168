package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Random operation sequences against a HashMap multiset, on small tables that fill up so that kicks
 * and failed inserts happen constantly. The seed is printed in every failure message; set {@code
 * -Dcuckoo.model.seed=N} to replay one.
 */
class CuckooFilterModelTest {

  /** One configuration: scheme, bucket size, fingerprint bits, buckets, key universe. */
  private record Config(Scheme scheme, int bucketSize, int bits, int buckets, int universe) {}

  private static final List<Config> CONFIGS =
      List.of(
          new Config(Scheme.STANDARD, 2, 8, 64, 200),
          new Config(Scheme.STANDARD, 4, 12, 64, 400),
          new Config(Scheme.STANDARD, 8, 16, 32, 400),
          new Config(Scheme.STANDARD, 4, 5, 40, 300),
          new Config(Scheme.STANDARD, 4, 32, 100, 600),
          new Config(Scheme.STANDARD_FAST, 2, 8, 64, 200),
          new Config(Scheme.STANDARD_FAST, 4, 12, 64, 400),
          new Config(Scheme.STANDARD_FAST, 4, 32, 100, 600),
          new Config(Scheme.REDISBLOOM, 2, 8, 64, 200),
          new Config(Scheme.REDISBLOOM, 4, 8, 32, 200),
          new Config(Scheme.REDISBLOOM, 1, 8, 128, 200));

  @Test
  void randomOperations_millionSteps_matchModel() {
    long base = Long.getLong("cuckoo.model.seed", 20261122L);
    long total = 0;
    for (int i = 0; i < CONFIGS.size(); i++) {
      total += run(CONFIGS.get(i), base + i, 130_000);
    }
    assertTrue(total >= 1_000_000, "operations " + total);
  }

  @Test
  @Tag("slow")
  void randomOperations_longRun_matchModel() {
    long base = System.nanoTime();
    for (int round = 0; round < 40; round++) {
      for (int i = 0; i < CONFIGS.size(); i++) {
        run(CONFIGS.get(i), base + round * 100L + i, 500_000);
      }
    }
  }

  private static long run(Config config, long seed, int steps) {
    String where = config + " seed=" + seed;
    SplittableRandom random = new SplittableRandom(seed);
    CuckooFilter<Long> filter =
        new CuckooFilter<>(
            ItemHashers.longs(),
            config.scheme(),
            config.buckets(),
            config.bucketSize(),
            config.bits(),
            config.scheme() == Scheme.REDISBLOOM ? 20 : 100,
            config.scheme() == Scheme.REDISBLOOM ? 0 : seed,
            1);
    Map<Long, Integer> model = new HashMap<>();
    List<Long> present = new ArrayList<>();
    long modelSize = 0;
    int failures = 0;
    for (int step = 0; step < steps; step++) {
      long key = random.nextInt(config.universe());
      int op = random.nextInt(100);
      try {
        if (op < 35) {
          if (filter.add(key)) {
            model.merge(key, 1, Integer::sum);
            present.add(key);
            modelSize++;
          } else {
            failures++;
            checkAll(filter, model, where + " step " + step + " after failed add");
          }
        } else if (op < 45) {
          boolean before = filter.mightContain(key);
          boolean added = filter.addIfAbsent(key);
          if (before) {
            assertFalse(added, where + " addIfAbsent of a present key");
          }
          if (added) {
            model.merge(key, 1, Integer::sum);
            present.add(key);
            modelSize++;
          }
        } else if (op < 70 && !present.isEmpty()) {
          long victim = present.get(random.nextInt(present.size()));
          assertTrue(
              filter.remove(victim), where + " step " + step + " remove of present " + victim);
          removeOne(model, present, victim);
          modelSize--;
        } else if (op < 78 && !present.isEmpty()) {
          long old = present.get(random.nextInt(present.size()));
          if (filter.replace(old, key)) {
            removeOne(model, present, old);
            model.merge(key, 1, Integer::sum);
            present.add(key);
          } else {
            checkAll(filter, model, where + " step " + step + " after failed replace");
          }
        } else if (op < 80 && !filter.mightContain(key)) {
          assertFalse(filter.remove(key), where + " remove of an absent key");
        } else if (op == 99 && random.nextInt(200) == 0) {
          filter.clear();
          model.clear();
          present.clear();
          modelSize = 0;
        } else {
          int copies = model.getOrDefault(key, 0);
          if (copies > 0) {
            assertTrue(filter.mightContain(key), where + " false negative " + key);
          }
          assertTrue(filter.count(key) >= copies, where + " count " + key);
        }
        assertEquals(modelSize, filter.size(), where + " step " + step + " size");
        if (step % 4096 == 0) {
          checkAll(filter, model, where + " step " + step);
        }
      } catch (RuntimeException e) {
        fail(where + " step " + step + ": " + e, e);
      }
    }
    checkAll(filter, model, where + " end");
    assertTrue(failures > 0, where + ": the table never filled up; the test is too easy");
    return steps;
  }

  static void removeOne(Map<Long, Integer> model, List<Long> present, long key) {
    model.merge(key, -1, (a, b) -> a + b == 0 ? null : a + b);
    present.remove(Long.valueOf(key));
  }

  static void checkAll(CuckooFilter<Long> filter, Map<Long, Integer> model, String where) {
    long total = 0;
    for (Map.Entry<Long, Integer> entry : model.entrySet()) {
      assertTrue(filter.mightContain(entry.getKey()), where + ": false negative " + entry.getKey());
      assertTrue(filter.count(entry.getKey()) >= entry.getValue(), where + ": count " + entry);
      total += entry.getValue();
    }
    assertEquals(total, filter.size(), where + ": size");
  }
}
