package dev.cuckoo;

import static dev.cuckoo.FormatTestSupport.bytesOf;
import static dev.cuckoo.FormatTestSupport.read;
import static dev.cuckoo.FormatTestSupport.readUnknownLength;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FilterFormatTest {

  @ParameterizedTest(name = "f={0} b={1} seed={2}")
  @CsvSource({
    "4,2,0",
    "5,4,0",
    "7,8,99",
    "8,4,0",
    "9,2,1",
    "12,4,42",
    "13,4,0",
    "16,8,-7",
    "17,2,0",
    "23,4,5",
    "31,8,0",
    "32,4,123456789"
  })
  void writeTo_standardGeometries_roundTripsAnswersAndBytes(int bits, int size, long seed)
      throws IOException {
    for (Scheme scheme : new Scheme[] {Scheme.STANDARD, Scheme.STANDARD_FAST}) {
      roundTrip(scheme, bits, size, seed);
    }
  }

  private static void roundTrip(Scheme scheme, int bits, int size, long seed) throws IOException {
    CuckooFilter<Long> filter =
        CuckooFilter.builder(ItemHashers.longs())
            .scheme(scheme)
            .expectedItems(1_000)
            .fingerprintBits(bits)
            .bucketSize(size)
            .seed(seed)
            .maxKicks(300)
            .build();
    assertEquals(scheme, filter.scheme());
    long randomSeed = 31L * bits + size;
    Random random = new Random(randomSeed);
    long[] keys = random.longs(900).toArray();
    for (long key : keys) {
      filter.add(key);
    }
    byte[] bytes = bytesOf(filter);
    assertEquals(FilterHeader.BYTES + filter.table().payloadBytes() + 4, bytes.length);

    CuckooFilter<Long> copy = read(bytes, ItemHashers.longs());
    assertSameFilter(filter, copy);
    for (long key : keys) {
      assertEquals(filter.count(key), copy.count(key), "random seed " + randomSeed);
    }
    for (int i = 0; i < 10_000; i++) {
      long probe = random.nextLong();
      assertEquals(filter.mightContain(probe), copy.mightContain(probe), "probe " + probe);
    }
    assertArrayEquals(bytes, bytesOf(copy));
  }

  @Test
  void writeTo_redisBloomScheme_roundTripsAnswersAndBytes() throws IOException {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.redisUtf8())
            .redisBloomScheme()
            .expectedItems(1000)
            .bucketSize(3)
            .maxKicks(50)
            .build();
    for (int i = 0; i < 700; i++) {
      filter.add("key:" + i);
    }
    byte[] bytes = bytesOf(filter);
    CuckooFilter<CharSequence> copy = read(bytes, ItemHashers.redisUtf8());
    assertSameFilter(filter, copy);
    for (int i = 0; i < 2000; i++) {
      assertEquals(filter.count("key:" + i), copy.count("key:" + i), "key:" + i);
    }
    assertArrayEquals(bytes, bytesOf(copy));
  }

  @Test
  void readFrom_emptyFilter_isEmpty() throws IOException {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(10).build();
    CuckooFilter<CharSequence> copy = readUnknownLength(bytesOf(filter), ItemHashers.utf8());
    assertTrue(copy.isEmpty());
    assertSameFilter(filter, copy);
  }

  @Test
  void readFrom_unknownLengthStream_readsSameFilter() throws IOException {
    CuckooFilter<CharSequence> filter = smallFilter();
    byte[] bytes = bytesOf(filter);
    CuckooFilter<CharSequence> copy = readUnknownLength(bytes, ItemHashers.utf8());
    assertArrayEquals(bytes, bytesOf(copy));
  }

  @Test
  void readFrom_concatenatedFilters_readsEachAndLeavesStreamAfterIt() throws IOException {
    CuckooFilter<CharSequence> first = smallFilter();
    CuckooFilter<CharSequence> second =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(50).fingerprintBits(9).build();
    second.add("second");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    first.writeTo(out);
    second.writeTo(out);
    out.write(0x5A);
    InputStream in =
        new SequenceInputStream(
            new ByteArrayInputStream(out.toByteArray()), new ByteArrayInputStream(new byte[0]));

    assertArrayEquals(bytesOf(first), bytesOf(CuckooFilter.readFrom(in, ItemHashers.utf8())));
    CuckooFilter<CharSequence> secondCopy = CuckooFilter.readFrom(in, ItemHashers.utf8());
    assertTrue(secondCopy.mightContain("second"));
    assertEquals(0x5A, in.read());
  }

  @Test
  void writeTo_layout_matchesDocumentedOffsets() {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(100)
            .fingerprintBits(12)
            .bucketSize(4)
            .maxKicks(77)
            .seed(0x0102030405060708L)
            .build();
    filter.add("a");
    filter.add("b");
    byte[] bytes = bytesOf(filter);
    ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    assertArrayEquals(
        new byte[] {(byte) 0x89, 'C', 'U', 'C', 'K', 'O', 'O', '\n'},
        java.util.Arrays.copyOf(bytes, 8));
    assertEquals(1, buffer.getShort(8));
    assertEquals(Scheme.STANDARD_FAST.id(), buffer.get(10));
    assertEquals(4, buffer.get(10));
    assertEquals(12, buffer.get(11));
    assertEquals(4, buffer.getShort(12));
    assertEquals(0, buffer.getShort(14));
    assertEquals(ItemHashers.utf8().id(), buffer.getInt(16));
    assertEquals(77, buffer.getInt(20));
    assertEquals(filter.bucketCount(), buffer.getLong(24));
    assertEquals(0x0102030405060708L, buffer.getLong(32));
    assertEquals(filter.capacity(), buffer.getLong(40));
    assertEquals(2, buffer.getLong(48));
    assertEquals((filter.bucketCount() * 4 * 12 + 7) / 8, buffer.getLong(56));
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    assertEquals((int) crc.getValue(), buffer.getInt(bytes.length - 4));
  }

  @Test
  void readFrom_customHasherOnEitherSide_isNotChecked() throws IOException {
    ItemHasher<CharSequence> custom = item -> ItemHashers.utf8().hash(item);
    CuckooFilter<CharSequence> filter = smallFilter();
    CuckooFilter<CharSequence> viaCustom = read(bytesOf(filter), custom);
    assertTrue(viaCustom.mightContain("item-7"));

    CuckooFilter<CharSequence> written = CuckooFilter.builder(custom).expectedItems(100).build();
    written.add("x");
    assertEquals(0, ByteBuffer.wrap(bytesOf(written)).order(ByteOrder.LITTLE_ENDIAN).getInt(16));
    assertTrue(read(bytesOf(written), ItemHashers.utf8()).mightContain("x"));
  }

  @Test
  void readFrom_differentBuiltInHasher_throwsNamingBoth() {
    byte[] bytes = bytesOf(smallFilter());
    FilterFormatException e =
        assertThrows(FilterFormatException.class, () -> read(bytes, ItemHashers.redisUtf8()));
    assertEquals("hasherId", e.field());
    assertEquals(16, e.offset());
    assertTrue(e.getMessage().contains("ItemHashers.utf8()"), e.getMessage());
    assertTrue(e.getMessage().contains("ItemHashers.redisUtf8()"), e.getMessage());
  }

  @Test
  void writeTo_path_roundTrips(@TempDir Path dir) throws IOException {
    CuckooFilter<CharSequence> filter = smallFilter();
    Path file = dir.resolve("f.bin");
    Files.write(file, new byte[10_000]);
    filter.writeTo(file);
    assertArrayEquals(bytesOf(filter), Files.readAllBytes(file));
    assertArrayEquals(bytesOf(filter), bytesOf(CuckooFilter.readFrom(file, ItemHashers.utf8())));
  }

  @Test
  void readFrom_pathWithTrailingBytes_throws(@TempDir Path dir) throws IOException {
    byte[] bytes = bytesOf(smallFilter());
    Path file = dir.resolve("f.bin");
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length + 1));
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class, () -> CuckooFilter.readFrom(file, ItemHashers.utf8()));
    assertEquals("end", e.field());
    assertEquals(bytes.length, e.offset());
  }

  @Test
  void readFrom_pathShorterThanPayload_throwsBeforeAllocating(@TempDir Path dir)
      throws IOException {
    byte[] bytes = bytesOf(smallFilter());
    Path file = dir.resolve("f.bin");
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 1));
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class, () -> CuckooFilter.readFrom(file, ItemHashers.utf8()));
    assertEquals("payloadLength", e.field());
    assertEquals(FilterHeader.OFFSET_PAYLOAD_LENGTH, e.offset());
  }

  @Test
  void readFrom_nullHasher_throwsNullPointerException() {
    byte[] bytes = bytesOf(smallFilter());
    assertThrows(NullPointerException.class, () -> read(bytes, null));
  }

  @Test
  void writeTo_nullStream_throwsNullPointerException() {
    CuckooFilter<CharSequence> filter = smallFilter();
    assertThrows(NullPointerException.class, () -> filter.writeTo((java.io.OutputStream) null));
  }

  @ParameterizedTest(name = "f={0} b={1}")
  @CsvSource({"4,2", "4,4", "8,2", "8,4", "8,8", "16,2", "16,4", "32,2", "32,8", "12,4", "13,2"})
  void countOccupied_randomFilling_matchesBucketByBucketCount(int bits, int size) {
    for (long seed = 1; seed <= 5; seed++) {
      Random random = new Random(seed * 1000 + bits);
      // odd bucket counts / 2 leave a partial last word for most widths
      long buckets = 2 * (1 + random.nextInt(300));
      PlainBucketTable table = new PlainBucketTable(buckets, size, bits);
      long max = bits == 32 ? 0xFFFFFFFFL : (1L << bits) - 1;
      long expected = 0;
      for (long bucket = 0; bucket < buckets; bucket++) {
        for (int slot = 0; slot < size; slot++) {
          if (random.nextInt(3) > 0) {
            table.set(bucket, slot, 1 + (random.nextLong() >>> 1) % max);
            expected++;
          }
        }
      }
      String replay = "f=" + bits + " b=" + size + " seed " + seed;
      assertEquals(expected, table.countOccupiedByBucket(), replay);
      assertEquals(expected, table.countOccupied(), replay);
    }
  }

  static CuckooFilter<CharSequence> smallFilter() {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(40)
            .fingerprintBits(12)
            .bucketSize(4)
            .build();
    for (int i = 0; i < 30; i++) {
      filter.add("item-" + i);
    }
    return filter;
  }

  static void assertSameFilter(CuckooFilter<?> expected, CuckooFilter<?> actual) {
    assertEquals(expected.scheme(), actual.scheme());
    assertEquals(expected.fingerprintBits(), actual.fingerprintBits());
    assertEquals(expected.bucketSize(), actual.bucketSize());
    assertEquals(expected.bucketCount(), actual.bucketCount());
    assertEquals(expected.maxKicks(), actual.maxKicks());
    assertEquals(expected.seed(), actual.seed());
    assertEquals(expected.capacity(), actual.capacity());
    assertEquals(expected.size(), actual.size());
  }
}
