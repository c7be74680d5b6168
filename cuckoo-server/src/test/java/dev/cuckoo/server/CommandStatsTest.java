package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * INFO commandstats and latencystats, LATENCY HISTOGRAM, the latency-tracking settings and CONFIG
 * RESETSTAT, checked against the shapes Redis's server.c and latency.c print.
 */
class CommandStatsTest {
  private static final Simple OK = new Simple("OK");
  private static final Pattern COMMANDSTAT =
      Pattern.compile(
          "calls=(\\d+),usec=(\\d+),usec_per_call=(\\d+\\.\\d\\d),rejected_calls=(\\d+),"
              + "failed_calls=(\\d+)");

  /** Returns the lines of one INFO section after its header, by field name. */
  private static Map<String, String> section(RespClient client, String name) throws IOException {
    String text = RespClient.text(client.call("INFO", name));
    String[] lines = text.split("\r\n");
    assertEquals("# " + Character.toUpperCase(name.charAt(0)) + name.substring(1), lines[0]);
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      fields.put(lines[i].substring(0, colon), lines[i].substring(colon + 1));
    }
    return fields;
  }

  /** Returns calls, rejected_calls and failed_calls of a cmdstat line, checking its shape. */
  private static List<Long> counts(String line) {
    java.util.regex.Matcher matcher = COMMANDSTAT.matcher(line);
    assertTrue(matcher.matches(), line);
    long calls = Long.parseLong(matcher.group(1));
    long micros = Long.parseLong(matcher.group(2));
    String perCall = String.format(java.util.Locale.ROOT, "%.2f", (float) micros / calls);
    assertEquals(calls == 0 ? "0.00" : perCall, matcher.group(3), line);
    return List.of(calls, Long.parseLong(matcher.group(4)), Long.parseLong(matcher.group(5)));
  }

  /*
   * networking.c afterErrorReply: every error reply to a client counts in total_error_replies and
   * under its first word in errorstats (EXECABORT, ERR); CONFIG RESETSTAT clears both.
   */
  @Test
  void infoErrorstats_afterErrors_countsByCodeUntilResetstat() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(Map.of(), section(client, "errorstats"));
      assertTrue(client.call("NOSUCHCOMMAND") instanceof Err);
      assertEquals(OK, client.call("MULTI"));
      assertTrue(client.call("NOSUCHCOMMAND") instanceof Err);
      Object aborted = client.call("EXEC");
      assertTrue(aborted.toString().contains("EXECABORT"), String.valueOf(aborted));
      assertEquals(
          Map.of("errorstat_ERR", "count=2", "errorstat_EXECABORT", "count=1"),
          section(client, "errorstats"));
      assertEquals("3", section(client, "stats").get("total_error_replies"));
      assertEquals(OK, client.call("CONFIG", "RESETSTAT"));
      assertEquals(Map.of(), section(client, "errorstats"));
      assertEquals("0", section(client, "stats").get("total_error_replies"));
    }
  }

  /*
   * server.c call() counts calls, microseconds and failed_calls (an error the command answered);
   * rejectCommand counts rejected_calls (arity, queueing refusals), the command never running;
   * queued commands count when EXEC runs them; subcommands are listed as container|sub; an unknown
   * command or subcommand counts nowhere.
   */
  @Test
  void infoCommandstats_afterCalls_countsCallsRejectionsAndFailuresAsRedis() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(
          "",
          String.join(",", section(client, "commandstats").keySet()),
          "nothing counted before the first command finished");
      client.call("CF.ADD", "k", "a");
      client.call("CF.ADD", "k", "b");
      assertTrue(client.call("CF.ADD", "k") instanceof Err);
      client.call("CF.EXISTS", "k", "a");
      assertTrue(client.call("CF.RESERVE", "k", "100") instanceof Err, "item exists");
      client.call("CONFIG", "GET", "port");
      assertTrue(client.call("CONFIG", "NOSUCH") instanceof Err);
      assertTrue(client.call("NOSUCH") instanceof Err);
      assertEquals(OK, client.call("MULTI"));
      client.call("CF.ADD", "k", "c");
      client.call("CF.RESERVE", "k", "100");
      client.call("EXEC");

      Map<String, String> stats = section(client, "commandstats");
      assertEquals(List.of(3L, 1L, 0L), counts(stats.get("cmdstat_cf.add")));
      assertEquals(List.of(1L, 0L, 0L), counts(stats.get("cmdstat_cf.exists")));
      assertEquals(List.of(2L, 0L, 2L), counts(stats.get("cmdstat_cf.reserve")));
      assertEquals(List.of(1L, 0L, 0L), counts(stats.get("cmdstat_config|get")));
      assertEquals(List.of(1L, 0L, 0L), counts(stats.get("cmdstat_multi")));
      assertEquals(
          List.of(1L, 0L, 0L),
          counts(stats.get("cmdstat_exec")),
          "an error of a queued command fails that command, not EXEC");
      assertFalse(stats.containsKey("cmdstat_config"), "the container never ran itself");
      assertEquals(
          List.of(1L, 0L, 0L), counts(stats.get("cmdstat_info")), "counted once it finished");
      assertEquals(
          List.of(2L, 0L, 0L), counts(section(client, "commandstats").get("cmdstat_info")));
    }
  }

  /*
   * server.c fillPercentileDistributionLatencies: latency_percentiles_usec_<name>:p50=x.xxx,...
   * with latency-tracking-info-percentiles (default "50 99 99.9"); latency-tracking no stops
   * recording (config.c: latency-tracking is a bool, the percentiles a multi-argument list of
   * numbers from 0 to 100).
   */
  @Test
  void infoLatencystats_percentilesAndTracking_followTheirSettings() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      for (int i = 0; i < 50; i++) {
        client.call("CF.ADD", "k", "item" + i);
      }
      Map<String, String> latencies = section(client, "latencystats");
      String line = latencies.get("latency_percentiles_usec_cf.add");
      assertTrue(
          Pattern.matches("p50=\\d+\\.\\d{3},p99=\\d+\\.\\d{3},p99\\.9=\\d+\\.\\d{3}", line), line);
      assertEquals(
          List.of("latency-tracking-info-percentiles", "50 99 99.9"),
          texts(client.call("CONFIG", "GET", "latency-tracking-info-percentiles")));
      assertEquals(
          List.of("latency-tracking", "yes"),
          texts(client.call("CONFIG", "GET", "latency-tracking")));

      assertEquals(
          OK, client.call("CONFIG", "SET", "latency-tracking-info-percentiles", "0 75.50 100"));
      assertEquals(
          List.of("latency-tracking-info-percentiles", "0 75.5 100"),
          texts(client.call("CONFIG", "GET", "latency-tracking-info-percentiles")));
      line = section(client, "latencystats").get("latency_percentiles_usec_cf.add");
      assertTrue(
          Pattern.matches("p0=\\d+\\.\\d{3},p75\\.5=\\d+\\.\\d{3},p100=\\d+\\.\\d{3}", line), line);
      assertEquals(
          new Err(
              "ERR CONFIG SET failed (possibly related to argument"
                  + " 'latency-tracking-info-percentiles') - Invalid"
                  + " latency-tracking-info-percentiles parameters"),
          client.call("CONFIG", "SET", "latency-tracking-info-percentiles", "50 abc"));
      assertEquals(
          new Err(
              "ERR CONFIG SET failed (possibly related to argument"
                  + " 'latency-tracking-info-percentiles') - latency-tracking-info-percentiles"
                  + " parameters should sit between [0.0,100.0]"),
          client.call("CONFIG", "SET", "latency-tracking-info-percentiles", "101 abc"));
      assertEquals(OK, client.call("CONFIG", "SET", "latency-tracking-info-percentiles", ""));
      assertEquals(
          "", section(client, "latencystats").get("latency_percentiles_usec_cf.add"), "none");

      assertEquals(OK, client.call("CONFIG", "SET", "latency-tracking", "no"));
      client.call("CF.EXISTS", "k", "item1");
      assertTrue(section(client, "commandstats").containsKey("cmdstat_cf.exists"));
      assertFalse(
          section(client, "latencystats").containsKey("latency_percentiles_usec_cf.exists"),
          "not tracked");
    }
  }

  private static List<String> texts(Object reply) {
    List<String> texts = new java.util.ArrayList<>();
    for (Object element : (List<?>) reply) {
      texts.add(RespClient.text(element));
    }
    return texts;
  }

  /*
   * latency.c: LATENCY HISTOGRAM [command ...] is a map of command -> {calls, histogram_usec:
   * {bucket -> cumulative count}}; a named container brings its subcommands; unknown names are
   * skipped.
   */
  @Test
  void latencyHistogram_namedAndAllCommands_answersRedisShape() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertTrue(client.call("HELLO", "3") instanceof Map<?, ?>);
      for (int i = 0; i < 3; i++) {
        client.call("CF.ADD", "k", "item" + i);
      }
      client.call("CONFIG", "GET", "port");
      Map<?, ?> histograms = (Map<?, ?>) client.call("LATENCY", "HISTOGRAM", "cf.add", "nosuch");
      assertEquals(List.of("cf.add"), List.copyOf(histograms.keySet()));
      Map<?, ?> addHistogram = (Map<?, ?>) histograms.get("cf.add");
      assertEquals(List.of("calls", "histogram_usec"), List.copyOf(addHistogram.keySet()));
      assertEquals(3L, addHistogram.get("calls"));
      Map<?, ?> buckets = (Map<?, ?>) addHistogram.get("histogram_usec");
      long previous = 0;
      for (Map.Entry<?, ?> bucket : buckets.entrySet()) {
        long micros = (Long) bucket.getKey();
        long count = (Long) bucket.getValue();
        assertTrue(
            List.of(1L, 2L, 4L, 8L, 16L, 33L, 66L, 132L, 264L, 528L, 1056L, 2113L, 4227L)
                    .contains(micros)
                || micros > 4227,
            "a power-of-two bucket: " + micros);
        assertTrue(count > previous, "cumulative, empty buckets left out");
        previous = count;
      }
      assertEquals(3L, previous);

      Map<?, ?> config = (Map<?, ?>) client.call("LATENCY", "HISTOGRAM", "config");
      assertEquals(List.of("config|get"), List.copyOf(config.keySet()));
      Map<?, ?> all = (Map<?, ?>) client.call("LATENCY", "HISTOGRAM");
      assertTrue(all.keySet().containsAll(List.of("cf.add", "config|get", "hello")), "" + all);
      assertEquals(Map.of(), client.call("LATENCY", "HISTOGRAM", "nosuch"));
    }
  }

  /* server.c resetCommandTableStats via CONFIG RESETSTAT: every counter and histogram cleared. */
  @Test
  void configResetstat_afterCalls_clearsCommandstatsAndLatencystats() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.call("CF.ADD", "k", "a");
      assertTrue(section(client, "commandstats").containsKey("cmdstat_cf.add"));
      assertEquals(OK, client.call("CONFIG", "RESETSTAT"));
      Map<String, String> stats = section(client, "commandstats");
      assertEquals(List.of("cmdstat_config|resetstat"), List.copyOf(stats.keySet()));
      assertEquals(
          List.of("latency_percentiles_usec_config|resetstat", "latency_percentiles_usec_info"),
          List.copyOf(section(client, "latencystats").keySet()).stream().sorted().toList());
      assertEquals(List.of(), client.call("LATENCY", "HISTOGRAM", "cf.add"));
    }
  }
}
