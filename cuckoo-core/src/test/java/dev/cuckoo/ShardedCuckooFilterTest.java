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

  @Test
  void readFrom_shardOfAnotherStandardScheme_throwsNamingTheShard() throws IOException {
    byte[] bytes = bytes(builder(100, 0).build());
    int shardScheme = ShardedCuckooFilter.HEADER_BYTES + FilterHeader.OFFSET_SCHEME;
    assertEquals(Scheme.STANDARD_FAST.id(), bytes[shardScheme]);
    // the one shard as a STANDARD filter, which no sharded filter is made of; its CRC still valid
    bytes[shardScheme] = (byte) Scheme.STANDARD.id();
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(
        bytes,
        ShardedCuckooFilter.HEADER_BYTES,
        bytes.length - 4 - ShardedCuckooFilter.HEADER_BYTES);
    java.nio.ByteBuffer.wrap(bytes)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .putInt(bytes.length - 4, (int) crc.getValue());
    FilterFormatException e = readCorrupt(bytes);
    assertEquals("shards[0]", e.field());
    assertTrue(e.getMessage().contains("expected: the STANDARD_FAST scheme"), e.getMessage());
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

  /**
   * Returns an item whose hash falls in {@code shard} of {@code filter}, named from {@code prefix}.
   */
  private static String itemInShard(
      ShardedCuckooFilter<CharSequence> filter, int shard, String prefix) {
    for (int i = 0; ; i++) {
      String item = prefix + i;
      if (ShardedCuckooFilter.shardOf(filter.hasher().hash(item), filter.shardBits()) == shard) {
        return item;
      }
    }
  }

  @Test
  void replace_acrossShards_movesTheItem() {
    ShardedCuckooFilter<CharSequence> filter = builder(1_000, 2).build();
    String old = itemInShard(filter, 1, "old");
    String replacement = itemInShard(filter, 3, "new");
    assertTrue(filter.add(old));
    assertTrue(filter.replace(old, replacement));
    assertEquals(0, filter.shard(1).size());
    assertEquals(1, filter.shard(3).size());
    assertTrue(filter.mightContain(replacement));
    assertEquals(0, filter.count(old));
    assertEquals(1, filter.size());
  }

  @Test
  void replace_oldItemAbsent_returnsFalseAndChangesNothing() throws IOException {
    ShardedCuckooFilter<CharSequence> filter = builder(1_000, 2).build();
    for (int i = 0; i < 500; i++) {
      filter.add("item" + i);
    }
    byte[] before = bytes(filter);
    String absent = itemInShard(filter, 0, "absent");
    while (filter.mightContain(absent)) {
      absent = itemInShard(filter, 0, absent);
    }
    assertFalse(filter.replace(absent, itemInShard(filter, 2, "new")));
    assertFalse(filter.replace(absent, itemInShard(filter, 0, "new")));
    assertArrayEquals(before, bytes(filter));
  }

  @Test
  void replace_newItemsShardFull_returnsFalseAndChangesNothing() throws IOException {
    ShardedCuckooFilter<CharSequence> filter = builder(100, 1).build();
    String old = itemInShard(filter, 0, "old");
    assertTrue(filter.add(old));
    int i = 0;
    while (filter.shard(1).addHash(filter.hasher().hash(itemInShard(filter, 1, "fill" + i++)))) {
      assertTrue(i < 100_000, "shard 1 never full");
    }
    String replacement = itemInShard(filter, 1, "fill" + (i - 1));
    byte[] before = bytes(filter);
    assertFalse(filter.replace(old, replacement));
    assertArrayEquals(before, bytes(filter));
    assertTrue(filter.mightContain(old));
  }

  @Test
  void properties_asMembershipFilter_followTheShards() {
    ShardedCuckooFilter<CharSequence> filter = builder(40_000, 3).build();
    for (int i = 0; i < 20_000; i++) {
      filter.add("item" + i);
    }
    CuckooFilter<CharSequence> shard = filter.shard(0);
    long slots = 8 * shard.bucketCount() * shard.bucketSize();
    assertEquals(40_000, filter.capacity());
    assertEquals(20_000.0 / slots, filter.loadFactor(), 1e-12);
    assertEquals(shard.bucketSize(), filter.bucketSize());
    assertEquals(shard.maxKicks(), filter.maxKicks());
    assertEquals(Scheme.STANDARD_FAST, filter.scheme());
    assertEquals(
        Sizing.falsePositiveRate(shard.fingerprintRange(), shard.bucketSize(), 40_000.0 / slots),
        filter.falsePositiveRateAtCapacity(),
        1e-15);
    assertTrue(filter.falsePositiveRateAtCapacity() <= 0.001, "target rate");
    assertTrue(filter.expectedFalsePositiveRate() < filter.falsePositiveRateAtCapacity());
    long shardBytes = 0;
    for (int s = 0; s < 8; s++) {
      shardBytes += filter.shard(s).sizeInBytes();
    }
    assertTrue(filter.sizeInBytes() > shardBytes, "shards and the filter's own objects");
    filter.clear();
    assertTrue(filter.isEmpty());
    assertFalse(filter.mightContain("item1"));
  }

  /**
   * Random add, addIfAbsentWithOutcome, remove, replace and count through {@link MembershipFilter}
   * against a multiset, on shards small enough to fill: no false negatives, size equal to the
   * model, and a FULL or failed operation changes nothing.
   */
  @Test
  void randomOperations_asMembershipFilter_matchModel() {
    long seed = SEED;
    SplittableRandom random = new SplittableRandom(seed);
    MembershipFilter<CharSequence> filter = builder(400, 2).build();
    java.util.Map<String, Integer> model = new java.util.HashMap<>();
    List<String> present = new ArrayList<>();
    int full = 0;
    int movedAcrossShards = 0;
    for (int step = 0; step < 200_000; step++) {
      String where = "seed " + seed + " step " + step;
      String item = "k" + random.nextInt(1_500);
      int op = random.nextInt(10);
      if (op < 3) {
        if (filter.add(item)) {
          model.merge(item, 1, Integer::sum);
          present.add(item);
        }
      } else if (op < 6) {
        boolean maybe = filter.mightContain(item);
        long size = filter.size();
        AddOutcome outcome = filter.addIfAbsentWithOutcome(item);
        assertEquals(maybe ? AddOutcome.ALREADY_PRESENT : outcome, outcome, where);
        if (outcome == AddOutcome.ADDED) {
          model.merge(item, 1, Integer::sum);
          present.add(item);
        } else {
          full += outcome == AddOutcome.FULL ? 1 : 0;
          assertEquals(size, filter.size(), where);
        }
      } else if (op < 8 && !present.isEmpty()) {
        String victim = present.remove(random.nextInt(present.size()));
        assertTrue(filter.remove(victim), where);
        model.merge(victim, -1, Integer::sum);
      } else if (op < 9 && !present.isEmpty()) {
        int index = random.nextInt(present.size());
        String old = present.get(index);
        long size = filter.size();
        if (filter.replace(old, item)) {
          long hashes = filter.hasher().hash(old) ^ filter.hasher().hash(item);
          movedAcrossShards += hashes >>> 62 != 0 ? 1 : 0;
          present.set(index, item);
          model.merge(old, -1, Integer::sum);
          model.merge(item, 1, Integer::sum);
        } else {
          assertTrue(filter.mightContain(old), where);
        }
        assertEquals(size, filter.size(), where);
      } else {
        assertTrue(filter.count(item) >= model.getOrDefault(item, 0), where);
      }
      assertEquals(present.size(), filter.size(), where);
      if (step % 1000 == 0) {
        for (String kept : present) {
          assertTrue(filter.mightContain(kept), where + " " + kept);
        }
      }
    }
    assertTrue(full > 100, "FULL outcomes: " + full);
    assertTrue(movedAcrossShards > 1000, "replaces across shards: " + movedAcrossShards);
  }
}
