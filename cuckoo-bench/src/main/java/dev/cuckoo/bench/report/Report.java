package dev.cuckoo.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Writes the Markdown report: machine, the targets with measured ratios, every result, the
 * comparisons of the default scheme with STANDARD and of semi-sorted buckets with plain ones, and
 * the growth curve.
 */
final class Report {
  private static final double TARGET_FPR = 0.001;

  /** Sizes from which the large-table single-lookup goal against FF_CUCKOO16 applies. */
  private static final long LARGE = 32_000_000;

  private static final double LARGE_LOOKUP_GOAL = 0.9;
  private static final double SEMI_SORTED_BITS_GOAL = 12.8;
  private static final double SEMI_SORTED_LOOKUP_GOAL = 1.3;
  private static final double SEMI_SORTED_INSERT_GOAL = 1.5;

  private final List<Row> rows;
  private final FilterStats stats;
  private final List<String> lines = new ArrayList<>();

  private Report(List<Row> rows, FilterStats stats) {
    this.rows = rows;
    this.stats = stats;
  }

  static void write(
      Path file,
      List<Row> rows,
      FilterStats stats,
      List<String> machine,
      String command,
      List<String> growth)
      throws IOException {
    Report report = new Report(rows, stats);
    report.render(machine, command);
    report.renderSchemes();
    report.renderSemiSorted();
    report.lines.addAll(growth);
    Files.write(file, report.lines, StandardCharsets.UTF_8);
  }

  private void render(List<String> machine, String command) {
    lines.add("# Benchmarks");
    lines.add("");
    lines.add("Produced by `" + command + "` (JMH, see `cuckoo-bench/README.md`).");
    lines.add(
        "Times are medians over all measurement iterations of all forks, in ns per operation;");
    lines.add("in brackets the smallest and largest per-fork mean, a measure of the noise.");
    lines.add(
        "Every figure in this file comes from that one run; focused measurements behind design");
    lines.add(
        "choices (instruction counts, experiments) are in"
            + " [performance-notes.md](performance-notes.md).");
    lines.add("");
    lines.add("## Machine");
    lines.add("");
    lines.addAll(machine);
    lines.add("");
    lines.add("![lookup time vs size](lookup-ns-vs-size.png)");
    lines.add("");
    lines.add("![bits per key vs false-positive rate](bits-vs-fpr.png)");
    lines.add("");
    renderTargets();
    renderResults();
  }

  private void renderTargets() {
    lines.add("## Targets (ε = 0.1%, b = 4, long keys)");
    lines.add("");
    lines.add("| target | measured | goal | met |");
    lines.add("| --- | --- | --- | --- |");
    for (Row r : rows) {
      if (r.method().equals("lookup")
          && r.filter().equals("CUCKOO")
          && r.keys().equals("LONG")
          && r.fpr() == TARGET_FPR
          && r.hitRatio() == 0.5) {
        FilterStats.Stat s = stats.get("CUCKOO", "LONG", r.size(), TARGET_FPR);
        if (s != null) {
          target(
              "bits/key at " + r.size() + " keys",
              s.bitsPerKey(),
              "≤ 13.9",
              s.bitsPerKey() <= 13.9);
          target(
              "measured FPR at " + r.size() + " keys",
              s.measuredFpr(),
              "≤ 0.001",
              s.measuredFpr() <= 0.001);
        }
      }
    }
    for (long size : sizes()) {
      if (size < 10_000_000) {
        continue;
      }
      String at = " (" + size + " keys)";
      double mixed = time("lookup", "CUCKOO", size, 0.5);
      ratio(
          "mixed lookup vs FF_CUCKOO16" + at, mixed, time("lookup", "FF_CUCKOO16", size, 0.5), 1.0);
      ratio("mixed lookup vs GUAVA" + at, mixed, time("lookup", "GUAVA", size, 0.5), 0.2);
      ratio(
          "mixed lookup vs CUCKOOFILTER4J" + at,
          mixed,
          time("lookup", "CUCKOOFILTER4J", size, 0.5),
          0.125);
      double hits = time("lookup", "CUCKOO", size, 1.0);
      double misses = time("lookup", "CUCKOO", size, 0.0);
      if (!Double.isNaN(hits) && !Double.isNaN(misses)) {
        double gap = Math.abs(hits - misses) / Math.min(hits, misses);
        target("hits vs misses differ by" + at, gap, "≤ 0.10", gap <= 0.10);
      }
      double batch = time("batchLookup", "CUCKOO", size, 0.5);
      ratio(
          "batch lookup vs FF_CUCKOO16 single" + at,
          batch,
          time("lookup", "FF_CUCKOO16", size, 0.5),
          0.7);
      ratio(
          "batch lookup vs memory floor" + at,
          batch,
          time("lookup", "MEMORY_FLOOR", size, 0.5),
          1.5);
      ratio(
          "insert vs FF_CUCKOO16" + at,
          time("insert", "CUCKOO", size, Double.NaN),
          time("insert", "FF_CUCKOO16", size, Double.NaN),
          1.0);
    }
    for (long size : sizes()) {
      if (size >= LARGE) {
        ratio(
            "single lookup vs FF_CUCKOO16 (" + size + " keys)",
            time("lookup", "CUCKOO", size, 0.5),
            time("lookup", "FF_CUCKOO16", size, 0.5),
            LARGE_LOOKUP_GOAL);
      }
    }
    for (long size : sizes()) {
      String at = " (" + size + " keys)";
      FilterStats.Stat s = stats.get("CUCKOO_SEMISORTED", "LONG", size, TARGET_FPR);
      if (s != null) {
        target(
            "semi-sorted bits/key" + at,
            s.bitsPerKey(),
            "≤ " + SEMI_SORTED_BITS_GOAL,
            s.bitsPerKey() <= SEMI_SORTED_BITS_GOAL);
        target(
            "semi-sorted measured FPR" + at,
            s.measuredFpr(),
            "≤ " + TARGET_FPR,
            s.measuredFpr() <= TARGET_FPR);
      }
      ratio(
          "semi-sorted lookup vs CUCKOO" + at,
          time("lookup", "CUCKOO_SEMISORTED", size, 0.5),
          time("lookup", "CUCKOO", size, 0.5),
          SEMI_SORTED_LOOKUP_GOAL);
      ratio(
          "semi-sorted insert vs CUCKOO" + at,
          time("insert", "CUCKOO_SEMISORTED", size, Double.NaN),
          time("insert", "CUCKOO", size, Double.NaN),
          SEMI_SORTED_INSERT_GOAL);
    }
    long small = 10_000;
    double mixedSmall = time("lookup", "CUCKOO", small, 0.5);
    ratio(
        "small (" + small + " keys) lookup vs FF_XOR8",
        mixedSmall,
        time("lookup", "FF_XOR8", small, 0.5),
        1.5);
    double guava = time("lookup", "GUAVA", small, 0.5);
    if (!Double.isNaN(guava) && !Double.isNaN(mixedSmall)) {
      target(
          "small (" + small + " keys): GUAVA time / ours",
          guava / mixedSmall,
          "≥ 10",
          guava / mixedSmall >= 10);
    }
    lines.add("");
  }

