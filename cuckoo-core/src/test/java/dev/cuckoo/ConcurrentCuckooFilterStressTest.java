package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many threads on one {@link ConcurrentCuckooFilter} (more threads than cores): writers add and
 * remove keys of disjoint key sets, readers check that keys known to be present are never reported
 * absent, including in small, nearly full tables where most adds relocate fingerprints.
 */
class ConcurrentCuckooFilterStressTest {
  /*
   * Knowing that a key is present. Each key has an epoch: even = absent, odd = present. Its writer
   * adds the key and then increments the epoch (odd), or increments it (even) and then removes the
   * key. A reader reads the epoch e1, looks the key up, reads the epoch e2. If e1 == e2 and e1 is
   * odd, the add completed before the lookup started and the remove had not begun before the
   * second epoch read, so the lookup must have said "present".
   */

  private static final int KEYS_PER_WRITER = 2048;

  @Test
  void readersAndWriters_nearlyFullSmallTable_noFalseNegatives() throws Exception {
    // 4096 slots, 3 writers keep ~ 3 × 1280 = 3840 keys present: ~94% load, heavy relocation
    run(4096, 4, 3, 3, 1280, 3_000, TestSeeds.seed());
  }

  @Test
  void readersAndWriters_fourBucketTable_everyAddRelocates() throws Exception {
    // 4 buckets × 4 slots kept 14/16 full by 2 writers: nearly every add moves fingerprints of
    // keys the readers are checking
    run(14, 4, 2, 3, 7, 2_000, TestSeeds.seed());
  }

  @Test
  void readersAndWriters_largerTableManyStripes_noFalseNegatives() throws Exception {
    run(100_000, 4, 2, 4, 20_000, 2_000, TestSeeds.seed());
  }

  @Test
  void readersAndWriters_bucketSizeTwo_noFalseNegatives() throws Exception {
    run(4096, 2, 3, 3, 1300, 2_000, TestSeeds.seed());
  }

  @Test
  @Tag("slow")
  void readersAndWriters_minutes_noFalseNegatives() throws Exception {
    long seed = TestSeeds.freshSeed();
    run(4096, 4, 3, 5, 1280, 60_000, seed);
    run(1_000_000, 4, 4, 4, 250_000, 60_000, seed + 1);
    run(4096, 8, 4, 4, 1000, 30_000, seed + 2);
  }

  /**
   * Runs writers and readers for {@code millis}, then checks the final state against the model.
   *
   * @param targetPresent keys each writer keeps present on average
   */
  private static void run(
      int expectedItems,
      int bucketSize,
      int writers,
      int readers,
      int targetPresent,
      long millis,
      long seed)
      throws Exception {
    ConcurrentCuckooFilter<Long> filter =
        ConcurrentCuckooFilter.<Long>builder(ItemHashers.longs())
            .expectedItems(expectedItems)
            .bucketSize(bucketSize)
            .stripes(64)
            .build();
    int keysPerWriter =
        targetPresent < 64 ? 2 * targetPresent : Math.max(KEYS_PER_WRITER, 2 * targetPresent);
    AtomicIntegerArray epochs = new AtomicIntegerArray(writers * keysPerWriter);
    AtomicReference<String> failure = new AtomicReference<>();
    AtomicLong checks = new AtomicLong();
    AtomicLong failedAdds = new AtomicLong();
    long deadline = System.nanoTime() + millis * 1_000_000L;
    String where = "seed " + seed + " expectedItems " + expectedItems + " b " + bucketSize;

    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      threads.add(
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(seed + writer);
                int base = writer * keysPerWriter;
                int present = 0;
                while (System.nanoTime() < deadline && failure.get() == null) {
                  int index = base + random.nextInt(keysPerWriter);
                  long hash = ItemHashers.hashLong(index);
                  boolean isPresent = (epochs.get(index) & 1) == 1;
                  if (!isPresent && present < targetPresent) {
                    if (filter.addHash(hash)) {
                      epochs.incrementAndGet(index);
                      present++;
                    } else {
                      failedAdds.incrementAndGet();
                    }
                  } else if (isPresent) {
                    epochs.incrementAndGet(index);
                    if (!filter.removeHash(hash)) {
                      failure.compareAndSet(null, where + ": remove of present key " + index);
                    }
                    present--;
                  }
                }
              }));
    }
    for (int r = 0; r < readers; r++) {
      int reader = r;
      threads.add(
          new Thread(
              () -> {
                SplittableRandom random =
                    new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (reader + 1)));
                long local = 0;
                while (System.nanoTime() < deadline && failure.get() == null) {
                  int index = random.nextInt(epochs.length());
                  long hash = ItemHashers.hashLong(index);
                  int before = epochs.get(index);
                  boolean found =
                      (local & 1) == 0 ? filter.mightContainHash(hash) : filter.countHash(hash) > 0;
                  int after = epochs.get(index);
                  if ((before & 1) == 1 && before == after) {
                    local++;
                    if (!found) {
                      failure.compareAndSet(
                          null,
                          where
                              + ": present key "
                              + index
                              + " reported absent (epoch "
                              + before
                              + ")");
                    }
                  }
                }
                checks.addAndGet(local);
              }));
    }
    for (Thread t : threads) {
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(null, failure.get());
    assertTrue(checks.get() > 1000, where + ": only " + checks.get() + " checks of present keys");

    long present = 0;
    for (int i = 0; i < epochs.length(); i++) {
      long hash = ItemHashers.hashLong(i);
      if ((epochs.get(i) & 1) == 1) {
        present++;
        assertTrue(filter.mightContainHash(hash), where + ": key " + i + " lost");
        assertTrue(filter.countHash(hash) >= 1, where + ": key " + i + " not counted");
      }
    }
    assertEquals(present, filter.size(), where);
    // removing every present key empties the table exactly
    for (int i = 0; i < epochs.length(); i++) {
      if ((epochs.get(i) & 1) == 1) {
        assertTrue(filter.removeHash(ItemHashers.hashLong(i)), where + ": key " + i);
      }
    }
    assertEquals(0, filter.size(), where);
    for (int i = 0; i < epochs.length(); i++) {
      assertEquals(0, filter.countHash(ItemHashers.hashLong(i)), where + ": key " + i + " left");
    }
    System.out.printf(
        "%s: %d checks of present keys, %d relocating adds, %d failed adds%n",
        where, checks.get(), filter.relocations(), failedAdds.get());
    if (expectedItems <= 4096 && expectedItems > 100) {
      assertTrue(
          filter.relocations() > 100, where + ": only " + filter.relocations() + " relocations");
    }
  }
}
