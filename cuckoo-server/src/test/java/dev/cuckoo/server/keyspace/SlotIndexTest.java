package dev.cuckoo.server.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.RedisCuckooFilter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * The keyspace's slot index (cluster mode): beside a model of the keys of database 0 by slot, it
 * lists and counts exactly the stored keys of each slot whatever adds or removes them, it never
 * walks the keyspace to answer, and its heap cost per key stays small.
 */
class SlotIndexTest {
  private static final RedisCuckooFilter<byte[]> FILTER = RedisCuckooFilter.reserve(100, 2, 20, 1);

  // few slots, so that slots hold many keys and removals move entries inside their slot's array
  private static final int SLOTS = 16;

  private static int slotOf(byte[] name) {
    return Math.floorMod(java.util.Arrays.hashCode(name) * 0x9E3779B1, SLOTS);
  }

  private static Key key(int db, String name) {
    return new Key(db, name.getBytes(StandardCharsets.UTF_8));
  }

  private static Set<String> names(List<Key> keys) {
    Set<String> names = new HashSet<>();
    for (Key key : keys) {
      assertEquals(0, key.db(), "an indexed key of another database");
      names.add(new String(key.bytes(), StandardCharsets.UTF_8));
    }
    return names;
  }

  private static void assertMatches(Keyspace keyspace, Map<Integer, Set<String>> model, String at) {
    for (int slot = 0; slot < SLOTS; slot++) {
      Set<String> expected = model.getOrDefault(slot, Set.of());
      assertEquals(expected.size(), keyspace.countKeysInSlot(slot), at + ": count of slot " + slot);
      List<Key> listed = keyspace.keysInSlot(slot, Integer.MAX_VALUE);
      assertEquals(expected.size(), listed.size(), at + ": keys listed in slot " + slot);
      assertEquals(expected, names(listed), at + ": keys of slot " + slot);
    }
  }

  @Test
  void slotIndex_randomAddsRemovesClearsAndSwaps_matchesModel() {
    long seed = System.nanoTime();
    System.out.println("SlotIndexTest seed " + seed);
    Random random = new Random(seed);
    Keyspace keyspace = new Keyspace(2, SLOTS, SlotIndexTest::slotOf);
    // database 0's keys by slot; database 1's keys are never indexed
    Map<Integer, Set<String>> model = new HashMap<>();
    Set<String> otherDb = new HashSet<>();
    for (int step = 0; step < 20_000; step++) {
      String name = "k" + random.nextInt(600);
      int db = random.nextInt(8) == 0 ? 1 : 0;
      Key key = key(db, name);
      int op = random.nextInt(100);
      String at = "seed " + seed + ", step " + step;
      if (op < 50) {
        keyspace.put(key, FILTER);
        if (db == 0) {
          model.computeIfAbsent(slotOf(key.bytes()), s -> new HashSet<>()).add(name);
        } else {
          otherDb.add(name);
        }
      } else if (op < 90) {
        boolean expected =
            db == 0
                ? model.getOrDefault(slotOf(key.bytes()), new HashSet<>()).remove(name)
                : otherDb.remove(name);
        assertEquals(expected, keyspace.remove(key), at + ": remove " + name);
      } else if (op < 95) {
        keyspace.expireAt(key, System.currentTimeMillis() - 1);
      } else if (op < 97) {
        keyspace.clear(db);
        if (db == 0) {
          model.clear();
        } else {
          otherDb.clear();
        }
      } else if (op < 98) {
        keyspace.swap(0, 1);
        Set<String> was0 = new HashSet<>();
        model.values().forEach(was0::addAll);
        model.clear();
        for (String moved : otherDb) {
          model
              .computeIfAbsent(slotOf(moved.getBytes(StandardCharsets.UTF_8)), s -> new HashSet<>())
              .add(moved);
        }
        otherDb = was0;
      } else if (op < 99) {
        keyspace.clear();
        model.clear();
        otherDb.clear();
      } else {
        assertMatches(keyspace, model, at);
      }
      int slot = random.nextInt(SLOTS);
      assertEquals(
          model.getOrDefault(slot, Set.of()).size(),
          keyspace.countKeysInSlot(slot),
          at + ": count of slot " + slot);
    }
    assertMatches(keyspace, model, "seed " + seed + ", at the end");
  }

