package dev.cuckoo.server.persist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compressed form of a full-sync transfer: it loads to the same filters as the plain one,
 * mostly empty tables shrink a hundredfold, and any damage (a flipped byte anywhere, a cut, a lying
 * length) is a refused transfer ({@link IOException}), never another exception, a hang or a
 * different filter.
 */
class TransferCompressionTest {
  @TempDir Path dir;

  private Path rawTransfer(Keyspace keyspace, int keys, long capacity, int items)
      throws IOException {
    for (int k = 0; k < keys; k++) {
      RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(capacity, 2, 20, 1);
      for (int i = 0; i < items; i++) {
        filter.tryAdd(("k" + k + ":" + i).getBytes(StandardCharsets.US_ASCII));
      }
      keyspace.put(new Key(("key" + k).getBytes(StandardCharsets.US_ASCII)), filter);
    }
    List<Key> listed = keyspace.keysAcross(() -> {});
    Path raw = dir.resolve("raw-" + keys + "-" + capacity);
    Transfer.write(raw, 77, listed, keyspace, () -> 77);
    return raw;
  }

  private static byte[] bytes(RedisCuckooFilter<byte[]> filter) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeTo(out);
    return out.toByteArray();
  }

  private static Transfer.Loaded load(byte[] transfer, Keyspace into) throws IOException {
    InputStream in = new ByteArrayInputStream(transfer);
    return Transfer.load(in, transfer.length, into);
  }

  @Test
  void compressed_loadsTheSameFiltersAsPlain_andShrinksEmptyTables() throws IOException {
    Keyspace source = new Keyspace();
    Path raw = rawTransfer(source, 20, 1 << 20, 100);
    Path compressed = dir.resolve("compressed");
    Transfer.compress(raw, compressed);
    long rawSize = Files.size(raw);
    long compressedSize = Files.size(compressed);
    System.out.println("transfer of 20 tables of 2^20 slots: " + rawSize + " -> " + compressedSize);
    assertTrue(compressedSize * 100 < rawSize, rawSize + " -> " + compressedSize);

    Keyspace plain = new Keyspace();
    Keyspace unpacked = new Keyspace();
    Transfer.Loaded fromPlain = load(Files.readAllBytes(raw), plain);
    Transfer.Loaded fromCompressed = load(Files.readAllBytes(compressed), unpacked);
    assertEquals(20, fromCompressed.keys());
    assertEquals(fromPlain.start(), fromCompressed.start());
    assertEquals(77, fromCompressed.start());
    for (int k = 0; k < 20; k++) {
      Key key = new Key(("key" + k).getBytes(StandardCharsets.US_ASCII));
      assertArrayEquals(bytes(source.stored(key)), bytes(unpacked.stored(key)), "key" + k);
      assertArrayEquals(bytes(plain.stored(key)), bytes(unpacked.stored(key)), "key" + k);
    }
  }

  @Test
  void compressed_damagedAnywhere_isRefusedAsDamaged() throws IOException {
    long seed = System.nanoTime();
    System.out.println("seed " + seed);
    Random random = new Random(seed);
    Keyspace source = new Keyspace();
    Path raw = rawTransfer(source, 5, 4096, 1500);
    Path compressed = dir.resolve("compressed");
    Transfer.compress(raw, compressed);
    byte[] good = Files.readAllBytes(compressed);
    int refused = 0;
    for (int trial = 0; trial < 400; trial++) {
      byte[] bad = good.clone();
      int at = trial < 40 ? trial : random.nextInt(bad.length);
      bad[at] ^= (byte) (1 + random.nextInt(255));
      Keyspace into = new Keyspace();
      try {
        load(bad, into);
      } catch (IOException expected) {
        refused++;
        continue;
      }
      // a flip that still decodes to the same bytes (a match offset moved to an identical run of
      // empty slots) is harmless; any other must have been refused
      for (int k = 0; k < 5; k++) {
        Key key = new Key(("key" + k).getBytes(StandardCharsets.US_ASCII));
        assertArrayEquals(
            bytes(source.stored(key)),
            bytes(into.stored(key)),
            "seed " + seed + ": a flip at " + at + " loaded a different key" + k);
      }
    }
    System.out.println("flips refused: " + refused + " of 400 (the others decoded to the same)");
    assertTrue(refused > 300, "refused " + refused);
    for (int cut : new int[] {0, 7, 8, 15, 16, 17, good.length / 2, good.length - 1}) {
      byte[] shorter = Arrays.copyOf(good, cut);
      assertThrows(IOException.class, () -> load(shorter, new Keyspace()), "cut at " + cut);
    }
  }

  @Test
  void compressed_lyingRawLength_isRefused() throws IOException {
    Path raw = rawTransfer(new Keyspace(), 3, 1024, 10);
    Path compressed = dir.resolve("compressed");
    Transfer.compress(raw, compressed);
    byte[] good = Files.readAllBytes(compressed);
    for (long declared : new long[] {-1, 0, Files.size(raw) - 1, Files.size(raw) + 1, 1L << 62}) {
      byte[] bad = good.clone();
      ByteBuffer.wrap(bad, 8, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(declared);
      IOException e =
          assertThrows(IOException.class, () -> load(bad, new Keyspace()), "declared " + declared);
      assertTrue(e.getMessage().startsWith("damaged transfer"), e.getMessage());
    }
  }
}
