package dev.cuckoo.bench.report;

import dev.cuckoo.bench.FilterState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the benchmark suite and writes {@code benchmarks.md}, {@code benchmarks.csv} and the charts
 * into an output directory.
 *
 * <pre>
 * java -cp benchmarks.jar dev.cuckoo.bench.report.Suite [--out DIR] [--forks N] [--quick]
 *     [--large] [--huge] [--report-only]
 * </pre>
 *
 * Points that the targets compare run with {@code --forks} forks (default 3); the other points
 * (other peers, URL keys, the 1% rate, deletes) run with one fork. Every fork does two warm-up and
 * three measurement iterations of one second. {@code --large} adds 3.2·10^7 keys; {@code --huge}
 * adds 10^8 keys for the single lookups of CUCKOO, CUCKOO_STANDARD, FF_CUCKOO16 and the memory
 * floor (several GiB of heap). Besides the JMH runs the suite measures the growth curve of growing
 * filters ({@link GrowthCurve}: counts, not times). {@code --report-only} re-renders the Markdown
 * and charts from an existing {@code benchmarks.csv} and keeps the growth section of the existing
 * {@code benchmarks.md}.
 */
public final class Suite {
  /** JVM flags of every benchmark fork (recorded in the report). */
  static final List<String> JVM_FLAGS = List.of("-Xmx10g", "-XX:+UseTransparentHugePages");

  private static final String ALL_LOOKUP =
      "CUCKOO,GUAVA,CUCKOOFILTER4J,FF_CUCKOO16,FF_CUCKOO8,FF_CUCKOOPLUS16,FF_BLOCKED_BLOOM,FF_XOR8";

  /**
   * The filters of the targets' lookups: the default, the STANDARD arithmetic and semi-sorted
   * buckets (compared with the default in the same run), and the peers.
   */
  private static final String TARGET_PEERS =
      "CUCKOO,CUCKOO_STANDARD,CUCKOO_SEMISORTED,GUAVA,CUCKOOFILTER4J,FF_CUCKOO16,FF_XOR8,"
          + "MEMORY_FLOOR";

  /** The filters whose inserts the targets compare. */
  private static final String TARGET_INSERTS =
      "CUCKOO,CUCKOO_STANDARD,CUCKOO_SEMISORTED,FF_CUCKOO16";

  /** The filters measured at 10^8 keys ({@code --huge}). */
  private static final String HUGE_PEERS = "CUCKOO,CUCKOO_STANDARD,FF_CUCKOO16,MEMORY_FLOOR";

  /** The growth curve's start, target rate and number of absent probes. */
  private static final long GROWTH_INITIAL = 1000;

  private static final double GROWTH_FPR = 0.01;
  private static final long GROWTH_PROBES = 1_000_000;
  private static final String OTHER_PEERS = "FF_CUCKOO8,FF_CUCKOOPLUS16,FF_BLOCKED_BLOOM";

  private final Path out;
  private final int forks;
  private final boolean quick;
  private final List<String> sizes = new ArrayList<>();
  private final List<String> largeSizes = new ArrayList<>();
  private final List<String> hugeSizes = new ArrayList<>();
  private final List<Row> rows = new ArrayList<>();
  private final Path statsFile;

  private Suite(Path out, int forks, boolean quick, boolean large, boolean huge) {
    this.out = out;
    this.forks = forks;
    this.quick = quick;
    this.statsFile = out.resolve("filter-stats.csv");
    sizes.addAll(quick ? List.of("10000", "1000000") : List.of("10000", "1000000", "10000000"));
    largeSizes.add(quick ? "1000000" : "10000000");
    if (large || huge) {
      sizes.add("32000000");
      largeSizes.add("32000000");
    }
    if (huge) {
      hugeSizes.add("100000000");
    }
  }

