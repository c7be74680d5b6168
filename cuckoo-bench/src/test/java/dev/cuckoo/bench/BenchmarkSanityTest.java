package dev.cuckoo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.RedisCuckooFilter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Runs every benchmark method once per filter and key type on small sizes and checks the answer.
 */
class BenchmarkSanityTest {
  private static final int SIZE = 3000;
  private static final Blackhole BLACKHOLE =
      new Blackhole(
          "Today's password is swordfish. I understand instantiating Blackholes directly is"
              + " dangerous.");

  private static List<KeyType> keyTypes(FilterKind kind) {
    List<KeyType> types = new ArrayList<>(List.of(KeyType.LONG));
    if (kind.acceptsStrings()) {
      types.add(KeyType.URL);
    }
    return types;
  }

  private static LookupBenchmark.Lookups lookups(
      FilterKind kind, KeyType keys, double fpr, double hitRatio) {
    LookupBenchmark.Lookups s = new LookupBenchmark.Lookups();
    s.filter = kind;
    s.keys = keys;
    s.size = SIZE;
    s.fpr = fpr;
    s.hitRatio = hitRatio;
    s.fprProbes = 20_000;
    s.setUp();
    return s;
  }

  @Test
  void lookup_everyFilter_findsEveryHitAndFewMisses() {
    LookupBenchmark benchmark = new LookupBenchmark();
    for (FilterKind kind : FilterKind.values()) {
      for (KeyType keys : keyTypes(kind)) {
        for (double hitRatio : new double[] {0.0, 0.5, 1.0}) {
          LookupBenchmark.Lookups s = lookups(kind, keys, 0.01, hitRatio);
          String where = kind + " " + keys + " hitRatio " + hitRatio;
          for (int block = 0; block < 3; block++) {
            int start = s.cursor;
            int hits = 0;
            for (int i = start; i < start + LookupBenchmark.BATCH; i++) {
              hits += s.hit[i] ? 1 : 0;
            }
            benchmark.lookup(s, BLACKHOLE);
            assertEquals((start + LookupBenchmark.BATCH) & (s.hit.length - 1), s.cursor, where);
            int found = LookupBenchmark.countFound(s, start);
            if (kind == FilterKind.MEMORY_FLOOR) {
              assertEquals(floorAnswer(s, start), found, where);
            } else {
              // no false negatives; false positives below 10% even for 8-bit fingerprints
              assertTrue(found >= hits, where + ": found " + found + " < hits " + hits);
              assertTrue(found - hits <= LookupBenchmark.BATCH / 10, where + ": found " + found);
            }
            s.cursor = start;
            assertEquals(found, benchmark.batchLookup(s), where + ": batch and single lookups");
          }
        }
      }
    }
  }

  @Test
  void create_smallCapacity_returnsTheNewFiltersSize() {
    CreateBenchmark benchmark = new CreateBenchmark();
    for (CreateBenchmark.Before before : CreateBenchmark.Before.values()) {
      CreateBenchmark.Creation s = new CreateBenchmark.Creation();
      s.capacity = 1 << 16;
      s.bucketSize = 2;
      s.before = before;
      for (int invocation = 0; invocation < 2; invocation++) {
        s.dropPrevious();
        long expected = RedisCuckooFilter.reservedSizeInBytes(1 << 16, 2);
        assertEquals(expected, benchmark.create(s), before.toString());
        assertEquals(1, s.created.linkCount());
      }
    }
  }

  @Test
  void setUp_cuckoo_measuresRateBelowTargetAndBitsPerKey() {
    for (double fpr : new double[] {0.01, 0.001}) {
      LookupBenchmark.Lookups s = lookups(FilterKind.CUCKOO, KeyType.LONG, fpr, 0.5);
      s.fprProbes = 400_000;
      s.setUp();
      // 400k probes: the rate's standard deviation is <= 16% of the target at 0.1%
      assertTrue(s.measuredFpr <= fpr * 1.5, "measured " + s.measuredFpr + " at target " + fpr);
      assertTrue(s.measuredFpr > 0, "some false positives must be seen");
      assertTrue(s.bitsPerKey >= Math.log(1 / fpr) / Math.log(2), "bits/key " + s.bitsPerKey);
    }
  }

