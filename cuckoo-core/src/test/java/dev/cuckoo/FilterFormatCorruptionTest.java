package dev.cuckoo;

import static dev.cuckoo.FilterHeader.OFFSET_BUCKET_COUNT;
import static dev.cuckoo.FilterHeader.OFFSET_BUCKET_SIZE;
import static dev.cuckoo.FilterHeader.OFFSET_CAPACITY;
import static dev.cuckoo.FilterHeader.OFFSET_FINGERPRINT_BITS;
import static dev.cuckoo.FilterHeader.OFFSET_FLAGS;
import static dev.cuckoo.FilterHeader.OFFSET_HASHER_ID;
import static dev.cuckoo.FilterHeader.OFFSET_ITEM_COUNT;
import static dev.cuckoo.FilterHeader.OFFSET_MAGIC;
import static dev.cuckoo.FilterHeader.OFFSET_MAX_KICKS;
import static dev.cuckoo.FilterHeader.OFFSET_PAYLOAD_LENGTH;
import static dev.cuckoo.FilterHeader.OFFSET_SCHEME;
import static dev.cuckoo.FilterHeader.OFFSET_SEED;
import static dev.cuckoo.FilterHeader.OFFSET_VERSION;
import static dev.cuckoo.FormatTestSupport.bytesOf;
import static dev.cuckoo.FormatTestSupport.read;
import static dev.cuckoo.FormatTestSupport.readUnknownLength;
import static dev.cuckoo.FormatTestSupport.withByte;
import static dev.cuckoo.FormatTestSupport.withFixedCrc;
import static dev.cuckoo.FormatTestSupport.withInt;
import static dev.cuckoo.FormatTestSupport.withLong;
import static dev.cuckoo.FormatTestSupport.withShort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Corrupt, truncated and hostile inputs: each must raise {@link FilterFormatException} naming the
 * field and offset — never {@link OutOfMemoryError}, never a filter that answers wrong.
 */
class FilterFormatCorruptionTest {

  /** A small STANDARD filter, f = 12 (so the payload's last byte has unused bits), b = 4. */
  private static CuckooFilter<CharSequence> standard() {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(30)
            .fingerprintBits(13)
            .bucketSize(4)
            .seed(17)
            .build();
    for (int i = 0; i < 25; i++) {
      filter.add("item-" + i);
    }
    return filter;
  }

