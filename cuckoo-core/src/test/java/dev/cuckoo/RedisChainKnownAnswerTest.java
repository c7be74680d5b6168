package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Known answers of the RedisBloom chain, derived from RedisBloom's behaviour as docs/REDISBLOOM.md
 * describes it, which only a bit-exact implementation reproduces.
 */
@SuppressWarnings("deprecation") // also the tests of the deprecated redisBloom factory
class RedisChainKnownAnswerTest {

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Adds "0" .. "n-1" and checks each add succeeded. */
  static void addNumbers(RedisCuckooFilter<byte[]> filter, int n) {
    for (int i = 0; i < n; i++) {
      assertEquals(AddOutcome.ADDED, filter.tryAdd(bytes(Integer.toString(i))), "add " + i);
    }
  }

  @ParameterizedTest(name = "RESERVE {0} BUCKETSIZE {1} MAXITERATIONS {2} EXPANSION {3}")
  @CsvSource({
    // test_bucket_size
    "64, 1, 20, 1, 'bktsize:1 buckets:64 items:1000 deletes:0 filters:18 max_iterations:20 expansion:1'",
    "64, 2, 20, 1, 'bktsize:2 buckets:32 items:1000 deletes:0 filters:17 max_iterations:20 expansion:1'",
    "256, 4, 500, 1, 'bktsize:4 buckets:64 items:1000 deletes:0 filters:4 max_iterations:500 expansion:1'",
    // test_expansion
    "64, 2, 20, 2, 'bktsize:2 buckets:32 items:1000 deletes:0 filters:5 max_iterations:20 expansion:2'",
    "64, 2, 500, 4, 'bktsize:2 buckets:32 items:1000 deletes:0 filters:3 max_iterations:500 expansion:4'"
  })
  void redisDebug_thousandAdds_matchesRedisBloom(
      long capacity, int bucketSize, int maxIterations, int expansion, String expected) {
    RedisCuckooFilter<byte[]> filter =
        RedisCuckooFilter.reserve(capacity, bucketSize, maxIterations, expansion);
    addNumbers(filter, 1000);
    for (int i = 0; i < 1000; i++) {
      assertTrue(filter.mightContain(bytes(Integer.toString(i))), "exists " + i);
    }
    assertEquals(expected, filter.redisDebug());
  }

