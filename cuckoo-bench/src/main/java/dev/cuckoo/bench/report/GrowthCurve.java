package dev.cuckoo.bench.report;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.ScalableCuckooFilter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prints the growth curve of growing filters as a Markdown section: bits per item and measured
 * false-positive rate after growing 1× to 1000× from {@code expectedItems}, for a STANDARD chain
 * without a hint, one built with {@code expectedFinalItems} equal to the final count, and a
 * REDISBLOOM chain (expansion 2, bucket size 2), next to one filter sized for the final count. No
 * JMH: the numbers are counts, not times.
 *
 * <p>Usage: {@code java -cp cuckoo-bench/target/benchmarks.jar dev.cuckoo.bench.report.GrowthCurve
 * [--initial 1000] [--fpr 0.01] [--probes 1000000] [--write docs/benchmarks.md]}; with {@code
 * --write} the section "Growing filters" of that file is replaced (or appended).
 */
public final class GrowthCurve {
  /** Growth factors of the curve's points. */
  static final long[] GROWTH = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};

  static final String HEADING = "## Growing filters";

  /** The goal for a hinted chain: bits per item at most this many times the fixed filter's. */
  static final double HINT_GOAL = 1.2;

  private GrowthCurve() {}

  /**
   * Runs the measurement and prints (or writes) the section.
   *
   * @param args options, see the class comment
   * @throws IOException if the file cannot be written
   */
  public static void main(String[] args) throws IOException {
    long initial = 1000;
    double fpr = 0.01;
    long probes = 1_000_000;
    Path write = null;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--initial" -> initial = Long.parseLong(args[i + 1]);
        case "--fpr" -> fpr = Double.parseDouble(args[i + 1]);
        case "--probes" -> probes = Long.parseLong(args[i + 1]);
        case "--write" -> write = Path.of(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option: " + args[i]);
      }
    }
    StringBuilder command =
        new StringBuilder(
            "java -cp cuckoo-bench/target/benchmarks.jar " + GrowthCurve.class.getName());
    for (String arg : args) {
      command.append(' ').append(arg);
    }
    List<String> section = section(initial, fpr, probes, "`" + command + "`");
    if (write == null) {
      section.forEach(System.out::println);
    } else {
      replaceSection(write, section);
      System.out.println("wrote " + HEADING + " to " + write);
    }
  }

  /**
   * Measures the curve and returns the section's Markdown lines, ending with the target of a hinted
   * chain at the largest growth: at most {@link #HINT_GOAL} times the fixed filter's bits per item,
   * with a measured rate at most ε.
   *
   * @param source how the section was produced, in Markdown (a command or a description)
   */
  static List<String> section(long initial, double fpr, long probes, String source) {
    List<String> lines = new ArrayList<>();
    lines.add(HEADING);
    lines.add("");
    lines.add(
        String.format(
            Locale.ROOT,
            "A growing filter starts at `expectedItems` = %d and has %d·g distinct long keys added; then"
                + " %d absent keys are probed. STANDARD chains (b = 4, growth factor 2, target ε = %s):"
                + " without a hint, and built with `expectedFinalItems(%d·g)` (one build per point)."
                + " REDISBLOOM: RedisBloom's expansion (`CF.RESERVE key %d EXPANSION 2`, b = 2, 8-bit"
                + " fingerprints), whose rate grows with each link. Bits per item are table bits over the"
                + " items added; \"ratio\" divides by one STANDARD filter sized for the final count at ε.",
            initial,
            initial,
            probes,
            fpr,
            initial,
            initial));
    lines.add("");
    lines.add(
        "Produced by "
            + source
            + "; the figures are counts, not times, so the machine's load does not change them.");
    lines.add("");
    lines.add(
        "Links keep their sizes with a hint (initial × 2^k); only the fingerprint widths"
            + " change. So between powers of two the last link is partly empty with or without a"
            + " hint (e.g. at 10× the links hold 15 000 of which 10 000 are used), and the ratio"
            + " is best where the count fills the links, as at 500× and 1000×. The rate bound holds"
            + " beyond the hint too, at a cost in bits: GrowthHintTest grows 4 times past a hint of"
            + " 10^5 (ε = 1%: 23.2 bits/item, 2.19× the fixed filter).");
    lines.add("");
    lines.add(
        "| growth | items | fixed bits/item | no hint: bits/item (ratio) | no hint: FPR"
            + " | hint: bits/item (ratio) | hint: FPR | REDISBLOOM: bits/item | REDISBLOOM: FPR |");
    lines.add("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    ScalableCuckooFilter<Long> plain = standard(initial, fpr, -1);
    RedisCuckooFilter<byte[]> redis =
        RedisCuckooFilter.reserve(
            initial,
            RedisCuckooFilter.DEFAULT_BUCKET_SIZE,
            RedisCuckooFilter.DEFAULT_MAX_ITERATIONS,
            2);
    long added = 0;
    double hintRatio = Double.NaN;
    double hintRate = Double.NaN;
    for (long growth : GROWTH) {
      long items = initial * growth;
      for (; added < items; added++) {
        require(plain.add(key(added)), "no hint", added);
        require(redis.add(bytes(key(added))), "REDISBLOOM", added);
      }
      ScalableCuckooFilter<Long> hinted = standard(initial, fpr, items);
      for (long i = 0; i < items; i++) {
        require(hinted.add(key(i)), "hint", i);
      }
      double fixed = fixedBitsPerItem(items, fpr);
      lines.add(
          String.format(
              Locale.ROOT,
              "| %d× | %d | %.2f | %.2f (%.3f) | %.5f | %.2f (%.3f) | %.5f | %.2f | %.5f |",
              growth,
              items,
              fixed,
              bitsPerItem(plain),
              bitsPerItem(plain) / fixed,
              rate(plain, items, probes),
              bitsPerItem(hinted),
              bitsPerItem(hinted) / fixed,
              rate(hinted, items, probes),
              redis.bitsPerItem() * redis.capacity() / redis.size(),
              redisRate(redis, items, probes)));
      System.err.println(lines.get(lines.size() - 1));
      hintRatio = bitsPerItem(hinted) / fixed;
      hintRate = rate(hinted, items, probes);
    }
    long last = GROWTH[GROWTH.length - 1];
    lines.add("");
    lines.add("| target | measured | goal | met |");
    lines.add("| --- | --- | --- | --- |");
    lines.add(
        String.format(
            Locale.ROOT,
            "| hinted chain after %d× growth: bits/item over the fixed filter's | %.3f | ≤ %s |"
                + " %s |",
            last,
            hintRatio,
            HINT_GOAL,
            hintRatio <= HINT_GOAL ? "yes" : "**no**"));
    lines.add(
        String.format(
            Locale.ROOT,
            "| hinted chain after %d× growth: measured FPR | %.5f | ≤ %s | %s |",
            last,
            hintRate,
            fpr,
            hintRate <= fpr ? "yes" : "**no**"));
    lines.add("");
    return lines;
  }

  /**
   * Returns the section as it stands in {@code file} (from {@link #HEADING} to the next "## "
   * heading), or an empty list if the file or the section does not exist.
   */
  static List<String> existingSection(Path file) throws IOException {
    if (!Files.exists(file)) {
      return List.of();
    }
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    int start = lines.indexOf(HEADING);
    return start < 0 ? List.of() : new ArrayList<>(lines.subList(start, sectionEnd(lines, start)));
  }

  /** Returns the index of the first "## " heading after {@code start}, or the number of lines. */
  private static int sectionEnd(List<String> lines, int start) {
    int end = start + 1;
    while (end < lines.size() && !lines.get(end).startsWith("## ")) {
      end++;
    }
    return end;
  }

  private static ScalableCuckooFilter<Long> standard(long initial, double fpr, long hint) {
    ScalableCuckooFilter.Builder<Long> builder =
        ScalableCuckooFilter.builder(ItemHashers.longs())
            .expectedItems(initial)
            .falsePositiveRate(fpr);
    if (hint > 0) {
      builder.expectedFinalItems(hint);
    }
    return builder.build();
  }

  /** Key {@code i}: distinct for distinct {@code i} (an odd multiplier is a bijection). */
  private static long key(long i) {
    return i * 0x9E3779B97F4A7C15L;
  }

  private static byte[] bytes(long key) {
    return Long.toString(key).getBytes(StandardCharsets.UTF_8);
  }

  private static void require(boolean added, String filter, long i) {
    if (!added) {
      throw new IllegalStateException(filter + ": add of key " + i + " failed");
    }
  }

  /** Table bits over the items held: bits per rated item × rated items / size. */
  private static double bitsPerItem(ScalableCuckooFilter<?> filter) {
    return filter.bitsPerItem() * filter.capacity() / filter.size();
  }

  private static double fixedBitsPerItem(long items, double fpr) {
    CuckooFilter<Long> fixed =
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(items)
            .falsePositiveRate(fpr)
            .build();
    return (double) fixed.bucketCount() * fixed.bucketSize() * fixed.fingerprintBits() / items;
  }

  /** Probes keys {@code items … items + probes − 1}, none of them added. */
  private static double rate(ScalableCuckooFilter<Long> filter, long items, long probes) {
    long hits = 0;
    for (long i = 0; i < probes; i++) {
      if (filter.mightContain(key(items * 1000 + i))) {
        hits++;
      }
    }
    return (double) hits / probes;
  }

  private static double redisRate(RedisCuckooFilter<byte[]> filter, long items, long probes) {
    long hits = 0;
    for (long i = 0; i < probes; i++) {
      if (filter.mightContain(bytes(key(items * 1000 + i)))) {
        hits++;
      }
    }
    return (double) hits / probes;
  }

  /** Replaces the section from {@link #HEADING} to the next "## " heading, or appends it. */
  static void replaceSection(Path file, List<String> section) throws IOException {
    List<String> lines = new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8));
    int start = lines.indexOf(HEADING);
    if (start < 0) {
      if (!lines.isEmpty() && !lines.get(lines.size() - 1).isEmpty()) {
        lines.add("");
      }
      lines.addAll(section);
    } else {
      lines.subList(start, sectionEnd(lines, start)).clear();
      lines.addAll(start, section);
    }
    Files.write(file, lines, StandardCharsets.UTF_8);
  }
}
