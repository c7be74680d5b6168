package dev.cuckoo.cli;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHashers;
import java.io.PrintWriter;
import java.lang.ref.Reference;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cuckoo demo}: builds a filter of generated URLs on built-in defaults and prints what it
 * costs and how it behaves next to a {@link HashSet} and a Bloom filter of the same rate.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Generate URL-like strings, build a cuckoo filter, query present and absent URLs, delete"
          + " some, and compare memory with a HashSet<String> and a Bloom filter of the same"
          + " false-positive rate."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  cuckoo demo                       1,000,000 URLs at a 0.1%% false-positive rate",
      "  cuckoo demo --items 10000000      ten times more (needs a larger heap)",
      "  cuckoo demo --fpp 0.01 --seed 7   another rate and data set",
      "  cuckoo demo --no-hashset          estimate the HashSet instead of building it"
    })
final class DemoCommand implements Callable<Integer> {
  private static final long MIN_ITEMS = 1_000;
  private static final long MAX_ITEMS = 50_000_000;
  private static final int TIMED_PASSES = 3;
  private static final double Z95 = 1.96;
  private static final long DEMO_BYTES_PER_ITEM = 450;

  @Spec private CommandSpec spec;

  @Option(
      names = "--items",
      defaultValue = "1000000",
      paramLabel = "N",
      description = "Number of URLs in the filter (default ${DEFAULT-VALUE}; 1000 to 50000000).")
  private long items;

  @Option(
      names = "--fpp",
      defaultValue = "0.001",
      paramLabel = "RATE",
      description = "Target false-positive rate (default ${DEFAULT-VALUE}).")
  private double fpp;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Selects the generated data set (default ${DEFAULT-VALUE}).")
  private long seed;

  @Option(
      names = "--no-hashset",
      description = "Do not build the HashSet; estimate its size from the object layout.")
  private boolean noHashSet;

  @Override
  public Integer call() {
    if (items < MIN_ITEMS || items > MAX_ITEMS) {
      throw new ParameterException(
          spec.commandLine(),
          "--items: " + items + " (expected: " + MIN_ITEMS + " to " + MAX_ITEMS + ")");
    }
    if (!(fpp > 0 && fpp < 1)) {
      throw new ParameterException(
          spec.commandLine(), "--fpp: " + fpp + " (expected: 0 < fpp < 1)");
    }
    // two arrays of about 150-byte URL strings, and the HashSet's own copies: ~450 bytes/item
    long needed = items * DEMO_BYTES_PER_ITEM;
    if (needed > HeapMeter.headroom()) {
      throw new CliException(
          "--items "
              + items
              + " needs about "
              + Text.bytes(needed)
              + " of heap, more than this JVM has ("
              + Text.bytes(HeapMeter.headroom())
              + " free); raise it with CUCKOO_JAVA_OPTS=-Xmx... or use fewer --items");
    }
    PrintWriter out = spec.commandLine().getOut();
    int n = (int) items;
    UrlGenerator generator = new UrlGenerator(seed);
    out.printf(
        "cuckoo demo: %s URL-like strings (seed %d), target false-positive rate %s%n%n",
        Text.count(n), seed, Text.percent(fpp));

    long start = System.nanoTime();
    String[] present = generate(generator, 0, n);
    long totalChars = 0;
    for (String url : present) {
      totalChars += url.length();
    }
    out.printf(
        "  data       %s URLs, %.1f chars on average, e.g. %s%n",
        Text.count(n), (double) totalChars / n, present[0]);
    out.printf("             (generated in %s)%n", Text.seconds(System.nanoTime() - start));

    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(n).falsePositiveRate(fpp).build();
    start = System.nanoTime();
    long failed = 0;
    for (String url : present) {
      if (!filter.add(url)) {
        failed++;
      }
    }
    long buildNanos = System.nanoTime() - start;
    out.printf(
        "  build      %s added, %s failed, in %s (%s); load %s, %d-bit fingerprints, %d per"
            + " bucket%n",
        Text.count(filter.size()),
        Text.count(failed),
        Text.seconds(buildNanos),
        Text.rate(n / (buildNanos / 1e9)),
        Text.percent(filter.loadFactor()),
        filter.fingerprintBits(),
        filter.bucketSize());

    long falseNegatives = n - countHits(filter, present);
    double expectedRate = filter.expectedFalsePositiveRate();
    String[] absent = generate(generator, n, n);
    long presentNanos = bestTime(filter, present);
    long absentNanos = bestTime(filter, absent);
    long falsePositives = countHits(filter, absent);
    double measuredRate = (double) falsePositives / n;
    double spread = Z95 * Math.sqrt(expectedRate * (1 - expectedRate) / n);
    out.printf(
        "  lookups    %s present URLs: %s false negatives; %s (best of %d passes, not a JMH"
            + " benchmark)%n",
        Text.count(n),
        Text.count(falseNegatives),
        Text.rate(n / (presentNanos / 1e9)),
        TIMED_PASSES);
    out.printf(
        "             %s absent URLs: %s answered \"maybe\"; %s%n",
        Text.count(n), Text.count(falsePositives), Text.rate(n / (absentNanos / 1e9)));
    out.printf(
        "  false pos. measured %s, expected %s (95%% range for %s queries: %s to %s)%n",
        Text.percent(measuredRate),
        Text.percent(expectedRate),
        Text.count(n),
        Text.percent(Math.max(0, expectedRate - spread)),
        Text.percent(expectedRate + spread));

    int deleted = n / 10;
    long removed = 0;
    for (int i = 0; i < deleted; i++) {
      if (filter.remove(present[i])) {
        removed++;
      }
    }
    long keptMisses = 0;
    for (int i = deleted; i < n; i++) {
      if (!filter.mightContain(present[i])) {
        keptMisses++;
      }
    }
    long deletedHits = 0;
    for (int i = 0; i < deleted; i++) {
      if (filter.mightContain(present[i])) {
        deletedHits++;
      }
    }
    out.printf(
        "  delete     %s of %s removed; the %s kept URLs: %s false negatives; deleted URLs still"
            + " \"maybe\": %s%n",
        Text.count(removed),
        Text.count(deleted),
        Text.count(n - deleted),
        Text.count(keptMisses),
        Text.percent((double) deletedHits / deleted));
    absent = null;

    long filterBytes = filter.sizeInBytes();
    MemoryRow hashSet = hashSetMemory(generator, present, n);
    double bloomBits = -n * Math.log(fpp) / (Math.log(2) * Math.log(2));
    out.printf(
        "%n  memory for %s items at a %s false-positive rate%n", Text.count(n), Text.percent(fpp));
    out.printf("    %-18s %12s %12s   %s%n", "", "total", "bits/item", "how obtained");
    row(out, "cuckoo filter", filterBytes, n, "measured: sizeInBytes() of the filter above");
    row(out, "HashSet<String>", hashSet.bytes, n, hashSet.how);
    row(
        out,
        "Bloom filter",
        bloomBits / 8,
        n,
        "computed: -n ln(eps) / (ln 2)^2 bits, the optimum; not built");
    out.flush();
    Reference.reachabilityFence(present);
    return falseNegatives == 0 && keptMisses == 0 ? ExitCode.OK : ExitCode.INTERNAL;
  }

