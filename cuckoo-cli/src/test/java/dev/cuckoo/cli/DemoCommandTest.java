package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class DemoCommandTest {
  private static long number(String text, String regex) {
    Matcher matcher = Pattern.compile(regex).matcher(text);
    assertTrue(matcher.find(), regex + " in\n" + text);
    return Long.parseLong(matcher.group(1).replace(",", ""));
  }

  @Test
  void demo_smallDataSet_printsTableWithoutFalseNegatives() {
    int n = 50_000;
    CliRun run = CliRun.run("demo", "--items", String.valueOf(n), "--fpp", "0.01", "--seed", "5");
    assertEquals(0, run.exitCode, run.toString());
    assertEquals("", run.err);
    String out = run.out;
    assertEquals(n, number(out, "build +([\\d,]+) added"));
    assertEquals(0, number(out, "added, ([\\d,]+) failed"));
    assertEquals(0, number(out, "present URLs: ([\\d,]+) false negatives"));
    assertEquals(0, number(out, "kept URLs: ([\\d,]+) false negatives"));
    assertEquals(n / 10, number(out, "delete +([\\d,]+) of"));
    // the measured count against the printed expected rate: within 5 binomial standard
    // deviations (a false alarm about once in 3 million runs)
    long falsePositives = number(out, "absent URLs: ([\\d,]+) answered");
    Matcher expected = Pattern.compile("expected ([0-9.]+)% \\(95%").matcher(out);
    assertTrue(expected.find(), out);
    double rate = Double.parseDouble(expected.group(1)) / 100;
    assertTrue(rate > 0.001 && rate <= 0.01, "expected rate " + rate);
    double sigma = Math.sqrt(n * rate * (1 - rate));
    assertTrue(
        Math.abs(falsePositives - n * rate) <= 5 * sigma,
        "false positives " + falsePositives + " vs " + n * rate + " expected");
    assertTrue(out.contains("HashSet<String>"), out);
    assertTrue(out.contains("measured: heap growth"), out);
    assertTrue(out.contains("computed: -n ln(eps)"), out);
  }

  @Test
  void demo_noHashSet_showsEstimate() {
    CliRun run = CliRun.run("demo", "--items", "2000", "--no-hashset");
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains("estimated: object layout"), run.out);
  }

  @Test
  void demo_bloomRow_matchesFormula() {
    CliRun run = CliRun.run("demo", "--items", "10000", "--fpp", "0.001", "--no-hashset");
    assertEquals(0, run.exitCode, run.toString());
    // -ln(0.001) / (ln 2)^2 = 14.3776 bits per item
    assertTrue(run.out.matches("(?s).*Bloom filter +[0-9.]+ KiB +14\\.4 .*"), run.out);
  }

  @Test
  void demo_itemsOutOfRange_exit2WithRange() {
    CliRun run = CliRun.run("demo", "--items", "10");
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertEquals(
        "cuckoo demo: --items: 10 (expected: 1000 to 50000000) (see 'cuckoo demo --help')",
        run.err.strip());
  }

  @Test
  void demo_fppOutOfRange_exit2() {
    CliRun run = CliRun.run("demo", "--fpp", "1.5");
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertTrue(run.err.contains("--fpp: 1.5 (expected: 0 < fpp < 1)"), run.err);
  }
}
