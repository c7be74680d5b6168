package dev.cuckoo.server.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Keyspace#scan} (SCAN) and {@link Keyspace#randomKey} (RANDOMKEY) over the segmented key
 * map: a full iteration returns each key of the database once, pages hold at least COUNT keys, keys
 * stored throughout an iteration are returned while others come and go, and short names (whose
 * plain hashes share their high bits) are spread like long ones.
 */
class KeyspaceScanTest {

  private static Key key(int db, String name) {
    return new Key(db, name.getBytes(StandardCharsets.UTF_8));
  }

  private static RedisCuckooFilter<byte[]> filter() {
    return RedisCuckooFilter.reserve(4, 2, 20, 1);
  }

  private static Keyspace keyspaceOf(List<Key> keys) {
    Keyspace keyspace = new Keyspace();
    for (Key key : keys) {
      keyspace.put(key, filter());
    }
    return keyspace;
  }

  /** Names of both kinds: short ones (k0..k999) and long ones. */
  private static List<Key> mixedKeys(int db, int count) {
    List<Key> keys = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      keys.add(key(db, i % 2 == 0 ? "k" + i : "user:session:" + i + ":profile"));
    }
    return keys;
  }

  /** Runs a whole SCAN of {@code db}, counting how often each key came back. */
  private static Map<Key, Integer> fullScan(Keyspace keyspace, int db, long count) {
    Map<Key, Integer> seen = new HashMap<>();
    long cursor = 0;
    int pages = 0;
    do {
      Keyspace.ScanPage page = keyspace.scan(db, cursor, count);
      if (page.cursor() != 0) {
        assertTrue(
            page.keys().size() >= count,
            "a page before the last holds at least COUNT keys: " + page.keys().size());
      }
      for (Key key : page.keys()) {
        seen.merge(key, 1, Integer::sum);
      }
      cursor = page.cursor();
      assertTrue(++pages <= 1_000_000, "the iteration ends");
    } while (cursor != 0);
    return seen;
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 7, 10, 1000, 100_000})
  void scan_fullIteration_returnsEveryKeyOfTheDatabaseOnce(long count) {
    List<Key> keys = mixedKeys(0, 20_000);
    List<Key> everything = new ArrayList<>(keys);
    everything.addAll(mixedKeys(3, 500));
    Keyspace keyspace = keyspaceOf(everything);
    Map<Key, Integer> seen = fullScan(keyspace, 0, count);
    assertEquals(new HashSet<>(keys), seen.keySet());
    assertTrue(seen.values().stream().allMatch(times -> times == 1), "each key once");
    assertEquals(500, fullScan(keyspace, 3, count).size());
    assertEquals(Map.of(), fullScan(keyspace, 5, count));
  }

  @Test
  void scan_cursorPastTheEnd_emptyLastPage() {
    Keyspace keyspace = keyspaceOf(mixedKeys(0, 100));
    Keyspace.ScanPage page = keyspace.scan(0, 1L << 32, 10);
    assertEquals(List.of(), page.keys());
    assertEquals(0, page.cursor());
  }

  @Test
  void scan_keysComingAndGoingMeanwhile_returnsEveryKeyStoredThroughout() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<Key> stable = mixedKeys(0, 5_000);
    Keyspace keyspace = keyspaceOf(stable);
    List<Key> churn = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      churn.add(key(0, "churn:" + i));
    }
    Set<Key> seen = new HashSet<>();
    long cursor = 0;
    do {
      Keyspace.ScanPage page = keyspace.scan(0, cursor, 1 + random.nextInt(50));
      seen.addAll(page.keys());
      cursor = page.cursor();
      for (int i = 0; i < 20; i++) {
        Key key = churn.get(random.nextInt(churn.size()));
        if (keyspace.stored(key) == null) {
          keyspace.put(key, filter());
        } else {
          keyspace.remove(key);
        }
      }
    } while (cursor != 0);
    Set<Key> missing = new HashSet<>(stable);
    missing.removeAll(seen);
    assertEquals(Set.of(), missing, "seed " + seed + ": keys stored throughout, not returned");
  }

  @Test
  void scanOrder_shortNames_spreadOverTheSegments() {
    Set<Long> segments = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      segments.add(
          Keyspace.scanOrder(key(0, "k" + i))
              >>> (32 - Integer.numberOfTrailingZeros(Keyspace.SEGMENTS)));
    }
    // 1000 short names over 1024 segments: about 630 distinct segments if spread at random
    assertTrue(segments.size() > 500, "short names fill only " + segments.size() + " segments");
  }

  @Test
  void listings_expiredKeysDeletedMeanwhile_neverListed() throws Exception {
    // the expiry cycle deletes expired keys while KEYS and SCAN list the keys: a deletion drops the
    // key's expiry time too, which must not make the key look like one without an expiry
    Keyspace keyspace = keyspaceOf(mixedKeys(0, 2_000));
    for (int round = 0; round < 5; round++) {
      List<Key> expired = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        Key key = key(0, "expired:" + round + ":" + i);
        keyspace.put(key, filter());
        keyspace.expireAt(key, 1);
        expired.add(key);
      }
      Thread deleter =
          new Thread(
              () -> {
                for (Key key : expired) {
                  java.util.concurrent.locks.Lock lock = keyspace.lockFor(key);
                  lock.lock();
                  try {
                    keyspace.remove(key);
                  } finally {
                    lock.unlock();
                  }
                }
              },
              "expiry");
      deleter.start();
      while (deleter.isAlive()) {
        for (Key key : keyspace.keys(0)) {
          assertTrue(!expired.contains(key), "KEYS listed the expired key " + key.hashCode());
        }
        for (Key key : keyspace.scan(0, 0, 5_000).keys()) {
          assertTrue(!expired.contains(key), "SCAN returned the expired key " + key.hashCode());
        }
      }
      deleter.join();
    }
  }

  @Test
  void randomKey_returnsLiveKeysOfTheDatabaseOnly() {
    Keyspace keyspace = keyspaceOf(List.of(key(0, "a"), key(0, "b"), key(0, "c"), key(2, "x")));
    Set<Key> drawn = new HashSet<>();
    for (int i = 0; i < 2_000; i++) {
      drawn.add(keyspace.randomKey(0));
    }
    assertEquals(Set.of(key(0, "a"), key(0, "b"), key(0, "c")), drawn);
    assertEquals(key(2, "x"), keyspace.randomKey(2));
    assertNull(keyspace.randomKey(1), "an empty database");
    keyspace.expireAt(key(2, "x"), 1);
    assertNull(keyspace.randomKey(2), "a database whose only key has expired");
  }
}
