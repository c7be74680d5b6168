package dev.cuckoo;

import static dev.cuckoo.RedisChainKnownAnswerTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The compact form of a small RedisBloom chain against the same chain built as a {@link RedisChain}
 * (the form every filter had before): every reply, every counter, the SCANDUMP stream and the
 * serialized bytes agree after every step, across the moment the compact form first expands.
 */
class CompactRedisChainTest {

  static List<Long> seeds() {
    List<Long> seeds = new ArrayList<>(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, TestSeeds.seed()));
    for (long i = 0; i < Long.getLong("cuckoo.modelSeeds", 0); i++) {
      seeds.add(100 + i);
    }
    return seeds;
  }

  /** The filter CF.RESERVE makes, and the same chain held as a RedisChain (the reference). */
  private static final class Pair {
    final RedisCuckooFilter<byte[]> compact;
    final RedisCuckooFilter<byte[]> reference;

    Pair(long capacity, int bucketSize, int maxIterations, int expansion) {
      compact = RedisCuckooFilter.reserve(capacity, bucketSize, maxIterations, expansion);
      reference =
          RedisCuckooFilter.chained(
              ItemHashers.redisBytes(),
              RedisChain.create(
                  compact.baseBucketCount(), bucketSize, maxIterations, compact.expansion()));
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void randomOperations_compactAndRedisChain_sameRepliesCountersAndDumps(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int bucketSize = 1 + random.nextInt(4);
    // duplicates of one item need a new link per 2·b copies: keep growth moderate
    int expansion = random.nextInt(4) == 0 ? 0 : 1 << random.nextInt(2);
    long capacity = 2L * bucketSize + random.nextInt(120);
    int maxIterations = 1 + random.nextInt(random.nextBoolean() ? 5 : 100);
    Pair pair = new Pair(capacity, bucketSize, maxIterations, expansion);
    assertTrue(pair.compact.isCompact(), "a small CF.RESERVE starts compact");
    int universe = 20 + random.nextInt(600);
    String context = "seed " + seed + ", " + pair.reference.redisDebug();
    for (int step = 0; step < 3000; step++) {
      int op = random.nextInt(100);
      byte[] item = bytes(Integer.toString(random.nextInt(universe)));
      byte[] other = bytes(Integer.toString(random.nextInt(universe)));
      String at = context + ", step " + step + ", op " + op;
      if (op < 45) {
        assertEquals(pair.reference.tryAdd(item), pair.compact.tryAdd(item), at);
      } else if (op < 55) {
        assertEquals(
            pair.reference.addIfAbsentWithOutcome(item),
            pair.compact.addIfAbsentWithOutcome(item),
            at);
      } else if (op < 75) {
        assertEquals(pair.reference.remove(item), pair.compact.remove(item), at);
      } else if (op < 82) {
        assertEquals(pair.reference.replace(item, other), pair.compact.replace(item, other), at);
      } else if (op < 90) {
        assertEquals(pair.reference.mightContain(item), pair.compact.mightContain(item), at);
        assertEquals(pair.reference.count(item), pair.compact.count(item), at);
      } else if (op < 92) {
        pair.reference.compact();
        pair.compact.compact();
      } else if (op < 93 && random.nextInt(10) == 0) {
        pair.reference.clear();
        pair.compact.clear();
      }
      assertSame(pair, at, step % 50 == 0);
    }
    assertSame(pair, context, true);
  }

  /** Drives a tiny filter through its first expansion, comparing after every add. */
  @Test
  void add_firstExpansion_sameRepliesAndDumpsAsRedisChain() {
    Pair pair = new Pair(4, 2, 20, 1);
    assertTrue(pair.compact.isCompact());
    boolean sawCompactFull = false;
    int i = 0;
    while (pair.reference.linkCount() < 3) {
      byte[] item = bytes("item" + i++);
      boolean wasCompact = pair.compact.isCompact();
      assertEquals(pair.reference.tryAdd(item), pair.compact.tryAdd(item), "add " + i);
      sawCompactFull |= wasCompact && pair.compact.linkCount() == 2;
      assertSame(pair, "add " + i, true);
    }
    assertTrue(sawCompactFull, "the compact form itself expanded");
    assertFalse(pair.compact.isCompact());
  }

  /** A replace whose new item needs a new link expands the compact form as RedisChain grows. */
  @Test
  void replace_newItemNeedsNewLink_expandsAsRedisChain() {
    Pair pair = new Pair(2, 1, 3, 1);
    int i = 0;
    while (pair.compact.isCompact() && i < 10_000) {
      byte[] item = bytes("r" + i++);
      byte[] present = bytes("r0");
      if (pair.compact.size() > 0 && i % 2 == 0) {
        assertEquals(
            pair.reference.replace(present, item), pair.compact.replace(present, item), "at " + i);
      } else {
        assertEquals(pair.reference.tryAdd(item), pair.compact.tryAdd(item), "at " + i);
      }
      assertSame(pair, "at " + i, true);
    }
    assertFalse(pair.compact.isCompact());
  }

  @Test
  void create_expansionZeroFull_returnsFullAndStaysCompact() {
    Pair pair = new Pair(4, 2, 5, 0);
    for (int i = 0; i < 200; i++) {
      byte[] item = bytes("f" + i);
      assertEquals(pair.reference.tryAdd(item), pair.compact.tryAdd(item), "add " + i);
      assertSame(pair, "add " + i, true);
    }
    assertEquals(AddOutcome.FULL, pair.compact.tryAdd(bytes("one more")));
    assertTrue(pair.compact.isCompact());
  }

  @Test
  void readFrom_smallChain_readsBackCompactWithTheSameBytes() throws IOException {
    Pair pair = new Pair(100, 2, 20, 1);
    for (int i = 0; i < 60; i++) {
      pair.compact.add(bytes("x" + i));
    }
    pair.compact.remove(bytes("x3"));
    byte[] written = serialized(pair.compact);
    RedisCuckooFilter<byte[]> read =
        RedisCuckooFilter.readFrom(new ByteArrayInputStream(written), ItemHashers.redisBytes());
    assertTrue(read.isCompact());
    assertArrayEquals(written, serialized(read));
    assertEquals(pair.compact.redisDebug(), read.redisDebug());
  }

  @Test
  void loadDumpChunk_smallChain_loadsCompactWithTheSameDump() {
    RedisCuckooFilter<byte[]> source = new Pair(100, 2, 20, 1).compact;
    for (int i = 0; i < 30; i++) {
      source.add(bytes("d" + i));
    }
    List<ScanDumpChunk> chunks = dump(source);
    RedisCuckooFilter<byte[]> loaded = RedisCuckooFilter.loadDumpHeader(chunks.get(0).data());
    for (ScanDumpChunk chunk : chunks.subList(1, chunks.size())) {
      loaded.loadDumpChunk(chunk.iterator(), chunk.data());
    }
    assertTrue(loaded.isCompact());
    assertDumpsEqual(chunks, dump(loaded), "loaded");
    for (int i = 0; i < 30; i++) {
      assertTrue(loaded.mightContain(bytes("d" + i)));
    }
  }

  @Test
  void sizeInBytes_compact_smallerThanRedisChainAndAsPredicted() {
    Pair pair = new Pair(100, 2, 20, 1);
    assertEquals(RedisCuckooFilter.reservedSizeInBytes(100, 2), pair.compact.sizeInBytes());
    assertTrue(pair.compact.sizeInBytes() * 2 < pair.reference.sizeInBytes());
  }

  private static void assertSame(Pair pair, String at, boolean dumps) {
    RedisCuckooFilter<byte[]> a = pair.reference;
    RedisCuckooFilter<byte[]> b = pair.compact;
    assertEquals(a.redisDebug(), b.redisDebug(), at);
    assertEquals(a.size(), b.size(), at);
    assertEquals(a.deletedCount(), b.deletedCount(), at);
    assertEquals(a.linkCount(), b.linkCount(), at);
    assertEquals(a.redisSize(), b.redisSize(), at);
    assertEquals(a.capacity(), b.capacity(), at);
    assertEquals(a.loadFactor(), b.loadFactor(), at);
    assertEquals(a.expectedFalsePositiveRate(), b.expectedFalsePositiveRate(), at);
    assertEquals(a.falsePositiveRateAtCapacity(), b.falsePositiveRateAtCapacity(), at);
    assertEquals(a.serializedSizeInBytes(), b.serializedSizeInBytes(), at);
    if (dumps) {
      assertArrayEquals(a.dumpHeader(), b.dumpHeader(), at);
      assertDumpsEqual(dump(a), dump(b), at);
      assertArrayEquals(serialized(a), serialized(b), at);
    }
  }

  private static void assertDumpsEqual(List<ScanDumpChunk> a, List<ScanDumpChunk> b, String at) {
    assertEquals(a.size(), b.size(), at);
    for (int i = 0; i < a.size(); i++) {
      assertEquals(a.get(i).iterator(), b.get(i).iterator(), at);
      assertArrayEquals(a.get(i).data(), b.get(i).data(), at);
    }
  }

  private static List<ScanDumpChunk> dump(RedisCuckooFilter<byte[]> filter) {
    List<ScanDumpChunk> chunks = new ArrayList<>();
    for (long it = 0; ; ) {
      ScanDumpChunk chunk = filter.scanDump(it);
      if (chunk.iterator() == 0) {
        return chunks;
      }
      chunks.add(chunk);
      it = chunk.iterator();
    }
  }

  private static byte[] serialized(RedisCuckooFilter<byte[]> filter) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      filter.writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
