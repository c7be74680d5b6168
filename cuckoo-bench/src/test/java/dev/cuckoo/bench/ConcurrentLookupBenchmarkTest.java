package dev.cuckoo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Runs each {@link ConcurrentLookupBenchmark} method once per filter kind and checks the answer.
 */
class ConcurrentLookupBenchmarkTest {
  private static final Blackhole BLACKHOLE =
      new Blackhole(
          "Today's password is swordfish. I understand instantiating Blackholes directly is"
              + " dangerous.");

  @Test
  void lookup_bothKinds_findEveryHitAndAgree() {
    ConcurrentLookupBenchmark benchmark = new ConcurrentLookupBenchmark();
    int[] answers = new int[ConcurrentLookupBenchmark.Kind.values().length];
    for (ConcurrentLookupBenchmark.Kind kind : ConcurrentLookupBenchmark.Kind.values()) {
      ConcurrentLookupBenchmark.Shared shared = new ConcurrentLookupBenchmark.Shared();
      shared.kind = kind;
      shared.size = 5000;
      shared.setUp();
      ConcurrentLookupBenchmark.Cursor cursor = new ConcurrentLookupBenchmark.Cursor();
      cursor.position = 0;
      int hits = 0;
      for (int i = 0; i < ConcurrentLookupBenchmark.BATCH; i++) {
        hits += shared.hit[i] ? 1 : 0;
      }
      benchmark.lookup1(shared, cursor, BLACKHOLE);
      assertEquals(ConcurrentLookupBenchmark.BATCH, cursor.position, kind.name());
      int found = shared.countFound(0);
      assertTrue(found >= hits, kind + ": found " + found + " < hits " + hits);
      assertTrue(found - hits <= ConcurrentLookupBenchmark.BATCH / 20, kind + ": found " + found);
      assertTrue(
          hits > ConcurrentLookupBenchmark.BATCH / 3
              && hits < 2 * ConcurrentLookupBenchmark.BATCH / 3);
      cursor.position = 0;
      benchmark.lookup2(shared, cursor, BLACKHOLE);
      assertEquals(ConcurrentLookupBenchmark.BATCH, cursor.position, kind.name());
      answers[kind.ordinal()] = found;
    }
    // the same items and fingerprints: a stored item is found by both, and with no relocation
    // needed at this load for most keys the answers agree up to false positives
    assertTrue(Math.abs(answers[0] - answers[1]) <= ConcurrentLookupBenchmark.BATCH / 20);
  }
}