  @Test
  void tryAdd_expansionZeroWhenFull_returnsFullAndChangesNothing() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(4, 2, 20, 0);
    addNumbers(filter, 0);
    for (String item : new String[] {"1", "2", "3", "4"}) {
      assertEquals(AddOutcome.ADDED, filter.tryAdd(bytes(item)));
    }
    byte[] before = filter.scanDump(1).data();
    assertEquals(AddOutcome.FULL, filter.tryAdd(bytes("5")));
    assertEquals(AddOutcome.FULL, filter.tryAdd(bytes("6")));
    assertArrayEquals(before, filter.scanDump(1).data());
    assertEquals(4, filter.size());
    assertEquals(1, filter.linkCount());
  }

  /** test_max_expansions: the server refuses an add once linkCount() reaches 32. */
  @Test
  void linkCount_reserve4After124Adds_reaches32ExactlyAtTheEnd() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(4, 2, 20, 1);
    for (int i = 0; i < 124; i++) {
      assertTrue(filter.linkCount() < 32, "add " + i + " would be refused");
      assertEquals(AddOutcome.ADDED, filter.tryAdd(bytes(Integer.toString(i))));
    }
    assertEquals(32, filter.linkCount());
  }

  @ParameterizedTest(name = "RESERVE {0} BUCKETSIZE {1} EXPANSION {2}: Size {3}, buckets {4}")
  @CsvSource({
    "1000, 2, 1, 1080, 512",
    "10, 2, 1, 72, 8",
    "200, 10, 1, 376, 32",
    "200, 10, 4, 376, 32",
    "9, 2, 0, 64, 4",
    "10000, 2, 1, 16440, 8192"
  })
  void redisSize_afterReserve_matchesInfo(
      long capacity, int bucketSize, int expansion, long size, long buckets) {
    RedisCuckooFilter<byte[]> filter =
        RedisCuckooFilter.reserve(capacity, bucketSize, 20, expansion);
    assertEquals(size, filter.redisSize());
    assertEquals(buckets, filter.baseBucketCount());
    assertEquals(1, filter.linkCount());
    assertEquals(0, filter.size());
    assertEquals(0, filter.deletedCount());
    assertEquals(bucketSize, filter.bucketSize());
    assertEquals(expansion, filter.expansion());
    assertEquals(20, filter.maxKicks());
  }

  @Test
  void expansion_notPowerOfTwo_roundedUp() {
    assertEquals(4, RedisCuckooFilter.reserve(100, 2, 20, 3).expansion());
    assertEquals(32768, RedisCuckooFilter.reserve(100, 2, 20, 30000).expansion());
    assertEquals(1, RedisCuckooFilter.reserve(100, 2, 20, 1).expansion());
    assertEquals(0, RedisCuckooFilter.reserve(100, 2, 20, 0).expansion());
  }

  @Test
  void redisDebug_insertCapacity10000_matchesRedisBloom() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(10000, 2, 20, 1);
    assertEquals(AddOutcome.ADDED, filter.tryAdd(bytes("foo")));
    assertEquals(
        "bktsize:2 buckets:8192 items:1 deletes:0 filters:1 max_iterations:20 expansion:1",
        filter.redisDebug());
    assertEquals(AddOutcome.ALREADY_PRESENT, filter.addIfAbsentWithOutcome(bytes("foo")));
    assertEquals(AddOutcome.ADDED, filter.addIfAbsentWithOutcome(bytes("bar")));
    assertEquals(AddOutcome.ADDED, filter.addIfAbsentWithOutcome(bytes("baz")));
  }

  /** The sequence of RedisBloom's test_resp3.py. */
  @Test
  void commands_resp3Sequence_matchesRedisBloom() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(9, 2, 20, 0);
    assertEquals(AddOutcome.ADDED, filter.tryAdd(bytes("3")));
    assertEquals(AddOutcome.ADDED, filter.tryAdd(bytes("4")));
    assertEquals(AddOutcome.ALREADY_PRESENT, filter.addIfAbsentWithOutcome(bytes("4")));
    assertEquals(AddOutcome.ADDED, filter.addIfAbsentWithOutcome(bytes("9")));
    assertEquals(AddOutcome.ADDED, filter.tryAdd(bytes("4")));
    assertEquals(AddOutcome.ADDED, filter.tryAdd(bytes("5")));
    assertEquals(AddOutcome.ALREADY_PRESENT, filter.addIfAbsentWithOutcome(bytes("4")));
    assertEquals(AddOutcome.ADDED, filter.addIfAbsentWithOutcome(bytes("6")));
    assertTrue(filter.remove(bytes("3")));
    assertFalse(filter.remove(bytes("3")));
    assertFalse(filter.mightContain(bytes("3")));
    assertTrue(filter.mightContain(bytes("4")));
    assertEquals(2, filter.count(bytes("4")));
    assertEquals(64, filter.redisSize());
    assertEquals(4, filter.baseBucketCount());
    assertEquals(1, filter.linkCount());
    assertEquals(5, filter.size());
    assertEquals(1, filter.deletedCount());
    assertEquals(2, filter.bucketSize());
    assertEquals(0, filter.expansion());
    assertEquals(20, filter.maxKicks());
  }

  /** test_count / test_setnx. */
  @Test
  void count_addAddDelete_followsRedisBloom() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(1000, 2, 20, 1);
    assertFalse(filter.mightContain(bytes("k1")));
    assertTrue(filter.add(bytes("k1")));
    assertTrue(filter.add(bytes("k1")));
    assertEquals(2, filter.count(bytes("k1")));
    assertTrue(filter.remove(bytes("k1")));
    assertEquals(1, filter.count(bytes("k1")));
    assertTrue(filter.remove(bytes("k1")));
    assertEquals(0, filter.count(bytes("k1")));
    assertFalse(filter.remove(bytes("k1")));
    assertTrue(filter.addIfAbsent(bytes("k2")));
    assertFalse(filter.addIfAbsent(bytes("k2")));
    assertEquals(1, filter.count(bytes("k2")));
  }

  /**
   * With 2 buckets both of an item's buckets coincide when its fingerprint is even ("a": hash
   * 0x071717d2d36b6b11, fp 196), and RedisBloom counts that bucket twice.
   */
  @Test
  void count_twoBucketsEvenFingerprint_countsBucketTwice() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(4, 2, 20, 1);
    assertEquals(2, filter.baseBucketCount());
    assertTrue(filter.add(bytes("a")));
    assertEquals(2, filter.count(bytes("a")));
    // "foo" has fp 217, odd: its two buckets differ and it is counted once
    assertTrue(filter.add(bytes("foo")));
    assertEquals(1, filter.count(bytes("foo")));
  }

  @Test
  void scanDump_reserve8AddItem1_matchesRedisBloomBytes() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(8, 2, 20, 1);
    assertEquals(0, filter.scanDump(0).iterator(), "an empty filter has no dump");
    assertTrue(filter.add(bytes("item1")));
    ScanDumpChunk header = filter.scanDump(0);
    assertEquals(1, header.iterator());
    assertArrayEquals(
        hex(
            "0100000000000000"
                + "0400000000000000"
                + "0000000000000000"
                + "0100000000000000"
                + "0200"
                + "1400"
                + "0100"),
        header.data());
    ScanDumpChunk chunk = filter.scanDump(1);
    assertEquals(9, chunk.iterator());
    assertArrayEquals(hex("0000000007000000"), chunk.data());
    ScanDumpChunk done = filter.scanDump(9);
    assertEquals(0, done.iterator());
    assertEquals(null, done.data());
  }

  @Test
  void compact_afterDeletesBelowThreshold_shrinksAndKeepsEveryItem() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(64, 2, 20, 1);
    addNumbers(filter, 1000);
    assertEquals(17, filter.linkCount());
    // 90 deletes stay below 10% of the items: no automatic compaction
    for (int i = 0; i < 90; i++) {
      assertTrue(filter.remove(bytes(Integer.toString(i))));
    }
    assertEquals(17, filter.linkCount());
    assertEquals(90, filter.deletedCount());
    long occupied = occupiedSlots(filter);
    filter.compact();
    assertTrue(filter.linkCount() < 17, "links after compact: " + filter.linkCount());
    assertEquals(0, filter.deletedCount());
    assertEquals(910, filter.size());
    assertEquals(occupied, occupiedSlots(filter), "compaction moves fingerprints, never drops one");
    for (int i = 90; i < 1000; i++) {
      assertTrue(filter.mightContain(bytes(Integer.toString(i))), "exists " + i);
    }
  }

  static long occupiedSlots(RedisCuckooFilter<?> filter) {
    long occupied = 0;
    for (RedisLink link : filter.redisChain().links()) {
      occupied += link.table.countOccupied();
    }
    return occupied;
  }

  @Test
  void remove_manyDeletes_autoCompactsAndResetsDeletes() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(64, 2, 20, 1);
    addNumbers(filter, 1000);
    assertEquals(17, filter.linkCount());
    // 1000 items: the 91st delete makes deletes (91) exceed 10% of items (909)
    for (int i = 0; i < 90; i++) {
      assertTrue(filter.remove(bytes(Integer.toString(i))));
      assertEquals(i + 1, filter.deletedCount());
    }
    assertTrue(filter.remove(bytes("90")));
    assertEquals(0, filter.deletedCount());
    assertEquals(909, filter.size());
    for (int i = 91; i < 1000; i++) {
      assertTrue(filter.mightContain(bytes(Integer.toString(i))), "exists " + i);
    }
  }

  @Test
  void redisBloom_outOfRangeArguments_throwIllegalArgument() {
    assertThrows(IllegalArgumentException.class, () -> RedisCuckooFilter.reserve(0, 2, 20, 1));
    assertThrows(IllegalArgumentException.class, () -> RedisCuckooFilter.reserve(100, 0, 20, 1));
    assertThrows(IllegalArgumentException.class, () -> RedisCuckooFilter.reserve(100, 256, 20, 1));
    assertThrows(IllegalArgumentException.class, () -> RedisCuckooFilter.reserve(100, 2, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> RedisCuckooFilter.reserve(100, 2, 65536, 1));
    assertThrows(IllegalArgumentException.class, () -> RedisCuckooFilter.reserve(100, 2, 20, -1));
    assertThrows(
        IllegalArgumentException.class, () -> RedisCuckooFilter.reserve(100, 2, 20, 32769));
  }

  @Test
  void redisBloom_beyondLinkLimit_throwsAllocationException() {
    // 2^40 capacity, bucket size 1: 2^40 one-byte slots, above the 2^32-slot link limit
    FilterAllocationException e =
        assertThrows(
            FilterAllocationException.class, () -> RedisCuckooFilter.reserve(1L << 40, 1, 20, 1));
    assertTrue(e.getMessage().contains("buckets"), e.getMessage());
  }

  @Test
  void redisBloom_largerThanMaxHeap_throwsNamingSizeAndBoundBeforeAllocating() {
    // 2^32 capacity with bucket size 4: 2^30 buckets, 4 GiB, within the link limits
    long bytes = RedisCuckooFilter.reservedSizeInBytes(1L << 32, 4);
    assertTrue(bytes > 4L << 30, "size " + bytes);
    assumeTrue(
        Runtime.getRuntime().maxMemory() < bytes, "needs a heap below 4 GiB (tests run with 2g)");
    FilterAllocationException e =
        assertThrows(
            FilterAllocationException.class, () -> RedisCuckooFilter.reserve(1L << 32, 4, 20, 1));
    long table = BucketTable.pagedHeapBytes(1L << 30, 4, 8) + RedisChain.LINK_BYTES;
    assertTrue(e.getMessage().contains(" " + table + " bytes"), e.getMessage());
    assertTrue(
        e.getMessage().contains("<= " + HeapBudget.maxRequestBytes() + ", the maximum heap"),
        e.getMessage());
    assertEquals(table, e.requestedBytes());
    assertNull(e.getCause(), "refused before allocating, not after an OutOfMemoryError");
  }

  @Test
  void reservedSizeInBytes_anyGeometry_equalsSizeInBytesOfNewFilter() {
    for (int bucketSize : new int[] {1, 2, 3, 4, 255}) {
      for (long capacity : new long[] {1, 2, 1000, 1 << 20, 3_000_000}) {
        long predicted = RedisCuckooFilter.reservedSizeInBytes(capacity, bucketSize);
        RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(capacity, bucketSize, 20, 4);
        String where = "capacity " + capacity + ", bucket size " + bucketSize;
        assertEquals(predicted, filter.sizeInBytes(), where);
        // the slots themselves, then a few hundred bytes of objects and array headers
        long slots = filter.capacity();
        assertTrue(predicted > slots && predicted <= slots + 1024, where + ": " + predicted);
      }
    }
  }

  /** The example in reservedSizeInBytes's Javadoc: 1 GiB of slots in four pages and a bit. */
  @Test
  void reservedSizeInBytes_oneGibibyte_javadocExample() {
    long bytes = RedisCuckooFilter.reservedSizeInBytes(1 << 30, 1); // 2^30 + 632
    assertEquals((1L << 30) + 632, bytes);
    assertEquals(bytes, RedisCuckooFilter.reserve(1 << 30, 1, 20, 1).sizeInBytes());
  }

  @Test
  void reservedSizeInBytes_outOfRangeOrBeyondLimits_throwsAsRedisBloomWould() {
    assertThrows(IllegalArgumentException.class, () -> RedisCuckooFilter.reservedSizeInBytes(0, 2));
    assertThrows(
        IllegalArgumentException.class, () -> RedisCuckooFilter.reservedSizeInBytes(100, 0));
    assertThrows(
        IllegalArgumentException.class, () -> RedisCuckooFilter.reservedSizeInBytes(100, 256));
    FilterAllocationException e =
        assertThrows(
            FilterAllocationException.class,
            () -> RedisCuckooFilter.reservedSizeInBytes(1L << 40, 1));
    assertTrue(e.getMessage().contains("buckets"), e.getMessage());
  }

  @Test
  void sizeInBytes_chainGrows_addsTheNewLinksBytes() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(1000, 2, 20, 2);
    // the compact form becomes a RedisChain as it grows: count from that chain's size
    long before =
        RedisCuckooFilter.chained(ItemHashers.redisBytes(), RedisChain.create(512, 2, 20, 2))
            .sizeInBytes();
    int i = 0;
    while (filter.linkCount() == 1) {
      filter.add(bytes(Integer.toString(i++)));
    }
    long link = RedisChain.linkBytes(filter.redisChain().linkBuckets(1), 2);
    long grown = filter.sizeInBytes() - before;
    // the link, and the link offsets' array grown from 2 to 4 entries
    assertEquals(link + 16, grown);
  }

  /**
   * A link too large for the limits or the heap makes the add fail with NO_MEMORY, changing
   * nothing.
   */
  @Test
  void tryAdd_nextLinkTooLarge_returnsNoMemoryAndChangesNothing() {
    // RESERVE 4 EXPANSION 30000 (rounded to 32768): links of 2, 65536 and 2^31 buckets; the
    // third, 4 GiB, is more than the test heap can give
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(4, 2, 20, 30000);
    int i = 0;
    int added = 0;
    while (filter.tryAdd(bytes(Integer.toString(i++))) == AddOutcome.ADDED) {
      added++;
      assertTrue(i < 200_000, "the second link should be full by now");
    }
    assertEquals(2, filter.linkCount());
    assertEquals(added, filter.size());
    int failures = 0;
    for (int j = 0; j < 2000; j++) {
      byte[] link0 = filter.scanDump(1).data();
      byte[] link1 = filter.scanDump(1 + link0.length).data();
      AddOutcome result = filter.tryAdd(bytes(Integer.toString(i++)));
      if (result == AddOutcome.ADDED) {
        added++;
      } else {
        assertEquals(AddOutcome.NO_MEMORY, result);
        failures++;
        assertArrayEquals(link0, filter.scanDump(1).data());
        assertArrayEquals(link1, filter.scanDump(1 + link0.length).data());
      }
    }
    assertTrue(failures > 0);
    assertEquals(2, filter.linkCount());
    assertEquals(added, filter.size());
  }

  /**
   * RedisBloom's test_counter_overflow_with_large_number_of_items: RESERVE cf 2 BUCKETSIZE 1
   * EXPANSION 1 and 140000 inserts reach the 65535-link cap after 131070 items; the rest fail
   * without an error. Inserts pass over full links, so this takes well under a second.
   */
  @Test
  void tryAdd_140000ItemsIntoTwoSlotLinks_stopsAt65535Links() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(2, 1, 20, 1);
    int added = 0;
    int noMemory = 0;
    for (int i = 0; i < 140_000; i++) {
      AddOutcome result = filter.tryAdd(bytes(Integer.toString(i)));
      if (result == AddOutcome.ADDED) {
        added++;
      } else {
        assertEquals(AddOutcome.NO_MEMORY, result);
        noMemory++;
      }
    }
    assertEquals(131_070, added);
    assertEquals(140_000 - 131_070, noMemory);
    assertEquals(65535, filter.linkCount());
    assertEquals(131_070, filter.size());
    filter.redisChain().checkRoomIndex();
  }

  static byte[] hex(String hex) {
    byte[] out = new byte[hex.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }
}
