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
    } else if (args.length == 4 && args[0].equals("stalls")) {
      stalls(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
    } else {
      System.err.println(
          "usage: DurabilityBench latency PORT SAVE|BGSAVE RATE CONNECTIONS\n"
              + "       DurabilityBench stalls PORT SNAPSHOTS RATE\n"
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
        if (key != null) {
          client.call("CF.RESERVE", key, 1_000_000);
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (long next = startNanos; !stop.get(); next += intervalNanos) {
          long wait = next - System.nanoTime();
          if (wait > 0) {
            LockSupport.parkNanos(wait);
          }
          Object reply =
              key == null
                  ? client.call("PING")
                  : client.call("CF.ADD", key, Long.toString(random.nextLong()));
          long done = System.nanoTime();
          if (key == null
              ? !new RespClient.Simple("PONG").equals(reply)
              : !Long.valueOf(1).equals(reply)) {
            throw new IOException(
                (key == null ? "PING" : "CF.ADD " + key) + ": " + describe(reply));
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

  /**
   * {@code stalls PORT SNAPSHOTS RATE}: one client sends PING and two send CF.ADD to their own
   * small keys, each RATE requests per second on a fixed schedule (latency from the scheduled
   * time), while SNAPSHOTS BGSAVEs run one after another (the server holds whatever filters the
   * caller made, e.g. a 512 MiB one). Prints a line per snapshot with the maximum PING and CF.ADD
   * latency of the requests scheduled while it ran, then a summary: the maximum and p99 over all
   * snapshots and the number of snapshots whose maximum passed 50 ms. After each snapshot the same
   * traffic runs for as long again with no snapshot (a quiet window): the same figures over those
   * windows are the baseline of this host and client in the same run (what no server change can
   * remove: the scheduler, the client's own pauses).
   */
  private static void stalls(int port, int snapshots, int rate) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    long start = System.nanoTime() + 200_000_000L;
    long interval = 1_000_000_000L / rate;
    Pacer ping = new Pacer(port, null, interval, start, stop);
    List<Pacer> adds =
        List.of(
            new Pacer(port, "stall0", interval, start + interval / 3, stop),
            new Pacer(port, "stall1", interval, start + 2 * interval / 3, stop));
    List<Thread> threads = new ArrayList<>();
    threads.add(new Thread(ping, "pacer-ping"));
    for (Pacer add : adds) {
      threads.add(new Thread(add, "pacer-" + add.key));
    }
    threads.forEach(Thread::start);
    Thread.sleep(2_200);
    long[][] windows = new long[snapshots][];
    long[][] quiet = new long[snapshots][];
    try (RespClient admin = new RespClient(port)) {
      for (int s = 0; s < snapshots; s++) {
        long from = System.nanoTime();
        Object reply = admin.call("BGSAVE");
        if (reply instanceof RespClient.Err) {
          throw new IOException("BGSAVE: " + describe(reply));
        }
        while (!RespClient.text(admin.call("INFO", "persistence"))
            .contains("rdb_bgsave_in_progress:0")) {
          Thread.sleep(5);
        }
        windows[s] = new long[] {from, System.nanoTime()};
        long length = windows[s][1] - windows[s][0];
        Thread.sleep(length / 1_000_000 + 1);
        quiet[s] = new long[] {windows[s][1], windows[s][1] + length};
      }
    }
    Thread.sleep(500);
    stop.set(true);
    for (Thread thread : threads) {
      thread.join();
    }
    List<Long> allPings = new ArrayList<>();
    List<Long> allAdds = new ArrayList<>();
    int slowSnapshots = 0;
    List<Long> quietPings = new ArrayList<>();
    List<Long> quietAdds = new ArrayList<>();
    int slowQuiet = 0;
    for (int s = 0; s < snapshots; s++) {
      List<Long> quietPing = during(List.of(ping), quiet[s]);
      List<Long> quietAdd = during(adds, quiet[s]);
      quietPings.addAll(quietPing);
      quietAdds.addAll(quietAdd);
      slowQuiet += percentile(quietPing, 100) > 50 || percentile(quietAdd, 100) > 50 ? 1 : 0;
      List<Long> pings = during(List.of(ping), windows[s]);
      List<Long> writes = during(adds, windows[s]);
      allPings.addAll(pings);
      allAdds.addAll(writes);
      double pingMax = percentile(pings, 100);
      double addMax = percentile(writes, 100);
      slowSnapshots += pingMax > 50 || addMax > 50 ? 1 : 0;
      System.out.printf(
          Locale.ROOT,
          "snapshot=%d save_ms=%.0f ping_n=%d ping_max_ms=%.1f add_n=%d add_max_ms=%.1f%n",
          s,
          (windows[s][1] - windows[s][0]) / 1e6,
          pings.size(),
          pingMax,
          writes.size(),
          addMax);
    }
    System.out.printf(
        Locale.ROOT,
        "summary snapshots=%d rate=%d ping_n=%d ping_p99_ms=%.2f ping_max_ms=%.1f add_n=%d"
            + " add_p99_ms=%.2f add_max_ms=%.1f snapshots_over_50ms=%d%n",
        snapshots,
        rate,
        allPings.size(),
        percentile(allPings, 99),
        percentile(allPings, 100),
        allAdds.size(),
        percentile(allAdds, 99),
        percentile(allAdds, 100),
        slowSnapshots);
    System.out.printf(
        Locale.ROOT,
        "baseline quiet_windows=%d ping_n=%d ping_p99_ms=%.2f ping_max_ms=%.1f add_n=%d"
            + " add_p99_ms=%.2f add_max_ms=%.1f windows_over_50ms=%d%n",
        snapshots,
        quietPings.size(),
        percentile(quietPings, 99),
        percentile(quietPings, 100),
        quietAdds.size(),
        percentile(quietAdds, 99),
        percentile(quietAdds, 100),
        slowQuiet);
  }

  /** Returns the latencies of the requests the pacers scheduled inside {@code window}. */
  private static List<Long> during(List<Pacer> pacers, long[] window) throws IOException {
    List<Long> latencies = new ArrayList<>();
    for (Pacer pacer : pacers) {
      if (pacer.failure != null) {
        throw pacer.failure;
      }
      for (int i = 0; i < pacer.count; i++) {
        if (pacer.scheduled[i] >= window[0] && pacer.scheduled[i] <= window[1]) {
          latencies.add(pacer.latency[i]);
        }
      }
    }
    return latencies;
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