  /**
   * Runs the suite.
   *
   * @param args see the class comment
   * @throws Exception if a benchmark run or writing the report fails
   */
  public static void main(String[] args) throws Exception {
    Path out = Path.of("docs");
    int forks = 3;
    boolean quick = false;
    boolean large = false;
    boolean huge = false;
    boolean reportOnly = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Path.of(args[++i]);
        case "--forks" -> forks = Integer.parseInt(args[++i]);
        case "--quick" -> quick = true;
        case "--large" -> large = true;
        case "--huge" -> huge = true;
        case "--report-only" -> reportOnly = true;
        default -> throw new IllegalArgumentException("unknown argument: " + args[i]);
      }
    }
    Files.createDirectories(out);
    Suite suite = new Suite(out, quick ? 1 : forks, quick, large, huge);
    Path csv = out.resolve("benchmarks.csv");
    Path markdown = out.resolve("benchmarks.md");
    List<String> growth;
    if (reportOnly) {
      suite.rows.addAll(Rows.read(csv));
      growth = GrowthCurve.existingSection(markdown);
    } else {
      Files.deleteIfExists(suite.statsFile);
      growth =
          GrowthCurve.section(
              GROWTH_INITIAL, GROWTH_FPR, GROWTH_PROBES, "the same suite run (no JMH)");
      suite.runAll();
      Rows.write(csv, suite.rows);
    }
    FilterStats stats = FilterStats.read(suite.statsFile);
    List<String> options = new ArrayList<>(Arrays.asList(args));
    int outIndex = options.indexOf("--out");
    if (outIndex >= 0 && outIndex + 1 < options.size()) {
      options.subList(outIndex, outIndex + 2).clear();
    }
    options.remove("--report-only");
    String command = String.join(" ", "cuckoo-bench/run-benchmarks.sh", String.join(" ", options));
    Report.write(markdown, suite.rows, stats, Machine.describe(), command.trim(), growth);
    Charts.write(out, suite.rows, stats);
  }

  private void runAll() throws RunnerException {
    String all = String.join(",", sizes);
    String large = String.join(",", largeSizes);
    // the targets: mixed lookups of every peer, hits and misses, batches, floor, inserts
    run("lookup", TARGET_PEERS, "LONG", all, "0.001", "0.5", true);
    run("lookup", OTHER_PEERS, "LONG", all, "0.001", "0.5", false);
    if (!hugeSizes.isEmpty()) {
      run("lookup", HUGE_PEERS, "LONG", String.join(",", hugeSizes), "0.001", "0.5", true);
    }
    run("lookup", "CUCKOO,FF_CUCKOO16", "LONG", large, "0.001", "1.0,0.0", true);
    run("batchLookup", "CUCKOO,MEMORY_FLOOR", "LONG", all, "0.001", "0.5", true);
    run("insert", TARGET_INSERTS, "LONG", all, "0.001", null, true);
    // coverage: slower peers' inserts, the 1% rate, URL keys, deletes
    run("insert", "GUAVA,CUCKOOFILTER4J,FF_XOR8", "LONG", sizes.get(1), "0.001", null, false);
    run(
        "lookup",
        "CUCKOO,GUAVA,CUCKOOFILTER4J,FF_BLOCKED_BLOOM",
        "LONG",
        sizes.get(1),
        "0.01",
        "0.5",
        false);
    run("lookup", ALL_LOOKUP, "URL", sizes.get(1), "0.001", "0.5", false);
    run("batchLookup", "CUCKOO", "URL", sizes.get(1), "0.001", "0.5", false);
    run("deleteAndReinsert", "CUCKOO,CUCKOOFILTER4J", "LONG", sizes.get(1), "0.001", null, false);
  }

  private void run(
      String method,
      String filters,
      String keys,
      String sizeList,
      String fpr,
      String hitRatios,
      boolean target)
      throws RunnerException {
    List<String> flags = new ArrayList<>(JVM_FLAGS);
    flags.add("-D" + FilterState.STATS_PROPERTY + "=" + statsFile.toAbsolutePath());
    ChainedOptionsBuilder options =
        new OptionsBuilder()
            .include("\\." + method + "$")
            .param("filter", filters.split(","))
            .param("keys", keys)
            .param("size", sizeList.split(","))
            .param("fpr", fpr)
            .forks(target ? forks : 1)
            .warmupIterations(quick ? 1 : 2)
            .warmupTime(TimeValue.milliseconds(quick ? 300 : 1000))
            .measurementIterations(quick ? 2 : 3)
            .measurementTime(TimeValue.milliseconds(quick ? 300 : 1000))
            .timeUnit(TimeUnit.NANOSECONDS)
            .jvmArgsAppend(flags.toArray(new String[0]))
            .shouldFailOnError(false);
    if (hitRatios != null) {
      options.param("hitRatio", hitRatios.split(","));
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    for (RunResult result : results) {
      rows.add(toRow(method, result));
    }
  }

  private static Row toRow(String method, RunResult result) {
    var params = result.getParams();
    long size = Long.parseLong(params.getParam("size"));
    // an insert invocation fills the whole filter: report the time per key
    double perOp = method.equals("insert") ? size : 1;
    String hit = params.getParam("hitRatio");
    double[] forkMeans =
        result.getBenchmarkResults().stream()
            .mapToDouble(b -> b.getPrimaryResult().getScore() / perOp)
            .sorted()
            .toArray();
    double median =
        result.getAggregatedResult().getPrimaryResult().getStatistics().getPercentile(50) / perOp;
    return new Row(
        method,
        params.getParam("filter"),
        params.getParam("keys"),
        size,
        Double.parseDouble(params.getParam("fpr")),
        hit == null ? Double.NaN : Double.parseDouble(hit),
        median,
        forkMeans[0],
        forkMeans[forkMeans.length - 1],
        forkMeans.length);
  }
}
