package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of add, addIfAbsent, remove, count and mightContain, checked on recorded
 * histories (Wing and Gong's search for a sequential order that respects real time and matches a
 * multiset model), while a background thread keeps relocating fingerprints in a nearly full table.
 */
class ConcurrentCuckooFilterLinearizabilityTest {
  /*
   * Each round, THREADS threads start together at a barrier and each runs OPS_PER_THREAD random
   * operations on KEYS test keys, recording the operation, its result and two ticks of a shared
   * counter taken just before the call and just after it returns. Operation a must precede b in
   * any linearization if a's return tick is below b's call tick. The test keys are chosen so that
   * their fingerprints differ from each other and from every background key's, so the multiset
   * model is exact: count returns the number of copies, mightContain whether there is one.
   *
   * Failed adds. Copies of one key all live in the same two buckets (2b = 8 slots), shared with
   * background fingerprints, so in a nearly full table an add of a key that already has several
   * copies can legitimately find no room. Keys are trimmed to at most 1 copy before each round,
   * and the model accepts add = false or addIfAbsent = false (state unchanged) only when the key
   * already has at least 2 copies at that point of the linearization. A key with 0 or 1 copies
   * always has room here: the relocation search covers the whole table (about 110 buckets).
   */
  private static final int THREADS = 3;
  private static final int OPS_PER_THREAD = 3;
  private static final int KEYS = 3;

  private static final int ADD = 0;
  private static final int ADD_IF_ABSENT = 1;
  private static final int REMOVE = 2;
  private static final int COUNT = 3;
  private static final int CONTAINS = 4;
  private static final String[] NAMES = {"add", "addIfAbsent", "remove", "count", "mightContain"};

  @Test
  void histories_nearlyFullTableWithRelocations_linearizable() throws Exception {
    check(2_000, TestSeeds.seed());
  }

  @Test
  @Tag("slow")
  void histories_minutes_linearizable() throws Exception {
    check(60_000, TestSeeds.freshSeed());
  }

  private static void check(long millis, long seed) throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    ConcurrentCuckooFilter<Long> filter =
        ConcurrentCuckooFilter.<Long>builder(ItemHashers.longs())
            .expectedItems(400)
            .fingerprintBits(16)
            .seed(seed)
            .stripes(16)
            .build();
    CuckooFilter<Long> hashing =
        CuckooFilter.<Long>builder(ItemHashers.longs())
            .expectedItems(400)
            .fingerprintBits(16)
            .seed(seed)
            .build();
    assertEquals(hashing.bucketCount(), filter.bucketCount());

    // background keys fill ~88% of the slots; test keys have fingerprints no other key has
    Set<Long> backgroundFingerprints = new HashSet<>();
    List<Long> background = new ArrayList<>();
    long next = 1_000_000;
    long slots = filter.bucketCount() * filter.bucketSize();
    while (background.size() < slots * 88 / 100 + 200) {
      background.add(next);
      backgroundFingerprints.add(fingerprint(hashing, next));
      next++;
    }
    long[] keys = new long[KEYS];
    Set<Long> used = new HashSet<>(backgroundFingerprints);
    for (int k = 0, candidate = 0; k < KEYS; candidate++) {
      if (used.add(fingerprint(hashing, candidate))) {
        keys[k++] = candidate;
      }
    }
    int resident = (int) (slots * 88 / 100);
    for (int i = 0; i < resident; i++) {
      assertTrue(filter.add(background.get(i)), "seed " + seed);
    }

