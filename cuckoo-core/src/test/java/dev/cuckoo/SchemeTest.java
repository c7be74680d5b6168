package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SchemeTest {

  private static Indexer standard(long buckets, int bits) {
    return new Indexer(Scheme.STANDARD, buckets, bits);
  }

  private static Indexer fast(long buckets, int bits) {
    return new Indexer(Scheme.STANDARD_FAST, buckets, bits);
  }

  private static void checkAlternate(Indexer filter, long m, int bits, SplittableRandom random) {
    for (int i = 0; i < 200; i++) {
      long h = random.nextLong();
      long fp = filter.fingerprint(h);
      long bucket = filter.firstBucket(h);
      assertTrue(fp >= 1 && fp < (1L << bits), "fp " + fp);
      assertTrue(bucket >= 0 && bucket < m, "bucket " + bucket + " m " + m);
      long other = filter.alternateBucket(bucket, fp);
      assertTrue(other >= 0 && other < m, "alt " + other + " m " + m);
      assertNotEquals(bucket, other, "m=" + m + " fp=" + fp);
      assertEquals(bucket, filter.alternateBucket(other, fp), "m=" + m + " fp=" + fp);
    }
  }

  @Test
  void alternateBucket_everySmallEvenBucketCount_isInvolutionWithoutFixedPoints() {
    SplittableRandom random = new SplittableRandom(11);
    for (long m = 2; m <= 4000; m += 2) {
      int bits = 4 + (int) (m % 29);
      checkAlternate(standard(m, bits), m, bits, random);
      checkAlternate(fast(m, bits), m, bits, random);
    }
  }

  @Test
  void alternateBucket_largeAndExtremeBucketCounts_isInvolutionWithoutFixedPoints() {
    SplittableRandom random = new SplittableRandom(12);
    long[] extremes = {(1L << 32) - 2, (1L << 31), (1L << 31) + 2, 1_000_000_002L};
    for (long m : extremes) {
      checkAlternate(standard(m, 32), m, 32, random);
      checkAlternate(fast(m, 32), m, 32, random);
      checkAlternate(fast(m, 4), m, 4, random);
    }
    for (int i = 0; i < 200; i++) {
      long m = 2 + 2 * (long) random.nextInt(Integer.MAX_VALUE);
      checkAlternate(standard(m, 16), m, 16, random);
      int bits = 4 + random.nextInt(29);
      checkAlternate(fast(m, bits), m, bits, random);
    }
  }

  @Test
  void fast_sharesFingerprintAndFirstBucketWithStandard_alternateMatchesDefinition() {
    SplittableRandom random = new SplittableRandom(15);
    for (int round = 0; round < 2000; round++) {
      long m = round < 1000 ? 2 + 2 * (long) random.nextInt(5000) : (1L << 32) - 2 * round;
      int bits = 4 + random.nextInt(29);
      Indexer plain = standard(m, bits);
      Indexer fast = fast(m, bits);
      for (int i = 0; i < 20; i++) {
        long h = random.nextLong();
        long fp = fast.fingerprint(h);
        long bucket = fast.firstBucket(h);
        assertEquals(plain.fingerprint(h), fp);
        assertEquals(plain.firstBucket(h), bucket);
        // r = the top s bits of fp·φ mod 2^64, 2^s the largest power of two <= m, then | 1
        int s = 63 - Long.numberOfLeadingZeros(m);
        long r =
            java.math.BigInteger.valueOf(fp)
                    .multiply(new java.math.BigInteger("9E3779B97F4A7C15", 16))
                    .mod(java.math.BigInteger.ONE.shiftLeft(64))
                    .shiftRight(64 - s)
                    .longValueExact()
                | 1;
        assertTrue(r >= 1 && r < m && r < 1L << s, "r " + r + " m " + m);
        assertEquals(Math.floorMod(r - bucket, m), fast.alternateBucket(bucket, fp));
      }
    }
  }

  @Test
  void fast_knownAnswers() {
    // m = 8465610 (10^7 · 3.2 items at ε = 0.1%), f = 13; fp and i as STANDARD's
    Indexer fast = fast(8_465_610, 13);
    long h = 0x0123456789ABCDEFL;
    // fp = floor(0x01234567 · 8191 / 2^32) + 1 = 37, i = floor(0x89ABCDEF · 8465610 / 2^32)
    assertEquals(37, fast.fingerprint(h));
    assertEquals(4_552_616, fast.firstBucket(h));
    // s = 23 (2^23 <= m < 2^24); r = ((37 · 0x9E3779B97F4A7C15) mod 2^64) >>> 41 | 1 = 7275083;
    // (7275083 − 4552616) mod 8465610 = 2722467
    assertEquals(2_722_467, fast.alternateBucket(4_552_616, 37));
    assertEquals(4_552_616, fast.alternateBucket(2_722_467, 37));
    assertEquals(Scheme.STANDARD_FAST, Scheme.byId(4));
    assertTrue(Scheme.STANDARD_FAST.isStandard() && !Scheme.REDISBLOOM.isStandard());
  }

  @Test
  void fingerprint_allWidths_uniformOverNonZeroValues() {
    SplittableRandom random = new SplittableRandom(13);
    for (int bits = 4; bits <= 8; bits++) {
      Indexer filter = standard(10, bits);
      int values = (1 << bits) - 1;
      long[] counts = new long[values + 1];
      int samples = 200 * values;
      for (int i = 0; i < samples; i++) {
        counts[(int) filter.fingerprint(random.nextLong())]++;
      }
      assertEquals(0, counts[0]);
      // chi-square with values-1 degrees of freedom; 99.99% quantile < df + 6·sqrt(2·df) here
      double chi = 0;
      for (int v = 1; v <= values; v++) {
        double d = counts[v] - 200.0;
        chi += d * d / 200.0;
      }
      int df = values - 1;
      assertTrue(chi < df + 6 * Math.sqrt(2.0 * df), "bits " + bits + " chi2 " + chi);
    }
  }

  @Test
  void redisBloom_indexes_matchSpecFormulas() {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.redisUtf8())
            .redisBloomScheme()
            .expectedItems(8)
            .bucketSize(2)
            .build();
    assertEquals(4, filter.bucketCount());
    long h = ItemHashers.redisUtf8().hash("item1");
    assertEquals(0x7930a108c52a9032L, h);
    assertEquals(7, filter.indexer().fingerprint(h));
    assertEquals(2, filter.indexer().firstBucket(h));
    assertEquals((2 ^ (7 * 0x5bd1e995L)) & 3, filter.indexer().alternateBucket(2, 7));
    SplittableRandom random = new SplittableRandom(14);
    for (int i = 0; i < 10_000; i++) {
      long hash = random.nextLong();
      long fp = filter.indexer().fingerprint(hash);
      assertEquals(Long.remainderUnsigned(hash, 255) + 1, fp);
      long bucket = filter.indexer().firstBucket(hash);
      assertEquals(Long.remainderUnsigned(hash, 4), bucket);
      assertEquals(
          bucket,
          filter.indexer().alternateBucket(filter.indexer().alternateBucket(bucket, fp), fp));
    }
  }

  @Test
  void redisBloom_addItem1_storesFingerprint7InSlotOfBucket2() {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.redisUtf8()).redisBloomScheme().expectedItems(8).build();
    assertTrue(filter.add("item1"));
    byte[] payload = new byte[8];
    filter.table().readPayload(0, payload, 0, 8);
    // the data chunk of docs/REDISBLOOM.md's dump example: 00 00 00 00 07 00 00 00
    assertEquals("[0, 0, 0, 0, 7, 0, 0, 0]", java.util.Arrays.toString(payload));
  }
}
