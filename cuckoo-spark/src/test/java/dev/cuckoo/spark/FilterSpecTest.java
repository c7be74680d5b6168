package dev.cuckoo.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.FilterFile;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.MembershipFilter;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.Scheme;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The size limits and the serialization of the aggregate, without a Spark session. */
class FilterSpecTest {

  /** True if the core refuses {@code expectedItems} or its filter exceeds one BINARY value. */
  private static boolean tooLarge(Scheme scheme, long expectedItems, double fpp) {
    try {
      return FilterSpec.serializedSize(scheme, expectedItems, fpp) > FilterSpec.MAX_FILTER_BYTES;
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
    CuckooFilter<byte[]> filter =
        FilterSpec.builder(ItemHashers.bytes(), Scheme.STANDARD_FAST, 10_000, 0.001).build();
    for (int i = 0; i < 10_000; i++) {
      filter.add(Integer.toString(i).getBytes(StandardCharsets.UTF_8));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeTo(out);
    assertArrayEquals(out.toByteArray(), PartialFilter.serialize(filter));
  }

  @Test
  void redisBloomSpec_filledFilter_singleFilterFormOfTheSizeAnnouncedReadBack() throws IOException {
    FilterSpec spec = new FilterSpec(Scheme.REDISBLOOM, ColumnKind.BINARY, 10_000, 0.01, 0);
    MembershipFilter<Object> filter = spec.newFilter();
    assertInstanceOf(RedisCuckooFilter.class, filter);
    for (int i = 0; i < 5_000; i++) {
      filter.addHash(spec.hash(Integer.toString(i).getBytes(StandardCharsets.UTF_8)));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    spec.writeTo(filter, out);
    byte[] bytes = out.toByteArray();
    assertEquals(spec.serializedSizeInBytes(filter), bytes.length);
    assertEquals(64 + 8192 * 2 + 4, bytes.length, "the single-filter form: 8192 buckets of 2");
    FilterFile<byte[]> file =
        FilterFile.read(new ByteArrayInputStream(bytes), id -> ItemHashers.redisBytes());
    assertFalse(file.isChain());
    RedisCuckooFilter<byte[]> read =
        CuckooFunctions.readRedisBloomFilter(bytes, ItemHashers.redisBytes());
    assertEquals(5_000, read.size());
    assertEquals(0, read.expansion());
    assertEquals(RedisCuckooFilter.DEFAULT_MAX_ITERATIONS, read.maxKicks());
    assertTrue(read.mightContain("4999".getBytes(StandardCharsets.UTF_8)));
    assertEquals(5_000, spec.read(bytes).size());
  }
}
