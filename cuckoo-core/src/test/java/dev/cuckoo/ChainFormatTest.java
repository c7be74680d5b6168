package dev.cuckoo;

import static dev.cuckoo.RedisChainKnownAnswerTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** writeTo / readFrom of chained filters: round trips and corrupt input. */
@SuppressWarnings("deprecation") // also the tests of the deprecated redisBloom factory
class ChainFormatTest {

  /** Returns the SHA-256 of {@code bytes} in hex: a known answer for a whole file. */
  static String sha256(byte[] bytes) {
    try {
      return java.util.HexFormat.of()
          .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  static byte[] write(MembershipFilter<?> filter) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeTo(out);
    return out.toByteArray();
  }

  static RedisCuckooFilter<byte[]> redisChain() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(16, 2, 20, 2);
    for (int i = 0; i < 200; i++) {
      filter.add(bytes(Integer.toString(i)));
    }
    for (int i = 0; i < 10; i++) {
      filter.remove(bytes(Integer.toString(i)));
    }
    return filter;
  }

  static ScalableCuckooFilter<Long> standardChain(long items) {
    ScalableCuckooFilter<Long> filter =
        ScalableCuckooFilter.builder(ItemHashers.longs()).expectedItems(20).seed(7).build();
    for (long i = 0; i < items; i++) {
      filter.add(i);
    }
    filter.remove(3L);
    return filter;
  }

  @Test
  void readFrom_redisBloomChain_sameDumpAndAnswers() throws IOException {
    RedisCuckooFilter<byte[]> filter = redisChain();
    assertTrue(filter.linkCount() > 2);
    byte[] written = write(filter);
    assertEquals(80 + filter.redisSize() - 40 - 16L * filter.linkCount() + 4, written.length);
    RedisCuckooFilter<byte[]> read =
        RedisCuckooFilter.readFrom(new ByteArrayInputStream(written), ItemHashers.redisBytes());
    RedisDumpTest.assertSameFilter(filter, read);
    assertArrayEquals(written, write(read), "writing the read filter gives the same bytes");
    // any reader of chains: FilterFile gives the same filter, as a RedisCuckooFilter
    FilterFile<byte[]> file =
        FilterFile.read(new ByteArrayInputStream(written), id -> ItemHashers.redisBytes());
    assertTrue(file.isChain());
    assertEquals(Scheme.REDISBLOOM, file.scheme());
    RedisDumpTest.assertSameFilter(filter, (RedisCuckooFilter<byte[]>) file.filter());
    assertThrows(IllegalStateException.class, file::chain);
  }

