package dev.cuckoo;

import static dev.cuckoo.RedisChainKnownAnswerTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** SCANDUMP / LOADCHUNK: RedisBloom's iterator rules, round trips and header validation. */
@SuppressWarnings("deprecation") // also the tests of the deprecated redisBloom factory
class RedisDumpTest {

  /** Dumps with RedisBloom's restore loop: {@code it = 0; loop { (it, data) = SCANDUMP(it) } }. */
  static List<ScanDumpChunk> dump(RedisCuckooFilter<byte[]> filter) {
    List<ScanDumpChunk> chunks = new ArrayList<>();
    long it = 0;
    while (true) {
      ScanDumpChunk chunk = filter.scanDump(it);
      if (chunk.iterator() == 0) {
        assertNull(chunk.data());
        return chunks;
      }
      chunks.add(chunk);
      it = chunk.iterator();
    }
  }

  static RedisCuckooFilter<byte[]> load(List<ScanDumpChunk> chunks) {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.loadDumpHeader(chunks.get(0).data());
    for (ScanDumpChunk chunk : chunks.subList(1, chunks.size())) {
      filter.loadDumpChunk(chunk.iterator(), chunk.data());
    }
    return filter;
  }

  static void assertSameFilter(
      RedisCuckooFilter<byte[]> expected, RedisCuckooFilter<byte[]> actual) {
    assertEquals(expected.redisDebug(), actual.redisDebug());
    assertEquals(expected.redisSize(), actual.redisSize());
    List<ScanDumpChunk> a = dump(expected);
    List<ScanDumpChunk> b = dump(actual);
    assertEquals(a.size(), b.size());
    for (int i = 0; i < a.size(); i++) {
      assertEquals(a.get(i).iterator(), b.get(i).iterator());
      assertArrayEquals(a.get(i).data(), b.get(i).data(), "chunk " + i);
    }
    for (int i = 0; i < 3000; i++) {
      byte[] item = bytes("probe" + i);
      assertEquals(expected.mightContain(item), actual.mightContain(item));
      assertEquals(expected.count(item), actual.count(item));
    }
  }

  @ParameterizedTest(name = "RESERVE {0} BUCKETSIZE {1} EXPANSION {2}, {3} adds, {4} deletes")
  @CsvSource({
    "1000, 2, 1, 700, 10",
    "125, 2, 1, 500, 0",
    "64, 1, 2, 1000, 30",
    "64, 4, 4, 3000, 200",
    "100, 3, 1, 900, 5"
  })
  void loadDumpChunk_roundTrip_sameBytesCountsAndAnswers(
      long capacity, int bucketSize, int expansion, int adds, int deletes) {
    RedisCuckooFilter<byte[]> filter =
        RedisCuckooFilter.reserve(capacity, bucketSize, 20, expansion);
    for (int i = 0; i < adds; i++) {
      filter.add(bytes(Integer.toString(i)));
    }
    for (int i = 0; i < deletes; i++) {
      assertTrue(filter.remove(bytes(Integer.toString(i))));
    }
    List<ScanDumpChunk> chunks = dump(filter);
    assertEquals(filter.linkCount() + 1, chunks.size(), "one chunk per small link");
    RedisCuckooFilter<byte[]> loaded = load(chunks);
    assertSameFilter(filter, loaded);
    for (int i = deletes; i < adds; i++) {
      assertTrue(loaded.mightContain(bytes(Integer.toString(i))), "exists " + i);
    }
    // the loaded filter keeps working like the original
    for (int i = adds; i < adds + 300; i++) {
      assertEquals(
          filter.tryAdd(bytes(Integer.toString(i))), loaded.tryAdd(bytes(Integer.toString(i))));
    }
    assertSameFilter(filter, loaded);
  }

