package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Statistical tests of the false-positive rate.
 *
 * <p>A query q that was never added has a uniform fingerprint v in [1, F], independent of its first
 * bucket i, and is a false positive iff v is stored in bucket i or in alt(i, v). For small F the
 * test computes that probability exactly, (1/F)·Σ_v [v ∈ B(i) ∪ B(alt(i, v))]; for large F it uses
 * 1 − (1 − 1/F)^k with k the occupied slots of the two buckets (duplicate fingerprints within a
 * pair are then rare). Summing over the queries gives the expected count E of false positives; the
 * count X is a sum of independent Bernoulli variables, so Var X ≤ E and, by a Chernoff bound, |X −
 * E| > 5·sqrt(E) + 5 has probability below 10^-5. A biased fingerprint or index function fails
 * this.
 */
class FalsePositiveRateTest {

  @ParameterizedTest(name = "b={0} f={1} {2} queries")
  @CsvSource({
    "2, 8, 100000",
    "4, 8, 100000",
    "8, 8, 100000",
    "4, 12, 2000000",
    "4, 13, 2000000",
    "2, 16, 2000000",
    "8, 6, 200000",
    "4, 4, 200000"
  })
  void mightContain_neverAddedKeys_matchesExactExpectation(int bucketSize, int bits, int queries) {
    long seed = 31L * bucketSize + bits;
    CuckooFilter<Long> filter =
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(100_000)
            .bucketSize(bucketSize)
            .fingerprintBits(bits)
            .seed(seed)
            .build();
    SplittableRandom random = new SplittableRandom(seed);
    for (long i = 0; i < filter.capacity(); i++) {
      assertTrue(filter.addHash(random.nextLong() | 1L));
    }
    BucketTable table = filter.table();
    double fingerprints = (1L << bits) - 1;
    double expected = 0;
    long falsePositives = 0;
    for (int i = 0; i < queries; i++) {
      long hash = random.nextLong() & ~1L; // even hashes were never added
      long h = filter.indexer().remix(hash);
      long bucket = filter.indexer().firstBucket(h);
      long other = filter.indexer().alternateBucket(bucket, filter.indexer().fingerprint(h));
      if (bits <= 8) {
        int matches = 0;
        for (long v = 1; v <= (long) fingerprints; v++) {
          if (table.contains(bucket, v)
              || table.contains(filter.indexer().alternateBucket(bucket, v), v)) {
            matches++;
          }
        }
        expected += matches / fingerprints;
      } else {
        int occupied = table.occupied(bucket) + table.occupied(other);
        expected += -Math.expm1(occupied * Math.log1p(-1.0 / fingerprints));
      }
      if (filter.mightContainHash(hash)) {
        falsePositives++;
      }
    }
    double slack = 5 * Math.sqrt(expected) + 5;
    System.out.printf(
        "b=%d f=%d load=%.4f: measured FPR %.6f, expected %.6f, at capacity %.6f%n",
        bucketSize,
        bits,
        filter.loadFactor(),
        (double) falsePositives / queries,
        expected / queries,
        filter.falsePositiveRateAtCapacity());
    assertTrue(
        Math.abs(falsePositives - expected) <= slack,
        "false positives " + falsePositives + ", expected " + expected + " ± " + slack);
  }

  /** With expectedItems distinct keys inserted, the measured rate is at most the requested one. */
  @ParameterizedTest(name = "rate {0} b={1}")
  @CsvSource({"0.01, 4, 1000000", "0.001, 4, 3000000", "0.01, 2, 1000000", "0.001, 8, 3000000"})
  void build_fromRate_measuredRateAtMostRequested(double rate, int bucketSize, int queries) {
    long n = 200_000;
    CuckooFilter<Long> filter =
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(n)
            .falsePositiveRate(rate)
            .bucketSize(bucketSize)
            .build();
    SplittableRandom random = new SplittableRandom(77);
    for (long i = 0; i < n; i++) {
      assertTrue(filter.addHash(random.nextLong() | 1L));
    }
    long falsePositives = 0;
    for (int i = 0; i < queries; i++) {
      if (filter.mightContainHash(random.nextLong() & ~1L)) {
        falsePositives++;
      }
    }
    double measured = (double) falsePositives / queries;
    System.out.printf(
        "requested %.4f b=%d f=%d: measured %.6f (expected %.6f) bits/item %.2f%n",
        rate,
        bucketSize,
        filter.fingerprintBits(),
        measured,
        filter.expectedFalsePositiveRate(),
        filter.bitsPerItem());
    assertTrue(measured <= rate, "measured " + measured + " > requested " + rate);
  }
}