  @Test
  void insert_everyFilter_insertsAllKeys() {
    InsertBenchmark benchmark = new InsertBenchmark();
    for (FilterKind kind : FilterKind.values()) {
      if (kind == FilterKind.MEMORY_FLOOR) {
        continue;
      }
      for (KeyType keys : keyTypes(kind)) {
        InsertBenchmark.Inserts s = new InsertBenchmark.Inserts();
        s.filter = kind;
        s.keys = keys;
        s.size = SIZE;
        s.fpr = 0.001;
        s.setUp();
        s.allocate();
        Subject filled = s.empty;
        assertEquals(SIZE, benchmark.insert(s), kind + " " + keys);
        if (filled != null) {
          for (int i = 0; i < SIZE; i++) {
            boolean present =
                keys == KeyType.LONG
                    ? filled.mightContain(Keys.longKey(i))
                    : filled.mightContain(Keys.urlKey(i));
            assertTrue(present, kind + " " + keys + " lost key " + i);
          }
        }
      }
    }
  }

  @Test
  void deleteAndReinsert_deletingFilters_removesAndAddsEveryKey() {
    DeleteBenchmark benchmark = new DeleteBenchmark();
    for (FilterKind kind : new FilterKind[] {FilterKind.CUCKOO, FilterKind.CUCKOOFILTER4J}) {
      for (KeyType keys : KeyType.values()) {
        DeleteBenchmark.Deletes s = new DeleteBenchmark.Deletes();
        s.filter = kind;
        s.keys = keys;
        s.size = SIZE;
        s.fpr = 0.01;
        s.fprProbes = 1000;
        s.setUp();
        for (int block = 0; block < 3; block++) {
          assertEquals(
              2 * DeleteBenchmark.BATCH, benchmark.deleteAndReinsert(s), kind + " " + keys);
        }
        for (int i = 0; i < SIZE; i++) {
          boolean present =
              keys == KeyType.LONG
                  ? s.subject.mightContain(Keys.longKey(i))
                  : s.subject.mightContain(Keys.urlKey(i));
          assertTrue(present, kind + " " + keys + " lost key " + i);
        }
      }
    }
  }

  @Test
  void keys_missIndexes_neverEqualInsertedKeys() {
    java.util.Set<String> urls = new java.util.HashSet<>();
    java.util.Set<Long> longs = new java.util.HashSet<>();
    for (int i = 0; i < 20_000; i++) {
      urls.add(Keys.urlKey(i));
      longs.add(Keys.longKey(i));
    }
    for (long i = FilterState.MISS_BASE; i < FilterState.MISS_BASE + 20_000; i++) {
      assertTrue(urls.add(Keys.urlKey(i)), "URL key " + i + " repeats an earlier one");
      assertTrue(longs.add(Keys.longKey(i)), "long key " + i + " repeats an earlier one");
    }
  }

  @Test
  void fillLoop_semiSortedAndPlain_fillToRatedCapacityAndReportTime() {
    java.io.PrintStream saved = System.out;
    java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
    System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      // throws if a key is refused below the rated capacity
      FillLoop.main(new String[] {"CUCKOO_SEMISORTED", "5000", "0.001", "3"});
      FillLoop.main(new String[] {"CUCKOO", "5000", "0.001", "3"});
    } finally {
      System.setOut(saved);
    }
    String out = printed.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(
        out.matches(
            "(?s)CUCKOO_SEMISORTED 5000 keys, 3 rounds: [0-9.]+ ns per insert\\R"
                + "CUCKOO 5000 keys, 3 rounds: [0-9.]+ ns per insert\\R"),
        out);
  }

  private static int floorAnswer(LookupBenchmark.Lookups s, int start) {
    MemoryFloorSubject floor = (MemoryFloorSubject) s.subject;
    int found = 0;
    for (int i = start; i < start + LookupBenchmark.BATCH; i++) {
      found += (int) (floor.probe(s.longProbes[i]) & 1);
    }
    return found;
  }
}
