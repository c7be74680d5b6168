package dev.cuckoo.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's targets and comparison sections, from hand-made rows with known ratios. */
class ReportTest {
  @TempDir Path dir;

  private static Row lookup(String filter, long size, double ns) {
    return new Row("lookup", filter, "LONG", size, 0.001, 0.5, ns, ns, ns, 1);
  }

  private static Row insert(String filter, long size, double ns) {
    return new Row("insert", filter, "LONG", size, 0.001, Double.NaN, ns, ns, ns, 1);
  }

  private List<String> render(List<Row> rows, String statsCsv, List<String> growth)
      throws IOException {
    Path stats = dir.resolve("stats.csv");
    Files.writeString(stats, statsCsv, StandardCharsets.UTF_8);
    Path out = dir.resolve("benchmarks.md");
    Report.write(out, rows, FilterStats.read(stats), List.of("- machine"), "cmd", growth);
    return Files.readAllLines(out, StandardCharsets.UTF_8);
  }

  @Test
  void write_semiSortedAndLargeTargets_ratiosAndVerdicts() throws IOException {
    List<Row> rows =
        List.of(
            lookup("CUCKOO", 32_000_000, 50),
            lookup("CUCKOO_STANDARD", 32_000_000, 60),
            lookup("CUCKOO_SEMISORTED", 32_000_000, 64),
            lookup("FF_CUCKOO16", 32_000_000, 54),
            insert("CUCKOO", 32_000_000, 100),
            insert("CUCKOO_SEMISORTED", 32_000_000, 149));
    List<String> lines =
        render(
            rows,
            "CUCKOO,LONG,32000000,0.001,13.7600,0.000900\n"
                + "CUCKOO_SEMISORTED,LONG,32000000,0.001,12.7000,0.001100\n",
            List.of("## Growing filters", "", "kept"));

    assertTrue(
        lines.contains(
            "| single lookup vs FF_CUCKOO16 (32000000 keys) | 50.0 / 54.0 ns = 0.93× | ≤ 0.9× |"
                + " **no** |"),
        String.join("\n", lines));
    assertTrue(lines.contains("| semi-sorted bits/key (32000000 keys) | 12.70 | ≤ 12.8 | yes |"));
    assertTrue(
        lines.contains(
            "| semi-sorted measured FPR (32000000 keys) | 0.001100 | ≤ 0.001 | **no** |"));
    assertTrue(
        lines.contains(
            "| semi-sorted lookup vs CUCKOO (32000000 keys) | 64.0 / 50.0 ns = 1.28× | ≤ 1.3× |"
                + " yes |"));
    assertTrue(
        lines.contains(
            "| semi-sorted insert vs CUCKOO (32000000 keys) | 149.0 / 100.0 ns = 1.49× | ≤ 1.5× |"
                + " yes |"));
    assertTrue(
        lines.contains("| 32000000 | 50.0 | 60.0 | 0.83× | 54.0 | 0.93× |  |  |"),
        "the scheme comparison row");
    assertTrue(
        lines.contains(
            "| 32000000 | 13.76 | 12.70 | 0.0900% | 0.1100% | 50.0 | 64.0 | 1.28× | 100.0 | 149.0"
                + " | 1.49× |"),
        "the semi-sorted row");
    assertEquals("kept", lines.get(lines.size() - 1), "the growth section ends the report");
  }

  @Test
  void existingSection_keepsGrowthSectionUpToNextHeading() throws IOException {
    Path file = dir.resolve("old.md");
    Files.write(
        file,
        List.of("# B", "## Growing filters", "", "| 1× |", "## Other", "x"),
        StandardCharsets.UTF_8);

    assertEquals(List.of("## Growing filters", "", "| 1× |"), GrowthCurve.existingSection(file));
    assertEquals(List.of(), GrowthCurve.existingSection(dir.resolve("missing.md")));
  }
}
