package dev.cuckoo;

import static dev.cuckoo.FormatTestSupport.bytesOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Single REDISBLOOM filters, which only {@link RedisCuckooFilter} holds: files written as a single
 * {@link CuckooFilter} of the scheme wrote them (the package's own table, the old code path) read
 * as one-link filters that never grow; {@link RedisCuckooFilter#writeSingleTo}, {@link
 * RedisCuckooFilter#withExpansion} and {@link RedisCuckooFilter#addAll} give the bytes and dumps
 * the single filter gave.
 */
class SingleFilterDumpTest {
  @TempDir Path dir;

  private static byte[] item(int i) {
    return ("item" + i).getBytes(StandardCharsets.UTF_8);
  }

  /** A single REDISBLOOM filter as CuckooFilter.builder(...).scheme(REDISBLOOM) built it. */
  private static CuckooFilter<byte[]> filled(int from, int to) {
    CuckooFilter<byte[]> filter =
        CuckooFilter.builder(ItemHashers.redisBytes())
            .redisBloomScheme()
            .expectedItems(1000)
            .build();
    for (int i = from; i < to; i++) {
      assertTrue(filter.add(item(i)), "item" + i);
    }
    return filter;
  }

  private static RedisCuckooFilter<byte[]> read(byte[] bytes) throws IOException {
    return RedisCuckooFilter.readFrom(new ByteArrayInputStream(bytes), ItemHashers.redisBytes());
  }

  private static byte[] singleBytes(RedisCuckooFilter<byte[]> filter, ItemHasher<?> hasher)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeSingleTo(out, hasher);
    return out.toByteArray();
  }

  @Test
  void readFrom_oldSingleFile_oneLinkFilterThatNeverGrows() throws IOException {
    CuckooFilter<byte[]> single = filled(0, 300);
    RedisCuckooFilter<byte[]> filter = read(bytesOf(single));
    assertEquals(1, filter.linkCount());
    assertEquals(0, filter.expansion());
    assertEquals(300, filter.size());
    assertEquals(0, filter.deletedCount());
    assertEquals(512, filter.baseBucketCount());
    assertEquals(2, filter.bucketSize());
    assertEquals(20, filter.maxKicks());
    assertEquals(single.capacity(), filter.capacity());
    for (int i = 0; i < 3000; i++) {
      assertEquals(single.mightContain(item(i)), filter.mightContain(item(i)), "item" + i);
    }
    // expansion 0: full is full, as the single filter was
    int added = 300;
    while (filter.add(item(added))) {
      assertTrue(single.add(item(added)), "the single filter took fewer items");
      added++;
    }
    assertFalse(single.add(item(added)), "the single filter took more items");
    assertEquals(AddOutcome.FULL, filter.addIfAbsentWithOutcome(item(added)));
    assertEquals(1, filter.linkCount());
    assertArrayEquals(bytesOf(single), singleBytes(filter, ItemHashers.redisBytes()));
  }

  @Test
  void withExpansion_sameAddsAsReservedChain_sameDump() throws IOException {
    RedisCuckooFilter<byte[]> chain = RedisCuckooFilter.reserve(1000, 2, 20, 2);
    for (int i = 0; i < 300; i++) {
      chain.add(item(i));
    }
    assertEquals(1, chain.linkCount());
    RedisCuckooFilter<byte[]> view = read(bytesOf(filled(0, 300))).withExpansion(2);
    assertEquals(chain.redisDebug(), view.redisDebug());
    assertArrayEquals(chain.dumpHeader(), view.dumpHeader());
    for (long it = 0; ; ) {
      ScanDumpChunk expected = chain.scanDump(it);
      ScanDumpChunk actual = view.scanDump(it);
      assertEquals(expected.iterator(), actual.iterator());
      assertArrayEquals(expected.data(), actual.data());
      if (expected.iterator() == 0) {
        break;
      }
      it = expected.iterator();
    }
  }

  @Test
  void writeSingleTo_loadedDumpOfSingleFile_sameFileBytes() throws IOException {
    byte[] file = bytesOf(filled(0, 500));
    RedisCuckooFilter<byte[]> view = read(file).withExpansion(1);
    RedisCuckooFilter<byte[]> loaded = RedisCuckooFilter.loadDumpHeader(view.scanDump(0).data());
    for (ScanDumpChunk chunk = view.scanDump(1);
        chunk.iterator() != 0;
        chunk = view.scanDump(chunk.iterator())) {
      loaded.loadDumpChunk(chunk.iterator(), chunk.data());
    }
    assertEquals(1, loaded.expansion());
    assertArrayEquals(file, singleBytes(loaded, ItemHashers.redisBytes()));
    // the id recorded is the hasher given: redisUtf8 for text, the same hashes of the same bytes
    byte[] text = singleBytes(loaded, ItemHashers.redisUtf8());
    assertEquals(
        ItemHashers.redisUtf8().id(),
        FilterFile.read(new ByteArrayInputStream(text), id -> ItemHashers.redisUtf8()).hasherId());
  }

  @Test
  void writeSingleTo_itemCountDisagreesWithSlots_throwsNamingNumItems() throws IOException {
    RedisCuckooFilter<byte[]> view = read(bytesOf(filled(0, 10))).withExpansion(1);
    byte[] header = view.dumpHeader();
    header[0] = 11;
    RedisCuckooFilter<byte[]> loaded = RedisCuckooFilter.loadDumpHeader(header);
    loaded.loadDumpChunk(view.scanDump(1).iterator(), view.scanDump(1).data());
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class,
            () -> loaded.writeSingleTo(new ByteArrayOutputStream(), ItemHashers.redisBytes()));
    assertEquals("numItems", e.field());
  }

  @Test
  void withExpansionAndWriteSingleTo_grownOrOutOfRange_refusedNamingIt() {
    RedisCuckooFilter<byte[]> grown = RedisCuckooFilter.reserve(4, 2, 20, 1);
    for (int i = 0; grown.linkCount() < 2; i++) {
      grown.add(item(i));
    }
    IllegalStateException state =
        assertThrows(IllegalStateException.class, () -> grown.withExpansion(1));
    assertEquals("linkCount: 2 (expected: 1, a filter that never grew)", state.getMessage());
    assertThrows(
        IllegalStateException.class,
        () -> grown.writeSingleTo(new ByteArrayOutputStream(), ItemHashers.redisBytes()));
    RedisCuckooFilter<byte[]> one = RedisCuckooFilter.reserve(100, 2, 20, 0);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> one.withExpansion(40000));
    assertTrue(e.getMessage().startsWith("expansion: 40000"), e.getMessage());
  }

  @Test
  void addAll_oneLinkFilters_sameBytesAsSingleFiltersMerged() throws IOException {
    CuckooFilter<byte[]> left = filled(0, 300);
    CuckooFilter<byte[]> right = filled(300, 600);
    RedisCuckooFilter<byte[]> mine = read(bytesOf(left));
    RedisCuckooFilter<byte[]> theirs = read(bytesOf(right));
    assertTrue(left.addAll(right));
    assertTrue(mine.addAll(theirs));
    assertEquals(600, mine.size());
    assertArrayEquals(bytesOf(left), singleBytes(mine, ItemHashers.redisBytes()));
    assertEquals(300, theirs.size());
    // all or nothing: a union beyond the slots changes nothing
    RedisCuckooFilter<byte[]> full = read(bytesOf(filled(0, 600)));
    byte[] before = singleBytes(full, ItemHashers.redisBytes());
    assertFalse(full.addAll(read(bytesOf(filled(600, 1000)))));
    assertArrayEquals(before, singleBytes(full, ItemHashers.redisBytes()));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> mine.addAll(RedisCuckooFilter.reserve(4000, 2, 20, 0)));
    assertEquals(
        "bucketCount differs: this filter has 512, the other 2048 (expected: equal to merge)",
        e.getMessage());
  }

  @Test
  void singleSerializedSizeInBytes_isWhatWriteSingleToWrites() throws IOException {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(1000, 3, 20, 0);
    assertEquals(
        singleBytes(filter, ItemHashers.redisBytes()).length,
        RedisCuckooFilter.singleSerializedSizeInBytes(1000, 3));
    assertEquals(64 + 1024 * 2 + 4, RedisCuckooFilter.singleSerializedSizeInBytes(2000, 2));
  }

  @Test
  void cuckooFilterReadFrom_singleRedisBloomFile_refusedNamingRedisCuckooFilter()
      throws IOException {
    byte[] bytes = bytesOf(filled(0, 10));
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class,
            () -> CuckooFilter.readFrom(new ByteArrayInputStream(bytes), ItemHashers.redisBytes()));
    assertEquals("scheme", e.field());
    assertEquals(FilterHeader.OFFSET_SCHEME, e.offset());
    assertTrue(e.getMessage().contains("RedisCuckooFilter.readFrom"), e.getMessage());
    Path path = dir.resolve("single.cuckoo");
    Files.write(path, bytes);
    e =
        assertThrows(
            FilterFormatException.class,
            () -> CuckooFilter.readFrom(path, ItemHashers.redisBytes()));
    assertEquals("scheme", e.field());
    e =
        assertThrows(
            FilterFormatException.class,
            () ->
                ConcurrentCuckooFilter.readFrom(
                    new ByteArrayInputStream(bytes), ItemHashers.redisBytes()));
    assertEquals("scheme", e.field());
  }

  @Test
  void readFrom_standardSingleFile_refusedNamingCuckooFilter() {
    // a STANDARD filter of the hasher the reader is given, so that only the scheme differs
    CuckooFilter<byte[]> standard =
        CuckooFilter.builder(ItemHashers.redisBytes()).expectedItems(10).build();
    FilterFormatException e =
        assertThrows(FilterFormatException.class, () -> read(bytesOf(standard)));
    assertEquals("scheme", e.field());
    assertTrue(e.getMessage().contains("CuckooFilter.readFrom"), e.getMessage());
  }

  @Test
  void readFrom_singleFileWithMaxKicksOutsideRedisBloomRange_refusedNamingMaxKicks()
      throws IOException {
    for (int kicks : new int[] {0, 65536}) {
      CuckooFilter<byte[]> filter =
          CuckooFilter.builder(ItemHashers.redisBytes())
              .redisBloomScheme()
              .expectedItems(10)
              .maxKicks(kicks)
              .build();
      byte[] bytes = bytesOf(filter);
      FilterFormatException e = assertThrows(FilterFormatException.class, () -> read(bytes));
      assertEquals("maxKicks", e.field());
      assertEquals(FilterHeader.OFFSET_MAX_KICKS, e.offset());
      Path path = dir.resolve("kicks" + kicks);
      Files.write(path, bytes);
      e =
          assertThrows(
              FilterFormatException.class,
              () -> FilterFile.read(path, id -> ItemHashers.redisBytes()));
      assertEquals("maxKicks", e.field());
    }
  }

  @Test
  void readFrom_singleFileTruncatedOrBitFlipped_throwsFormatException() throws IOException {
    byte[] bytes = bytesOf(filled(0, 40));
    for (int length = 0; length < bytes.length; length += 7) {
      byte[] prefix = Arrays.copyOf(bytes, length);
      assertThrows(FilterFormatException.class, () -> read(prefix), "truncated to " + length);
    }
    for (int bit = 0; bit < bytes.length * 8; bit += 5) {
      byte[] flipped = bytes.clone();
      flipped[bit >>> 3] ^= (byte) (1 << (bit & 7));
      assertThrows(FilterFormatException.class, () -> read(flipped), "bit " + bit);
    }
  }

  @Test
  void readFrom_singleAndChainInOneStream_eachLeavesTheStreamJustAfterIt() throws IOException {
    byte[] single = bytesOf(filled(0, 100));
    RedisCuckooFilter<byte[]> chain = RedisCuckooFilter.reserve(8, 2, 20, 1);
    for (int i = 0; i < 40; i++) {
      chain.add(item(i));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(single);
    chain.writeTo(out);
    out.write(single);
    InputStream in = new ByteArrayInputStream(out.toByteArray());
    assertEquals(100, RedisCuckooFilter.readFrom(in, ItemHashers.redisBytes()).size());
    assertEquals(
        chain.redisDebug(), RedisCuckooFilter.readFrom(in, ItemHashers.redisBytes()).redisDebug());
    assertEquals(100, RedisCuckooFilter.readFrom(in, ItemHashers.redisBytes()).size());
    assertEquals(-1, in.read());
  }

  @Test
  void filterFileRead_singleRedisBloomFile_oneLinkRedisCuckooFilterInASingleFile()
      throws IOException {
    Path path = dir.resolve("single.cuckoo");
    Files.write(path, bytesOf(filled(0, 50)));
    FilterFile<byte[]> file = FilterFile.read(path, id -> ItemHashers.redisBytes());
    assertFalse(file.isChain());
    assertEquals(Scheme.REDISBLOOM, file.scheme());
    assertInstanceOf(RedisCuckooFilter.class, file.filter());
    RedisCuckooFilter<byte[]> filter = (RedisCuckooFilter<byte[]>) file.filter();
    assertEquals(50, filter.size());
    assertTrue(filter.mightContain(item(7)));
    IllegalStateException e = assertThrows(IllegalStateException.class, file::single);
    assertTrue(e.getMessage().contains("RedisCuckooFilter"), e.getMessage());
    assertThrows(IllegalStateException.class, file::chain);
    FilterFile<byte[]> fromStream =
        FilterFile.read(Files.newInputStream(path), id -> ItemHashers.redisBytes());
    assertInstanceOf(RedisCuckooFilter.class, fromStream.filter());
    assertFalse(fromStream.isChain());
  }
}
