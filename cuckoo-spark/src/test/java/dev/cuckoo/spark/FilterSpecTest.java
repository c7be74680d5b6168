package dev.cuckoo.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.Scheme;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The size limits and the serialization of the aggregate, without a Spark session. */
class FilterSpecTest {

  /** True if the core refuses {@code expectedItems} or its filter exceeds one BINARY value. */
  private static boolean tooLarge(Scheme scheme, long expectedItems, double fpp) {
    try {
      return FilterSpec.builder(ItemHashers.bytes(), scheme, expectedItems, fpp)
              .serializedSizeInBytes()
          > FilterSpec.MAX_FILTER_BYTES;
    } catch (IllegalArgumentException e) {
      return true;
    }
  }

  @Test
  void maxExpectedItems_everySchemeAndRate_isTheLargestThatFitsOneBinaryValue() {
    for (double fpp : new double[] {0.1, 0.01, 0.001, 1e-5, 1e-8}) {
      long max = FilterSpec.maxExpectedItems(Scheme.STANDARD_FAST, fpp);
      assertTrue(!tooLarge(Scheme.STANDARD_FAST, max, fpp), "fpp " + fpp + ": " + max);
      assertTrue(tooLarge(Scheme.STANDARD_FAST, max + 1, fpp), "fpp " + fpp + ": " + max);
    }
    long redis = FilterSpec.maxExpectedItems(Scheme.REDISBLOOM, 0.01);
    // 2^29 buckets of 2 one-byte slots: 1 GiB; the next power of two does not fit
    assertEquals((1L << 30) + 1, redis);
    assertTrue(!tooLarge(Scheme.REDISBLOOM, redis, 0.01));
    assertTrue(tooLarge(Scheme.REDISBLOOM, redis + 1, 0.01));
  }

  @Test
  void largestFitting_stepsAndRefusals_findsTheLastThatFits() {
    assertEquals(999, FilterSpec.largestFitting(n -> n < 1000 ? 10 : 20, 15));
    assertEquals(1, FilterSpec.largestFitting(n -> n == 1 ? 10 : 20, 15));
    assertEquals(CuckooFilter.MAX_EXPECTED_ITEMS, FilterSpec.largestFitting(n -> 10, 15));
    assertEquals(
        4096,
        FilterSpec.largestFitting(
            n -> {
              if (n > 4096) {
                throw new IllegalArgumentException("expectedItems: " + n);
              }
              return 10;
            },
            15));
  }

  @Test
  void serialize_filledFilter_isWhatWriteToWrites() throws IOException {
    for (Scheme scheme : new Scheme[] {Scheme.STANDARD_FAST, Scheme.REDISBLOOM}) {
      CuckooFilter<byte[]> filter =
          FilterSpec.builder(ItemHashers.bytes(), scheme, 10_000, 0.001).build();
      for (int i = 0; i < 10_000; i++) {
        filter.add(Integer.toString(i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      filter.writeTo(out);
      assertArrayEquals(out.toByteArray(), PartialFilter.serialize(filter), scheme.toString());
    }
  }
}
