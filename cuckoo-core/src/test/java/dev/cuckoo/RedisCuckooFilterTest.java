package dev.cuckoo;

import static dev.cuckoo.RedisChainKnownAnswerTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The public surface of {@link RedisCuckooFilter}: creation, limits, formats, single filters. */
class RedisCuckooFilterTest {

  @Test
  void reserve_defaults_debugAsRedisBloom() {
    RedisCuckooFilter<byte[]> filter =
        RedisCuckooFilter.reserve(
            1000,
            RedisCuckooFilter.DEFAULT_BUCKET_SIZE,
            RedisCuckooFilter.DEFAULT_MAX_ITERATIONS,
            RedisCuckooFilter.DEFAULT_EXPANSION);
    assertEquals(AddOutcome.ADDED, filter.tryAdd(bytes("item1")));
    assertEquals(
        "bktsize:2 buckets:512 items:1 deletes:0 filters:1 max_iterations:20 expansion:1",
        filter.redisDebug());
    assertEquals(40 + 16 + 1024, filter.redisSize());
    assertEquals(Scheme.REDISBLOOM, filter.scheme());
    assertEquals(AddOutcome.ALREADY_PRESENT, filter.addIfAbsentWithOutcome(bytes("item1")));
    assertEquals(AddOutcome.ALREADY_PRESENT, filter.addIfAbsentWithOutcome(bytes("item1")));
    assertEquals(1, filter.count(bytes("item1")));
  }

  @Test
  void reserve_expansionNotPowerOfTwo_roundedUp() {
    assertEquals(4, RedisCuckooFilter.reserve(100, 2, 20, 3).expansion());
    assertEquals(0, RedisCuckooFilter.reserve(100, 2, 20, 0).expansion());
  }

  @Test
  void reserve_parameterOutOfRange_messageNamesParameterAndValue() {
    assertMessage("capacity: 0", () -> RedisCuckooFilter.reserve(0, 2, 20, 1));
    assertMessage("bucketSize: 256", () -> RedisCuckooFilter.reserve(100, 256, 20, 1));
    assertMessage("maxIterations: 0", () -> RedisCuckooFilter.reserve(100, 2, 0, 1));
    assertMessage("maxIterations: 65536", () -> RedisCuckooFilter.reserve(100, 2, 65536, 1));
    assertMessage("expansion: 32769", () -> RedisCuckooFilter.reserve(100, 2, 20, 32769));
  }

