package dev.cuckoo;

import static dev.cuckoo.FormatTestSupport.bytesOf;
import static dev.cuckoo.FormatTestSupport.read;
import static dev.cuckoo.FormatTestSupport.withByte;
import static dev.cuckoo.FormatTestSupport.withFixedCrc;
import static dev.cuckoo.FormatTestSupport.withLong;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** A {@link CuckooFilter} with semi-sorted buckets: builder, behaviour, rate and format. */
class SemiSortedFilterTest {

  private static CuckooFilter<Long> semiSorted(long buckets, int bits, int maxKicks, long seed) {
    return semiSorted(Scheme.STANDARD, buckets, bits, maxKicks, seed);
  }

  private static CuckooFilter<Long> semiSorted(
      Scheme scheme, long buckets, int bits, int maxKicks, long seed) {
    return new CuckooFilter<>(
        ItemHashers.longs(),
        scheme,
        new SemiSortedTable(buckets, bits),
        maxKicks,
        seed,
        buckets * 4);
  }

  // ---------------------------------------------------------------------------------------------
  // Builder

  @Test
  void build_tenthOfAPercent_saves1BitPerSlot() {
    CuckooFilter<Long> plain =
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(1_000_000)
            .falsePositiveRate(0.001)
            .build();
    CuckooFilter<Long> semi =
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(1_000_000)
            .falsePositiveRate(0.001)
            .semiSorted(true)
            .build();
    assertTrue(semi.isSemiSorted());
    assertFalse(plain.isSemiSorted());
    assertEquals(13, semi.fingerprintBits());
    assertEquals(plain.bucketCount(), semi.bucketCount());
    assertEquals(plain.capacity(), semi.capacity());
    assertEquals(plain.falsePositiveRateAtCapacity(), semi.falsePositiveRateAtCapacity());
    assertEquals(13.76, plain.bitsPerItem(), 0.01);
    assertEquals(12.70, semi.bitsPerItem(), 0.01);
    assertTrue(semi.sizeInBytes() < plain.sizeInBytes() * 12.01 / 13);
    assertTrue(semi.toString().contains("semiSorted=true"), semi.toString());
  }

  @Test
  void build_rateNeedingFewerThan5Bits_gets5() {
    CuckooFilter<Long> semi =
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(1000)
            .falsePositiveRate(0.9)
            .semiSorted(true)
            .build();
    assertEquals(5, semi.fingerprintBits());
  }

