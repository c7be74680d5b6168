package dev.cuckoo.examples.logstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogStoreTest {
  private static final long SEED = 0xC0C0_0008L;

  @TempDir Path dir;

  @Test
  void putGetDelete_randomAgainstModelWithReopens_matchesModel() throws IOException {
    Random random = new Random(SEED);
    Path file = dir.resolve("store.log");
    Map<String, byte[]> model = new HashMap<>();
    LogStore store = LogStore.open(file, 8);
    try {
      for (int step = 0; step < 10_000; step++) {
        String key = "key-" + random.nextInt(2_000);
        String where = "seed " + SEED + " step " + step + " key " + key;
        int op = random.nextInt(100);
        if (op < 45) {
          byte[] value = randomBytes(random, random.nextInt(40));
          store.put(bytes(key), value);
          model.put(key, value);
        } else if (op < 55) {
          byte[] value = randomBytes(random, 5);
          assertEquals(!model.containsKey(key), store.putIfAbsent(bytes(key), value), where);
          model.putIfAbsent(key, value);
        } else if (op < 75) {
          assertEquals(model.remove(key) != null, store.delete(bytes(key)), where);
        } else if (op < 99) {
          assertStored(model.get(key), store.get(bytes(key)), where);
        } else {
          store.close();
          store = LogStore.open(file, 8);
          assertEquals(0, store.discardedTailBytes(), where);
          assertAll(model, store, 2_000, where);
        }
        assertEquals(model.size(), store.size(), where);
      }
      assertAll(model, store, 2_000, "seed " + SEED + " at the end");
    } finally {
      store.close();
    }
  }

  @Test
  void delete_thenReAdd_survivesReopen() throws IOException {
    Path file = dir.resolve("store.log");
    try (LogStore store = LogStore.open(file)) {
      store.put(bytes("a"), bytes("1"));
      assertTrue(store.delete(bytes("a")));
      assertFalse(store.delete(bytes("a")), "deleting twice finds nothing the second time");
      assertEquals(Optional.empty(), store.get(bytes("a")));
      store.put(bytes("a"), bytes("2"));
      store.put(bytes("b"), bytes("3"));
      assertTrue(store.delete(bytes("b")));
      assertEquals(1, store.size());
    }
    try (LogStore store = LogStore.open(file)) {
      assertArrayEquals(bytes("2"), store.get(bytes("a")).orElseThrow());
      assertFalse(store.contains(bytes("b")));
      assertEquals(1, store.size());
      store.put(bytes("b"), bytes("4"));
    }
    try (LogStore store = LogStore.open(file)) {
      assertArrayEquals(bytes("4"), store.get(bytes("b")).orElseThrow());
      assertEquals(2, store.size());
    }
  }

  /**
   * Writes puts, overwrites and deletes, then cuts copies of the log at random offsets (and at
   * every record boundary and one byte either side): the reopened store must hold exactly the state
   * after the last record that ends at or before the cut, and accept new writes after it.
   */
  @Test
  void open_logTruncatedAnywhere_keepsEveryCompleteRecord() throws IOException {
    Random random = new Random(SEED);
    Path file = dir.resolve("store.log");
    int keySpace = 40;
    List<String[]> ops = new ArrayList<>();
    List<Long> ends = new ArrayList<>();
    try (LogStore store = LogStore.open(file)) {
      for (int i = 0; i < 150; i++) {
        String key = "k" + random.nextInt(keySpace);
        if (random.nextInt(4) == 0) {
          if (store.delete(bytes(key))) {
            ops.add(new String[] {key, null});
            ends.add(store.logSizeInBytes());
          }
        } else {
          String value = "v" + i + "-".repeat(random.nextInt(30));
          store.put(bytes(key), bytes(value));
          ops.add(new String[] {key, value});
          ends.add(store.logSizeInBytes());
        }
      }
    }
    long length = Files.size(file);
    List<Long> cuts = new ArrayList<>();
    for (long end : ends) {
      cuts.add(end - 1);
      cuts.add(end);
      cuts.add(Math.min(length, end + 1));
    }
    for (int i = 0; i < 200; i++) {
      cuts.add((long) random.nextInt((int) length + 1));
    }
    Path copy = dir.resolve("cut.log");
    for (long cut : cuts) {
      String where = "seed " + SEED + " cut at " + cut + " of " + length;
      Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
      try (FileChannel channel = FileChannel.open(copy, StandardOpenOption.WRITE)) {
        channel.truncate(cut);
      }
      Map<String, byte[]> expected = new HashMap<>();
      long lastCompleteEnd = SegmentLog.FILE_HEADER_BYTES;
      for (int i = 0; i < ops.size() && ends.get(i) <= cut; i++) {
        String[] op = ops.get(i);
        if (op[1] == null) {
          expected.remove(op[0]);
        } else {
          expected.put(op[0], bytes(op[1]));
        }
        lastCompleteEnd = ends.get(i);
      }
      try (LogStore store = LogStore.open(copy)) {
        assertAll(expected, store, keySpace, where);
        assertEquals(Math.max(0, cut - lastCompleteEnd), store.discardedTailBytes(), where);
        store.put(bytes("after-crash"), bytes("x"));
      }
      try (LogStore store = LogStore.open(copy)) {
        assertEquals(0, store.discardedTailBytes(), where);
        assertArrayEquals(bytes("x"), store.get(bytes("after-crash")).orElseThrow(), where);
        assertEquals(expected.size() + 1, store.size(), where);
      }
    }
  }

  /**
   * Looks up 100 000 keys that are not stored and counts record reads. Each lookup compares its
   * fingerprint with the occupied slots of its two buckets, and each comparison matches (one read)
   * with probability p = tagMatchProbability(f). So the reads are Binomial(C, p), C the total
   * number of comparisons, counted from the index: they must lie inside that distribution's 10^-6
   * tails, and with 16-bit fingerprints at least 99% of lookups must read nothing.
   */
  @Test
  void get_absentKeys_readsMatchFingerprintFalsePositiveRate() throws IOException {
    ReadCount sixteen = countAbsentKeyReads(16);
    long upper16 = BinomialBounds.upper(sixteen.comparisons, sixteen.p, 1e-6);
    System.out.printf(
        "absent-key lookups, 16-bit fingerprints: %d of %d read the log (%d record reads);"
            + " %d comparisons, expected %.2f reads, 1e-6 upper bound %d; load %.3f%n",
        sixteen.lookupsThatRead,
        sixteen.lookups,
        sixteen.reads,
        sixteen.comparisons,
        sixteen.comparisons * sixteen.p,
        upper16,
        sixteen.load);
    assertTrue(sixteen.reads < upper16, "reads " + sixteen.reads + " >= bound " + upper16);
    assertTrue(
        sixteen.lookupsThatRead <= sixteen.lookups / 100,
        sixteen.lookupsThatRead + " of " + sixteen.lookups + " lookups read the log");

    ReadCount eight = countAbsentKeyReads(8);
    long upper8 = BinomialBounds.upper(eight.comparisons, eight.p, 1e-6);
    long lower8 = BinomialBounds.lower(eight.comparisons, eight.p, 1e-6);
    System.out.printf(
        "absent-key lookups, 8-bit fingerprints: %d record reads; expected %.1f,"
            + " 1e-6 bounds [%d, %d]%n",
        eight.reads, eight.comparisons * eight.p, lower8 + 1, upper8 - 1);
    assertTrue(eight.reads > lower8 && eight.reads < upper8, "reads " + eight.reads);
  }

  private ReadCount countAbsentKeyReads(int fingerprintBits) throws IOException {
    Random random = new Random(SEED + fingerprintBits);
    try (LogStore store =
        LogStore.open(dir.resolve("absent-" + fingerprintBits), fingerprintBits)) {
      for (int i = 0; i < 50_000; i++) {
        store.put(randomBytes(random, 16), randomBytes(random, 8));
      }
      ReadCount count = new ReadCount();
      count.p = OffsetIndex.tagMatchProbability(fingerprintBits);
      count.load = store.index().loadFactor();
      for (int i = 0; i < 100_000; i++) {
        byte[] absent = randomBytes(random, 17);
        count.comparisons += store.index().occupiedSlotsProbed(LogStore.hash(absent));
        long before = store.recordReads();
        assertEquals(Optional.empty(), store.get(absent));
        long reads = store.recordReads() - before;
        count.reads += reads;
        count.lookupsThatRead += reads > 0 ? 1 : 0;
        count.lookups++;
      }
      return count;
    }
  }

  private static final class ReadCount {
    long lookups;
    long lookupsThatRead;
    long reads;
    long comparisons;
    double p;
    double load;
  }

  @Test
  void get_storedKeys_readsAboutOneRecordEach() throws IOException {
    Random random = new Random(SEED);
    try (LogStore store = LogStore.open(dir.resolve("present"))) {
      List<byte[]> keys = new ArrayList<>();
      for (int i = 0; i < 10_000; i++) {
        keys.add(randomBytes(random, 16));
        store.put(keys.get(i), bytes("v" + i));
      }
      long before = store.recordReads();
      for (int i = 0; i < keys.size(); i++) {
        assertArrayEquals(bytes("v" + i), store.get(keys.get(i)).orElseThrow());
      }
      long reads = store.recordReads() - before;
      assertTrue(reads >= keys.size() && reads <= keys.size() + 10, "reads " + reads);
    }
  }

  @Test
  void put_badArguments_throwWithParameterAndRange() throws IOException {
    try (LogStore store = LogStore.open(dir.resolve("args"))) {
      IllegalArgumentException key =
          assertThrows(
              IllegalArgumentException.class,
              () -> store.put(new byte[LogStore.MAX_KEY_BYTES + 1], new byte[0]));
      assertEquals("key length: 65536 (expected: <= 65535)", key.getMessage());
      IllegalArgumentException value =
          assertThrows(
              IllegalArgumentException.class,
              () -> store.put(new byte[1], new byte[LogStore.MAX_VALUE_BYTES + 1]));
      assertEquals("value length: 1048577 (expected: <= 1048576)", value.getMessage());
      assertThrows(NullPointerException.class, () -> store.get(null));
      assertThrows(NullPointerException.class, () -> store.put(new byte[1], null));
      assertEquals(0, store.size());
      store.put(new byte[0], bytes("the empty key is a key"));
      assertTrue(store.contains(new byte[0]));
    }
    assertThrows(IllegalArgumentException.class, () -> LogStore.open(dir.resolve("x"), 3));
  }

  private static void assertAll(
      Map<String, byte[]> expected, LogStore store, int keySpace, String where) throws IOException {
    assertEquals(expected.size(), store.size(), where);
    for (int i = 0; i < keySpace; i++) {
      for (String key : new String[] {"k" + i, "key-" + i}) {
        assertStored(expected.get(key), store.get(bytes(key)), where + " key " + key);
      }
    }
  }

  private static void assertStored(byte[] expected, Optional<byte[]> actual, String where) {
    if (expected == null) {
      assertEquals(Optional.empty(), actual, where);
    } else {
      assertArrayEquals(expected, actual.orElseThrow(), where);
    }
  }

  private static byte[] randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(UTF_8);
  }
}
