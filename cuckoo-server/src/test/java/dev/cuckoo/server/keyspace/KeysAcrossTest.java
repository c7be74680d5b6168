package dev.cuckoo.server.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.RedisCuckooFilter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * {@link Keyspace#keysAcross}: every key that existed when the snapshot was cut is listed, however
 * its removal interleaves with the listing. A key missed there is in neither the new snapshot nor a
 * kept log, and a record of the new log that changes it before its removal fails to replay: the
 * server refuses to start.
 */
class KeysAcrossTest {

  private static Key key(String name) {
    return new Key(name.getBytes(StandardCharsets.UTF_8));
  }

  private static RedisCuckooFilter<byte[]> filter() {
    return RedisCuckooFilter.reserve(100, 2, 20, 1);
  }

  private static void removeLocked(Keyspace keyspace, Key key) {
    Lock lock = keyspace.lockFor(key);
    lock.lock();
    try {
      keyspace.remove(key);
    } finally {
      lock.unlock();
    }
  }

  @Test
  void keysAcross_removalHeldHalfwayWhileListing_listsTheKey() throws Exception {
    Keyspace keyspace = new Keyspace();
    for (int i = 0; i < 100; i++) {
      keyspace.put(key("k" + i), filter());
    }
    Key target = key("k50");
    CountDownLatch halfway = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    keyspace.onRemoving(
        removing -> {
          if (removing.equals(target)) {
            halfway.countDown();
            try {
              release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        });
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread remover =
        new Thread(
            () -> {
              try {
                removeLocked(keyspace, target);
              } catch (Throwable e) {
                failure.set(e);
              }
            },
            "remover");
    List<Key> listed =
        keyspace.keysAcross(
            () -> {
              // the removal starts after the cut and is held halfway while the keys are listed
              remover.start();
              assertTrue(halfway.await(10, TimeUnit.SECONDS), "the removal never started");
            });
    release.countDown();
    remover.join(10_000);
    assertTrue(failure.get() == null, "remover failed: " + failure.get());
    assertTrue(keyspace.stored(target) == null, "the removal did not finish");
    assertTrue(
        listed.contains(target),
        "a key removed after the cut, while the keys were listed, is missing from the listing");
  }

  @Test
  void keysAcross_randomRemovalsAndCreationsDuringListing_listsEveryKeyOfTheCut() throws Exception {
    long seed = System.nanoTime();
    System.out.println("KeysAcrossTest seed " + seed);
    Random random = new Random(seed);
    Keyspace keyspace = new Keyspace();
    int created = 0;
    for (int round = 0; round < 200; round++) {
      while (keyspace.size() < 2_000) {
        keyspace.put(key("k" + created++), filter());
      }
      List<Key> victims = new ArrayList<>(keyspace.keys());
      java.util.Collections.shuffle(victims, random);
      List<Key> removing = victims.subList(0, 500);
      int firstNew = created;
      created += 200;
      Set<Key> atCut = new HashSet<>();
      CyclicBarrier cut = new CyclicBarrier(2);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread churn =
          new Thread(
              () -> {
                try {
                  cut.await(10, TimeUnit.SECONDS);
                  for (int i = 0; i < removing.size(); i++) {
                    removeLocked(keyspace, removing.get(i));
                    if (i < 200) {
                      Key fresh = key("k" + (firstNew + i));
                      Lock lock = keyspace.lockFor(fresh);
                      lock.lock();
                      try {
                        keyspace.put(fresh, filter());
                      } finally {
                        lock.unlock();
                      }
                    }
                  }
                } catch (Throwable e) {
                  failure.set(e);
                }
              },
              "churn");
      churn.start();
      List<Key> listed =
          keyspace.keysAcross(
              () -> {
                // nothing changes keys before this point of the round
                atCut.addAll(keyspace.keys());
                cut.await(10, TimeUnit.SECONDS);
              });
      churn.join(10_000);
      assertTrue(failure.get() == null, "seed " + seed + ": churn failed: " + failure.get());
      assertEquals(
          new HashSet<>(listed).size(),
          listed.size(),
          "seed " + seed + ", round " + round + ": a key listed twice");
      Set<Key> missing = new HashSet<>(atCut);
      missing.removeAll(listed);
      assertTrue(
          missing.isEmpty(),
          "seed " + seed + ", round " + round + ": keys of the cut not listed: " + missing);
    }
  }
}
