package dev.cuckoo.server.command;

import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.session.Session;

/**
 * LATENCY LATEST, HISTORY, RESET, GRAPH and DOCTOR, answered as Redis answers them with latency
 * monitoring off (latency-monitor-threshold 0, its default) and so no event ever recorded
 * (latency.c latencyCommand): no events, no samples, nothing to reset. Monitoring tools such as
 * Prometheus's redis_exporter ask for LATENCY LATEST.
 */
final class LatencyCommands {
  private LatencyCommands() {}

  /** LATENCY LATEST: one entry per event with samples; none here. */
  static void latest(Session session, Request request) {
    session.reply().array(0);
  }

  /** LATENCY HISTORY event: the event's samples; none here. */
  static void history(Session session, Request request) {
    session.reply().array(0);
  }

  /** LATENCY RESET [event ...]: the number of event series reset; none here. */
  static void reset(Session session, Request request) {
    session.reply().integer(0);
  }

  /** LATENCY GRAPH event: Redis's error for an event without samples. */
  static void graph(Session session, Request request) {
    byte[][] args = request.args();
    session.reply().error("ERR No samples available for event '" + Args.text(args[2]) + "'");
  }

  /** LATENCY DOCTOR: Redis's report when monitoring is off and no event was ever recorded. */
  static void doctor(Session session, Request request) {
    session
        .reply()
        .verbatimText(
            "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis"
                + " instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\""
                + " in order to enable it. If we weren't in a deep space mission I'd suggest to"
                + " take a look at https://redis.io/topics/latency-monitor.\n");
  }
}
