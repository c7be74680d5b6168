package dev.cuckoo;

import static dev.cuckoo.FormatTestSupport.bytesOf;
import static dev.cuckoo.FormatTestSupport.read;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The committed golden files, one per scheme of plain single filters: version-1 files must stay
 * readable with the same answers for as long as the library reads version 1, and writing the same
 * filter must give the same bytes (a silent change of the format, the hashing or the mapping fails
 * here). Never regenerate them; see {@link GoldenFileGenerator}.
 */
class GoldenFileTest {

  /**
   * One golden file, with the answers pinned when it was generated: false positives among the 10
   * 000 probes and among the 20 removed items.
   */
  record Golden(
      String name,
      ItemHasher<CharSequence> hasher,
      Supplier<CuckooFilter<CharSequence>> rebuild,
      int probeFalsePositives,
      int removedFalsePositives) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Golden> goldenFiles() {
    return Stream.of(
        new Golden(
            GoldenFilters.STANDARD_FAST_RESOURCE,
            ItemHashers.utf8(),
            GoldenFilters::standardFast,
            8,
            0),
        new Golden(
            GoldenFilters.STANDARD_RESOURCE, ItemHashers.utf8(), GoldenFilters::standard, 9, 0),
        new Golden(
            GoldenFilters.REDISBLOOM_RESOURCE,
            ItemHashers.redisUtf8(),
            GoldenFilters::redisBloom,
            89,
            0));
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = GoldenFileTest.class.getResourceAsStream(name)) {
      assertNotNull(in, name);
      return in.readAllBytes();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goldenFiles")
  void readFrom_goldenFile_answersAsPinned(Golden golden) throws IOException {
    byte[] bytes = resource(golden.name());
    assertEquals(1, bytes[FilterHeader.OFFSET_VERSION], "golden files are version 1 forever");
    CuckooFilter<CharSequence> filter = read(bytes, golden.hasher());
    int kept = GoldenFilters.ADDED - GoldenFilters.REMOVED;
    assertEquals(kept, filter.size());
    for (int i = 0; i < kept; i++) {
      assertTrue(filter.mightContain(GoldenFilters.item(i)), GoldenFilters.item(i));
      assertTrue(filter.count(GoldenFilters.item(i)) >= 1, GoldenFilters.item(i));
    }
    int removedHits = 0;
    for (int i = kept; i < GoldenFilters.ADDED; i++) {
      removedHits += filter.mightContain(GoldenFilters.item(i)) ? 1 : 0;
    }
    assertEquals(golden.removedFalsePositives(), removedHits);
    assertEquals(golden.probeFalsePositives(), GoldenFilters.falsePositives(filter));
  }

  @Test
  void redisCuckooFilterReadFrom_redisBloomGoldenFile_answersAsPinnedAndWritesItBack()
      throws IOException {
    byte[] bytes = resource(GoldenFilters.REDISBLOOM_RESOURCE);
    RedisCuckooFilter<CharSequence> filter =
        RedisCuckooFilter.readFrom(new ByteArrayInputStream(bytes), ItemHashers.redisUtf8());
    assertEquals(1, filter.linkCount());
    assertEquals(0, filter.expansion());
    int kept = GoldenFilters.ADDED - GoldenFilters.REMOVED;
    assertEquals(kept, filter.size());
    for (int i = 0; i < kept; i++) {
      assertTrue(filter.mightContain(GoldenFilters.item(i)), GoldenFilters.item(i));
    }
    int removedHits = 0;
    for (int i = kept; i < GoldenFilters.ADDED; i++) {
      removedHits += filter.mightContain(GoldenFilters.item(i)) ? 1 : 0;
    }
    assertEquals(0, removedHits);
    assertEquals(89, GoldenFilters.falsePositives(filter));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeSingleTo(out, ItemHashers.redisUtf8());
    assertArrayEquals(bytes, out.toByteArray());

    FilterFile<CharSequence> file =
        FilterFile.read(new ByteArrayInputStream(bytes), id -> ItemHashers.redisUtf8());
    assertFalse(file.isChain());
    assertEquals(89, GoldenFilters.falsePositives(file.filter()));
    assertEquals(
        "scheme",
        assertThrows(
                FilterFormatException.class,
                () ->
                    CuckooFilter.readFrom(new ByteArrayInputStream(bytes), ItemHashers.redisUtf8()))
            .field());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goldenFiles")
  void writeTo_sameFilterBuiltAgain_givesGoldenBytes(Golden golden) throws IOException {
    assertArrayEquals(resource(golden.name()), bytesOf(golden.rebuild().get()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goldenFiles")
  void writeTo_goldenFileReadBack_givesSameBytes(Golden golden) throws IOException {
    byte[] bytes = resource(golden.name());
    assertArrayEquals(bytes, bytesOf(read(bytes, golden.hasher())));
  }
}
