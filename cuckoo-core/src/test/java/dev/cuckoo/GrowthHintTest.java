package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link ScalableCuckooFilter.Builder#expectedFinalItems}: the split of the false-positive budget
 * by {@link GrowthPlan}, measured against one filter sized for the final count.
 */
class GrowthHintTest {

  /** Item {@code i} of a run: distinct for distinct {@code i} (mix is a bijection). */
  static long item(long seed, long i) {
    return Sizing.mix(seed + i);
  }

  /**
   * Grown 1000-fold from 1000 items to the hint: no false negatives at 1x, 10x, 100x and 1000x,
   * measured rate within the binomial bound of the target, and at most 1.2 times the bits per item
   * of one filter sized for 10^6 items.
   */
  @Test
  void add_grown1000FoldToHint_withinRateAndBitsTargets() {
    for (double target : new double[] {0.01, 0.001}) {
      Result r = grow(TestSeeds.seed(), 1000, 1_000_000, 1_000_000, target);
      assertTrue(r.falsePositives <= allowedFalsePositives(r.probes, target), r.toString());
      assertTrue(r.bound <= target, r.toString());
      assertTrue(r.bitsRatio() <= 1.2, r.toString());
    }
  }

  /** Four times past the hint the compound bound still holds and nothing is lost. */
  @Test
  void add_fourTimesBeyondHint_boundHoldsNoFalseNegatives() {
    Result r = grow(TestSeeds.seed(), 1000, 100_000, 400_000, 0.01);
    assertTrue(r.links > r.hintedLinks, r.toString());
    assertTrue(r.bound <= 0.01, r.toString());
    assertTrue(r.falsePositives <= allowedFalsePositives(r.probes, 0.01), r.toString());
  }

  /** The same targets from 10^4 to 10^7 items (about a minute). */
  @Test
  @Tag("slow")
  void add_grown1000FoldLarge_withinRateAndBitsTargets() {
    for (double target : new double[] {0.01, 0.001}) {
      Result r = grow(TestSeeds.seed(), 10_000, 10_000_000, 10_000_000, target);
      assertTrue(r.falsePositives <= allowedFalsePositives(r.probes, target), r.toString());
      assertTrue(r.bound <= target, r.toString());
      assertTrue(r.bitsRatio() <= 1.2, r.toString());
    }
  }

  /**
   * One-sided binomial bound: the false positives among {@code probes} absent items, each one with
   * probability at most {@code target}, exceed the mean by 4 standard deviations with probability
   * below 1/(1 + 16) by Cantelli's inequality, and about 3·10^-5 under the normal approximation.
   */
  static long allowedFalsePositives(long probes, double target) {
    return (long) Math.floor(probes * target + 4 * Math.sqrt(probes * target * (1 - target)));
  }

  @Test
  void plan_budget_leavesReserveAndMatchesBuiltLinks() {
    ScalableCuckooFilter<Long> filter = hinted(1000, 1_000_000, 0.01);
    StandardChain<Long> chain = filter.standardChain();
    int hinted = chain.hintedLinks();
    assertEquals(10, hinted, "1000 × (2^10 − 1) ≥ 10^6 needs 10 links of growth 2");
    for (long i = 0; i < 1_000_000; i++) {
      filter.add(item(1, i));
    }
    List<CuckooFilter<Long>> links = chain.links();
    int[] plan = chain.plan(hinted);
    long[] capacities = new long[hinted];
    double used = 0;
    for (int k = 0; k < hinted; k++) {
      assertEquals(plan[k], links.get(k).fingerprintBits(), "link " + k);
      assertEquals(chain.linkCapacity(k), links.get(k).capacity(), "link " + k);
      capacities[k] = links.get(k).capacity();
      used += links.get(k).falsePositiveRateAtCapacity();
    }
    assertTrue(used <= GrowthPlan.hintedBudget(capacities, 0.01), "" + used);
    assertTrue(0.01 - used >= 0.01 * capacities[0] / (1000 * 1023 + capacities[0]) * (1 - 1e-9));
    for (int k = 1; k < hinted; k++) {
      assertTrue(plan[k] <= plan[k - 1], "newer, larger links are never wider: " + k);
    }
  }

  /** Known answer: the widths for 1000 items growing to 10^6 at 1%, pinned. */
  @Test
  void plan_1000To10e6At1Percent_knownWidths() {
    int[] plan = hinted(1000, 1_000_000, 0.01).standardChain().plan(10);
    assertArrayEquals(new int[] {17, 17, 17, 16, 15, 15, 13, 13, 11, 11}, plan);
  }

