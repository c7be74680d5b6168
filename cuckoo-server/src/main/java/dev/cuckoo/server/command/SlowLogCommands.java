package dev.cuckoo.server.command;

import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.session.Session;

/**
 * SLOWLOG GET, LEN and RESET over the server's {@link SlowLog}, answered as Redis's slowlog.c, and
 * the hook that adds a command to it once it ran.
 */
final class SlowLogCommands {
  private final ServerContext context;

  SlowLogCommands(ServerContext context) {
    this.context = context;
  }

  /**
   * Adds a command that ran {@code micros} microseconds if it ran at least slowlog-log-slower-than
   * and the log keeps entries; EXEC (flag skip_slowlog) never, its commands are added one by one.
   */
  void ran(Session session, Request request, long micros) {
    long threshold = context.slowlogLogSlowerThan();
    if (threshold < 0 || micros < threshold) {
      return;
    }
    long maxLength = context.slowlogMaxLen();
    if (maxLength == 0 || request.spec().flags().contains("skip_slowlog")) {
      return;
    }
    String name = session.name();
    context
        .slowLog()
        .add(
            micros,
            request.args(),
            context.clients().addressOf(session),
            name == null ? "" : name,
            maxLength);
  }

  /** SLOWLOG GET [count]: the newest count entries (10 by default, -1 for all), newest first. */
  void get(Session session, Request request) {
    byte[][] args = request.args();
    if (args.length > 3) {
      session
          .reply()
          .error(
              "ERR unknown subcommand or wrong number of arguments for '"
                  + Args.text(args[1])
                  + "'. Try SLOWLOG HELP.");
      return;
    }
    long count = 10;
    if (args.length == 3) {
      // Redis's getRangeLongFromObjectOrReply gives the same text for a non-number
      Long given = Numbers.parseLong(args[2]);
      if (given == null || given < -1) {
        session.reply().error("ERR count should be greater than or equal to -1");
        return;
      }
      count = given;
    }
    SlowLog.reply(session.reply(), context.slowLog().newest(count));
  }

  /** SLOWLOG LEN. */
  void len(Session session, Request request) {
    session.reply().integer(context.slowLog().size());
  }

  /** SLOWLOG RESET. */
  void reset(Session session, Request request) {
    context.slowLog().reset();
    session.reply().ok();
  }
}
