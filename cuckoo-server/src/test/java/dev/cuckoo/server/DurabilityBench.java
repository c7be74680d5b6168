package dev.cuckoo.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The load generator of {@code cuckoo-server/bench/durability-bench.sh} (a tool, not a test).
 *
 * <p>{@code latency PORT SAVE|BGSAVE RATE CONNECTIONS}: CONNECTIONS clients each send CF.ADD of
 * random items to their own key ({@code lat0}, {@code lat1}, ...; reserved with capacity 10^6) on a
 * fixed schedule, RATE requests per second in total. Latency is measured from the moment a request
 * was scheduled, not sent, so a stalled server is charged for every request it delayed (no
 * coordinated omission). After 2 s of warm-up and 3 s of baseline, another connection sends SAVE
 * (which returns when the snapshot is written) or BGSAVE (then {@code INFO persistence} is polled
 * until {@code rdb_bgsave_in_progress:0}); the load goes on for 1 s after the snapshot. Prints one
 * line: the snapshot's duration and the p50, p99 and maximum latency of the requests scheduled
 * before it (baseline) and while it ran.
 *
 * <p>{@code time PORT ARG...}: sends one command and prints the milliseconds until its reply, and
 * the reply.
 */
final class DurabilityBench {
  private DurabilityBench() {}

  /** Runs the mode named by the first argument. */
  public static void main(String[] args) throws Exception {
    if (args.length >= 3 && args[0].equals("time")) {
      try (RespClient client = new RespClient(Integer.parseInt(args[1]))) {
        long start = System.nanoTime();
        Object reply = client.call((Object[]) Arrays.copyOfRange(args, 2, args.length));
        double millis = (System.nanoTime() - start) / 1e6;
        System.out.printf(Locale.ROOT, "%.1f %s%n", millis, describe(reply));
      }
    } else if (args.length == 5 && args[0].equals("latency")) {
      latency(
          Integer.parseInt(args[1]),
          args[2].toUpperCase(Locale.ROOT),
          Integer.parseInt(args[3]),
          Integer.parseInt(args[4]));
    } else {
      System.err.println(
          "usage: DurabilityBench latency PORT SAVE|BGSAVE RATE CONNECTIONS\n"
              + "       DurabilityBench time PORT ARG...");
      System.exit(2);
    }
  }

  private static String describe(Object reply) {
    if (reply instanceof byte[]) {
      return RespClient.text(reply);
    }
    if (reply instanceof List) {
      List<String> items = new ArrayList<>();
      for (Object item : (List<?>) reply) {
        items.add(describe(item));
      }
      return items.toString();
    }
    return String.valueOf(reply);
  }

  /** One paced client: its schedule's start times and the latencies it measured (nanos). */
  private static final class Pacer implements Runnable {
    private final int port;
    private final String key;
    private final long intervalNanos;
    private final long startNanos;
    private final AtomicBoolean stop;
    private long[] scheduled = new long[1 << 16];
    private long[] latency = new long[1 << 16];
    private int count;
    private volatile IOException failure;

    Pacer(int port, String key, long intervalNanos, long startNanos, AtomicBoolean stop) {
      this.port = port;
      this.key = key;
      this.intervalNanos = intervalNanos;
      this.startNanos = startNanos;
      this.stop = stop;
    }

    @Override
    public void run() {
      try (RespClient client = new RespClient(port)) {
        client.call("CF.RESERVE", key, 1_000_000);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (long next = startNanos; !stop.get(); next += intervalNanos) {
          long wait = next - System.nanoTime();
          if (wait > 0) {
            LockSupport.parkNanos(wait);
          }
          Object reply = client.call("CF.ADD", key, Long.toString(random.nextLong()));
          long done = System.nanoTime();
          if (!Long.valueOf(1).equals(reply)) {
            throw new IOException("CF.ADD " + key + ": " + describe(reply));
          }
          if (count == scheduled.length) {
            scheduled = Arrays.copyOf(scheduled, count * 2);
            latency = Arrays.copyOf(latency, count * 2);
          }
          scheduled[count] = next;
          latency[count] = done - next;
          count++;
        }
      } catch (IOException e) {
        failure = e;
      }
    }
  }

  private static void latency(int port, String command, int rate, int connections)
      throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    long start = System.nanoTime() + 200_000_000L;
    List<Pacer> pacers = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < connections; c++) {
      Pacer pacer =
          new Pacer(
              port,
              "lat" + c,
              1_000_000_000L * connections / rate,
              start + c * 1_000_000_000L / rate,
              stop);
      pacers.add(pacer);
      threads.add(new Thread(pacer, "pacer-" + c));
    }
    threads.forEach(Thread::start);
    Thread.sleep(5_200);
    long baselineFrom = start + 2_000_000_000L;
    long saveStart;
    long saveEnd;
    try (RespClient admin = new RespClient(port)) {
      saveStart = System.nanoTime();
      Object reply = admin.call(command);
      if (command.equals("BGSAVE")) {
        while (!RespClient.text(admin.call("INFO", "persistence"))
            .contains("rdb_bgsave_in_progress:0")) {
          Thread.sleep(5);
        }
      }
      saveEnd = System.nanoTime();
      if (reply instanceof RespClient.Err) {
        throw new IOException(command + ": " + describe(reply));
      }
    }
    Thread.sleep(1_000);
    stop.set(true);
    for (Thread thread : threads) {
      thread.join();
    }
    List<Long> baseline = new ArrayList<>();
    List<Long> during = new ArrayList<>();
    for (Pacer pacer : pacers) {
      if (pacer.failure != null) {
        throw pacer.failure;
      }
      for (int i = 0; i < pacer.count; i++) {
        long at = pacer.scheduled[i];
        if (at >= baselineFrom && at < saveStart) {
          baseline.add(pacer.latency[i]);
        } else if (at >= saveStart && at <= saveEnd) {
          during.add(pacer.latency[i]);
        }
      }
    }
    System.out.printf(
        Locale.ROOT,
        "%s save_ms=%.0f rate=%d connections=%d baseline_n=%d"
            + " baseline_p50_ms=%.2f baseline_p99_ms=%.2f baseline_max_ms=%.1f during_n=%d"
            + " during_p50_ms=%.2f during_p99_ms=%.2f during_max_ms=%.1f%n",
        command,
        (saveEnd - saveStart) / 1e6,
        rate,
        connections,
        baseline.size(),
        percentile(baseline, 50),
        percentile(baseline, 99),
        percentile(baseline, 100),
        during.size(),
        percentile(during, 50),
        percentile(during, 99),
        percentile(during, 100));
  }

  /** Returns the nearest-rank percentile in milliseconds (NaN for no samples). */
  private static double percentile(List<Long> nanos, double percent) {
    if (nanos.isEmpty()) {
      return Double.NaN;
    }
    long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
    int rank = (int) Math.ceil(percent / 100 * sorted.length);
    return sorted[Math.max(0, rank - 1)] / 1e6;
  }
}