  @Test
  void slotIndex_concurrentWritersOnSharedSlots_matchesStoredKeys() throws Exception {
    Keyspace keyspace = new Keyspace(1, SLOTS, SlotIndexTest::slotOf);
    int threads = 4;
    List<Thread> writers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int writer = t;
      writers.add(
          new Thread(
              () -> {
                Random random = new Random(writer);
                for (int i = 0; i < 50_000; i++) {
                  Key key = key(0, "w" + writer + ":" + random.nextInt(500));
                  Lock lock = keyspace.lockFor(key);
                  lock.lock();
                  try {
                    if (random.nextBoolean()) {
                      keyspace.put(key, FILTER);
                    } else {
                      keyspace.remove(key);
                    }
                  } finally {
                    lock.unlock();
                  }
                }
              }));
    }
    writers.forEach(Thread::start);
    for (Thread writer : writers) {
      writer.join();
    }
    Map<Integer, Set<String>> model = new HashMap<>();
    for (Key key : keyspace.keys()) {
      model
          .computeIfAbsent(slotOf(key.bytes()), s -> new HashSet<>())
          .add(new String(key.bytes(), StandardCharsets.UTF_8));
    }
    assertTrue(keyspace.size() > 0, "no key left to compare");
    assertMatches(keyspace, model, "after concurrent writers");
  }

  @Test
  void countKeysInSlot_manyKeys_visitsNoKey() {
    AtomicLong slotLookups = new AtomicLong();
    ToIntFunction<byte[]> counting =
        name -> {
          slotLookups.incrementAndGet();
          return slotOf(name);
        };
    Keyspace keyspace = new Keyspace(1, SLOTS, counting);
    int keys = 20_000;
    for (int i = 0; i < keys; i++) {
      keyspace.put(key(0, "user:" + i), FILTER);
    }
    // each key was hashed to its slot once, when it was stored
    assertEquals(keys, slotLookups.get());
    long total = 0;
    for (int slot = 0; slot < SLOTS; slot++) {
      total += keyspace.countKeysInSlot(slot);
    }
    assertEquals(keys, total);
    List<Key> some = keyspace.keysInSlot(3, 10);
    assertEquals(10, some.size());
    // a walk over the keyspace would have hashed every key again
    assertEquals(keys, slotLookups.get(), "slot lookups after COUNTKEYSINSLOT and GETKEYSINSLOT");
  }

  @Test
  void keysInSlot_withoutIndexOrBadSlot_refuses() {
    assertThrows(IllegalStateException.class, () -> new Keyspace().countKeysInSlot(0));
    Keyspace indexed = new Keyspace(1, SLOTS, SlotIndexTest::slotOf);
    IllegalArgumentException bad =
        assertThrows(IllegalArgumentException.class, () -> indexed.keysInSlot(SLOTS, 1));
    assertEquals("slot: 16 (expected: 0 to 15)", bad.getMessage());
  }

  @Test
  void slotIndex_about100KeysPerSlot_costsAtMostSevenHeapBytesPerKey() {
    // the density of 1.6 million keys over Redis Cluster's 16,384 slots
    int keys = 50_000;
    int slots = 512;
    Keyspace plain = new Keyspace(1);
    Keyspace indexed =
        new Keyspace(1, slots, name -> (java.util.Arrays.hashCode(name) * 0x9E3779B1) >>> 23);
    long plainEmpty = KeyspaceMemoryTest.retained(plain);
    long indexedEmpty = KeyspaceMemoryTest.retained(indexed);
    for (int i = 0; i < keys; i++) {
      byte[] name = ("user:" + i).getBytes(StandardCharsets.UTF_8);
      plain.put(new Key(name), FILTER);
      indexed.put(new Key(name), FILTER);
    }
    long plainBytes = KeyspaceMemoryTest.retained(plain) - plainEmpty;
    long indexedBytes = KeyspaceMemoryTest.retained(indexed) - indexedEmpty;
    double perKey = (indexedBytes - plainBytes) / (double) keys;
    System.out.printf(
        "slot index: %.2f heap bytes per key (%d keys over %d slots: %d bytes with the index, %d"
            + " without; the index's arrays %d bytes)%n",
        perKey, keys, slots, indexedBytes, plainBytes, indexed.slotIndexBytes());
    // a reference per key and the arrays' spare room; the entries do not grow
    assertTrue(perKey <= 7, "slot index heap bytes per key: " + perKey + " (expected: <= 7)");
    assertTrue(perKey >= 4, "slot index heap bytes per key: " + perKey + " (expected: >= 4)");
    // all of it is the slot arrays (the shared empty array may have become unreachable): the
    // entries did not grow
    long arrays = indexed.slotIndexBytes() - new Keyspace(1, slots, name -> 0).slotIndexBytes();
    assertTrue(
        Math.abs(indexedBytes - plainBytes - arrays) <= 16,
        "heap walk " + (indexedBytes - plainBytes) + " bytes, the index's arrays " + arrays);
  }
}