  @Test
  void readFrom_chainOfTheOtherScheme_throwsNamingSchemeAndReader() throws IOException {
    byte[] redis = write(redisChain());
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class,
            () ->
                ScalableCuckooFilter.readFrom(
                    new ByteArrayInputStream(redis), ItemHashers.redisBytes()));
    assertEquals("scheme", e.field());
    assertEquals(ChainFormat.OFFSET_SCHEME, e.offset());
    assertTrue(e.getMessage().contains("RedisCuckooFilter.readFrom"), e.getMessage());
    byte[] standard = write(standardChain(100));
    e =
        assertThrows(
            FilterFormatException.class,
            () ->
                RedisCuckooFilter.readFrom(
                    new ByteArrayInputStream(standard), ItemHashers.longs()));
    assertEquals("scheme", e.field());
    assertTrue(e.getMessage().contains("ScalableCuckooFilter.readFrom"), e.getMessage());
  }

  @Test
  void readFrom_standardChain_sameAnswersAndCounts() throws IOException {
    ScalableCuckooFilter<Long> filter = standardChain(3000);
    assertTrue(filter.linkCount() > 3);
    byte[] written = write(filter);
    ScalableCuckooFilter<Long> read =
        ScalableCuckooFilter.readFrom(new ByteArrayInputStream(written), ItemHashers.longs());
    assertEquals(filter.size(), read.size());
    assertEquals(filter.deletedCount(), read.deletedCount());
    assertEquals(filter.linkCount(), read.linkCount());
    assertEquals(filter.falsePositiveRateAtCapacity(), read.falsePositiveRateAtCapacity());
    for (long i = -5000; i < 5000; i++) {
      assertEquals(filter.mightContain(i), read.mightContain(i), "item " + i);
      assertEquals(filter.count(i), read.count(i));
    }
    assertArrayEquals(written, write(read));
    // it keeps growing with the same tightening
    for (long i = 3000; i < 20000; i++) {
      assertTrue(read.add(i));
      assertTrue(filter.add(i));
    }
    assertEquals(filter.linkCount(), read.linkCount());
    assertEquals(filter.falsePositiveRateAtCapacity(), read.falsePositiveRateAtCapacity());
  }

  @Test
  void readFrom_linkOfAnotherStandardScheme_throwsNamingLink() throws IOException {
    byte[] written = write(standardChain(100));
    int linkScheme = ChainFormat.HEADER_BYTES + FilterHeader.OFFSET_SCHEME;
    assertEquals(Scheme.STANDARD_FAST.id(), written[linkScheme]);
    // the first link as a STANDARD link, which no chain is made of; every checksum still valid
    byte[] patched =
        FormatTestSupport.withFixedCrc(
            FormatTestSupport.withByte(written, linkScheme, Scheme.STANDARD.id()));
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class,
            () ->
                ScalableCuckooFilter.readFrom(
                    new ByteArrayInputStream(patched), ItemHashers.longs()));
    assertEquals("link", e.field());
    assertEquals(ChainFormat.HEADER_BYTES, e.offset());
    assertTrue(e.getMessage().contains("expected STANDARD_FAST"), e.getMessage());
  }

  /** Chain format version 1, byte for byte, for CF.RESERVE cf 8; CF.ADD cf item1. */
  @Test
  void writeTo_reserve8Item1_goldenBytes() throws IOException {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(8, 2, 20, 1);
    filter.add(bytes("item1"));
    String expected =
        "89434b434841494e"
            + "0100"
            + "02"
            + "00"
            + "06000000"
            + "01000000"
            + "14000000"
            + "0200"
            + "0100"
            + "00000000"
            + "0400000000000000"
            + "0000000000000000"
            + "0000000000000000"
            + "0000000000000000"
            + "0100000000000000"
            + "0000000000000000"
            + "0000000007000000";
    byte[] body = RedisChainKnownAnswerTest.hex(expected);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(body);
    byte[] golden =
        ByteBuffer.allocate(body.length + 4)
            .order(ByteOrder.LITTLE_ENDIAN)
            .put(body)
            .putInt((int) crc.getValue())
            .array();
    assertArrayEquals(golden, write(filter));
  }

  @Test
  void readFrom_truncatedAtEveryOffset_throwsFormatException() throws IOException {
    for (byte[] written : new byte[][] {write(redisChain()), write(standardChain(100))}) {
      for (int length = 0; length < written.length; length++) {
        byte[] truncated = java.util.Arrays.copyOf(written, length);
        assertThrows(
            FilterFormatException.class,
            () -> ChainFormat.read(new ByteArrayInputStream(truncated), ItemHashers.longs()),
            "length " + length);
      }
    }
  }

  @Test
  void readFrom_everyBitFlipped_throwsFormatException() throws IOException {
    byte[][] inputs = {write(RedisCuckooFilter.reserve(8, 2, 20, 1)), write(standardChain(30))};
    RedisCuckooFilter<byte[]> small = RedisCuckooFilter.reserve(8, 2, 20, 2);
    for (int i = 0; i < 20; i++) {
      small.add(bytes("x" + i));
    }
    for (byte[] written : new byte[][] {inputs[0], inputs[1], write(small)}) {
      for (int bit = 0; bit < written.length * 8; bit++) {
        byte[] flipped = written.clone();
        flipped[bit >>> 3] ^= (byte) (1 << (bit & 7));
        assertThrows(
            FilterFormatException.class,
            () -> ChainFormat.read(new ByteArrayInputStream(flipped), ItemHashers.longs()),
            "bit " + bit);
      }
    }
  }

  @Test
  void readFrom_hostileHeaders_throwFormatExceptionWithoutAllocating() throws IOException {
    byte[] valid = write(redisChain());
    // 2^48 base buckets, 2^31 - 1 links, negative link count, bad magic, unknown version
    long[][] patches = {
      {ChainFormat.OFFSET_BASE, 1L << 48, 8},
      {ChainFormat.OFFSET_LINK_COUNT, Integer.MAX_VALUE, 4},
      {ChainFormat.OFFSET_LINK_COUNT, -1, 4},
      {ChainFormat.OFFSET_MAGIC, 0, 8},
      {ChainFormat.OFFSET_VERSION, 2, 2},
      {ChainFormat.OFFSET_SCHEME, 9, 1},
    };
    for (long[] patch : patches) {
      byte[] bytes = valid.clone();
      ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
      int at = (int) patch[0];
      switch ((int) patch[2]) {
        case 8:
          buffer.putLong(at, patch[1]);
          break;
        case 4:
          buffer.putInt(at, (int) patch[1]);
          break;
        case 2:
          buffer.putShort(at, (short) patch[1]);
          break;
        default:
          buffer.put(at, (byte) patch[1]);
      }
      FilterFormatException e =
          assertThrows(
              FilterFormatException.class,
              () -> ChainFormat.read(new ByteArrayInputStream(bytes), ItemHashers.redisBytes()));
      assertTrue(e.offset() >= 0, e.getMessage());
    }
    // the standard chain refuses a different built-in hasher
    byte[] standard = write(standardChain(100));
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class,
            () ->
                ScalableCuckooFilter.readFrom(
                    new ByteArrayInputStream(standard), ItemHashers.utf8()));
    assertEquals("hasherId", e.field());
  }
}
