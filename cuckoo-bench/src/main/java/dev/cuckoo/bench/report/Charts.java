package dev.cuckoo.bench.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Renders the report's charts: lookup time vs size, and bits per key vs false-positive rate. */
final class Charts {
  private Charts() {}

  static void write(Path dir, List<Row> rows, FilterStats stats) throws IOException {
    lookupTimes(rows).save(dir.resolve("lookup-ns-vs-size.png"));
    bitsVsRate(stats).save(dir.resolve("bits-vs-fpr.png"));
  }

  private static Plot lookupTimes(List<Row> rows) {
    Plot plot =
        new Plot(
            "Lookups, 50% hits, long keys, target 0.1%",
            "keys in the filter", "ns per lookup", true, true);
    Set<String> filters = new LinkedHashSet<>();
    for (Row r : rows) {
      if (r.method().equals("lookup") && r.keys().equals("LONG") && r.fpr() == 0.001) {
        filters.add(r.filter());
      }
    }
    for (String filter : filters) {
      plot.add(new Plot.Series(filter, points(rows, "lookup", filter), true));
    }
    plot.add(new Plot.Series("CUCKOO batch", points(rows, "batchLookup", "CUCKOO"), true));
    return plot;
  }

  private static List<double[]> points(List<Row> rows, String method, String filter) {
    List<double[]> points = new ArrayList<>();
    for (Row r : rows) {
      if (r.method().equals(method)
          && r.filter().equals(filter)
          && r.keys().equals("LONG")
          && r.fpr() == 0.001
          && r.hitRatio() == 0.5) {
        points.add(new double[] {r.size(), r.median()});
      }
    }
    points.sort((a, b) -> Double.compare(a[0], b[0]));
    return points;
  }

  private static Plot bitsVsRate(FilterStats stats) {
    Plot plot =
        new Plot(
            "Space vs measured false-positive rate (long keys)",
            "measured false-positive rate",
            "bits per key",
            true,
            false);
    Set<String> filters = new LinkedHashSet<>();
    for (FilterStats.Stat s : stats.all()) {
      filters.add(s.filter());
    }
    for (String filter : filters) {
      if (filter.equals("MEMORY_FLOOR")) {
        continue;
      }
      List<double[]> points = new ArrayList<>();
      for (FilterStats.Stat s : stats.all()) {
        if (s.filter().equals(filter) && s.keys().equals("LONG") && s.measuredFpr() > 0) {
          points.add(new double[] {s.measuredFpr(), s.bitsPerKey()});
        }
      }
      plot.add(new Plot.Series(filter, points, false));
    }
    List<double[]> bound = new ArrayList<>();
    for (double e = -4.5; e <= -1.0; e += 0.05) {
      double rate = Math.pow(10, e);
      bound.add(new double[] {rate, Math.log(1 / rate) / Math.log(2)});
    }
    plot.add(new Plot.Series("log2(1/ε) lower bound", bound, true));
    return plot;
  }
}
