package dev.cuckoo.server.command;

import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.Frame;

/**
 * One line of MONITOR's feed, as Redis's replicationFeedMonitors writes it: a status reply {@code
 * +<seconds>.<microseconds> [<db> <ip:port>] "arg" "arg" ...}, each argument quoted and escaped as
 * sdscatrepr does ({@code \\ \" \n \r \t \a \b}, other bytes outside printable ASCII as {@code
 * \xhh}).
 *
 * @param text the line without its {@code +} and line end
 */
record MonitorLine(String text) implements Frame {
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

  private static void quote(StringBuilder out, byte[] arg) {
    out.append('"');
    for (byte b : arg) {
      int c = b & 0xff;
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
    out.append('"');
  }

  @Override
  public void writeTo(Reply reply) {
    reply.simple(text);
  }
}
