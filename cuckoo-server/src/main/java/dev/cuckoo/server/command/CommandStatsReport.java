package dev.cuckoo.server.command;

import dev.cuckoo.server.config.LatencyPercentiles;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * What the per-command counters ({@link CommandStats}) are shown as: INFO's Commandstats and
 * Latencystats sections and LATENCY HISTOGRAM, in Redis's words (server.c {@code
 * genRedisInfoStringCommandStats}, {@code fillPercentileDistributionLatencies}; latency.c {@code
 * fillCommandCDF}); and CONFIG RESETSTAT's reset of them.
 *
 * <p>Commands are listed in table order, each followed by its subcommands ({@code config|get}); a
 * container is listed only if it ran itself.
 */
final class CommandStatsReport {
  /** LATENCY HISTOGRAM's first bucket: latencies up to 1024 ns, shown as 1 µs. */
  private static final long FIRST_BUCKET_NANOS = 1024;

  private final Supplier<CommandTable> table;

  /** Creates the report over the command table (asked for on each use: it is built later). */
  CommandStatsReport(Supplier<CommandTable> table) {
    this.table = table;
  }

  /** Returns every command and subcommand, each container before its subcommands. */
  private List<CommandSpec> everySpec() {
    List<CommandSpec> specs = new ArrayList<>();
    for (CommandSpec spec : table.get().all()) {
      specs.add(spec);
      specs.addAll(spec.subcommands().values());
    }
    return specs;
  }

  /**
   * Appends INFO's Commandstats section: {@code cmdstat_<name>:calls=N,usec=N,usec_per_call=N.NN,
   * rejected_calls=N,failed_calls=N} for every command counted since the last reset.
   */
  void appendCommandStats(StringBuilder out) {
    out.append("# Commandstats\r\n");
    for (CommandSpec spec : everySpec()) {
      CommandStats stats = spec.stats();
      if (!stats.used()) {
        continue;
      }
      long calls = stats.calls();
      long micros = stats.micros();
      // Redis divides as a float and prints two decimals
      float perCall = calls == 0 ? 0 : (float) micros / calls;
      out.append("cmdstat_")
          .append(spec.name())
          .append(":calls=")
          .append(calls)
          .append(",usec=")
          .append(micros)
          .append(",usec_per_call=")
          .append(String.format(Locale.ROOT, "%.2f", perCall))
          .append(",rejected_calls=")
          .append(stats.rejectedCalls())
          .append(",failed_calls=")
          .append(stats.failedCalls())
          .append("\r\n");
    }
  }

  /**
   * Appends INFO's Latencystats section: {@code latency_percentiles_usec_<name>:p50=…,p99=…} with
   * the configured percentiles (latency-tracking-info-percentiles) for every command with a
   * histogram, in microseconds with three decimals.
   */
  void appendLatencyStats(StringBuilder out, double[] percentiles) {
    out.append("# Latencystats\r\n");
    for (CommandSpec spec : everySpec()) {
      Histogram histogram = spec.stats().latencies();
      if (histogram == null) {
        continue;
      }
      out.append("latency_percentiles_usec_").append(spec.name()).append(':');
      for (int i = 0; i < percentiles.length; i++) {
        if (i > 0) {
          out.append(',');
        }
        double micros = histogram.getValueAtPercentile(percentiles[i]) / 1000.0;
        out.append('p')
            .append(LatencyPercentiles.format(percentiles[i]))
            .append('=')
            .append(String.format(Locale.ROOT, "%.3f", micros));
      }
      out.append("\r\n");
    }
  }

  /**
   * LATENCY HISTOGRAM [command ...]: a map of command name to {@code {calls, histogram_usec}}, the
   * histogram being cumulative counts at power-of-two buckets from 1024 ns (each bucket's key is
   * the highest latency it holds, in whole microseconds: 1, 2, 4, 8, 16, 33, 66, ...), empty
   * buckets left out. Without names, every command with a histogram; with names, each named command
   * and its subcommands (unknown names are skipped).
   */
  void histogram(Session session, Request request) {
    byte[][] args = request.args();
    List<CommandSpec> selected = new ArrayList<>();
    if (args.length == 2) {
      selected.addAll(everySpec());
    } else {
      for (int i = 2; i < args.length; i++) {
        CommandSpec spec = find(Args.lower(args[i]));
        if (spec != null) {
          selected.add(spec);
          selected.addAll(spec.subcommands().values());
        }
      }
    }
    List<CommandSpec> withData = new ArrayList<>();
    List<Histogram> histograms = new ArrayList<>();
    for (CommandSpec spec : selected) {
      Histogram histogram = spec.stats().latencies();
      if (histogram != null) {
        withData.add(spec);
        histograms.add(histogram);
      }
    }
    Reply reply = session.reply();
    reply.map(withData.size());
    for (int i = 0; i < withData.size(); i++) {
      reply.bulk(withData.get(i).name());
      cumulativeDistribution(reply, histograms.get(i));
    }
  }

  /** Returns the command or subcommand ("config|get") of this lower-case name, or null. */
  private CommandSpec find(String name) {
    int bar = name.indexOf('|');
    if (bar < 0) {
      return table.get().find(name);
    }
    CommandSpec container = table.get().find(name.substring(0, bar));
    return container == null ? null : container.subcommands().get(name.substring(bar + 1));
  }

  /** Writes one command's {@code {calls, histogram_usec}} map. */
  private static void cumulativeDistribution(Reply reply, Histogram histogram) {
    List<long[]> buckets = buckets(histogram);
    reply.map(2);
    reply.bulk("calls");
    reply.integer(histogram.getTotalCount());
    reply.bulk("histogram_usec");
    reply.map(buckets.size());
    for (long[] bucket : buckets) {
      reply.integer(bucket[0]);
      reply.integer(bucket[1]);
    }
  }

  /**
   * Returns LATENCY HISTOGRAM's buckets of a histogram of nanoseconds: pairs of the highest latency
   * a bucket holds in whole microseconds and the count of calls up to it (cumulative), for the
   * levels 1024 ns, 2048 ns, ... as Redis's logarithmic iteration visits them, leaving out the
   * levels that add no call.
   */
  static List<long[]> buckets(Histogram histogram) {
    long total = histogram.getTotalCount();
    List<long[]> buckets = new ArrayList<>();
    long previous = 0;
    // the last level is above the histogram's largest value (1 s), so it holds every call; the
    // bound also ends the loop should a copy taken during recording count fewer than its total
    for (long level = FIRST_BUCKET_NANOS;
        previous < total && level <= 2 * CommandStats.HISTOGRAM_MAX_NANOS;
        level *= 2) {
      long highest = histogram.highestEquivalentValue(level);
      long cumulative = histogram.getCountBetweenValues(0, highest);
      if (cumulative > previous) {
        buckets.add(new long[] {highest / 1000, cumulative});
      }
      previous = cumulative;
    }
    return buckets;
  }

  /** Clears every command's counters and histogram (CONFIG RESETSTAT). */
  void reset() {
    for (CommandSpec spec : everySpec()) {
      spec.stats().reset();
    }
  }
}