    int[] model = new int[KEYS];
    long[][] history =
        new long[THREADS * OPS_PER_THREAD][]; // {op, key, result, callTick, returnTick}
    AtomicLong clock = new AtomicLong();
    AtomicReference<String> failure = new AtomicReference<>();
    long[] rounds = new long[1];
    boolean[] stop = new boolean[1]; // decided in the barrier action, so all threads agree
    long deadline = System.nanoTime() + millis * 1_000_000L;
    CyclicBarrier barrier =
        new CyclicBarrier(
            THREADS,
            () -> {
              if (history[0] != null && failure.get() == null) {
                String error = linearize(history, model);
                if (error != null) {
                  failure.set("seed " + seed + " round " + rounds[0] + ": " + error);
                }
                rounds[0]++;
              }
              stop[0] = System.nanoTime() > deadline || failure.get() != null;
              for (int k = 0; k < KEYS; k++) {
                while (model[k] > 1) {
                  filter.remove(keys[k]);
                  model[k]--;
                }
              }
            });
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      threads.add(
          new Thread(
              () -> {
                SplittableRandom local = new SplittableRandom(seed * 31 + thread);
                try {
                  while (true) {
                    barrier.await();
                    if (stop[0]) {
                      return;
                    }
                    for (int i = 0; i < OPS_PER_THREAD; i++) {
                      int op = local.nextInt(NAMES.length);
                      int key = local.nextInt(KEYS);
                      long call = clock.incrementAndGet();
                      long result = apply(filter, op, keys[key]);
                      long ret = clock.incrementAndGet();
                      history[thread * OPS_PER_THREAD + i] =
                          new long[] {op, key, result, call, ret};
                    }
                  }
                } catch (Exception e) {
                  failure.compareAndSet(null, e.toString());
                  barrier.reset();
                }
              }));
    }
    Thread churn =
        new Thread(
            () -> {
              // replaces resident background keys by others: most adds relocate fingerprints
              int in = 0;
              int out = resident;
              while (System.nanoTime() < deadline && failure.get() == null) {
                if (!filter.remove(background.get(in))) {
                  failure.compareAndSet(null, "background key lost");
                }
                if (!filter.add(background.get(out))) {
                  failure.compareAndSet(
                      null, "background add failed at load " + filter.loadFactor());
                }
                in = (in + 1) % background.size();
                out = (out + 1) % background.size();
              }
            });
    churn.start();
    for (Thread t : threads) {
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    churn.join();
    assertEquals(null, failure.get());
    assertTrue(rounds[0] > 100, "only " + rounds[0] + " rounds");
    assertTrue(filter.relocations() > 100, "only " + filter.relocations() + " relocations");
    for (int k = 0; k < KEYS; k++) {
      assertEquals(model[k], filter.count(keys[k]), "seed " + seed + " key " + keys[k]);
    }
    System.out.printf(
        "seed %d: %d rounds of %d operations linearized, %d relocations%n",
        seed, rounds[0], history.length, filter.relocations());
  }

  private static long fingerprint(CuckooFilter<Long> hashing, long key) {
    return hashing.indexer().fingerprint(hashing.indexer().remix(ItemHashers.hashLong(key)));
  }

  private static long apply(ConcurrentCuckooFilter<Long> filter, int op, long key) {
    switch (op) {
      case ADD:
        return filter.add(key) ? 1 : 0;
      case ADD_IF_ABSENT:
        return filter.addIfAbsent(key) ? 1 : 0;
      case REMOVE:
        return filter.remove(key) ? 1 : 0;
      case COUNT:
        return filter.count(key);
      default:
        return filter.mightContain(key) ? 1 : 0;
    }
  }

  /**
   * Finds a linearization of {@code history} starting from {@code model}; on success updates the
   * model to the final state and returns null, else returns the history as text.
   */
  private static String linearize(long[][] history, int[] model) {
    int[] state = model.clone();
    if (search(history, 0, state)) {
      System.arraycopy(state, 0, model, 0, model.length);
      return null;
    }
    StringBuilder text =
        new StringBuilder("not linearizable from counts " + Arrays.toString(model) + ":");
    for (long[] op : history) {
      text.append(
          String.format(" [%s(k%d)=%d @%d..%d]", NAMES[(int) op[0]], op[1], op[2], op[3], op[4]));
    }
    return text.toString();
  }

  /** Depth-first search over the operations that may come next; leaves the final state in state. */
  private static boolean search(long[][] history, int done, int[] state) {
    if (done == (1 << history.length) - 1) {
      return true;
    }
    for (int i = 0; i < history.length; i++) {
      if ((done & (1 << i)) != 0 || !mayComeNext(history, done, i)) {
        continue;
      }
      long[] op = history[i];
      int key = (int) op[1];
      int before = state[key];
      int after = step((int) op[0], before, op[2]);
      if (after < 0) {
        continue;
      }
      state[key] = after;
      if (search(history, done | (1 << i), state)) {
        return true;
      }
      state[key] = before;
    }
    return false;
  }

  /** True if no pending operation returned before operation {@code i} was called. */
  private static boolean mayComeNext(long[][] history, int done, int i) {
    for (int j = 0; j < history.length; j++) {
      if ((done & (1 << j)) == 0 && j != i && history[j][4] < history[i][3]) {
        return false;
      }
    }
    return true;
  }

  /** Returns the count after the operation, or -1 if its result is impossible at this count. */
  private static int step(int op, int count, long result) {
    switch (op) {
      case ADD:
        return result == 1 ? count + 1 : count >= 2 ? count : -1;
      case ADD_IF_ABSENT:
        return result == (count == 0 ? 1 : 0) ? count + (int) result : -1;
      case REMOVE:
        return result == (count > 0 ? 1 : 0) ? count - (int) result : -1;
      case COUNT:
        return result == count ? count : -1;
      default:
        return result == (count > 0 ? 1 : 0) ? count : -1;
    }
  }
}
