package dev.cuckoo.server.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoo.RedisCuckooFilter;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Keyspace#keyOverheadBytes} (MEMORY STATS's {@code overhead.hashtable.main} per database),
 * kept as keys come and go, against a walk over the stored keys after every step of random
 * sequences of stores, replacements, removals, expiries, SWAPDB, FLUSHDB and FLUSHALL.
 */
class KeyOverheadTest {
  private static final int DATABASES = 4;

  @Test
  void keyOverheadBytes_randomOperations_equalWalkOverStoredKeys() {
    long seed = System.nanoTime();
    System.out.println("KeyOverheadTest seed " + seed);
    Random random = new Random(seed);
    Keyspace keyspace = new Keyspace(DATABASES);
    for (int step = 0; step < 5_000; step++) {
      int db = random.nextInt(DATABASES);
      // names of 1 to 40 bytes: entryBytes depends on the name's length
      Key key =
          new Key(
              db,
              ("k" + random.nextInt(200) + "x".repeat(random.nextInt(40)))
                  .getBytes(StandardCharsets.UTF_8));
      int operation = random.nextInt(100);
      if (operation < 50) {
        keyspace.put(key, RedisCuckooFilter.reserve(64, 2, 20, 1));
      } else if (operation < 85) {
        keyspace.remove(key);
      } else if (operation < 92) {
        if (keyspace.stored(key) != null) {
          keyspace.expireAt(key, System.currentTimeMillis() + 100_000);
        }
      } else if (operation < 97) {
        keyspace.swap(db, random.nextInt(DATABASES));
      } else if (operation < 99) {
        keyspace.clear(db);
      } else {
        keyspace.clear();
      }
      assertArrayEquals(
          walk(keyspace), keyspace.keyOverheadBytes(), "seed " + seed + ", step " + step);
    }
  }

  @Test
  void keyOverheadBytes_emptyKeyspace_zeroPerDatabase() {
    assertArrayEquals(new long[DATABASES], new Keyspace(DATABASES).keyOverheadBytes());
    Keyspace keyspace = new Keyspace(DATABASES);
    Key key = new Key(2, "name".getBytes(StandardCharsets.UTF_8));
    keyspace.put(key, RedisCuckooFilter.reserve(64, 2, 20, 1));
    assertEquals(Keyspace.entryBytes(key), keyspace.keyOverheadBytes()[2]);
    keyspace.remove(key);
    assertArrayEquals(new long[DATABASES], keyspace.keyOverheadBytes());
  }

  private static long[] walk(Keyspace keyspace) {
    long[] bytes = new long[DATABASES];
    for (Key key : keyspace.entries().keySet()) {
      bytes[key.db()] += Keyspace.entryBytes(key);
    }
    return bytes;
  }
}