  @Test
  void build_withoutHint_sameWidthsAsBefore() {
    StandardChain<Long> chain =
        ScalableCuckooFilter.builder(ItemHashers.longs())
            .expectedItems(1000)
            .build()
            .standardChain();
    assertEquals(0, chain.hintedLinks());
    assertEquals(12, chain.links().get(0).fingerprintBits());
  }

  @Test
  void build_badHints_throwNamingParameterValueAndRange() {
    assertMessage(
        () -> ScalableCuckooFilter.builder(ItemHashers.longs()).expectedFinalItems(0),
        "expectedFinalItems: 0 (expected: 1 <= expectedFinalItems <= 1099511627776)");
    assertMessage(
        () -> ScalableCuckooFilter.builder(ItemHashers.longs()).expectedFinalItems(-5),
        "expectedFinalItems: -5 (expected: 1 <= expectedFinalItems <= 1099511627776)");
    assertMessage(
        () -> ScalableCuckooFilter.builder(ItemHashers.longs()).expectedFinalItems((1L << 40) + 1),
        "expectedFinalItems: 1099511627777 (expected: 1 <= expectedFinalItems <= 1099511627776)");
    assertMessage(
        () ->
            ScalableCuckooFilter.builder(ItemHashers.longs())
                .expectedItems(1000)
                .expectedFinalItems(999)
                .build(),
        "expectedFinalItems: 999 (expected: expectedItems 1000 <= expectedFinalItems <= 1099511627776)");
    IllegalArgumentException tooLarge =
        assertThrows(IllegalArgumentException.class, () -> slowGrowthAtOnePerMillion(1L << 40));
    assertTrue(
        tooLarge
            .getMessage()
            .startsWith(
                "expectedFinalItems: 1099511627776 (expected: expectedItems 1 <= expectedFinalItems <= "),
        tooLarge.getMessage());
    long largest =
        Long.parseLong(tooLarge.getMessage().replaceAll(".*expectedFinalItems <= (\\d+),.*", "$1"));
    slowGrowthAtOnePerMillion(largest);
    assertThrows(IllegalArgumentException.class, () -> slowGrowthAtOnePerMillion(largest + 1));
  }

  /** The hint is stored as the hinted link count at offset 28; reading replays the plan. */
  @Test
  void writeTo_hintedChain_roundTripsAndGrowsAsBefore() throws IOException {
    ScalableCuckooFilter<Long> filter = hinted(100, 100_000, 0.01);
    for (long i = 0; i < 5_000; i++) {
      filter.add(item(2, i));
    }
    byte[] written = ChainFormatTest.write(filter);
    int hinted = filter.standardChain().hintedLinks();
    assertEquals(hinted, ByteBuffer.wrap(written).order(ByteOrder.LITTLE_ENDIAN).getInt(28));
    ScalableCuckooFilter<Long> read =
        ScalableCuckooFilter.readFrom(new ByteArrayInputStream(written), ItemHashers.longs());
    assertEquals(hinted, read.standardChain().hintedLinks());
    assertArrayEquals(written, ChainFormatTest.write(read));
    for (long i = 5_000; i < 200_000; i++) {
      filter.add(item(2, i));
      read.add(item(2, i));
    }
    assertArrayEquals(ChainFormatTest.write(filter), ChainFormatTest.write(read));
    for (long i = 0; i < 200_000; i++) {
      assertTrue(read.mightContain(item(2, i)), "false negative " + i);
    }
  }

  /** Known answer: the bytes of a small hinted chain (16 items growing to 1000), by SHA-256. */
  @Test
  void writeTo_smallHintedChain_knownBytes() throws IOException {
    ScalableCuckooFilter<Long> filter =
        ScalableCuckooFilter.builder(ItemHashers.longs())
            .expectedItems(16)
            .expectedFinalItems(1000)
            .falsePositiveRate(0.01)
            .seed(0x5EED)
            .build();
    for (long i = 0; i < 700; i++) {
      filter.add(i);
    }
    byte[] written = ChainFormatTest.write(filter);
    ByteBuffer header = ByteBuffer.wrap(written).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(6, header.getInt(28), "hintedLinks");
    assertEquals(6, filter.linkCount());
    assertEquals(KNOWN_LENGTH, written.length);
    // SHA-256, not a CRC32C of the file: the file ends with the CRC32C of everything before it,
    // and a CRC over data followed by its own CRC is the same constant whatever the data
    assertEquals(KNOWN_SHA256, ChainFormatTest.sha256(written));
  }