  private void renderResults() {
    lines.add("## All results");
    lines.add("");
    lines.add(
        "Lookups: 50% hits unless the column says otherwise; batch: `mightContainAll` for CUCKOO,");
    lines.add(
        "single lookups for the others; insert: per key, filling an empty filter to its rated");
    lines.add("capacity; delete: one remove plus one re-add of an inserted key.");
    lines.add("");
    lines.add(
        "| filter | keys | size | target ε | bits/key | measured FPR | lookup | hits | misses "
            + "| batch | insert | delete |");
    lines.add(
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    Set<String> points = new LinkedHashSet<>();
    for (Row r : rows) {
      points.add(r.filter() + "," + r.keys() + "," + r.size() + "," + r.fpr());
    }
    for (String point : points) {
      String[] p = point.split(",");
      String filter = p[0];
      String keys = p[1];
      long size = Long.parseLong(p[2]);
      double fpr = Double.parseDouble(p[3]);
      FilterStats.Stat s = stats.get(filter, keys, size, fpr);
      lines.add(
          "| "
              + filter
              + " | "
              + keys
              + " | "
              + size
              + " | "
              + fpr
              + " | "
              + (s == null ? "" : String.format(Locale.ROOT, "%.2f", s.bitsPerKey()))
              + " | "
              + (s == null || filter.equals("MEMORY_FLOOR")
                  ? ""
                  : String.format(Locale.ROOT, "%.4f%%", 100 * s.measuredFpr()))
              + " | "
              + cell("lookup", filter, keys, size, fpr, 0.5)
              + " | "
              + cell("lookup", filter, keys, size, fpr, 1.0)
              + " | "
              + cell("lookup", filter, keys, size, fpr, 0.0)
              + " | "
              + cell("batchLookup", filter, keys, size, fpr, 0.5)
              + " | "
              + cell("insert", filter, keys, size, fpr, Double.NaN)
              + " | "
              + cell("deleteAndReinsert", filter, keys, size, fpr, Double.NaN)
              + " |");
    }
    lines.add("");
  }

  /** The default scheme (STANDARD_FAST) against STANDARD and the peers, single lookups. */
  private void renderSchemes() {
    lines.add("## Single lookups: `STANDARD_FAST` (the default) against `STANDARD` and the peers");
    lines.add("");
    lines.add(
        "`CUCKOO` is the default scheme, `STANDARD_FAST`; `CUCKOO_STANDARD` is the same filter"
            + " with `Scheme.STANDARD` (same table and fingerprints, the earlier alternate-bucket"
            + " arithmetic). Long keys, ε = 0.1%, 50% hits, medians in ns from the runs above.");
    lines.add("");
    lines.add(
        "| keys | `STANDARD_FAST` | `STANDARD` | FAST / STANDARD | FF_CUCKOO16 | FAST / FF_CUCKOO16"
            + " | FF_XOR8 | FAST / FF_XOR8 |");
    lines.add("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (long size : sizes()) {
      double fast = time("lookup", "CUCKOO", size, 0.5);
      double standard = time("lookup", "CUCKOO_STANDARD", size, 0.5);
      double cuckoo16 = time("lookup", "FF_CUCKOO16", size, 0.5);
      double xor8 = time("lookup", "FF_XOR8", size, 0.5);
      if (Double.isNaN(fast) || Double.isNaN(standard)) {
        continue;
      }
      lines.add(
          "| "
              + size
              + " | "
              + ns(fast)
              + " | "
              + ns(standard)
              + " | "
              + times(fast, standard)
              + " | "
              + ns(cuckoo16)
              + " | "
              + times(fast, cuckoo16)
              + " | "
              + ns(xor8)
              + " | "
              + times(fast, xor8)
              + " |");
    }
    lines.add("");
  }

  /** Semi-sorted buckets against the plain table of the same scheme, bits, rate and times. */
  private void renderSemiSorted() {
    lines.add("## Semi-sorted buckets");
    lines.add("");
    lines.add(
        "`CUCKOO_SEMISORTED` is `CUCKOO` built with `semiSorted(true)` (the default scheme,"
            + " `STANDARD_FAST`: scheme 5 in the format): the same buckets and fingerprints, a"
            + " bucket's four high nibbles encoded together in 12 bits. Long keys, ε = 0.1%, b = 4;"
            + " lookups with 50% hits; inserts fill an empty filter to its rated capacity (ns per"
            + " key); medians from the runs above.");
    lines.add("");
    lines.add(
        "| keys | bits/key plain | bits/key semi-sorted | FPR plain | FPR semi-sorted"
            + " | lookup plain | lookup semi-sorted | ratio | insert plain | insert semi-sorted"
            + " | ratio |");
    lines.add("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (long size : sizes()) {
      FilterStats.Stat plain = stats.get("CUCKOO", "LONG", size, TARGET_FPR);
      FilterStats.Stat semi = stats.get("CUCKOO_SEMISORTED", "LONG", size, TARGET_FPR);
      double lookup = time("lookup", "CUCKOO", size, 0.5);
      double semiLookup = time("lookup", "CUCKOO_SEMISORTED", size, 0.5);
      double insert = time("insert", "CUCKOO", size, Double.NaN);
      double semiInsert = time("insert", "CUCKOO_SEMISORTED", size, Double.NaN);
      if (semi == null && Double.isNaN(semiLookup) && Double.isNaN(semiInsert)) {
        continue;
      }
      lines.add(
          "| "
              + size
              + " | "
              + (plain == null ? "" : String.format(Locale.ROOT, "%.2f", plain.bitsPerKey()))
              + " | "
              + (semi == null ? "" : String.format(Locale.ROOT, "%.2f", semi.bitsPerKey()))
              + " | "
              + (plain == null ? "" : percent(plain.measuredFpr()))
              + " | "
              + (semi == null ? "" : percent(semi.measuredFpr()))
              + " | "
              + ns(lookup)
              + " | "
              + ns(semiLookup)
              + " | "
              + times(semiLookup, lookup)
              + " | "
              + ns(insert)
              + " | "
              + ns(semiInsert)
              + " | "
              + times(semiInsert, insert)
              + " |");
    }
    lines.add("");
  }

  private static String ns(double value) {
    return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.1f", value);
  }

  private static String times(double ours, double theirs) {
    return Double.isNaN(ours) || Double.isNaN(theirs)
        ? ""
        : String.format(Locale.ROOT, "%.2f×", ours / theirs);
  }

  private static String percent(double rate) {
    return String.format(Locale.ROOT, "%.4f%%", 100 * rate);
  }

  private String cell(
      String method, String filter, String keys, long size, double fpr, double hit) {
    for (Row r : rows) {
      if (r.is(method, filter, keys, size, fpr, hit)) {
        return String.format(Locale.ROOT, "%.1f (%.1f–%.1f)", r.median(), r.forkMin(), r.forkMax());
      }
    }
    return "";
  }

  private double time(String method, String filter, long size, double hit) {
    for (Row r : rows) {
      if (r.is(method, filter, "LONG", size, TARGET_FPR, hit)) {
        return r.median();
      }
    }
    return Double.NaN;
  }

  private List<Long> sizes() {
    Set<Long> sizes = new LinkedHashSet<>();
    for (Row r : rows) {
      sizes.add(r.size());
    }
    List<Long> sorted = new ArrayList<>(sizes);
    sorted.sort(null);
    return sorted;
  }

  private void ratio(String what, double ours, double theirs, double goal) {
    if (Double.isNaN(ours) || Double.isNaN(theirs)) {
      return;
    }
    double ratio = ours / theirs;
    lines.add(
        String.format(
            Locale.ROOT,
            "| %s | %.1f / %.1f ns = %.2f× | ≤ %s× | %s |",
            what,
            ours,
            theirs,
            ratio,
            goal,
            ratio <= goal ? "yes" : "**no**"));
  }

  private void target(String what, double value, String goal, boolean met) {
    lines.add(
        String.format(
            Locale.ROOT, "| %s | %.4g | %s | %s |", what, value, goal, met ? "yes" : "**no**"));
  }
}
