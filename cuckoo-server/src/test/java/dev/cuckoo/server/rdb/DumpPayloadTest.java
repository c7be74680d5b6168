package dev.cuckoo.server.rdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.ScanDumpChunk;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DumpPayloadTest {
  private static byte[] hex(String text) {
    return HexFormat.of().parseHex(text.replace(" ", ""));
  }

  /** The CF.INFO reply of a filter, as the recorded flat list of texts. */
  static List<String> info(RedisCuckooFilter<byte[]> filter) {
    return List.of(
        "Size", Long.toString(filter.redisSize()),
        "Number of buckets", Long.toString(filter.baseBucketCount()),
        "Number of filters", Integer.toString(filter.linkCount()),
        "Number of items inserted", Long.toUnsignedString(filter.size()),
        "Number of items deleted", Long.toString(filter.deletedCount()),
        "Bucket size", Integer.toString(filter.bucketSize()),
        "Expansion rate", Integer.toString(filter.expansion()),
        "Max iterations", Integer.toString(filter.maxKicks()));
  }

  /**
   * Every CF.SCANDUMP reply of a filter from iterator 0 on, as recorded: not the final [0, nil].
   */
  static List<RecordedDumps.Chunk> scanDump(RedisCuckooFilter<byte[]> filter) {
    List<RecordedDumps.Chunk> chunks = new ArrayList<>();
    long iterator = 0;
    while (true) {
      ScanDumpChunk chunk = filter.scanDump(iterator);
      if (chunk.iterator() == 0) {
        return chunks;
      }
      chunks.add(new RecordedDumps.Chunk(chunk.iterator(), chunk.data()));
      iterator = chunk.iterator();
    }
  }

  @Test
  void decodeThenEncode_everyRecordedPayload_isByteIdenticalWithRecordedInfoAndScanDump() {
    List<RecordedDumps.Case> cases = RecordedDumps.all();
    assertEquals(27, cases.size());
    for (RecordedDumps.Case c : cases) {
      RedisCuckooFilter<byte[]> filter = DumpPayload.decode(c.dump());
      assertEquals(c.info(), info(filter), c.name());
      assertEquals(c.scanDump(), scanDump(filter), c.name());
      assertEquals(
          HexFormat.of().formatHex(c.dump()),
          HexFormat.of().formatHex(DumpPayload.encode(filter)),
          c.name());
    }
  }

  @Test
  void encode_reservedFilter_isRecordedPayload() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(100000, 2, 20, 1);
    assertArrayEquals(RecordedDumps.named("reserve_cap100000").dump(), DumpPayload.encode(filter));
    RedisCuckooFilter<byte[]> options = RedisCuckooFilter.reserve(5000, 4, 100, 3);
    assertArrayEquals(
        RecordedDumps.named("reserve_all_options").dump(), DumpPayload.encode(options));
  }

  @Test
  void encode_filterOfTwoBuckets_startsAsRecorded() {
    byte[] payload = DumpPayload.encode(RedisCuckooFilter.reserve(2, 1, 20, 1));
    // type 7, module id of MBbloomCF encver 4, then numFilters 1 and numBuckets 2
    assertEquals(
        "07" + "81" + "3016e5a289821404" + "0201" + "0202",
        HexFormat.of().formatHex(payload, 0, 14));
    assertArrayEquals(RecordedDumps.named("reserve_cap2_bucket1").dump(), payload);
  }

  @Test
  void encode_decimalLookingLink_isRdbInteger() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(2, 1, 20, 1);
    filter.loadDumpChunk(3, "44".getBytes(StandardCharsets.US_ASCII));
    byte[] payload = DumpPayload.encode(filter);
    String text = HexFormat.of().formatHex(payload);
    assertTrue(text.contains("0202" + "05" + "c02c" + "00" + "0c00"), text);
    RedisCuckooFilter<byte[]> back = DumpPayload.decode(payload);
    assertArrayEquals("44".getBytes(StandardCharsets.US_ASCII), back.linkSlots(0));
  }

  @Test
  void rdbOutput_strings_asRedisRawStringSaves() {
    assertEquals("c000", written("0"));
    assertEquals("c0ff", written("-1"));
    assertEquals("c18000", written("128"));
    assertEquals("c200000080", written("-2147483648"));
    assertEquals("03303037", written("007")); // a leading zero is not an integer
    assertEquals("022d30", written("-0"));
    assertEquals("0b3132333435363738393031", written("12345678901")); // beyond 32 bits
    // 21 zeros: 2 literals, then a reference of 19 bytes 1 back (6 bytes: saves 15)
    assertEquals("c3" + "06" + "15" + "010000e00a00", written("\0".repeat(21)));
    byte[] random = new byte[64];
    new Random(1).nextBytes(random);
    RdbOutput out = new RdbOutput(70);
    out.writeString(random);
    assertEquals("40", HexFormat.of().formatHex(out.toByteArray(), 0, 1)); // 14-bit length 64
  }

  private static String written(String s) {
    RdbOutput out = new RdbOutput(16);
    out.writeString(s.getBytes(StandardCharsets.ISO_8859_1));
    return HexFormat.of().formatHex(out.toByteArray());
  }

  @Test
  void rdbOutput_lengths_useEachWidth() {
    RdbOutput out = new RdbOutput(32);
    out.writeLength(63);
    out.writeLength(64);
    out.writeLength(16383);
    out.writeLength(16384);
    out.writeLength(1L << 32);
    assertEquals(
        "3f" + "4040" + "7fff" + "8000004000" + "810000000100000000",
        HexFormat.of().formatHex(out.toByteArray()));
  }

  @Test
  void decode_footerDamage_isChecksumError() {
    byte[] good = RecordedDumps.named("add_200").dump();
    for (int offset = 0; offset < good.length; offset++) {
      byte[] flipped = good.clone();
      flipped[offset] ^= 0x10;
      assertKind(DumpPayloadException.Kind.CHECKSUM, flipped, "flip at " + offset);
    }
    for (int length = 0; length < good.length; length++) {
      assertKind(
          DumpPayloadException.Kind.CHECKSUM, Arrays.copyOf(good, length), "truncated " + length);
    }
    assertKind(
        DumpPayloadException.Kind.CHECKSUM,
        "garbage that is not a payload".getBytes(StandardCharsets.US_ASCII),
        "garbage");
  }

  @Test
  void decode_versions0To12_areAccepted_13IsNot() {
    byte[] good = RecordedDumps.named("add_200").dump();
    for (int version = 0; version <= 13; version++) {
      byte[] payload = withVersion(good, version);
      if (version <= 12) {
        assertEquals(200, DumpPayload.decode(payload).size());
      } else {
        assertKind(DumpPayloadException.Kind.CHECKSUM, payload, "version 13");
      }
    }
  }

  @Test
  void decode_trailingBytesAfterEof_areIgnored() {
    byte[] good = RecordedDumps.named("add_200").dump();
    byte[] body = Arrays.copyOf(good, good.length - 10);
    byte[] longer = Arrays.copyOf(body, body.length + 3);
    longer[body.length] = 0x7f;
    assertEquals(200, DumpPayload.decode(sealed(longer, 12)).size());
  }

  @Test
  void decode_zeroFiltersWithValidCrc_isContentError() {
    byte[] good = RecordedDumps.named("add_200").dump();
    byte[] body = Arrays.copyOf(good, good.length - 10);
    assertEquals(0x02, body[10]);
    assertEquals(0x01, body[11]);
    body[11] = 0; // numFilters 0
    DumpPayloadException e =
        assertKind(DumpPayloadException.Kind.CONTENT, sealed(body, 12), "numFilters 0");
    assertEquals("numFilters", e.field());
  }

  @Test
  void decode_otherTypesAndModules_areContentErrors() {
    // a Redis string "hello": type 0
    assertKind(DumpPayloadException.Kind.CONTENT, sealed(hex("00 05 68656c6c6f"), 12), "string");
    byte[] good = RecordedDumps.named("add_200").dump();
    byte[] otherModule = Arrays.copyOf(good, good.length - 10);
    otherModule[2] ^= 0x04; // the first character of the module's name
    assertEquals(
        "module id",
        assertKind(DumpPayloadException.Kind.CONTENT, sealed(otherModule, 12), "module").field());
    for (int version : new int[] {3, 5}) {
      byte[] encver = Arrays.copyOf(good, good.length - 10);
      encver[9] = (byte) version; // the low bits of the id: the encoding version
      assertEquals(
          "module encoding version",
          assertKind(DumpPayloadException.Kind.CONTENT, sealed(encver, 12), "encver " + version)
              .field());
    }
  }

  @Test
  void decode_hugeDeclaredSizes_refusedBeforeAllocating() {
    // numFilters 1, numBuckets 2^40, then nothing: the header alone would need a terabyte
    byte[] body =
        hex("07 81 3016e5a289821404 0201 02 81 0000010000000000 0200 0200 0202 0214 0201");
    DumpPayloadException e =
        assertKind(DumpPayloadException.Kind.CONTENT, sealed(body, 12), "2^40");
    assertEquals("numBuckets", e.field());
    // 32 links of expansion 2 from 1024 buckets: 2^42 bytes
    byte[] links = hex("07 81 3016e5a289821404 0220 02 4400 0200 0200 0202 0214 0202");
    assertKind(DumpPayloadException.Kind.CONTENT, sealed(links, 12), "32 links");
    // an LZF string declaring more plain bytes than its link
    byte[] good = RecordedDumps.named("reserve_cap1000").dump();
    String text = HexFormat.of().formatHex(good, 0, good.length - 10);
    int at = text.indexOf("05c3") / 2 + 2; // compressed length, then plain length 0x4400
    byte[] plain = HexFormat.of().parseHex(text);
    assertEquals(0x44, plain[at + 1]);
    plain[at + 1] = 0x45;
    assertKind(DumpPayloadException.Kind.CONTENT, sealed(plain, 12), "plain length");
  }

  @Test
  void decode_randomCorruptionsWithValidCrc_onlyContentErrorsOrFilters() {
    long seed = System.nanoTime();
    System.out.println("DumpPayloadTest seed " + seed);
    Random random = new Random(seed);
    List<RecordedDumps.Case> cases = RecordedDumps.all();
    int refused = 0;
    for (int round = 0; round < 3000; round++) {
      byte[] good = cases.get(random.nextInt(cases.size())).dump();
      byte[] body = Arrays.copyOf(good, good.length - 10);
      int edits = 1 + random.nextInt(4);
      for (int e = 0; e < edits; e++) {
        switch (random.nextInt(4)) {
          case 0 -> {
            if (body.length > 0) {
              body[random.nextInt(body.length)] = (byte) random.nextInt(256);
            }
          }
          case 1 -> {
            if (body.length > 0) {
              body[random.nextInt(body.length)] ^= (byte) (1 << random.nextInt(8));
            }
          }
          case 2 -> body = Arrays.copyOf(body, random.nextInt(body.length + 1));
          default -> {
            if (body.length == 0) {
              break;
            }
            // a huge length where a length was
            int at = random.nextInt(Math.max(1, body.length - 5));
            body[at] = (byte) (random.nextBoolean() ? 0x80 : 0x81);
            if (at + 1 < body.length) {
              body[at + 1] = (byte) 0x7f;
            }
          }
        }
      }
      try {
        RedisCuckooFilter<byte[]> filter = DumpPayload.decode(sealed(body, 12));
        assertTrue(filter.linkCount() >= 1, "seed " + seed);
      } catch (DumpPayloadException e) {
        assertEquals(DumpPayloadException.Kind.CONTENT, e.kind(), "seed " + seed + " " + e);
        refused++;
      }
    }
    assertTrue(refused > 1000, "seed " + seed + ": refused " + refused);
  }

  private static DumpPayloadException assertKind(
      DumpPayloadException.Kind kind, byte[] payload, String what) {
    DumpPayloadException e =
        assertThrows(DumpPayloadException.class, () -> DumpPayload.decode(payload), what);
    assertEquals(kind, e.kind(), what + ": " + e.getMessage());
    return e;
  }

  /** Returns body followed by the RDB version and a valid CRC64. */
  static byte[] sealed(byte[] body, int version) {
    ByteBuffer payload =
        ByteBuffer.allocate(body.length + 10).order(ByteOrder.LITTLE_ENDIAN).put(body);
    payload.putShort((short) version);
    payload.putLong(Crc64.of(payload.array(), 0, body.length + 2));
    return payload.array();
  }

  private static byte[] withVersion(byte[] good, int version) {
    return sealed(Arrays.copyOf(good, good.length - 10), version);
  }
}
