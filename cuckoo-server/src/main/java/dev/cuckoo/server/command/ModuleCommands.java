package dev.cuckoo.server.command;

import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;

/**
 * MODULE LIST, LOAD, LOADEX, UNLOAD and HELP, answered as Redis with RedisBloom loaded answers
 * them: the one module is {@code bf} (the cuckoo filters' commands are this server's own, there is
 * nothing to load or unload), and loading or unloading is refused with Redis's text for its default
 * {@code enable-module-command no}. Clients that look for RedisBloom before using CF.* (MODULE
 * LIST, HELLO's {@code modules}, INFO modules) find it.
 */
final class ModuleCommands {
  /** Redis's refusal of MODULE LOAD, LOADEX and UNLOAD while enable-module-command is no. */
  static final String NOT_ALLOWED =
      "ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", you"
          + " can run it from a local connection, otherwise you need to set this option in the"
          + " configuration file, and then restart the server.";

  private ModuleCommands() {}

  /** Writes the loaded modules as Redis's addReplyLoadedModules: a map per module. */
  static void loaded(Reply reply) {
    reply.array(1);
    reply.map(4);
    reply.bulk("name");
    reply.bulk("bf");
    reply.bulk("ver");
    reply.integer(ServerVersion.MODULE_VERSION);
    reply.bulk("path");
    reply.bulk("");
    reply.bulk("args");
    reply.array(0);
  }

  /** MODULE LIST. */
  static void list(Session session, Request request) {
    loaded(session.reply());
  }

  /** MODULE LOAD, LOADEX and UNLOAD: refused. */
  static void refused(Session session, Request request) {
    session.reply().error(NOT_ALLOWED);
  }
}