  private static void row(PrintWriter out, String name, double bytes, long n, String how) {
    out.printf(
        "    %-18s %12s %12s   %s%n", name, Text.bytes(bytes), Text.decimal(bytes * 8 / n, 1), how);
  }

  private static String[] generate(UrlGenerator generator, long firstId, int count) {
    String[] urls = new String[count];
    for (int i = 0; i < count; i++) {
      urls[i] = generator.url(firstId + i);
    }
    return urls;
  }

  private static long countHits(CuckooFilter<CharSequence> filter, String[] urls) {
    long hits = 0;
    for (String url : urls) {
      if (filter.mightContain(url)) {
        hits++;
      }
    }
    return hits;
  }

  private static long bestTime(CuckooFilter<CharSequence> filter, String[] urls) {
    long best = Long.MAX_VALUE;
    long sink = 0;
    for (int pass = 0; pass < TIMED_PASSES; pass++) {
      long start = System.nanoTime();
      sink += countHits(filter, urls);
      best = Math.min(best, System.nanoTime() - start);
    }
    if (sink < 0) {
      throw new AssertionError(sink);
    }
    return Math.max(best, 1);
  }

  /** The memory a HashSet of the same URLs needs, and how that number was obtained. */
  private static final class MemoryRow {
    final double bytes;
    final String how;

    MemoryRow(double bytes, String how) {
      this.bytes = bytes;
      this.how = how;
    }
  }

  private MemoryRow hashSetMemory(UrlGenerator generator, String[] present, int n) {
    double estimate = hashSetEstimate(present);
    if (noHashSet) {
      return new MemoryRow(estimate, "estimated: object layout (compressed oops), not built");
    }
    if (HeapMeter.headroom() < 2 * estimate) {
      return new MemoryRow(
          estimate, "estimated: object layout; too little heap to build it (-Xmx)");
    }
    long before = HeapMeter.usedAfterGc();
    Set<String> set = new HashSet<>();
    for (int i = 0; i < n; i++) {
      set.add(generator.url(i));
    }
    long after = HeapMeter.usedAfterGc();
    Reference.reachabilityFence(set);
    return new MemoryRow(
        after - before, "measured: heap growth after GC, its own copies of the strings included");
  }

  /**
   * Estimates a {@code HashSet<String>} of {@code urls} on a 64-bit JVM with compressed oops and
   * compact (Latin-1) strings: per item a 32-byte HashMap node, a 24-byte String and its byte array
   * (16-byte header plus the characters, rounded up to 8), plus a 4-byte table slot per bucket of a
   * table kept at most 75% full.
   */
  private static double hashSetEstimate(String[] urls) {
    double bytes = 0;
    for (String url : urls) {
      bytes += 32 + 24 + ((16 + url.length() + 7) & ~7);
    }
    long tableSlots = Long.highestOneBit((long) Math.ceil(urls.length / 0.75)) * 2;
    return bytes + 4.0 * tableSlots + 16 + 48;
  }
}
