package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** RedisBloom dumps of single filters: {@code RedisCuckooFilter.of} and {@code singleFilter}. */
class SingleFilterDumpTest {
  private static CuckooFilter<byte[]> filled(int items) {
    CuckooFilter<byte[]> filter =
        CuckooFilter.builder(ItemHashers.redisBytes())
            .scheme(Scheme.REDISBLOOM)
            .expectedItems(1000)
            .build();
    for (int i = 0; i < items; i++) {
      filter.add(("item" + i).getBytes(StandardCharsets.UTF_8));
    }
    return filter;
  }

  @Test
  void of_sameAddsAsChain_sameDump() {
    CuckooFilter<byte[]> single = filled(300);
    RedisCuckooFilter<byte[]> chain = RedisCuckooFilter.reserve(1000, 2, 20, 2);
    for (int i = 0; i < 300; i++) {
      chain.add(("item" + i).getBytes(StandardCharsets.UTF_8));
    }
    assertEquals(1, chain.linkCount());
    RedisCuckooFilter<byte[]> view = RedisCuckooFilter.of(single, 2);
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
  void singleFilter_loadedDumpOfSingleFilter_sameFileBytes() throws IOException {
    CuckooFilter<byte[]> single = filled(500);
    RedisCuckooFilter<byte[]> view = RedisCuckooFilter.of(single, 1);
    RedisCuckooFilter<byte[]> loaded = RedisCuckooFilter.loadDumpHeader(view.scanDump(0).data());
    for (ScanDumpChunk chunk = view.scanDump(1);
        chunk.iterator() != 0;
        chunk = view.scanDump(chunk.iterator())) {
      loaded.loadDumpChunk(chunk.iterator(), chunk.data());
    }
    CuckooFilter<byte[]> back = loaded.singleFilter(ItemHashers.redisBytes());
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    single.writeTo(expected);
    ByteArrayOutputStream actual = new ByteArrayOutputStream();
    back.writeTo(actual);
    assertArrayEquals(expected.toByteArray(), actual.toByteArray());
  }

  @Test
  void singleFilter_itemCountDisagreesWithSlots_throwsNamingNumItems() {
    RedisCuckooFilter<byte[]> view = RedisCuckooFilter.of(filled(10), 1);
    byte[] header = view.dumpHeader();
    header[0] = 11;
    RedisCuckooFilter<byte[]> loaded = RedisCuckooFilter.loadDumpHeader(header);
    loaded.loadDumpChunk(view.scanDump(1).iterator(), view.scanDump(1).data());
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class, () -> loaded.singleFilter(ItemHashers.redisBytes()));
    assertEquals("numItems", e.field());
  }

  @Test
  void of_outOfRedisRanges_rejectedNamingIt() {
    CuckooFilter<byte[]> standard =
        CuckooFilter.builder(ItemHashers.bytes()).expectedItems(10).build();
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> RedisCuckooFilter.of(standard, 1));
    assertEquals("filter: scheme STANDARD_FAST (expected: REDISBLOOM)", e.getMessage());
    CuckooFilter<byte[]> noKicks =
        CuckooFilter.builder(ItemHashers.redisBytes())
            .scheme(Scheme.REDISBLOOM)
            .expectedItems(10)
            .maxKicks(0)
            .build();
    e = assertThrows(IllegalArgumentException.class, () -> RedisCuckooFilter.of(noKicks, 1));
    assertEquals(true, e.getMessage().startsWith("maxKicks: 0"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> RedisCuckooFilter.of(filled(1), 40000));
    assertEquals(true, e.getMessage().startsWith("expansion: 40000"), e.getMessage());
  }
}
