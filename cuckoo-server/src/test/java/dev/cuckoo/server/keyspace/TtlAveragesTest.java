package dev.cuckoo.server.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TtlAveragesTest {

  @Test
  void record_firstPass_setsTheSampledAverage() {
    TtlAverages averages = new TtlAverages(2);
    averages.record(1, 300_000, 3, 1);
    assertEquals(100_000, averages.get(1));
    assertEquals(0, averages.get(0));
  }

  @Test
  void record_laterPasses_moveTwoPercentPerLoopTowardsTheSample() {
    TtlAverages averages = new TtlAverages(1);
    averages.record(0, 100_000, 1, 1);
    averages.record(0, 50_000, 1, 1);
    // Redis: avg/50*49 + sample/50
    assertEquals(99_000, averages.get(0));
    averages.record(0, 2 * 99_000L, 2, 3);
    assertEquals(99_000, averages.get(0));
    averages.record(0, 0, 1, 16);
    // 0.98^16 of the previous estimate is kept
    assertEquals((long) (99_000 * Math.pow(0.98, 16)), averages.get(0), 1);
  }

  @Test
  void record_noUnexpiredKeys_keepsTheEstimate() {
    TtlAverages averages = new TtlAverages(1);
    averages.record(0, 5_000, 1, 1);
    averages.record(0, 0, 0, 0);
    assertEquals(5_000, averages.get(0));
  }

  @Test
  void clearAndSwap_moveTheEstimatesWithTheirDatabases() {
    TtlAverages averages = new TtlAverages(3);
    averages.record(0, 7_000, 1, 1);
    averages.record(2, 9_000, 1, 1);
    averages.swap(0, 2);
    assertEquals(9_000, averages.get(0));
    assertEquals(7_000, averages.get(2));
    averages.clear(0);
    assertEquals(0, averages.get(0));
  }
}