  @Test
  void build_unsupportedSettings_throwNamingParameterValueAndRange() {
    assertMessage(
        "bucketSize: 8 (expected: 4 with semiSorted(true))",
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(100)
            .bucketSize(8)
            .semiSorted(true));
    assertMessage(
        "fingerprintBits: 4 (expected: 5 <= fingerprintBits <= 16 with semiSorted(true))",
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(100)
            .fingerprintBits(4)
            .semiSorted(true));
    assertMessage(
        "fingerprintBits: 17 (expected: 5 <= fingerprintBits <= 16 with semiSorted(true))",
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(100)
            .fingerprintBits(17)
            .semiSorted(true));
    assertMessage(
        "semiSorted: true (expected: false for the REDISBLOOM scheme)",
        CuckooFilter.builder(ItemHashers.redisUtf8())
            .redisBloomScheme()
            .expectedItems(100)
            .semiSorted(true));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                CuckooFilter.builder(ItemHashers.longs())
                    .expectedItems(100_000)
                    .falsePositiveRate(1e-6)
                    .semiSorted(true)
                    .build());
    assertTrue(
        e.getMessage().startsWith("falsePositiveRate: 1.0E-6 (expected: >= 1.15")
            && e.getMessage()
                .endsWith("with semiSorted(true), whose fingerprints have at most 16" + " bits)"),
        e.getMessage());
  }

  private static void assertMessage(String expected, CuckooFilter.Builder<?> builder) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
    assertEquals(expected, e.getMessage());
  }

  // ---------------------------------------------------------------------------------------------
  // Behaviour against a multiset model

  @ParameterizedTest(name = "{3} f={0} buckets={1}")
  @CsvSource({
    "5, 40, 300, STANDARD",
    "8, 64, 400, STANDARD",
    "13, 64, 400, STANDARD",
    "16, 100, 600, STANDARD",
    "5, 40, 300, STANDARD_FAST",
    "13, 64, 400, STANDARD_FAST",
    "16, 100, 600, STANDARD_FAST"
  })
  void randomOperations_againstMultisetModel_match(
      int bits, int buckets, int universe, Scheme scheme) {
    long seed = TestSeeds.seed() + bits;
    String where =
        scheme + " f=" + bits + " seed=" + seed + " (replay with -D" + TestSeeds.PROPERTY + ")";
    SplittableRandom random = new SplittableRandom(seed);
    CuckooFilter<Long> filter = semiSorted(scheme, buckets, bits, 100, seed);
    Map<Long, Integer> model = new HashMap<>();
    List<Long> present = new ArrayList<>();
    int failedAdds = 0;
    for (int step = 0; step < 60_000; step++) {
      String at = where + " step " + step;
      long key = random.nextInt(universe);
      int op = random.nextInt(100);
      try {
        if (op < 40) {
          byte[] before = failedAdds < 50 ? bytesOf(filter) : null;
          if (filter.add(key)) {
            model.merge(key, 1, Integer::sum);
            present.add(key);
          } else {
            failedAdds++;
            if (before != null) {
              assertArrayEquals(before, bytesOf(filter), at + ": a failed add changed the filter");
            }
          }
        } else if (op < 65 && !present.isEmpty()) {
          long victim = present.get(random.nextInt(present.size()));
          assertTrue(filter.remove(victim), at + " remove of present " + victim);
          removeOne(model, present, victim);
        } else if (op < 72 && !present.isEmpty()) {
          long old = present.get(random.nextInt(present.size()));
          byte[] before = bytesOf(filter);
          if (filter.replace(old, key)) {
            removeOne(model, present, old);
            model.merge(key, 1, Integer::sum);
            present.add(key);
          } else {
            assertArrayEquals(before, bytesOf(filter), at + ": a failed replace changed it");
          }
        } else if (op < 75 && !filter.mightContain(key)) {
          assertFalse(filter.remove(key), at + " remove of an absent key");
        } else if (op == 99 && random.nextInt(100) == 0) {
          filter.clear();
          model.clear();
          present.clear();
        } else {
          int copies = model.getOrDefault(key, 0);
          if (copies > 0) {
            assertTrue(filter.mightContain(key), at + " false negative " + key);
          }
          assertTrue(filter.count(key) >= copies, at + " count " + key);
        }
        assertEquals(present.size(), filter.size(), at + " size");
        if (step % 2048 == 0) {
          checkAll(filter, model, at);
        }
      } catch (RuntimeException e) {
        fail(at + ": " + e, e);
      }
    }
    checkAll(filter, model, where + " end");
    assertTrue(failedAdds > 0, where + ": the table never filled up; the test is too easy");
  }

  /** The model checks of {@link CuckooFilterModelTest}, plus the table's own invariants. */
  private static void checkAll(CuckooFilter<Long> filter, Map<Long, Integer> model, String where) {
    CuckooFilterModelTest.checkAll(filter, model, where);
    assertEquals(filter.size(), filter.table().countOccupied(), where + ": occupied slots");
    ((SemiSortedTable) filter.table()).checkEncoding(0);
  }

  private static void removeOne(Map<Long, Integer> model, List<Long> present, long key) {
    CuckooFilterModelTest.removeOne(model, present, key);
  }

  @Test
  void add_fullFilter_returnsFalseAndLeavesBytesUnchanged() {
    long seed = TestSeeds.seed();
    CuckooFilter<Long> filter = semiSorted(1024, 13, 500, seed);
    SplittableRandom random = new SplittableRandom(seed);
    long added = 0;
    int failures = 0;
    while (failures < 20) {
      byte[] before = bytesOf(filter);
      if (filter.addHash(random.nextLong())) {
        added++;
      } else {
        failures++;
        assertArrayEquals(before, bytesOf(filter), "seed " + seed + " after " + added + " adds");
      }
    }
    assertEquals(added, filter.size());
    assertTrue(filter.loadFactor() > 0.9, "load " + filter.loadFactor());
  }

  @Test
  void addHash_sameItemBeyondTwoBuckets_failsUnchanged() {
    CuckooFilter<Long> filter = semiSorted(64, 13, 500, 1);
    for (int i = 0; i < 8; i++) {
      assertTrue(filter.add(42L), "copy " + i);
    }
    byte[] before = bytesOf(filter);
    assertFalse(filter.add(42L));
    assertArrayEquals(before, bytesOf(filter));
    assertEquals(8, filter.count(42L));
    for (int i = 8; i > 0; i--) {
      assertTrue(filter.remove(42L));
      assertEquals(i - 1, filter.count(42L));
    }
    assertFalse(filter.mightContain(42L));
  }

  // ---------------------------------------------------------------------------------------------
  // Merge

  @ParameterizedTest(name = "other semi-sorted={0}")
  @ValueSource(booleans = {true, false})
  void addAll_sameGeometry_countsAdd(boolean otherSemiSorted) {
    long seed = TestSeeds.seed();
    CuckooFilter<Long> target = semiSorted(2048, 12, 500, 9);
    CuckooFilter<Long> other =
        otherSemiSorted
            ? semiSorted(2048, 12, 500, 9)
            : new CuckooFilter<>(ItemHashers.longs(), Scheme.STANDARD, 2048, 4, 12, 500, 9, 8192);
    SplittableRandom random = new SplittableRandom(seed);
    long[] keys = random.longs(6000).toArray();
    for (int i = 10; i < keys.length; i += 10) {
      keys[i] = keys[i - 7]; // some duplicates, in both filters
    }
    Map<Long, Integer> model = new HashMap<>();
    for (int i = 0; i < keys.length; i++) {
      assertTrue((i % 2 == 0 ? target : other).add(keys[i]));
      model.merge(keys[i], 1, Integer::sum);
    }
    Map<Long, Long> before = new HashMap<>();
    for (long key : model.keySet()) {
      before.put(key, target.count(key) + other.count(key));
    }
    assertTrue(target.addAll(other), "seed " + seed);
    assertEquals(keys.length, target.size());
    for (long key : model.keySet()) {
      assertEquals(before.get(key), target.count(key), "seed " + seed + " key " + key);
    }
    checkAll(target, model, "seed " + seed + " after addAll");
  }

  @Test
  void addAll_notEnoughRoom_returnsFalseAndLeavesBytesUnchanged() {
    long seed = TestSeeds.seed();
    CuckooFilter<Long> target = semiSorted(256, 12, 100, 3);
    CuckooFilter<Long> other = semiSorted(256, 12, 100, 3);
    SplittableRandom random = new SplittableRandom(seed);
    while (target.addHash(random.nextLong())) {
      // fill until the first failed add
    }
    long filled = target.size();
    while (other.size() < 1024 - filled) { // together exactly every slot: the merge must fail
      other.addHash(random.nextLong());
    }
    byte[] before = bytesOf(target);
    assertFalse(target.addAll(other), "seed " + seed);
    assertArrayEquals(before, bytesOf(target), "seed " + seed);
    assertEquals(filled, target.size());
  }

  // ---------------------------------------------------------------------------------------------
  // False-positive rate

  /**
   * The semi-sorted table stores exactly the fingerprints a plain one would, so the rate is the
   * plain filter's at the same width: a never-added query matches one of the k occupied slots of
   * its two buckets with probability 1 − (1 − 1/F)^k, F = 2^f − 1, at most 2b / F at full load.
   * Summed over the queries that gives the expected count E; the count is a sum of independent
   * Bernoulli trials, so by a Chernoff bound |X − E| > 5·sqrt(E) + 5 has probability below 10^-5.
   */
  @ParameterizedTest(name = "f={0}")
  @CsvSource({"8, 200000", "13, 2000000"})
  void mightContain_neverAddedKeys_rateAsPlainAtSameWidth(int bits, int queries) {
    long seed = TestSeeds.seed() + bits;
    CuckooFilter<Long> filter =
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(100_000)
            .fingerprintBits(bits)
            .seed(seed)
            .semiSorted(true)
            .build();
    SplittableRandom random = new SplittableRandom(seed);
    for (long i = 0; i < filter.capacity(); i++) {
      assertTrue(filter.addHash(random.nextLong() | 1L), "seed " + seed);
    }
    double fingerprints = (1L << bits) - 1;
    double expected = 0;
    long falsePositives = 0;
    Indexer indexer = filter.indexer();
    for (int i = 0; i < queries; i++) {
      long hash = random.nextLong() & ~1L; // even hashes were never added
      long h = indexer.remix(hash);
      long bucket = indexer.firstBucket(h);
      long other = indexer.alternateBucket(bucket, indexer.fingerprint(h));
      int occupied = filter.table().occupied(bucket) + filter.table().occupied(other);
      expected += -Math.expm1(occupied * Math.log1p(-1.0 / fingerprints));
      if (filter.mightContainHash(hash)) {
        falsePositives++;
      }
    }
    double slack = 5 * Math.sqrt(expected) + 5;
    String message =
        String.format(
            "seed %d: %d false positives of %d, expected %.1f ± %.1f (bound 2b/F = %.6f)",
            seed, falsePositives, queries, expected, slack, 8 / fingerprints);
    System.out.println("semi-sorted f=" + bits + ": " + message);
    assertTrue(Math.abs(falsePositives - expected) <= slack, message);
    double bound = queries * 8 / fingerprints;
    assertTrue(falsePositives <= bound + 5 * Math.sqrt(bound) + 5, message);
  }

  // ---------------------------------------------------------------------------------------------
  // Format

  /** A small semi-sorted filter: 8 buckets, f = 12, seed 17, items 0 to 19 (longs). */
  private static CuckooFilter<Long> golden() {
    CuckooFilter<Long> filter = semiSorted(8, 12, 500, 17);
    for (long i = 0; i < 20; i++) {
      assertTrue(filter.add(i));
    }
    return filter;
  }

  @Test
  void writeTo_smallSemiSortedFilter_knownBytes() {
    byte[] bytes = bytesOf(golden());
    assertEquals(64 + 8 * 4 * 11 / 8 + 4, bytes.length);
    HexFormat hex = HexFormat.of();
    assertEquals(
        "894355434b4f4f0a" // magic
            + "0100" // version 1
            + "03" // scheme 3: STANDARD, semi-sorted buckets
            + "0c" // fingerprintBits 12
            + "0400" // bucketSize 4
            + "0000" // flags
            + "04000000" // hasherId 4: longs()
            + "f4010000" // maxKicks 500
            + "0800000000000000" // bucketCount 8
            + "1100000000000000" // seed 17
            + "2000000000000000" // capacity 32
            + "1400000000000000" // itemCount 20
            + "2c00000000000000", // payloadLength 44
        hex.formatHex(bytes, 0, 64));
    // SHA-256, not a CRC32C of the file: the file ends with the CRC32C of everything before it,
    // and a CRC over data followed by its own CRC is the same constant whatever the data
    assertEquals(GOLDEN_SHA256, ChainFormatTest.sha256(bytes));
  }

  /** SHA-256 of {@link #golden()}'s serialized bytes (header, payload and trailer). */
  private static final String GOLDEN_SHA256 =
      "b43a669379f7845790c2d17c6f8d168d8450b3641b0b259eca5423ec5129dd7d";

  @Test
  void defaultBuilder_semiSorted_standardFast_writesScheme5AndReadsBack() throws IOException {
    CuckooFilter<Long> filter =
        CuckooFilter.builder(ItemHashers.longs()).expectedItems(2000).semiSorted(true).build();
    assertEquals(Scheme.STANDARD_FAST, filter.scheme());
    assertTrue(filter.isSemiSorted());
    for (long i = 0; i < 2000; i++) {
      assertTrue(filter.add(i));
    }
    byte[] bytes = bytesOf(filter);
    assertEquals(5, bytes[FilterHeader.OFFSET_SCHEME]);
    CuckooFilter<Long> copy =
        CuckooFilter.readFrom(new java.io.ByteArrayInputStream(bytes), ItemHashers.longs());
    assertEquals(Scheme.STANDARD_FAST, copy.scheme());
    assertTrue(copy.isSemiSorted());
    for (long i = 0; i < 2000; i++) {
      assertTrue(copy.mightContain(i), "item " + i);
    }
    for (long i = 2000; i < 200_000; i++) {
      assertEquals(filter.mightContain(i), copy.mightContain(i), "absent " + i);
    }
    assertArrayEquals(bytes, bytesOf(copy));
    // a STANDARD semi-sorted filter keeps scheme 3
    CuckooFilter<Long> standard =
        CuckooFilter.builder(ItemHashers.longs())
            .scheme(Scheme.STANDARD)
            .expectedItems(2000)
            .semiSorted(true)
            .build();
    for (long i = 0; i < 2000; i++) {
      assertTrue(standard.add(i));
    }
    assertEquals(3, bytesOf(standard)[FilterHeader.OFFSET_SCHEME]);
  }

  @Test
  void readFrom_writtenFilter_sameAnswersAndBytes() throws IOException {
    CuckooFilter<Long> filter = golden();
    byte[] bytes = bytesOf(filter);
    CuckooFilter<Long> read = read(bytes, ItemHashers.longs());
    assertTrue(read.isSemiSorted());
    assertEquals(filter.size(), read.size());
    assertEquals(filter.bitsPerItem(), read.bitsPerItem());
    for (long i = 0; i < 1000; i++) {
      assertEquals(filter.count(i), read.count(i), "item " + i);
    }
    assertArrayEquals(bytes, bytesOf(read));
  }

  @Test
  void readFrom_badEncodings_throwNamingTheField() {
    byte[] bytes = bytesOf(golden());
    // bucket 0's tuple index set to 0xFFF, above the 3876 tuples
    byte[] index = bytes.clone();
    index[64] = (byte) 0xFF;
    index[65] = (byte) (index[65] | 0x0F);
    assertField("payload", 64, withFixedCrc(index), "nibble tuple index 4095");
    // an empty bucket whose first low part is set: fingerprints 0x001 > 0 not in ascending order
    CuckooFilter<Long> empty = semiSorted(8, 12, 500, 17);
    byte[] order = bytesOf(empty);
    order[64 + 1] = (byte) 0x10; // bucket 0: low part of slot 0 = 1, slots 1-3 = 0
    assertField("payload", 64, withFixedCrc(order), "not in ascending order");
    assertField(
        "bucketSize",
        FilterHeader.OFFSET_BUCKET_SIZE,
        withFixedCrc(FormatTestSupport.withShort(bytes, FilterHeader.OFFSET_BUCKET_SIZE, 2)),
        "(expected: 4 for semi-sorted buckets)");
    assertField(
        "fingerprintBits",
        FilterHeader.OFFSET_FINGERPRINT_BITS,
        withFixedCrc(withByte(bytes, FilterHeader.OFFSET_FINGERPRINT_BITS, 17)),
        "(expected: 5 to 16 for semi-sorted buckets)");
    assertField(
        "payloadLength",
        FilterHeader.OFFSET_PAYLOAD_LENGTH,
        withFixedCrc(withLong(bytes, FilterHeader.OFFSET_PAYLOAD_LENGTH, 48)),
        "48 (expected: 44 for this geometry)");
  }

  @Test
  void concurrentReadFrom_semiSortedFile_throwsNamingScheme() {
    byte[] bytes = bytesOf(golden());
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class,
            () ->
                ConcurrentCuckooFilter.readFrom(
                    new ByteArrayInputStream(bytes), ItemHashers.longs()));
    assertEquals("scheme", e.field());
  }

  private static void assertField(String field, long offset, byte[] bytes, String detail) {
    FilterFormatException e =
        assertThrows(FilterFormatException.class, () -> read(bytes, ItemHashers.longs()));
    assertEquals(field, e.field(), e.getMessage());
    assertEquals(offset, e.offset(), e.getMessage());
    assertTrue(e.getMessage().contains(detail), e.getMessage());
  }
}
