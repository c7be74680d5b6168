package dev.cuckoo.server.rdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.RedisCuckooFilter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RdbReaderTest {
  /** One key the reader gave its sink. */
  record Seen(int db, String key, long expireAt, String type, RedisCuckooFilter<byte[]> filter) {}

  static byte[] recordedRdb() {
    return RecordedDumps.recordedRdb();
  }

  static List<Seen> read(byte[] rdb, List<RdbReader.Summary> summary) throws IOException {
    List<Seen> seen = new ArrayList<>();
    RdbReader.Summary result =
        new RdbReader(new ByteArrayInputStream(rdb), 16)
            .read(
                new RdbReader.Sink() {
                  @Override
                  public void filter(
                      int db, byte[] key, long expireAt, RedisCuckooFilter<byte[]> filter) {
                    seen.add(new Seen(db, text(key), expireAt, "MBbloomCF", filter));
                  }

                  @Override
                  public void foreign(int db, byte[] key, String type) {
                    seen.add(new Seen(db, text(key), -2, type, null));
                  }
                });
    summary.add(result);
    return seen;
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  @Test
  void read_recordedRedis8Rdb_givesTheKeysTtlsAndDatabases() throws IOException {
    List<RdbReader.Summary> summary = new ArrayList<>();
    List<Seen> seen = read(recordedRdb(), summary);
    List<String> keys = new ArrayList<>();
    for (Seen s : seen) {
      keys.add(s.db + ":" + s.key + ":" + s.type + ":" + s.expireAt);
    }
    assertEquals(
        List.of(
            "0:small:MBbloomCF:-1",
            "0:grown:MBbloomCF:-1",
            "0:plainstring:string:-2",
            "0:withttl:MBbloomCF:4102444800000",
            "1:indb1:MBbloomCF:-1"),
        keys);
    RdbReader.Summary result = summary.get(0);
    assertEquals(12, result.version());
    assertEquals(4, result.filters());
    assertEquals(Map.of("string", 1L), result.foreign().snapshot());
    assertEquals("255.255.255", result.aux().get("redis-ver"));
    assertEquals(recordedRdb().length, result.bytes());
    RedisCuckooFilter<byte[]> grown = seen.get(1).filter();
    assertEquals(3, grown.linkCount());
    assertEquals(64, grown.baseBucketCount());
    assertEquals(599, grown.size());
    assertEquals(50, seen.get(0).filter().size());
  }

  @Test
  void read_recordedRdb_eachFilterEncodesToRedisOwnValueBytes() throws IOException {
    byte[] rdb = recordedRdb();
    for (Seen s : read(rdb, new ArrayList<>())) {
      if (s.filter() == null) {
        continue;
      }
      byte[] payload = DumpPayload.encode(s.filter());
      // the value without its type byte, which the RDB writes before the key
      byte[] value = Arrays.copyOfRange(payload, 1, payload.length - 10);
      assertTrue(indexOf(rdb, value) > 0, s.key() + ": the re-encoded value is in the RDB");
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  @Test
  void read_flippedByte_failsTheCrc() throws IOException {
    byte[] rdb = recordedRdb();
    int hello = indexOf(rdb, "hello".getBytes(StandardCharsets.US_ASCII));
    rdb[hello] ^= 1;
    RdbFormatException e =
        assertThrows(RdbFormatException.class, () -> read(rdb, new ArrayList<>()));
    assertEquals("CRC64", e.field());
    assertEquals(rdb.length - 8, e.offset());
  }

  @Test
  void read_everyTruncation_failsWithAnError() throws IOException {
    byte[] rdb = recordedRdb();
    for (int length = 0; length < rdb.length; length++) {
      byte[] cut = Arrays.copyOf(rdb, length);
      RdbFormatException e =
          assertThrows(RdbFormatException.class, () -> read(cut, new ArrayList<>()), "" + length);
      assertTrue(e.getMessage().contains("truncated"), length + ": " + e.getMessage());
    }
  }

  @Test
  void read_everyFlippedBit_fails() throws IOException {
    // a flipped bit fails a check (a field, a filter's own check or the CRC), never reads silently
    byte[] rdb = recordedRdb();
    for (int at = 0; at < rdb.length - 8; at++) {
      byte[] bad = rdb.clone();
      bad[at] ^= 0x10;
      assertThrows(RdbFormatException.class, () -> read(bad, new ArrayList<>()), "at " + at);
    }
  }

  @Test
  void read_wrongVersionOrMagic_names() {
    RdbFormatException version =
        assertThrows(
            RdbFormatException.class,
            () -> read("REDIS0013\u00ff".getBytes(StandardCharsets.ISO_8859_1), new ArrayList<>()));
    assertEquals("RDB version", version.field());
    assertTrue(version.getMessage().contains("'0013' (expected: 0001 to 0012)"));
    RdbFormatException magic =
        assertThrows(
            RdbFormatException.class,
            () -> read("CKOOSNP00".getBytes(StandardCharsets.ISO_8859_1), new ArrayList<>()));
    assertEquals("magic", magic.field());
  }

  @Test
  void read_hugeDeclaredLengths_failAtTheInputsEndWithoutAllocating() {
    // a key of 2^62 bytes, a skipped string of 4 GiB, an LZF key claiming 2 GiB from 3 bytes, a
    // list of 2^60 elements
    byte[][] values = {
      bytes(0, 0x81, 0x40, 0, 0, 0, 0, 0, 0, 0, 'x'),
      bytes(0, 1, 'k', 0x80, 0xff, 0xff, 0xff, 0xff, 'x'),
      bytes(0, 0xc3, 3, 0x80, 0x7f, 0xff, 0xff, 0xff, 0, 'a', 'b', 0),
      bytes(1, 1, 'k', 0x81, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0),
    };
    String[] errors = {
      "RDB key at offset 19: length 4611686018427387904 (expected: 0 to 2147483639)",
      "RDB value of k at offset 27: the input ends here (truncated)",
      "RDB key at offset 10: LZF plain length 2147483647 from 3 compressed bytes",
      "RDB value of k at offset 23: string encoding 63 (expected: 0 to 3)",
    };
    for (int i = 0; i < values.length; i++) {
      byte[] rdb = Rdb.of(10).raw(values[i]).eof();
      RdbFormatException e =
          assertThrows(RdbFormatException.class, () -> read(rdb, new ArrayList<>()));
      assertTrue(e.getMessage().startsWith(errors[i]), e.getMessage());
    }
  }

  @Test
  void read_unknownTypeOrOpcode_names() {
    for (int type : new int[] {8, 26, 200, 243, 246}) {
      byte[] rdb = Rdb.of(12).raw(bytes(type, 1, 'k', 0)).eof();
      RdbFormatException e =
          assertThrows(RdbFormatException.class, () -> read(rdb, new ArrayList<>()));
      assertTrue(e.getMessage().contains(Integer.toString(type)), e.getMessage());
      assertEquals(9, e.offset());
    }
  }

  @Test
  void read_databaseBeyondTheServers_isRefused() {
    byte[] rdb = Rdb.of(12).raw(bytes(0xfe, 16)).eof();
    RdbFormatException e =
        assertThrows(RdbFormatException.class, () -> read(rdb, new ArrayList<>()));
    assertTrue(e.getMessage().contains("database 16 (expected: 0 to 15"), e.getMessage());
  }

  @Test
  void read_everyOtherTypeAndOpcode_isReadPastAndCounted() throws IOException {
    Rdb rdb = Rdb.of(12);
    rdb.raw(bytes(0xfa)).string("redis-ver").string("8.0.0");
    rdb.raw(bytes(0xf4, 5, 10, 2)); // SLOT_INFO
    rdb.raw(bytes(0xf5)).string("#!lua name=lib\nredis.register_function('f', function() end)");
    // MODULE_AUX of another module: id, when opcode UINT, when 2, a UINT and a STRING, EOF
    rdb.raw(bytes(0xf7, 0x81, 0x30, 0x16, 0xe5, 0xa2, 0x89, 0x82, 0x14, 0x01, 2, 2, 2, 7, 5))
        .string("aux")
        .raw(bytes(0));
    rdb.raw(bytes(0xfe, 3, 0xfb, 20, 2));
    rdb.raw(bytes(0xfd, 1, 2, 3, 4, 0xf8, 0x40, 0x80, 0xf9, 7));
    rdb.raw(bytes(0)).string("s1").raw(bytes(0xc0, 5)); // int8 string
    rdb.raw(bytes(0)).string("s2").raw(bytes(0xc3, 6, 38, 0x01, 'a', 'b', 0xe0, 27, 1)); // LZF
    rdb.raw(bytes(0)).string("s3").raw(bytes(0xc2, 1, 2, 3, 4)); // int32
    rdb.raw(bytes(1)).string("l1").raw(bytes(2)).string("a").string("b");
    rdb.raw(bytes(2)).string("set1").raw(bytes(1)).string("m");
    rdb.raw(bytes(3)).string("z1").raw(bytes(2)).string("a").raw(bytes(3, '1', '.', '5'));
    rdb.string("b").raw(bytes(253));
    rdb.raw(bytes(4)).string("h1").raw(bytes(1)).string("f").string("v");
    rdb.raw(bytes(5)).string("z2").raw(bytes(1)).string("a").raw(new byte[8]);
    for (int blob : new int[] {9, 10, 11, 12, 13, 16, 17, 20, 23}) {
      rdb.raw(bytes(blob)).string("blob" + blob).string("opaque listpack bytes");
    }
    rdb.raw(bytes(25)).string("hlpex").raw(new byte[8]).string("listpack");
    rdb.raw(bytes(14)).string("q1").raw(bytes(2)).string("zl1").string("zl2");
    rdb.raw(bytes(18)).string("q2").raw(bytes(1, 2)).string("lp");
    rdb.raw(bytes(24)).string("hmeta").raw(new byte[8]).raw(bytes(1, 0)).string("f").string("v");
    rdb.raw(bytes(22)).string("hmeta0").raw(bytes(1, 0)).string("f").string("v");
    for (int stream : new int[] {15, 19, 21}) {
      rdb.raw(bytes(stream)).string("st" + stream).raw(bytes(1)).string("0123456789abcdef");
      rdb.string("listpack").raw(bytes(1, 5, 6));
      if (stream >= 19) {
        rdb.raw(bytes(1, 2, 3, 4, 5));
      }
      rdb.raw(bytes(1)).string("group").raw(bytes(5, 6));
      if (stream >= 19) {
        rdb.raw(bytes(1));
      }
      rdb.raw(bytes(1)).raw(new byte[24]).raw(bytes(1));
      rdb.raw(bytes(1)).string("consumer").raw(new byte[stream >= 21 ? 16 : 8]);
      rdb.raw(bytes(1)).raw(new byte[16]);
    }
    // another module's value: "ReJSON-RL" with every module opcode
    rdb.raw(bytes(7)).string("doc").raw(bytes(0x81)).raw(moduleId("ReJSON-RL", 3));
    rdb.raw(bytes(1, 5, 2, 0x40, 0x80, 3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 5))
        .string("json")
        .raw(bytes(0));
    List<RdbReader.Summary> summary = new ArrayList<>();
    List<Seen> seen = read(rdb.eof(), summary);
    RdbReader.Summary result = summary.get(0);
    assertEquals(
        Map.of(
            "string", 3L,
            "list", 4L,
            "set", 3L,
            "zset", 4L,
            "hash", 8L,
            "stream", 3L,
            "ReJSON-RL", 1L),
        result.foreign().snapshot());
    assertEquals(26, seen.size());
    assertEquals(1, result.functions());
    assertEquals(1, result.moduleAux());
    assertEquals(3, seen.get(0).db());
    assertEquals("8.0.0", result.aux().get("redis-ver"));
  }

  @Test
  void read_oldVersionsWithoutCrcAndOldCuckooEncodings_areRead() throws IOException {
    // RDB version 4 has no CRC; a cuckoo filter of encoding version 3 (no numDeletes, bucket
    // size, iterations, expansion or per-link numBuckets): RedisBloom's defaults apply
    byte[] slots = new byte[8];
    slots[0] = 7;
    Rdb rdb = Rdb.of(4);
    rdb.raw(bytes(7)).string("old").raw(bytes(0x81)).raw(moduleId("MBbloomCF", 3));
    rdb.raw(bytes(2, 1, 2, 4, 2, 1)).raw(bytes(5, 8)).raw(slots).raw(bytes(0));
    byte[] file = rdb.raw(bytes(0xff)).bytes();
    List<Seen> seen = read(file, new ArrayList<>());
    RedisCuckooFilter<byte[]> filter = seen.get(0).filter();
    assertEquals(2, filter.bucketSize());
    assertEquals(4, filter.baseBucketCount());
    assertEquals(1, filter.size());
    assertArrayEquals(slots, filter.linkSlots(0));
  }

  @Test
  void unconsumed_afterTheRdb_givesWhatFollows() throws IOException {
    byte[] rdb = recordedRdb();
    byte[] withMark = Arrays.copyOf(rdb, rdb.length + 3);
    withMark[rdb.length] = 'E';
    RdbReader reader = new RdbReader(new ByteArrayInputStream(withMark), 16);
    reader.read((db, key, expireAt, filter) -> {});
    assertArrayEquals(new byte[] {'E', 0, 0}, reader.unconsumed());
  }

  static byte[] moduleId(String name, int encodingVersion) {
    String characters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    long id = 0;
    for (char c : name.toCharArray()) {
      id = (id << 6) | characters.indexOf(c);
    }
    id = (id << 10) | encodingVersion;
    byte[] out = new byte[8];
    for (int i = 0; i < 8; i++) {
      out[i] = (byte) (id >>> (56 - 8 * i));
    }
    return out;
  }

  static byte[] bytes(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (byte) values[i];
    }
    return out;
  }

  /** Writes RDB bytes for tests: a header, raw bytes and strings, then EOF and the CRC. */
  static final class Rdb {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    static Rdb of(int version) {
      Rdb rdb = new Rdb();
      rdb.out.writeBytes(String.format("REDIS%04d", version).getBytes(StandardCharsets.US_ASCII));
      return rdb;
    }

    Rdb raw(byte[] bytes) {
      out.writeBytes(bytes);
      return this;
    }

    Rdb string(String text) {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      if (bytes.length < 64) {
        out.write(bytes.length);
      } else {
        out.write(0x40 | (bytes.length >>> 8));
        out.write(bytes.length & 0xff);
      }
      out.writeBytes(bytes);
      return this;
    }

    byte[] bytes() {
      return out.toByteArray();
    }

    byte[] eof() {
      out.write(0xff);
      byte[] body = out.toByteArray();
      long crc = Crc64.of(body, 0, body.length);
      for (int i = 0; i < 8; i++) {
        out.write((int) (crc >>> (8 * i)));
      }
      return out.toByteArray();
    }
  }
}
