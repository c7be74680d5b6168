package dev.cuckoo.bench;

import java.util.Locale;

/**
 * A plain loop of fills (an empty filter filled with the same long keys, {@code rounds} times), for
 * profilers that sample the whole process, such as JDK Flight Recorder:
 *
 * <pre>
 * java -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
 *     -XX:StartFlightRecording=filename=fill.jfr,settings=profile \
 *     -cp cuckoo-bench/target/benchmarks.jar dev.cuckoo.bench.FillLoop CUCKOO_SEMISORTED 10000 0.001 8000
 * jfr print --events jdk.ExecutionSample fill.jfr
 * </pre>
 *
 * <p>Arguments: filter kind (an incremental {@link FilterKind}), number of keys (the filter's rated
 * capacity, as in {@link InsertBenchmark}), target rate, rounds. It prints the mean time per insert
 * over the last four fifths of the rounds, a rough figure (JMH's {@code InsertBenchmark} is the
 * measurement of record), and fails if a key is refused.
 */
public final class FillLoop {
  private FillLoop() {}

  /**
   * Runs the loop.
   *
   * @param args kind, size, rate, rounds
   */
  public static void main(String[] args) {
    if (args.length != 4) {
      System.err.println("usage: FillLoop KIND SIZE RATE ROUNDS");
      System.exit(2);
    }
    FilterKind kind = FilterKind.valueOf(args[0]);
    int size = Integer.parseInt(args[1]);
    double rate = Double.parseDouble(args[2]);
    int rounds = Integer.parseInt(args[3]);
    if (!kind.incremental() || size < 1 || rounds < 1) {
      System.err.println("expected: an incremental filter kind, SIZE >= 1, ROUNDS >= 1");
      System.exit(2);
    }
    long[] keys = Keys.longKeys(0, size);
    long start = 0;
    for (int round = 0; round < rounds; round++) {
      if (round == rounds / 5) {
        start = System.nanoTime();
      }
      Subject subject = kind.createEmpty(KeyType.LONG, size, rate);
      for (int i = 0; i < size; i++) {
        if (!subject.add(keys[i])) {
          throw new IllegalStateException(kind + " refused key " + i + " of " + size);
        }
      }
    }
    long timed = (long) (rounds - rounds / 5) * size;
    System.out.printf(
        Locale.ROOT,
        "%s %d keys, %d rounds: %.2f ns per insert%n",
        kind,
        size,
        rounds,
        (System.nanoTime() - start) / (double) timed);
  }
}