  private static void assertMessage(String expected, Runnable call) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
    assertTrue(e.getMessage().startsWith(expected), e.getMessage());
  }

  @Test
  void reservedSizeInBytes_compactAndFullForms_equalNewFilter() {
    for (long capacity : new long[] {100, 1 << 16, 1 << 20}) {
      long predicted = RedisCuckooFilter.reservedSizeInBytes(capacity, 1);
      assertEquals(predicted, RedisCuckooFilter.reserve(capacity, 1, 20, 1).sizeInBytes());
    }
    assertTrue(RedisCuckooFilter.reserve(1 << 16, 1, 20, 1).isCompact());
    assertFalse(RedisCuckooFilter.reserve(1 << 20, 1, 20, 1).isCompact());
  }

  /** The example in reservedSizeInBytes's Javadoc: 1 GiB of slots in four pages and a bit. */
  @Test
  void reservedSizeInBytes_oneGibibyte_javadocExample() {
    assertEquals((1L << 30) + 632, RedisCuckooFilter.reservedSizeInBytes(1 << 30, 1));
  }

  @Test
  void tryAdd_expansionZeroAndFull_returnsFullUnchanged() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(4, 2, 5, 0);
    int added = 0;
    while (filter.tryAdd(bytes("f" + added)) == AddOutcome.ADDED) {
      added++;
    }
    assertEquals(added, filter.size());
    assertEquals(AddOutcome.FULL, filter.tryAdd(bytes("one more")));
    assertFalse(filter.add(bytes("one more")));
    assertEquals(added, filter.size());
    assertEquals(1, filter.linkCount());
  }

  @Test
  void writeTo_grownFilter_readBackByItsReaderAndFilterFile() throws IOException {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(8, 2, 20, 2);
    for (int i = 0; i < 100; i++) {
      filter.add(bytes("w" + i));
    }
    filter.remove(bytes("w7"));
    assertTrue(filter.linkCount() > 1);
    byte[] written = FormatTestSupport.bytesOf(filter);
    assertEquals(written.length, filter.serializedSizeInBytes());

    RedisCuckooFilter<byte[]> read =
        RedisCuckooFilter.readFrom(new ByteArrayInputStream(written), ItemHashers.redisBytes());
    assertArrayEquals(written, FormatTestSupport.bytesOf(read));
    assertEquals(filter.redisDebug(), read.redisDebug());
    MembershipFilter<byte[]> file =
        FilterFile.read(new ByteArrayInputStream(written), id -> ItemHashers.redisBytes()).filter();
    assertTrue(file instanceof RedisCuckooFilter, file.getClass().getName());
    assertArrayEquals(written, FormatTestSupport.bytesOf(file));
  }

  @Test
  void readFrom_smallFilter_readsBackCompact() throws IOException {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(100, 2, 20, 1);
    for (int i = 0; i < 50; i++) {
      filter.add(bytes("c" + i));
    }
    byte[] written = FormatTestSupport.bytesOf(filter);
    RedisCuckooFilter<byte[]> read =
        RedisCuckooFilter.readFrom(new ByteArrayInputStream(written), ItemHashers.redisBytes());
    assertTrue(read.isCompact());
    assertArrayEquals(written, FormatTestSupport.bytesOf(read));
  }

  @Test
  void readFrom_standardChain_throwsNamingScheme() throws IOException {
    ScalableCuckooFilter<byte[]> standard =
        ScalableCuckooFilter.builder(ItemHashers.bytes()).expectedItems(100).build();
    byte[] written = FormatTestSupport.bytesOf(standard);
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class,
            () ->
                RedisCuckooFilter.readFrom(new ByteArrayInputStream(written), ItemHashers.bytes()));
    assertEquals("scheme", e.field());
    assertEquals(ChainFormat.OFFSET_SCHEME, e.offset());
  }

  @Test
  void readFrom_truncated_throwsFilterFormatException() throws IOException {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(100, 2, 20, 1);
    filter.add(bytes("t"));
    byte[] written = FormatTestSupport.bytesOf(filter);
    byte[] truncated = Arrays.copyOf(written, written.length - 5);
    assertThrows(
        FilterFormatException.class,
        () ->
            RedisCuckooFilter.readFrom(
                new ByteArrayInputStream(truncated), ItemHashers.redisBytes()));
  }

  @Test
  void loadDumpHeader_dumpOfGrownFilter_sameDumpAndItems() {
    RedisCuckooFilter<byte[]> source = RedisCuckooFilter.reserve(16, 2, 20, 1);
    for (int i = 0; i < 200; i++) {
      source.add(bytes("d" + i));
    }
    RedisCuckooFilter<byte[]> loaded = RedisCuckooFilter.loadDumpHeader(source.dumpHeader());
    for (ScanDumpChunk chunk = source.scanDump(1);
        chunk.iterator() != 0;
        chunk = source.scanDump(chunk.iterator())) {
      loaded.loadDumpChunk(chunk.iterator(), chunk.data());
    }
    assertEquals(source.redisDebug(), loaded.redisDebug());
    for (int i = 0; i < 200; i++) {
      assertTrue(loaded.mightContain(bytes("d" + i)), "d" + i);
    }
  }

  @Test
  void withExpansion_oneLinkFilter_recordsExpansionOverTheSameSlots() throws IOException {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(1000, 2, 20, 0);
    for (int i = 0; i < 300; i++) {
      filter.add(bytes("s" + i));
    }
    RedisCuckooFilter<byte[]> view = filter.withExpansion(1);
    assertEquals(300, view.size());
    assertEquals(
        "bktsize:2 buckets:512 items:300 deletes:0 filters:1 max_iterations:20 expansion:1",
        view.redisDebug());
    assertEquals(
        "bktsize:2 buckets:512 items:300 deletes:0 filters:1 max_iterations:20 expansion:0",
        filter.redisDebug());
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    filter.writeSingleTo(expected, ItemHashers.redisBytes());
    ByteArrayOutputStream actual = new ByteArrayOutputStream();
    view.writeSingleTo(actual, ItemHashers.redisBytes());
    assertArrayEquals(expected.toByteArray(), actual.toByteArray());
  }

  @Test
  void reserve_utf8Hasher_sameSlotsAsBytes() {
    RedisCuckooFilter<CharSequence> strings =
        RedisCuckooFilter.reserve(ItemHashers.redisUtf8(), 100, 2, 20, 1);
    RedisCuckooFilter<byte[]> bytes = RedisCuckooFilter.reserve(100, 2, 20, 1);
    for (int i = 0; i < 80; i++) {
      strings.add("u" + i);
      bytes.add(bytes("u" + i));
    }
    assertArrayEquals(bytes.scanDump(1).data(), strings.scanDump(1).data());
  }

  @Test
  void toString_namesTypeAndDebug() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(100, 2, 20, 1);
    assertEquals("RedisCuckooFilter{" + filter.redisDebug() + "}", filter.toString());
  }

  @Test
  void prefetchHashes_afterOneAdd_foldsTheItemsFirstSlots() {
    // one item in an empty filter: its fingerprint sits in slot 0 of its first bucket, every other
    // slot is empty, so the fold is that fingerprint (0 if both buckets are the same bucket)
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(1_000_000, 2, 20, 1);
    for (int i = 0; i < 50; i++) {
      filter.clear();
      byte[] item = bytes("item" + i);
      filter.add(item);
      long h = filter.hasher().hash(item);
      long fp = Indexer.redisFingerprint(h);
      long buckets = filter.capacity() / 2;
      boolean same =
          Long.remainderUnsigned(h, buckets)
              == Long.remainderUnsigned(Indexer.redisAlternateHash(h, fp), buckets);
      long[] hashes = {12345, h, 67890};
      assertEquals(same ? 0 : fp, filter.prefetchHashes(hashes, 1, 2), "item" + i);
      // the empty buckets of other hashes add nothing; an empty range folds to 0
      assertEquals(same ? 0 : fp, filter.prefetchHashes(hashes, 0, 3) & 0xFF, "item" + i);
      assertEquals(0, filter.prefetchHashes(hashes, 2, 2));
    }
  }

  @Test
  void prefetchHashes_changesNothing() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(1_000_000, 2, 20, 1);
    long[] hashes = new long[200];
    for (int i = 0; i < hashes.length; i++) {
      filter.add(bytes("item" + i));
      hashes[i] = filter.hasher().hash(bytes("item" + i));
    }
    String before = filter.redisDebug();
    filter.prefetchHashes(hashes, 0, hashes.length);
    assertEquals(before, filter.redisDebug());
    for (int i = 0; i < hashes.length; i++) {
      assertTrue(filter.mightContainHash(hashes[i]));
    }
  }

  @Test
  void prefetchHashes_smallFilter_loadsNothing() {
    // a filter small enough for the compact form stays in cache: nothing to load
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(100, 2, 20, 1);
    filter.add(bytes("a"));
    long h = filter.hasher().hash(bytes("a"));
    assertEquals(0, filter.prefetchHashes(new long[] {h}, 0, 1));
  }

  @Test
  void prefetchHashes_badRange_throwsNamingIt() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(1_000_000, 2, 20, 1);
    IndexOutOfBoundsException thrown =
        assertThrows(
            IndexOutOfBoundsException.class, () -> filter.prefetchHashes(new long[3], 2, 4));
    assertEquals("range [2, 4) (expected: 0 <= from <= to <= 3)", thrown.getMessage());
    assertThrows(IndexOutOfBoundsException.class, () -> filter.prefetchHashes(new long[3], 2, 1));
  }
}
