package dev.cuckoo.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Reads and writes result rows as CSV, so a report can be re-rendered without re-running. */
final class Rows {
  private static final String HEADER =
      "method,filter,keys,size,fpr,hitRatio,median_ns,fork_min_ns,fork_max_ns,forks";

  private Rows() {}

  static void write(Path file, List<Row> rows) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add(HEADER);
    for (Row r : rows) {
      lines.add(
          String.format(
              Locale.ROOT,
              "%s,%s,%s,%d,%s,%s,%.3f,%.3f,%.3f,%d",
              r.method(),
              r.filter(),
              r.keys(),
              r.size(),
              r.fpr(),
              r.hitRatio(),
              r.median(),
              r.forkMin(),
              r.forkMax(),
              r.forks()));
    }
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  static List<Row> read(Path file) throws IOException {
    List<Row> rows = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.equals(HEADER) || line.isBlank()) {
        continue;
      }
      String[] f = line.split(",");
      rows.add(
          new Row(
              f[0],
              f[1],
              f[2],
              Long.parseLong(f[3]),
              Double.parseDouble(f[4]),
              Double.parseDouble(f[5]),
              Double.parseDouble(f[6]),
              Double.parseDouble(f[7]),
              Double.parseDouble(f[8]),
              Integer.parseInt(f[9])));
    }
    return rows;
  }
}
