package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ShardedCuckooFilterTest {
  private static final long SEED = TestSeeds.seed();

  private static ShardedCuckooFilter.Builder<CharSequence> builder(long items, int shardBits) {
    return ShardedCuckooFilter.builder(ItemHashers.utf8())
        .expectedItems(items)
        .falsePositiveRate(0.001)
        .shardBits(shardBits);
  }

  private static long[] randomHashes(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] hashes = new long[count];
    for (int i = 0; i < count; i++) {
      hashes[i] = random.nextLong();
    }
    return hashes;
  }

  private static byte[] bytes(ShardedCuckooFilter<?> filter) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeTo(out);
    return out.toByteArray();
  }

  @Test
  void shardOf_topBits_knownAnswers() {
    assertEquals(0, ShardedCuckooFilter.shardOf(-1L, 0));
    assertEquals(1, ShardedCuckooFilter.shardOf(0x8000_0000_0000_0000L, 1));
    assertEquals(15, ShardedCuckooFilter.shardOf(0xF123_4567_89AB_CDEFL, 4));
    assertEquals(0xF12, ShardedCuckooFilter.shardOf(0xF123_4567_89AB_CDEFL, 12));
    assertEquals(0xFFFF, ShardedCuckooFilter.shardOf(-1L, 16));
    assertEquals(0, ShardedCuckooFilter.shardOf(0x7FFF_FFFF_FFFF_FFFFL, 1));
  }

  @Test
  void addAllHashes_twoThreads_sameBytesAsOneThread_noFalseNegatives() throws IOException {
    long[] hashes = randomHashes(200_000, SEED);
    ShardedCuckooFilter<CharSequence> parallel = builder(200_000, 4).build();
    ShardedCuckooFilter<CharSequence> sequential = builder(200_000, 4).build();
    assertEquals(0, parallel.addAllHashes(hashes, 0, hashes.length, 2), "seed " + SEED);
    for (long hash : hashes) {
      assertTrue(sequential.addHash(hash), "seed " + SEED);
    }
    assertArrayEquals(bytes(sequential), bytes(parallel), "seed " + SEED);
    for (long hash : hashes) {
      assertTrue(parallel.mightContainHash(hash), "seed " + SEED);
    }
    assertEquals(200_000, parallel.size());
  }

  @Test
  void falsePositiveRate_likeOneFilter_withinBinomialBound() {
    int items = 300_000;
    ShardedCuckooFilter<CharSequence> filter = builder(items, 3).build();
    assertEquals(0, filter.addAllHashes(randomHashes(items, SEED), 0, items, 2));
    CuckooFilter<CharSequence> single =
        CuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(items)
            .falsePositiveRate(0.001)
            .build();
    // the same fingerprint width as one filter for the shard's items: the same rate
    assertEquals(single.fingerprintBits(), filter.shard(0).fingerprintBits());
    long[] probes = randomHashes(1_000_000, SEED + 1);
    long falsePositives = 0;
    for (long probe : probes) {
      if (filter.mightContainHash(probe)) {
        falsePositives++;
      }
    }
    double rate = filter.expectedFalsePositiveRate();
    double mean = probes.length * rate;
    double bound = mean + 5 * Math.sqrt(mean) + 1;
    assertTrue(
        falsePositives <= bound,
        falsePositives + " > " + bound + " (rate " + rate + ", seed " + SEED + ")");
    assertTrue(rate <= 0.001, "rate " + rate);
  }

  @Test
  void writeTo_readFrom_roundTrip() throws IOException {
    ShardedCuckooFilter<CharSequence> filter = builder(5_000, 2).build();
    for (int i = 0; i < 5_000; i++) {
      assertTrue(filter.add("item-" + i));
    }
    byte[] bytes = bytes(filter);
    assertEquals(filter.serializedSizeInBytes(), bytes.length);
    ShardedCuckooFilter<CharSequence> read =
        ShardedCuckooFilter.readFrom(new ByteArrayInputStream(bytes), ItemHashers.utf8());
    assertEquals(4, read.shardCount());
    assertEquals(5_000, read.size());
    assertEquals(5_000, read.expectedItems());
    for (int i = 0; i < 5_000; i++) {
      assertTrue(read.mightContain("item-" + i));
    }
    assertArrayEquals(bytes, bytes(read));
  }

  /** Golden bytes: a silent change of the format, the routing or the sizing fails here. */
  @Test
  void golden_header_and_sha256OfTheWholeFile() throws IOException {
    ShardedCuckooFilter<CharSequence> filter = builder(1_000, 2).build();
    for (int i = 0; i < 1_000; i++) {
      filter.add("golden-" + i);
    }
    byte[] bytes = bytes(filter);
    assertEquals(
        "89434b5348415244" + "0100" + "02" + "00" + "01000000" + "e803000000000000",
        HexFormat.of().formatHex(bytes, 0, 24));
    assertEquals(GOLDEN_LENGTH, bytes.length);
    // SHA-256, not a CRC32C of the file: each shard ends with the CRC32C of its own bytes, and
    // after a block followed by its own CRC a CRC's state depends on the block's length only
    assertEquals(GOLDEN_SHA256, ChainFormatTest.sha256(bytes));
    assertEquals(GOLDEN_SHARD_SIZES, Arrays.toString(sizes(filter)));
  }

  private static final int GOLDEN_LENGTH = 3368;
  private static final String GOLDEN_SHA256 =
      "55e845e257daefe9ac401e1233340d4ff3ff8479345007c85d1ab7bb1058c07d";
  private static final String GOLDEN_SHARD_SIZES = "[260, 243, 246, 251]";

  private static long[] sizes(ShardedCuckooFilter<?> filter) {
    long[] sizes = new long[filter.shardCount()];
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = filter.shard(i).size();
    }
    return sizes;
  }

  @Test
  void of_shardsBuiltSeparately_equalTheWholeBuild() throws IOException {
    ShardedCuckooFilter.Builder<CharSequence> builder = builder(20_000, 3);
    long[] hashes = randomHashes(20_000, SEED);
    List<CuckooFilter<CharSequence>> shards = new ArrayList<>();
    for (int s = 0; s < 8; s++) {
      CuckooFilter<CharSequence> shard = builder.buildShard();
      for (long hash : hashes) {
        if (ShardedCuckooFilter.shardOf(hash, 3) == s) {
          shard.addHash(hash);
        }
      }
      shards.add(shard);
    }
    ShardedCuckooFilter<CharSequence> whole = builder.build();
    whole.addAllHashes(hashes, 0, hashes.length, 1);
    assertArrayEquals(bytes(whole), bytes(ShardedCuckooFilter.of(builder, shards)));

    shards.set(5, builder(40_000, 3).buildShard());
    IllegalArgumentException wrong =
        assertThrows(IllegalArgumentException.class, () -> ShardedCuckooFilter.of(builder, shards));
    assertTrue(wrong.getMessage().startsWith("shards[5]: "), wrong.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> ShardedCuckooFilter.of(builder, shards.subList(0, 4)));
  }

  @Test
  void readFrom_corruptOrMismatched_raisesFilterFormatException() throws IOException {
    ShardedCuckooFilter<CharSequence> filter = builder(1_000, 1).build();
    filter.add("x");
    byte[] bytes = bytes(filter);

    FilterFormatException hasher =
        assertThrows(
            FilterFormatException.class,
            () ->
                ShardedCuckooFilter.readFrom(new ByteArrayInputStream(bytes), ItemHashers.bytes()));
    assertEquals("hasherId", hasher.field());

    byte[] flipped = bytes.clone();
    flipped[10] ^= 1;
    assertEquals("crc32c", readCorrupt(flipped).field());

    byte[] truncated = Arrays.copyOf(bytes, bytes.length - 10);
    assertTrue(readCorrupt(truncated).field().startsWith("shards[1]"));

    byte[] shardFlip = bytes.clone();
    shardFlip[bytes.length - 100] ^= 4;
    FilterFormatException inShard = readCorrupt(shardFlip);
    assertTrue(inShard.field().startsWith("shards[1]."), inShard.getMessage());

    assertEquals("header", readCorrupt(Arrays.copyOf(bytes, 5)).field());
    byte[] single = new byte[100];
    assertEquals("magic", readCorrupt(single).field());
  }

  private static FilterFormatException readCorrupt(byte[] bytes) {
    return assertThrows(
        FilterFormatException.class,
        () -> ShardedCuckooFilter.readFrom(new ByteArrayInputStream(bytes), ItemHashers.utf8()));
  }

  @Test
  void builder_badArguments_nameParameterAndRange() {
    assertEquals(
        "shardBits: 17 (expected: 0 <= shardBits <= 16)",
        assertThrows(IllegalArgumentException.class, () -> builder(10, 0).shardBits(17))
            .getMessage());
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> builder(10, 0).seed(0))
            .getMessage()
            .startsWith("seed: 0"));
    assertThrows(
        IllegalStateException.class, () -> ShardedCuckooFilter.builder(ItemHashers.utf8()).build());
    assertFalse(builder(10, 0).build().mightContain("absent"));
  }
}