  private static CuckooFilter<CharSequence> redis() {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.redisUtf8())
            .redisBloomScheme()
            .expectedItems(64)
            .bucketSize(2)
            .build();
    for (int i = 0; i < 40; i++) {
      filter.add("item-" + i);
    }
    return filter;
  }

  static Stream<Arguments> filters() {
    return Stream.of(
        Arguments.of("STANDARD", bytesOf(standard()), ItemHashers.utf8()),
        Arguments.of("REDISBLOOM", bytesOf(redis()), ItemHashers.redisUtf8()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("filters")
  void readFrom_truncatedAtEveryOffset_throws(
      String name, byte[] bytes, ItemHasher<CharSequence> hasher) {
    for (int length = 0; length < bytes.length; length++) {
      byte[] prefix = Arrays.copyOf(bytes, length);
      expectFormatError(() -> read(prefix, hasher), "known length, truncated to " + length);
      expectFormatError(
          () -> readUnknownLength(prefix, hasher), "unknown length, truncated to " + length);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("filters")
  void readFrom_everySingleBitFlipped_throws(
      String name, byte[] bytes, ItemHasher<CharSequence> hasher) {
    for (int bit = 0; bit < bytes.length * 8; bit++) {
      byte[] flipped = bytes.clone();
      flipped[bit >>> 3] ^= (byte) (1 << (bit & 7));
      expectFormatError(() -> read(flipped, hasher), "known length, bit " + bit + " flipped");
      expectFormatError(
          () -> readUnknownLength(flipped, hasher), "unknown length, bit " + bit + " flipped");
    }
  }

  static Stream<Arguments> hostileLengths() {
    long[] values = {1L << 31, 1L << 62, -1L, Long.MIN_VALUE, (1L << 31) - 1, 1L << 32};
    int[] offsets = {
      OFFSET_BUCKET_COUNT, OFFSET_CAPACITY, OFFSET_ITEM_COUNT, OFFSET_PAYLOAD_LENGTH
    };
    return Arrays.stream(offsets)
        .boxed()
        .flatMap(offset -> Arrays.stream(values).mapToObj(v -> Arguments.of(offset, v)));
  }

  @ParameterizedTest(name = "offset {0} = {1}")
  @MethodSource("hostileLengths")
  void readFrom_hostileLengthWithValidCrc_throwsNamingField(int offset, long value) {
    byte[] bytes = withFixedCrc(withLong(bytesOf(standard()), offset, value));
    FilterFormatException known = expectFormatError(() -> read(bytes, ItemHashers.utf8()), "");
    FilterFormatException unknown =
        expectFormatError(() -> readUnknownLength(bytes, ItemHashers.utf8()), "");
    // the patched field itself, or the payload length it no longer agrees with
    for (FilterFormatException e : new FilterFormatException[] {known, unknown}) {
      assertTrue(e.offset() == offset || e.offset() == OFFSET_PAYLOAD_LENGTH, e.getMessage());
    }
  }

  @ParameterizedTest(name = "bucketCount {0}")
  @ValueSource(longs = {1L << 31, 1L << 32, (1L << 32) - 2, 1L << 36})
  void readFrom_consistentHugeGeometryInShortStream_throwsBeforeAllocating(long buckets) {
    // bucket count and payload length agree, so only the length/heap checks stand in the way
    byte[] base = bytesOf(standard());
    long payload = BucketTable.payloadBytes(buckets, 4, 13);
    byte[] bytes =
        withFixedCrc(
            withLong(withLong(base, OFFSET_BUCKET_COUNT, buckets), OFFSET_PAYLOAD_LENGTH, payload));
    FilterFormatException known = expectFormatError(() -> read(bytes, ItemHashers.utf8()), "");
    FilterFormatException unknown =
        expectFormatError(() -> readUnknownLength(bytes, ItemHashers.utf8()), "");
    assertTrue(
        known.field().equals("payloadLength") || known.field().equals("bucketCount"),
        known.getMessage());
    assertTrue(
        unknown.field().equals("payloadLength") || unknown.field().equals("bucketCount"),
        unknown.getMessage());
  }

  @Test
  void readFrom_redisGeometryOfTwoToThe31BucketsInShortStream_throws() {
    byte[] base = bytesOf(redis());
    long buckets = 1L << 31;
    byte[] patched = withLong(base, OFFSET_BUCKET_COUNT, buckets);
    patched = withLong(patched, OFFSET_CAPACITY, buckets * 2);
    patched = withLong(patched, OFFSET_PAYLOAD_LENGTH, buckets * 2);
    byte[] bytes = withFixedCrc(patched);
    assertEquals(
        "payloadLength", expectFormatError(() -> read(bytes, ItemHashers.redisUtf8()), "").field());
    assertEquals(
        "payloadLength",
        expectFormatError(() -> readUnknownLength(bytes, ItemHashers.redisUtf8()), "").field());
  }

  @Test
  void readFrom_randomHeaderValuesWithValidCrc_throwFormatExceptionOrReadCleanly() {
    // structured fuzzing: any mix of field values must end in a FilterFormatException or a
    // successfully read filter, never another exception or an error
    int[] offsets = {
      OFFSET_VERSION, OFFSET_SCHEME, OFFSET_FINGERPRINT_BITS, OFFSET_BUCKET_SIZE, OFFSET_FLAGS,
      OFFSET_HASHER_ID, OFFSET_MAX_KICKS, OFFSET_BUCKET_COUNT, OFFSET_SEED, OFFSET_CAPACITY,
      OFFSET_ITEM_COUNT, OFFSET_PAYLOAD_LENGTH
    };
    int[] widths = {2, 1, 1, 2, 2, 4, 4, 8, 8, 8, 8, 8};
    long[] interesting = {
      0,
      1,
      2,
      4,
      8,
      12,
      32,
      33,
      255,
      256,
      0xFFFF,
      1L << 31,
      (1L << 31) - 1,
      1L << 32,
      (1L << 32) - 2,
      1L << 40,
      1L << 62,
      -1,
      Long.MIN_VALUE,
      Long.MAX_VALUE
    };
    long fuzzSeed = 20_261_122L;
    java.util.Random random = new java.util.Random(fuzzSeed);
    byte[][] originals = {bytesOf(standard()), bytesOf(redis())};
    int read = 0;
    for (int round = 0; round < 3000; round++) {
      byte[] bytes = originals[round & 1].clone();
      int changes = 1 + random.nextInt(3);
      for (int c = 0; c < changes; c++) {
        int field = random.nextInt(offsets.length);
        long value =
            random.nextBoolean()
                ? interesting[random.nextInt(interesting.length)]
                : random.nextLong();
        bytes = withField(bytes, offsets[field], widths[field], value);
      }
      byte[] candidate = withFixedCrc(bytes);
      ItemHasher<CharSequence> hasher =
          (round & 1) == 0 ? ItemHashers.utf8() : ItemHashers.redisUtf8();
      String replay = "fuzz seed " + fuzzSeed + ", round " + round;
      for (boolean knownLength : new boolean[] {true, false}) {
        try {
          CuckooFilter<CharSequence> filter =
              knownLength ? read(candidate, hasher) : readUnknownLength(candidate, hasher);
          assertEquals(filter.table().countOccupied(), filter.size(), replay);
          read++;
        } catch (FilterFormatException e) {
          assertTrue(e.offset() >= 0, replay + ": " + e.getMessage());
        } catch (IOException | RuntimeException | Error e) {
          throw new AssertionError(replay + ": " + e, e);
        }
      }
    }
    assertTrue(read < 6000, "every fuzzed header was accepted");
  }

  private static byte[] withField(byte[] bytes, int offset, int width, long value) {
    switch (width) {
      case 1:
        return withByte(bytes, offset, (int) value);
      case 2:
        return withShort(bytes, offset, (int) value);
      case 4:
        return withInt(bytes, offset, (int) value);
      default:
        return withLong(bytes, offset, value);
    }
  }

  @Test
  void readFrom_wrongMagic_throws() {
    byte[] bytes = withByte(bytesOf(standard()), 1, 'X');
    assertField("magic", OFFSET_MAGIC, bytes);
    assertField("magic", OFFSET_MAGIC, withLong(bytes, 0, 0x0A4F4F4B43554389L ^ (1L << 63)));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 2, 3, 0xFFFF})
  void readFrom_unknownVersion_throws(int version) {
    assertField("version", OFFSET_VERSION, withShort(bytesOf(standard()), OFFSET_VERSION, version));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 6, 255}) // 3 and 5: semi-sorted STANDARD and STANDARD_FAST; 4: FAST
  void readFrom_unknownScheme_throws(int scheme) {
    assertField("scheme", OFFSET_SCHEME, withByte(bytesOf(standard()), OFFSET_SCHEME, scheme));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 3, 33, 255})
  void readFrom_standardFingerprintBitsOutOfRange_throws(int bits) {
    assertField(
        "fingerprintBits",
        OFFSET_FINGERPRINT_BITS,
        withByte(bytesOf(standard()), OFFSET_FINGERPRINT_BITS, bits));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 3, 5, 16, 0xFFFF})
  void readFrom_standardBucketSizeNotTwoFourOrEight_throws(int size) {
    assertField(
        "bucketSize", OFFSET_BUCKET_SIZE, withShort(bytesOf(standard()), OFFSET_BUCKET_SIZE, size));
  }

  @Test
  void readFrom_schemeSwappedToRedisBloom_throwsOnFingerprintBits() {
    byte[] bytes = withByte(bytesOf(standard()), OFFSET_SCHEME, Scheme.REDISBLOOM.id());
    assertField("fingerprintBits", OFFSET_FINGERPRINT_BITS, bytes, ItemHashers.utf8());
  }

  @Test
  void readFrom_redisBloomInvalidFields_throw() {
    byte[] bytes = bytesOf(redis());
    ItemHasher<CharSequence> hasher = ItemHashers.redisUtf8();
    assertField(
        "fingerprintBits",
        OFFSET_FINGERPRINT_BITS,
        withByte(bytes, OFFSET_FINGERPRINT_BITS, 12),
        hasher);
    assertField("bucketSize", OFFSET_BUCKET_SIZE, withShort(bytes, OFFSET_BUCKET_SIZE, 0), hasher);
    assertField(
        "bucketSize", OFFSET_BUCKET_SIZE, withShort(bytes, OFFSET_BUCKET_SIZE, 256), hasher);
    assertField("seed", OFFSET_SEED, withLong(bytes, OFFSET_SEED, 1), hasher);
    assertField(
        "bucketCount", OFFSET_BUCKET_COUNT, withLong(bytes, OFFSET_BUCKET_COUNT, 48), hasher);
    assertField(
        "bucketCount", OFFSET_BUCKET_COUNT, withLong(bytes, OFFSET_BUCKET_COUNT, 0), hasher);
    assertField("capacity", OFFSET_CAPACITY, withLong(bytes, OFFSET_CAPACITY, 63), hasher);
  }

  @Test
  void readFrom_standardBucketCountOddOrTooSmall_throws() {
    byte[] bytes = bytesOf(standard());
    assertField("bucketCount", OFFSET_BUCKET_COUNT, withLong(bytes, OFFSET_BUCKET_COUNT, 9));
    assertField("bucketCount", OFFSET_BUCKET_COUNT, withLong(bytes, OFFSET_BUCKET_COUNT, 0));
    assertField("bucketCount", OFFSET_BUCKET_COUNT, withLong(bytes, OFFSET_BUCKET_COUNT, 1L << 32));
  }

  @Test
  void readFrom_otherFieldsOutOfRange_throw() {
    byte[] bytes = bytesOf(standard());
    assertField("flags", OFFSET_FLAGS, withShort(bytes, OFFSET_FLAGS, 1));
    assertField("hasherId", OFFSET_HASHER_ID, withInt(bytes, OFFSET_HASHER_ID, -1));
    assertField("hasherId", OFFSET_HASHER_ID, withInt(bytes, OFFSET_HASHER_ID, 2));
    assertField("maxKicks", OFFSET_MAX_KICKS, withInt(bytes, OFFSET_MAX_KICKS, -1));
    assertField(
        "maxKicks",
        OFFSET_MAX_KICKS,
        withInt(bytes, OFFSET_MAX_KICKS, CuckooFilter.MAX_KICKS_LIMIT + 1));
    assertField("capacity", OFFSET_CAPACITY, withLong(bytes, OFFSET_CAPACITY, 0));
    assertField("payloadLength", OFFSET_PAYLOAD_LENGTH, withLong(bytes, OFFSET_PAYLOAD_LENGTH, 0));
    long payload = bytes.length - FilterHeader.BYTES - 4;
    assertField(
        "payloadLength",
        OFFSET_PAYLOAD_LENGTH,
        withLong(bytes, OFFSET_PAYLOAD_LENGTH, payload + 1));
  }

  @Test
  void readFrom_itemCountDisagreeingWithPayload_throwsEvenWithValidCrc() {
    CuckooFilter<CharSequence> filter = standard();
    byte[] bytes = bytesOf(filter);
    for (long count : new long[] {0, filter.size() - 1, filter.size() + 1}) {
      byte[] patched = withFixedCrc(withLong(bytes, OFFSET_ITEM_COUNT, count));
      assertField("itemCount", OFFSET_ITEM_COUNT, patched);
    }
  }

  @Test
  void readFrom_unusedBitsOfLastPayloadByteSet_throwsEvenWithValidCrc() {
    // b = 2, f = 13 and 14 buckets: 364 bits, so the top 4 bits of the 46th byte are unused
    CuckooFilter<CharSequence> filter =
        new CuckooFilter<>(ItemHashers.utf8(), Scheme.STANDARD, 14, 2, 13, 100, 0, 20);
    filter.add("a");
    byte[] bytes = bytesOf(filter);
    int last = bytes.length - 5;
    assertEquals(0, bytes[last] & 0xF0);
    byte[] patched = withFixedCrc(withByte(bytes, last, bytes[last] | 0x80));
    assertField("payload", last, patched);
  }

  @Test
  void readFrom_payloadByteChanged_throwsOnCrc() {
    byte[] bytes = bytesOf(standard());
    int at = FilterHeader.BYTES + 5;
    byte[] corrupt = withByte(bytes, at, bytes[at] ^ 0x21);
    FilterFormatException e = expectFormatError(() -> read(corrupt, ItemHashers.utf8()), "");
    assertEquals("crc32c", e.field());
    assertEquals(bytes.length - 4, e.offset());
  }

  @Test
  void readFrom_hasherMismatch_throws() {
    assertField("hasherId", OFFSET_HASHER_ID, bytesOf(standard()), ItemHashers.bytes());
    assertField("hasherId", OFFSET_HASHER_ID, bytesOf(redis()), ItemHashers.utf8());
  }

  @Test
  void readFrom_emptyInput_throwsNamingHeader() {
    FilterFormatException e = expectFormatError(() -> read(new byte[0], ItemHashers.utf8()), "");
    assertEquals("header", e.field());
    assertEquals(0, e.offset());
  }

  @Test
  void readFrom_pathTruncatedAtEveryOffset_throws(@TempDir Path dir) throws IOException {
    byte[] bytes = bytesOf(standard());
    Path file = dir.resolve("f.bin");
    for (int length = 0; length < bytes.length; length += 3) {
      Files.write(file, Arrays.copyOf(bytes, length));
      expectFormatError(
          () -> CuckooFilter.readFrom(file, ItemHashers.utf8()), "file truncated to " + length);
    }
  }

  private static void assertField(String field, long offset, byte[] bytes) {
    assertField(field, offset, bytes, ItemHashers.utf8());
  }

  private static void assertField(String field, long offset, byte[] bytes, ItemHasher<?> hasher) {
    for (boolean knownLength : new boolean[] {true, false}) {
      FilterFormatException e =
          expectFormatError(
              () -> knownLength ? read(bytes, hasher) : readUnknownLength(bytes, hasher),
              "expected field " + field);
      assertEquals(field, e.field(), e.getMessage());
      assertEquals(offset, e.offset(), e.getMessage());
    }
  }

  interface Read {
    CuckooFilter<?> run() throws IOException;
  }

  /** Runs {@code read}; fails unless it throws a well-formed FilterFormatException. */
  private static FilterFormatException expectFormatError(Read read, String what) {
    try {
      CuckooFilter<?> filter = read.run();
      fail(what + ": returned a filter instead of throwing: " + filter);
      return null;
    } catch (FilterFormatException e) {
      assertNotNull(e.field(), what);
      assertTrue(e.offset() >= 0, what + ": " + e.getMessage());
      assertTrue(e.getMessage().contains(e.field()), what + ": " + e.getMessage());
      return e;
    } catch (IOException | RuntimeException | Error e) {
      throw new AssertionError(what + ": expected FilterFormatException, got " + e, e);
    }
  }
}
