package dev.cuckoo.server.command;

import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.Frame;

/**
 * One line of MONITOR's feed, as Redis's replicationFeedMonitors writes it: a status reply {@code
 * +<seconds>.<microseconds> [<db> <ip:port>] "arg" "arg" ...}, each argument quoted and escaped as
 * sdscatrepr does ({@code \\ \" \n \r \t \a \b}, other bytes outside printable ASCII as {@code
 * \xhh}), at most {@link #MAX_ARGUMENT_BYTES} of each.
 *
 * @param text the line without its {@code +} and line end
 */
record MonitorLine(String text) implements Frame {
  /**
   * The most bytes of one argument a line shows; the rest is counted ({@code ... (N more bytes)}
   * inside the quotes). Redis shows every byte; a line for a request of hundreds of megabytes would
   * take several times that in heap here, for every command a monitor watches.
   */
  static final int MAX_ARGUMENT_BYTES = 4096;

  /**
   * Builds the line of a command.
   *
   * @param unixMicros when it ran, in microseconds since the epoch
   * @param db the database it ran in
   * @param addr the client's address (ip:port)
   * @param args its arguments, passwords redacted
   */
  static MonitorLine of(long unixMicros, int db, String addr, byte[][] args) {
    StringBuilder line = new StringBuilder(32 + 16 * args.length);
    long micros = Math.floorMod(unixMicros, 1_000_000L);
    line.append(Math.floorDiv(unixMicros, 1_000_000L)).append('.');
    String fraction = Long.toString(micros);
    line.append("000000", fraction.length(), 6).append(fraction);
    line.append(" [").append(db).append(' ').append(addr).append("] ");
    for (int i = 0; i < args.length; i++) {
      if (i > 0) {
        line.append(' ');
      }
      quote(line, args[i]);
    }
    return new MonitorLine(line.toString());
  }

  /**
   * Appends {@code arg} quoted and escaped as Redis's sdscatrepr, its first {@link
   * #MAX_ARGUMENT_BYTES} bytes.
   */
  static void quote(StringBuilder out, byte[] arg) {
    out.append('"');
    int shown = Math.min(arg.length, MAX_ARGUMENT_BYTES);
    for (int i = 0; i < shown; i++) {
      int c = arg[i] & 0xff;
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '"' -> out.append("\\\"");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case 7 -> out.append("\\a");
        case '\b' -> out.append("\\b");
        default -> {
          if (c >= 0x20 && c <= 0x7e) {
            out.append((char) c);
          } else {
            out.append("\\x")
                .append(Character.forDigit(c >> 4, 16))
                .append(Character.forDigit(c & 15, 16));
          }
        }
      }
    }
    if (shown < arg.length) {
      out.append("... (").append(arg.length - shown).append(" more bytes)");
    }
    out.append('"');
  }

  @Override
  public void writeTo(Reply reply) {
    reply.simple(text);
  }
}