  /** A link larger than 16 MiB is dumped in 16 MiB chunks from the iterator's offset. */
  @Test
  void scanDump_linkAbove16MiB_chunksOf16MiB() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(24L << 20, 1, 20, 1);
    for (int i = 0; i < 5000; i++) {
      filter.add(bytes(Integer.toString(i)));
    }
    long size = 32L << 20; // nextPowerOfTwo(24 Mi) buckets of 1 slot
    assertEquals(size + 56, filter.redisSize());
    List<ScanDumpChunk> chunks = dump(filter);
    assertEquals(3, chunks.size());
    assertEquals(1 + (16L << 20), chunks.get(1).iterator());
    assertEquals(1 + (32L << 20), chunks.get(2).iterator());
    assertEquals(16 << 20, chunks.get(2).data().length);
    // from an offset in the middle: 16 MiB from there, or up to the end of the link
    ScanDumpChunk middle = filter.scanDump(1 + 100);
    assertEquals(1 + 100 + (16L << 20), middle.iterator());
    ScanDumpChunk tail = filter.scanDump(1 + size - 10);
    assertEquals(10, tail.data().length);
    assertEquals(1 + size, tail.iterator());
    assertEquals(0, filter.scanDump(1 + size).iterator());
    assertSameFilter(filter, load(chunks));
  }

  /**
   * Every iterator from 0 to Size + 1024 answers (RedisBloom's test_scandump_random_scan_small),
   * with a small link returned whole from its start even for an offset in its middle.
   */
  @Test
  void scanDump_everyPosition_followsIteratorRules() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(8, 2, 20, 2);
    for (int i = 0; i < 200; i++) {
      filter.add(bytes(Integer.toString(i)));
    }
    List<ScanDumpChunk> chunks = dump(filter);
    byte[] all = concat(chunks.subList(1, chunks.size()));
    long total = all.length;
    assertEquals(filter.redisSize(), 40 + 16L * filter.linkCount() + total);
    for (long it = 1; it <= filter.redisSize() + 1024; it++) {
      ScanDumpChunk chunk = filter.scanDump(it);
      if (it - 1 >= total) {
        assertEquals(0, chunk.iterator());
        continue;
      }
      // the link holding offset it - 1
      long start = 0;
      long length = 8;
      while (start + length <= it - 1) {
        start += length;
        length *= 2;
      }
      assertEquals(it + length, chunk.iterator(), "iterator " + it);
      byte[] expected = java.util.Arrays.copyOfRange(all, (int) start, (int) (start + length));
      assertArrayEquals(expected, chunk.data(), "iterator " + it);
    }
  }

  /**
   * Chunks from random positions loaded at random either land inside one link (and are copied) or
   * are refused with FilterFormatException (RedisBloom's test_scandump_load_small).
   */
  @Test
  void loadDumpChunk_randomChunks_copiedOrRefused() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(8, 2, 20, 2);
    for (int i = 0; i < 200; i++) {
      filter.add(bytes(Integer.toString(i)));
    }
    RedisCuckooFilter<byte[]> target = RedisCuckooFilter.loadDumpHeader(filter.scanDump(0).data());
    long seed = TestSeeds.seed();
    SplittableRandom random = new SplittableRandom(seed);
    int loaded = 0;
    int refused = 0;
    for (int i = 0; i < 2000; i++) {
      long it = 2 + random.nextLong(filter.redisSize() + 64);
      byte[] data = new byte[1 + random.nextInt(300)];
      random.nextBytes(data);
      try {
        target.loadDumpChunk(it, data);
        loaded++;
        long offset = it - data.length - 1;
        assertTrue(offset >= 0, "seed " + seed);
      } catch (FilterFormatException e) {
        refused++;
      }
    }
    assertTrue(
        loaded > 0 && refused > 0,
        "seed " + seed + ": " + loaded + " loaded, " + refused + " refused");
    assertEquals(filter.redisDebug(), target.redisDebug(), "chunks never change the counters");
  }

  @Test
  void loadDumpChunk_badIteratorOrLength_throwsFormatException() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(8, 2, 20, 1);
    filter.add(bytes("item1"));
    RedisCuckooFilter<byte[]> target = RedisCuckooFilter.loadDumpHeader(filter.scanDump(0).data());
    byte[] eight = new byte[8];
    assertThrows(FilterFormatException.class, () -> target.loadDumpChunk(0, eight));
    assertThrows(FilterFormatException.class, () -> target.loadDumpChunk(1, eight));
    assertThrows(FilterFormatException.class, () -> target.loadDumpChunk(9, new byte[0]));
    assertThrows(FilterFormatException.class, () -> target.loadDumpChunk(8, eight), "it - 1 < len");
    assertThrows(
        FilterFormatException.class, () -> target.loadDumpChunk(10, eight), "past the link");
    assertThrows(
        FilterFormatException.class, () -> target.loadDumpChunk(100, eight), "past the end");
    assertThrows(FilterFormatException.class, () -> target.loadDumpChunk(Long.MAX_VALUE, eight));
    assertThrows(FilterFormatException.class, () -> target.loadDumpChunk(-5, eight));
    target.loadDumpChunk(9, filter.scanDump(1).data());
    target.loadDumpChunk(3, new byte[] {0});
    assertTrue(target.mightContain(bytes("item1")));
  }

  static byte[] header(
      long items,
      long buckets,
      long deletes,
      long links,
      int bucketSize,
      int maxIterations,
      int expansion) {
    return ByteBuffer.allocate(38)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putLong(items)
        .putLong(buckets)
        .putLong(deletes)
        .putLong(links)
        .putShort((short) bucketSize)
        .putShort((short) maxIterations)
        .putShort((short) expansion)
        .array();
  }

  @ParameterizedTest(
      name = "items {0} buckets {1} deletes {2} filters {3} bs {4} maxit {5} exp {6}")
  @CsvSource({
    "1, 0, 0, 1, 2, 20, 1", // numBuckets 0
    "1, 3, 0, 1, 2, 20, 1", // not a power of two
    "1, 72057594037927936, 0, 1, 2, 20, 1", // 2^56
    "1, -9223372036854775808, 0, 1, 2, 20, 1", // 2^63
    "1, 281474976710656, 0, 1, 2, 20, 1", // 2^48: valid, but no heap holds it
    "1, 4, 0, 0, 2, 20, 1", // no links
    "1, 4, 0, 65536, 2, 20, 1", // RedisBloom truncates it to 0 links
    "1, 4, 0, 65537, 2, 20, 1",
    "1, 4, 0, -1, 2, 20, 1", // 2^64 - 1
    "1, 4, 0, 1, 0, 20, 1", // bucket size 0
    "1, 4, 0, 1, 256, 20, 1",
    "1, 4, 0, 1, 2, 0, 1", // max iterations 0
    "1, 4, 0, 1, 2, 20, 32769", // expansion too large
    "1, 4, 0, 2, 2, 20, 0", // expansion 0 with two links
    "1, 4, 0, 65535, 2, 20, 2", // link 56 would exceed 2^56 buckets
    "1, 1048576, 0, 64, 255, 20, 1" // 64 links of 255 MiB
  })
  void loadDumpHeader_invalid_throwsFormatException(
      long items,
      long buckets,
      long deletes,
      long links,
      int bucketSize,
      int maxIterations,
      int expansion) {
    byte[] header = header(items, buckets, deletes, links, bucketSize, maxIterations, expansion);
    assertThrows(FilterFormatException.class, () -> RedisCuckooFilter.loadDumpHeader(header));
  }

  /** RedisBloom's test_scandump_invalid_header: zeroing a field of a valid header. */
  @Test
  void loadDumpHeader_zeroedFields_throwFormatException() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(100, 2, 20, 1);
    for (int i = 0; i < 300; i++) {
      filter.add(bytes(Integer.toString(i)));
    }
    assertTrue(filter.linkCount() > 1);
    byte[] valid = filter.scanDump(0).data();
    RedisCuckooFilter.loadDumpHeader(valid);
    int[][] fields = {{8, 8}, {24, 8}, {32, 2}, {34, 2}, {36, 2}, {0, 38}};
    for (int[] field : fields) {
      byte[] header = valid.clone();
      java.util.Arrays.fill(header, field[0], field[0] + field[1], (byte) 0);
      assertThrows(
          FilterFormatException.class,
          () -> RedisCuckooFilter.loadDumpHeader(header),
          "zeroed bytes " + field[0] + ".." + (field[0] + field[1] - 1));
    }
    assertThrows(FilterFormatException.class, () -> RedisCuckooFilter.loadDumpHeader(new byte[37]));
    assertThrows(FilterFormatException.class, () -> RedisCuckooFilter.loadDumpHeader(new byte[46]));
  }

  /** Expansion is kept as the header gives it: 3 gives links of 4, 12 and 36 buckets. */
  @Test
  void loadDumpHeader_expansionNotPowerOfTwo_keptAsIs() {
    RedisCuckooFilter<byte[]> filter =
        RedisCuckooFilter.loadDumpHeader(header(7, 4, 2, 3, 2, 20, 3));
    assertEquals(3, filter.expansion());
    assertEquals(3, filter.linkCount());
    assertEquals(40 + 16 * 3 + (4 + 12 + 36) * 2, filter.redisSize());
    assertEquals(
        "bktsize:2 buckets:4 items:7 deletes:2 filters:3 max_iterations:20 expansion:3",
        filter.redisDebug());
    // chunks follow the link sizes
    filter.loadDumpChunk(1 + 8, new byte[8]);
    filter.loadDumpChunk(1 + 8 + 24, new byte[24]);
    assertThrows(FilterFormatException.class, () -> filter.loadDumpChunk(1 + 8 + 25, new byte[25]));
    for (int i = 0; i < 100; i++) {
      byte[] item = bytes("x" + i);
      filter.add(item);
      assertTrue(filter.mightContain(item));
    }
  }

  /** 65535 links (RedisBloom's u16 limit), all full: the next add cannot grow, NO_MEMORY. */
  @Test
  void loadDumpHeader_maxLinksAllFull_addReturnsNoMemory() {
    RedisCuckooFilter<byte[]> filter =
        RedisCuckooFilter.loadDumpHeader(header(65535, 1, 0, 65535, 1, 1, 1));
    assertEquals(65535, filter.linkCount());
    assertEquals(40 + 16L * 65535 + 65535, filter.redisSize());
    for (long it = 2; it <= 65536; it++) {
      filter.loadDumpChunk(it, new byte[] {7});
    }
    assertEquals(AddOutcome.NO_MEMORY, filter.tryAdd(bytes("item")));
    assertEquals(65535, filter.linkCount());
    assertEquals(65535, filter.size());
    assertEquals(65535, filter.count(bytes("item1")) / 2, "fp 7 fills both buckets of every link");
  }

  static byte[] concat(List<ScanDumpChunk> chunks) {
    int length = 0;
    for (ScanDumpChunk chunk : chunks) {
      length += chunk.data().length;
    }
    byte[] all = new byte[length];
    int at = 0;
    for (ScanDumpChunk chunk : chunks) {
      byte[] data = chunk.data();
      System.arraycopy(data, 0, all, at, data.length);
      at += data.length;
    }
    return all;
  }
}
