package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ItemHashersTest {

  /** MurmurHash64A, seed 0: known vectors, checked against the reference C implementation. */
  @ParameterizedTest(name = "\"{0}\"")
  @CsvSource({
    "'', 0x0000000000000000, 1",
    "a, 0x071717d2d36b6b11, 196",
    "foo, 0xcdde38358fd25b01, 217",
    "k1, 0x0ba1757abdb19190, 47",
    "Redis, 0xc94992be09248536, 78",
    "hello world!, 0x64db099bd1512951, 131",
    "0123456789abcdef0, 0xd6d740ea6bf35f45, 222"
  })
  void redisUtf8_knownVectors_matchRedisBloom(String item, String hash, int fingerprint) {
    long expected = Long.parseUnsignedLong(hash.substring(2), 16);
    assertEquals(expected, ItemHashers.redisUtf8().hash(item));
    assertEquals(expected, ItemHashers.redisBytes().hash(item.getBytes(StandardCharsets.UTF_8)));
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.redisUtf8())
            .redisBloomScheme()
            .expectedItems(1024)
            .build();
    assertEquals(fingerprint, filter.indexer().fingerprint(expected));
  }

  /** XXH3-64 with seed 0; the empty-input value is the one the xxHash reference publishes. */
  @Test
  void utf8_knownVectors_xxh3() {
    assertEquals(0x2D06800538D394C2L, ItemHashers.utf8().hash(""));
    assertEquals(0x2D06800538D394C2L, ItemHashers.bytes().hash(new byte[0]));
    assertEquals(GOLDEN_A, ItemHashers.utf8().hash("a"));
    assertEquals(GOLDEN_URL, ItemHashers.utf8().hash("https://example.com/a?b=c"));
    assertEquals(GOLDEN_LONG_42, ItemHashers.hashLong(42L));
  }

  private static final long GOLDEN_A = 0xE6C632B61E964E1FL;
  private static final long GOLDEN_URL = 0xCC090D952073C9F8L;
  private static final long GOLDEN_LONG_42 = 0xD5A6F8C838DF27C8L;

  @Test
  void utf8_anyText_equalsHashOfJavaUtf8Bytes() {
    String[] texts = {
      "",
      "ascii",
      "é ü ß",
      "日本語",
      "emoji \uD83D\uDE00 pair",
      "lone \uD800 high",
      "lone \uDC00 low",
      "end high \uD800",
      "x".repeat(5000),
      "日".repeat(30_000)
    };
    for (String text : texts) {
      byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
      assertEquals(ItemHashers.bytes().hash(utf8), ItemHashers.utf8().hash(text), text);
      assertEquals(ItemHashers.redisBytes().hash(utf8), ItemHashers.redisUtf8().hash(text), text);
      assertEquals(
          ItemHashers.utf8().hash(text), ItemHashers.utf8().hash(new StringBuilder(text)), text);
    }
  }

  @Test
  void byteBuffers_heapDirectAndSliced_equalBytes() {
    byte[] data = new byte[100];
    new SplittableRandom(3).nextBytes(data);
    long expected = ItemHashers.bytes().hash(java.util.Arrays.copyOfRange(data, 10, 60));
    ByteBuffer heap = ByteBuffer.wrap(data, 10, 50);
    assertEquals(expected, ItemHashers.byteBuffers().hash(heap));
    assertEquals(10, heap.position());
    ByteBuffer direct = ByteBuffer.allocateDirect(100).put(data);
    direct.position(10).limit(60);
    assertEquals(expected, ItemHashers.byteBuffers().hash(direct));
    assertEquals(10, direct.position());
    assertEquals(
        expected,
        ItemHashers.byteBuffers().hash(ByteBuffer.wrap(data).position(10).slice().limit(50)));
  }

  @Test
  void longs_boxedAndPrimitive_equalHashOfLittleEndianBytes() {
    SplittableRandom random = new SplittableRandom(5);
    for (int i = 0; i < 1000; i++) {
      long key = random.nextLong();
      byte[] bytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(key).array();
      assertEquals(ItemHashers.bytes().hash(bytes), ItemHashers.hashLong(key));
      assertEquals(ItemHashers.hashLong(key), ItemHashers.longs().hash(key));
    }
  }

  @Test
  void byId_builtins_roundTrip() {
    for (ItemHasher<?> hasher :
        new ItemHasher<?>[] {
          ItemHashers.utf8(),
          ItemHashers.bytes(),
          ItemHashers.byteBuffers(),
          ItemHashers.longs(),
          ItemHashers.redisUtf8(),
          ItemHashers.redisBytes()
        }) {
      assertNotNull(hasher.toString());
      assertSame(hasher, ItemHashers.byId(hasher.id()));
    }
    assertNull(ItemHashers.byId(0));
    assertEquals(0, ((ItemHasher<String>) s -> 1L).id());
  }
}
