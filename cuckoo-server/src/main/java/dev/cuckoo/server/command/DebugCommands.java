package dev.cuckoo.server.command;

import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.protocol.Args;

/**
 * DEBUG, Redis's command for testing the server itself, refused unless {@code
 * --enable-debug-command yes} (Redis's {@code enable-debug-command}, off by default). Only {@code
 * DEBUG OOM} is implemented: it throws an OutOfMemoryError inside a command, as Redis's allocates
 * until it fails, to show that the server then exits instead of serving half-changed data.
 */
final class DebugCommands {
  /** Redis's refusal when {@code enable-debug-command} does not allow the command. */
  static final String NOT_ALLOWED =
      "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you"
          + " can run it from a local connection, otherwise you need to set this option in the"
          + " configuration file, and then restart the server.";

  private final Config config;

  DebugCommands(Config config) {
    this.config = config;
  }

  /** DEBUG subcommand [argument ...]. */
  void debug(Session session, Request request) {
    byte[][] args = request.args();
    if (!config.get(Parameters.ENABLE_DEBUG_COMMAND)) {
      session.reply().error(NOT_ALLOWED);
      return;
    }
    String subcommand = Args.lower(args[1]);
    if (subcommand.equals("oom")) {
      throw new OutOfMemoryError("DEBUG OOM");
    }
    session.reply().error(Commands.unknownSubcommand("debug", args[1]));
  }
}
