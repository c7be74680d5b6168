package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Measures the load factor reached before the first failed insert. */
class LoadFactorTest {

  /** Fills a table with random keys until the first failure and returns the load reached. */
  static double loadAtFirstFailure(long buckets, int bucketSize, int bits, long seed) {
    return loadAtFirstFailure(Scheme.STANDARD, buckets, bucketSize, bits, seed);
  }

  /** As {@link #loadAtFirstFailure(long, int, int, long)}, for {@code scheme}. */
  static double loadAtFirstFailure(
      Scheme scheme, long buckets, int bucketSize, int bits, long seed) {
    CuckooFilter<Long> filter =
        new CuckooFilter<>(ItemHashers.longs(), scheme, buckets, bucketSize, bits, 500, seed, 1);
    SplittableRandom random = new SplittableRandom(seed);
    while (filter.addHash(random.nextLong())) {
      // keep filling
    }
    return filter.loadFactor();
  }

  @ParameterizedTest(name = "{3} b={0} f={1}: load at first failure >= {2}")
  @CsvSource({
    "2, 16, 0.84, STANDARD",
    "4, 13, 0.95, STANDARD",
    "8, 8, 0.98, STANDARD",
    "4, 16, 0.95, STANDARD",
    "8, 12, 0.98, STANDARD",
    "2, 16, 0.84, STANDARD_FAST",
    "4, 13, 0.95, STANDARD_FAST",
    "8, 8, 0.98, STANDARD_FAST",
    "4, 16, 0.95, STANDARD_FAST",
    "8, 12, 0.98, STANDARD_FAST"
  })
  void add_untilFirstFailure_reachesDocumentedLoad(
      int bucketSize, int bits, double minimum, Scheme scheme) {
    double worst = 1;
    double sum = 0;
    int runs = 8;
    for (int run = 0; run < runs; run++) {
      double load = loadAtFirstFailure(scheme, 1 << 18, bucketSize, bits, 1000 + run);
      worst = Math.min(worst, load);
      sum += load;
    }
    System.out.printf(
        "%s b=%d f=%d: load at first failure mean %.4f, worst %.4f over %d runs of 2^18"
            + " buckets%n",
        scheme, bucketSize, bits, sum / runs, worst, runs);
    assertTrue(worst >= minimum, "worst load " + worst + " < " + minimum);
  }
}
