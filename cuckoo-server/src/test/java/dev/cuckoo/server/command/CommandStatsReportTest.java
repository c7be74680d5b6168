package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoo.server.config.LatencyPercentiles;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The shapes of LATENCY HISTOGRAM's buckets and of the percentiles INFO prints. */
class CommandStatsReportTest {
  private static List<List<Long>> bucketsOf(long... nanos) {
    Histogram histogram =
        new Histogram(CommandStats.HISTOGRAM_MIN_NANOS, CommandStats.HISTOGRAM_MAX_NANOS, 2);
    for (long value : nanos) {
      histogram.recordValue(value);
    }
    List<List<Long>> pairs = new ArrayList<>();
    for (long[] bucket : CommandStatsReport.buckets(histogram)) {
      pairs.add(List.of(bucket[0], bucket[1]));
    }
    return pairs;
  }

  /*
   * latency.c fillCommandCDF: a logarithmic iteration from 1024 ns doubling, each level's highest
   * equivalent value (two significant digits) in whole microseconds, cumulative counts, levels that
   * add nothing left out: Redis's documented 1, 2, 4, 8, 16, 33, 66, 132 ... keys.
   */
  @Test
  void buckets_durationsOfWholeMicroseconds_areRedisPowerOfTwoKeysWithCumulativeCounts() {
    assertEquals(
        List.of(List.of(1L, 3L), List.of(4L, 4L), List.of(66L, 5L)),
        bucketsOf(1000, 1000, 1, 3000, 40_000));
    assertEquals(
        List.of(
            List.of(1L, 1L),
            List.of(2L, 2L),
            List.of(4L, 3L),
            List.of(8L, 4L),
            List.of(16L, 5L),
            List.of(33L, 6L),
            List.of(66L, 7L),
            List.of(132L, 8L)),
        bucketsOf(1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000));
    assertEquals(List.of(), bucketsOf());
  }

  @Test
  void buckets_theLargestDuration_endsInTheLastBucket() {
    List<List<Long>> buckets = bucketsOf(CommandStats.HISTOGRAM_MAX_NANOS);
    assertEquals(1, buckets.size());
    assertEquals(1L, buckets.get(0).get(1));
    assertEquals(1_082_130L, buckets.get(0).get(0), "2^30 ns's highest equivalent, in µs");
  }

  /* config.c / server.c: "%f" with trimDoubleString's trailing zeros and dot removed. */
  @Test
  void formatPercentile_redisTrimmedPrintf_dropsTrailingZeros() {
    assertEquals("50", LatencyPercentiles.format(50));
    assertEquals("99.9", LatencyPercentiles.format(99.9));
    assertEquals("0", LatencyPercentiles.format(0));
    assertEquals("99.99", LatencyPercentiles.format(99.99));
    assertEquals("100", LatencyPercentiles.format(100));
  }
}