  /** The length and SHA-256 of the file {@link #writeTo_smallHintedChain_knownBytes} writes. */
  static final int KNOWN_LENGTH = 2218;

  static final String KNOWN_SHA256 =
      "643b45448be604c244e79b280407ebe258af43b0c9d1aaec6e1a86d548c926e2";

  @Test
  void readFrom_hintedLinksOutOfRange_throwsNamingField() throws IOException {
    ScalableCuckooFilter<Long> filter = hinted(100, 10_000, 0.01);
    byte[] written = ChainFormatTest.write(filter);
    for (int bad : new int[] {-1, 1025}) {
      byte[] corrupt = written.clone();
      ByteBuffer.wrap(corrupt).order(ByteOrder.LITTLE_ENDIAN).putInt(28, bad);
      FilterFormatException e =
          assertThrows(
              FilterFormatException.class,
              () ->
                  ScalableCuckooFilter.readFrom(
                      new ByteArrayInputStream(corrupt), ItemHashers.longs()));
      assertEquals("hintedLinks", e.field());
    }
  }

  private static ScalableCuckooFilter<Long> hinted(long initial, long hint, double target) {
    return ScalableCuckooFilter.builder(ItemHashers.longs())
        .expectedItems(initial)
        .expectedFinalItems(hint)
        .falsePositiveRate(target)
        .build();
  }

  /** From 1 item with growth 1.1 at 10^-6: hints of 10^5 and more need over 32-bit widths. */
  private static ScalableCuckooFilter<Long> slowGrowthAtOnePerMillion(long hint) {
    return ScalableCuckooFilter.builder(ItemHashers.longs())
        .expectedItems(1)
        .growthFactor(1.1)
        .falsePositiveRate(1e-6)
        .expectedFinalItems(hint)
        .build();
  }

  private static void assertMessage(Runnable action, String message) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, action::run);
    assertEquals(message, e.getMessage());
  }

  static final class Result {
    long seed;
    long items;
    long hint;
    int links;
    int hintedLinks;
    double target;
    double bound;
    long probes;
    long falsePositives;
    double chainBitsPerItem;
    double fixedBitsPerItem;

    double bitsRatio() {
      return chainBitsPerItem / fixedBitsPerItem;
    }

    @Override
    public String toString() {
      return String.format(
          "seed %d (-D%s), items %d, hint %d, links %d (hinted %d), target %.4g: bound %.6f,"
              + " measured FPR %.6f (%d of %d), bits/item %.2f vs fixed %.2f = %.3f",
          seed,
          TestSeeds.PROPERTY,
          items,
          hint,
          links,
          hintedLinks,
          target,
          bound,
          (double) falsePositives / probes,
          falsePositives,
          probes,
          chainBitsPerItem,
          fixedBitsPerItem,
          bitsRatio());
    }
  }

  /**
   * Builds a hinted chain, adds {@code items} distinct items checking all of them at every power of
   * ten of growth, then probes {@code items} absent ones.
   */
  static Result grow(long seed, long initial, long hint, long items, double target) {
    ScalableCuckooFilter<Long> filter = hinted(initial, hint, target);
    long checkpoint = initial;
    for (long i = 0; i < items; i++) {
      assertTrue(filter.add(item(seed, i)), "seed " + seed + ": add " + i);
      if (i + 1 == checkpoint || i + 1 == items) {
        for (long j = 0; j <= i; j++) {
          assertTrue(filter.mightContain(item(seed, j)), "seed " + seed + ": false negative " + j);
        }
        checkpoint *= 10;
      }
    }
    Result r = new Result();
    r.seed = seed;
    r.items = items;
    r.hint = hint;
    r.links = filter.linkCount();
    r.hintedLinks = filter.standardChain().hintedLinks();
    r.target = target;
    r.bound = filter.falsePositiveRateAtCapacity();
    r.probes = items;
    for (long i = 0; i < items; i++) {
      if (filter.mightContain(item(seed, items + i))) {
        r.falsePositives++;
      }
    }
    r.chainBitsPerItem = (double) filter.standardChain().tableBits() / items;
    CuckooFilter<Long> fixed =
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(items)
            .falsePositiveRate(target)
            .build();
    r.fixedBitsPerItem =
        (double) fixed.bucketCount() * fixed.bucketSize() * fixed.fingerprintBits() / items;
    System.out.println("GrowthHintTest: " + r);
    return r;
  }
}
