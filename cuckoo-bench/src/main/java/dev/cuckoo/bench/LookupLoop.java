package dev.cuckoo.bench;

import java.util.Locale;

/**
 * A plain loop of single lookups, for counting instructions per lookup with an instruction counter
 * that sees the whole process ({@code valgrind --tool=callgrind}, {@code perf stat}): run it twice
 * with different lookup counts and divide the difference of the two totals by the difference of the
 * counts, which cancels the JVM's start-up, the filter's construction and the compilation. {@code
 * cuckoo-bench/instructions-per-lookup.sh} does that.
 *
 * <p>Arguments: filter kind (a {@link FilterKind}), number of inserted long keys, target rate,
 * number of lookups. The probes are 50% inserted keys and 50% never-inserted ones, in a fixed
 * pseudo-random order, as in {@link LookupBenchmark}; the lookups run in rounds over 2^16 probes.
 * It prints the number of positive answers, which depends on the answers, so the loop cannot be
 * removed by the compiler and a wrong filter shows.
 */
public final class LookupLoop {
  private static final int PROBES = 1 << 16;

  private LookupLoop() {}

  /**
   * Runs the loop.
   *
   * @param args kind, size, rate, lookups
   */
  public static void main(String[] args) {
    if (args.length != 4) {
      System.err.println("usage: LookupLoop KIND SIZE RATE LOOKUPS");
      System.exit(2);
    }
    FilterKind kind = FilterKind.valueOf(args[0]);
    int size = Integer.parseInt(args[1]);
    double rate = Double.parseDouble(args[2]);
    long lookups = Long.parseLong(args[3]);
    Subject subject = kind.build(Keys.longKeys(0, size), null, rate);
    long[] probes = new long[PROBES];
    for (int j = 0; j < PROBES; j++) {
      long r = Keys.mix(j ^ 0x3C6EF372FE94F82BL);
      boolean hit = (r & 1) == 0;
      probes[j] =
          Keys.longKey(hit ? Long.remainderUnsigned(Keys.mix(r), size) : FilterState.MISS_BASE + j);
    }
    long positives = 0;
    for (long done = 0; done < lookups; done += PROBES) {
      int n = (int) Math.min(PROBES, lookups - done);
      positives += round(subject, probes, n);
    }
    System.out.printf(Locale.ROOT, "%s %d lookups, %d positive%n", kind, lookups, positives);
  }

  private static int round(Subject subject, long[] probes, int n) {
    int positives = 0;
    for (int i = 0; i < n; i++) {
      positives += subject.mightContain(probes[i]) ? 1 : 0;
    }
    return positives;
  }
}
