package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link FilterImage}: the bytes it writes are those {@link RedisCuckooFilter#writeTo} wrote at the
 * capture, whatever the filter does while the image is written a few regions at a time.
 */
class FilterImageTest {
  /** Fixed seeds and the build's seed ({@link TestSeeds}). */
  static List<Long> seeds() {
    return List.of(1L, 2L, 0x5eedL, TestSeeds.seed());
  }

  private static byte[] serialized(RedisCuckooFilter<?> filter) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeTo(out);
    return out.toByteArray();
  }

  /**
   * Returns a grown filter: two links of 256 KiB and 512 KiB (192 regions), the second half full
   * (unless a third was needed), so that adds soon kick and expand, and deletes compact.
   */
  private static RedisCuckooFilter<byte[]> grownFilter(SplittableRandom random, List<Long> added) {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(1 << 18, 2, 20, 2);
    List<RedisLink> links = filter.redisChain().links();
    while (links.size() < 2
        || (links.size() == 2 && links.get(1).occupied < 0.5 * links.get(1).slots)) {
      long hash = random.nextLong();
      if (filter.addHash(hash)) {
        added.add(hash);
      }
    }
    assertTrue(links.size() >= 2, "links of the grown filter");
    return filter;
  }

  /** Removes a random added item (swapping the last into its place), if any. */
  private static void removeRandom(
      RedisCuckooFilter<byte[]> filter, SplittableRandom random, List<Long> added) {
    if (added.isEmpty()) {
      return;
    }
    int index = random.nextInt(added.size());
    long hash = added.get(index);
    added.set(index, added.get(added.size() - 1));
    added.remove(added.size() - 1);
    assertTrue(filter.removeHash(hash), "an added item is removed");
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void writeTo_filterChangedBetweenRegions_writesCaptureMoment(long seed) throws IOException {
    SplittableRandom random = new SplittableRandom(seed);
    List<Long> added = new ArrayList<>();
    RedisCuckooFilter<byte[]> filter = grownFilter(random, added);
    RedisChain chain = filter.redisChain();
    List<RedisLink> captured = new ArrayList<>(chain.links());
    byte[] expected = serialized(filter);

    FilterImage image = filter.captureImage();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    image.start(out);
    int maxLinks = chain.linkCount();
    long deletesBefore = -1;
    boolean compacted = false;
    boolean more = true;
    while (more) {
      more = image.writeRegions(1 + random.nextInt(4));
      // adds until a new link is made (after a kick path failed and was retraced), then mostly
      // deletes (compaction)
      boolean adding = maxLinks == captured.size();
      for (int op = 0; op < 10_000; op++) {
        if (random.nextInt(10) < (adding ? 9 : 2)) {
          long hash = random.nextLong();
          if (filter.addHash(hash)) {
            added.add(hash);
          }
        } else {
          deletesBefore = filter.deletedCount();
          removeRandom(filter, random, added);
          compacted |= filter.deletedCount() < deletesBefore;
        }
        maxLinks = Math.max(maxLinks, filter.linkCount());
      }
    }
    image.finish();
    image.close();

    String context = "seed " + seed;
    assertTrue(maxLinks > captured.size(), context + ": the filter expanded during the image");
    assertTrue(compacted, context + ": a delete compacted the chain during the image");
    assertArrayEquals(expected, out.toByteArray(), context + ": the bytes of the capture moment");
    for (RedisLink link : captured) {
      assertNull(link.table.image, context + ": closed images leave no hook");
    }
    assertEquals(
        filter.redisChain().links().size(), filter.linkCount(), "the live filter is intact");
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void writeTo_clearDuringImage_writesCaptureMoment(long seed) throws IOException {
    assertImageAcross(seed, RedisCuckooFilter::clear);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void writeTo_compactDuringImage_writesCaptureMoment(long seed) throws IOException {
    assertImageAcross(seed, RedisCuckooFilter::compact);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void writeTo_loadChunkDuringImage_writesCaptureMoment(long seed) throws IOException {
    SplittableRandom random = new SplittableRandom(seed);
    assertImageAcross(
        seed,
        filter -> {
          ScanDumpChunk firstLink = filter.scanDump(filter.scanDump(0).iterator());
          byte[] chunk = new byte[firstLink.data().length];
          random.nextBytes(chunk);
          filter.loadDumpChunk(firstLink.iterator(), chunk);
        });
  }

  /**
   * Writes the image of a grown filter a few regions at a time with {@code change} applied after
   * the first ten, and checks that it holds the bytes of the capture.
   */
  private static void assertImageAcross(long seed, Consumer<RedisCuckooFilter<byte[]>> change)
      throws IOException {
    RedisCuckooFilter<byte[]> filter = grownFilter(new SplittableRandom(seed), new ArrayList<>());
    byte[] expected = serialized(filter);
    FilterImage image = filter.captureImage();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    image.start(out);
    image.writeRegions(10);
    change.accept(filter);
    assertTrue(image.savedBytes() > 0, "seed " + seed + ": regions were copied aside");
    image.finish();
    image.close();
    assertArrayEquals(expected, out.toByteArray(), "seed " + seed);
  }

  @Test
  void writeTo_unchangedFilter_copiesNothingAside() throws IOException {
    RedisCuckooFilter<byte[]> filter = grownFilter(new SplittableRandom(7), new ArrayList<>());
    byte[] expected = serialized(filter);
    FilterImage image = filter.captureImage();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    image.writeTo(out);
    assertEquals(0, image.savedBytes());
    image.close();
    assertArrayEquals(expected, out.toByteArray());
  }

  @Test
  void writeTo_oneChangedRegion_copiesOnlyThatRegion() throws IOException {
    RedisCuckooFilter<byte[]> filter = grownFilter(new SplittableRandom(8), new ArrayList<>());
    FilterImage image = filter.captureImage();
    image.start(new ByteArrayOutputStream());
    RedisLink first = filter.redisChain().links().get(0);
    // three slots in the last region of link 0, which the image has not written
    long lastBucket = first.bucketCount - 1;
    for (int slot = 0; slot < 2; slot++) {
      first.table.set(lastBucket, slot, 1 + slot);
    }
    first.table.set(lastBucket - 1, 0, 9);
    assertEquals(TableImage.REGION_BYTES, image.savedBytes());
    image.close();
  }

  @Test
  void writeTo_compactFilter_writesCaptureMoment() throws IOException {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(1000, 2, 20, 1);
    filter.addHash(1);
    byte[] expected = serialized(filter);
    FilterImage image = filter.captureImage();
    filter.addHash(2);
    filter.removeHash(1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    image.writeTo(out);
    image.close();
    assertArrayEquals(expected, out.toByteArray());
  }

  @Test
  void captureImage_imageOpen_refused() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(1 << 18, 2, 20, 2);
    FilterImage image = filter.captureImage();
    assertThrows(IllegalStateException.class, filter::captureImage);
    image.close();
    filter.captureImage().close();
  }

  @Test
  void captureImage_negativeBudget_refusedNamingIt() {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(1 << 18, 2, 20, 2);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> filter.captureImage(-1));
    assertTrue(e.getMessage().contains("copyBudgetBytes: -1"), e.getMessage());
    // nothing was attached: an image can still be captured
    filter.captureImage(0).close();
  }

  @Test
  void writeTo_twice_refused() throws IOException {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(1 << 18, 2, 20, 2);
    FilterImage image = filter.captureImage();
    image.writeTo(new ByteArrayOutputStream());
    assertThrows(IllegalStateException.class, () -> image.writeTo(new ByteArrayOutputStream()));
    image.close();
  }
}
