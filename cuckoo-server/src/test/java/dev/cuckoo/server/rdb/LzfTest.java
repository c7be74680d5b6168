package dev.cuckoo.server.rdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LzfTest {
  private static byte[] hex(String text) {
    return HexFormat.of().parseHex(text.replace(" ", ""));
  }

  @Test
  void compress_128Zeros_isRedisOutput() {
    assertArrayEquals(hex("01 00 00 e0 73 00 01 00 00"), Lzf.compress(new byte[128], 124));
  }

  @Test
  void compress_doesNotFit_returnsNull() {
    byte[] random = new byte[64];
    new Random(7).nextBytes(random);
    assertNull(Lzf.compress(random, 60));
    // 128 zeros take 9 bytes, but the limit is checked as Redis checks it: 9 does not fit in 9
    assertNull(Lzf.compress(new byte[128], 9));
  }

  @Test
  void compress_referenceToPositionZero_isNotUsed() {
    // "abcabc…": Redis never refers back to the input's first byte, so the first 'abc' repeats
    // as literals up to position 1's match
    byte[] input = "abcabcabcabcabcabcabcabc".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] compressed = Lzf.compress(input, input.length);
    assertArrayEquals(input, Lzf.decompress(compressed, 0, compressed.length, input.length));
    assertEquals(3, compressed[0], "a literal run of 4 bytes: 'abca' before the first reference");
  }

  @Test
  void compressThenDecompress_randomInputs_roundTrip() {
    long seed = System.nanoTime();
    System.out.println("LzfTest seed " + seed);
    Random random = new Random(seed);
    for (int round = 0; round < 2000; round++) {
      byte[] input = new byte[1 + random.nextInt(3000)];
      int alphabet = 1 + random.nextInt(random.nextBoolean() ? 4 : 256);
      for (int i = 0; i < input.length; i++) {
        input[i] = (byte) (random.nextInt(8) == 0 ? random.nextInt(256) : random.nextInt(alphabet));
      }
      byte[] compressed = Lzf.compress(input, input.length + input.length / 16 + 64);
      byte[] back = Lzf.decompress(compressed, 0, compressed.length, input.length);
      assertArrayEquals(input, back, "seed " + seed + " round " + round);
    }
  }

  @Test
  void decompress_literalAndReferences_knownAnswer() {
    // literal "ab", then 3 bytes from 2 back ("aba"), then a long reference of 12 bytes 1 back
    byte[] plain = Lzf.decompress(hex("01 61 62 20 01 e0 03 00"), 0, 8, 17);
    assertEquals(
        "ababaaaaaaaaaaaaa", new String(plain, java.nio.charset.StandardCharsets.US_ASCII));
  }

  @Test
  void decompress_malformed_throwsContentError() {
    // literal run longer than the input
    assertBad(hex("05 61 62"), 6);
    // reference before the output's start
    assertBad(hex("20 05"), 3);
    // long reference without its length byte, and without its offset byte
    assertBad(hex("00 61 e0"), 10);
    assertBad(hex("00 61 20"), 4);
    // more bytes than declared, and fewer
    assertBad(hex("01 61 62"), 1);
    assertBad(hex("01 61 62"), 3);
    // a declared length the input cannot reach is refused before allocating
    DumpPayloadException huge =
        assertThrows(DumpPayloadException.class, () -> Lzf.decompress(hex("00 61"), 0, 2, 1 << 30));
    assertTrue(huge.getMessage().contains("1073741824"), huge.getMessage());
  }

  private static void assertBad(byte[] input, int plainLength) {
    DumpPayloadException e =
        assertThrows(
            DumpPayloadException.class, () -> Lzf.decompress(input, 0, input.length, plainLength));
    assertEquals(DumpPayloadException.Kind.CONTENT, e.kind());
    assertEquals("LZF data", e.field());
  }

  @Test
  void decompress_randomGarbage_onlyThrowsContentError() {
    long seed = System.nanoTime();
    System.out.println("LzfTest garbage seed " + seed);
    Random random = new Random(seed);
    int decoded = 0;
    for (int round = 0; round < 20000; round++) {
      byte[] input = new byte[1 + random.nextInt(40)];
      random.nextBytes(input);
      int plain = random.nextInt(200);
      try {
        assertEquals(plain, Lzf.decompress(input, 0, input.length, plain).length);
        decoded++;
      } catch (DumpPayloadException e) {
        assertEquals(DumpPayloadException.Kind.CONTENT, e.kind(), "seed " + seed);
      }
    }
    assertTrue(decoded < 20000, "seed " + seed);
  }

  /** Compresses on a new thread, whose table is fresh. */
  private static byte[] compressFresh(byte[] input, int max) throws InterruptedException {
    byte[][] result = new byte[1][];
    Thread thread = new Thread(() -> result[0] = Lzf.compress(input, max));
    thread.start();
    thread.join();
    return result[0];
  }

  @Test
  void compress_reusedTable_sameBytesAsAFreshTable_alsoAcrossTheWrap() throws Exception {
    long seed = System.nanoTime();
    java.util.Random random = new java.util.Random(seed);
    for (int round = 0; round < 300; round++) {
      if (round == 150) {
        // the next calls' bases pass Integer.MAX_VALUE: the table is cleared and starts over
        Lzf.tableBaseForTests(Integer.MAX_VALUE - 5000);
      }
      // small alphabets and repeats, so that matches (and stale candidates) are common
      byte[] input = new byte[1 + random.nextInt(3000)];
      int alphabet = 1 + random.nextInt(4);
      for (int i = 0; i < input.length; i++) {
        input[i] =
            random.nextInt(8) == 0 && i > 10
                ? input[i - 1 - random.nextInt(10)]
                : (byte) random.nextInt(alphabet);
      }
      int max = input.length + random.nextInt(16);
      org.junit.jupiter.api.Assertions.assertArrayEquals(
          compressFresh(input, max),
          Lzf.compress(input, max),
          "seed " + seed + ", round " + round + ", " + input.length + " bytes");
    }
  }
}
