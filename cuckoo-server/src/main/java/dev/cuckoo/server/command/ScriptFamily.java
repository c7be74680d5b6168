package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.STRING;
import static dev.cuckoo.server.command.Argument.arg;
import static dev.cuckoo.server.command.Argument.oneOf;
import static dev.cuckoo.server.command.Argument.token;
import static dev.cuckoo.server.command.CommandSpec.command;

import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;
import java.util.List;

/**
 * SCRIPT KILL, FLUSH, EXISTS and HELP for a server without scripting: its script cache is always
 * empty and no script ever runs, so these answer what Redis answers in that state (Redis's {@code
 * eval.c scriptCommand}); Sentinel sends SCRIPT KILL to a master that answers -BUSY. SCRIPT LOAD,
 * EVAL and EVALSHA stay unknown: a sha1 for a script that can never run would be a lie.
 */
final class ScriptFamily {
  /** Redis's SCRIPT HELP text (eval.c scriptCommand), subcommands not implemented here included. */
  private static final String[] HELP = {
    "DEBUG (YES|SYNC|NO)",
    "    Set the debug mode for subsequent scripts executed.",
    "EXISTS <sha1> [<sha1> ...]",
    "    Return information about the existence of the scripts in the script cache.",
    "FLUSH [ASYNC|SYNC]",
    "    Flush the Lua scripts cache. Very dangerous on replicas.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the scripts cache.",
    "    * SYNC: Synchronously flush the scripts cache.",
    "KILL",
    "    Kill the currently executing Lua script.",
    "LOAD <script>",
    "    Load a script into the scripts cache without executing it."
  };

  private ScriptFamily() {}

  /** SCRIPT KILL: no script is ever running. */
  static void kill(Session session, Request request) {
    session.reply().error("NOTBUSY No scripts in execution right now.");
  }

  /** SCRIPT FLUSH [ASYNC|SYNC]: the cache is empty already. */
  static void flush(Session session, Request request) {
    byte[][] args = request.args();
    String mode = args.length == 3 ? Args.lower(args[2]) : "sync";
    if (args.length > 3 || (!mode.equals("sync") && !mode.equals("async"))) {
      session.reply().error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
      return;
    }
    session.reply().ok();
  }

  /** SCRIPT EXISTS sha1 [sha1 ...]: 0 for each, the cache being empty. */
  static void exists(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    reply.array(args.length - 2);
    for (int i = 2; i < args.length; i++) {
      reply.integer(0);
    }
  }

  /** SCRIPT HELP. */
  static void help(Session session, Request request) {
    HelpCommands.reply(session, "SCRIPT", HELP);
  }

  /**
   * Returns the entries, bound to handlers built from {@code parts}.
   *
   * @param parts what the handlers are built from
   */
  static List<CommandSpec.Builder> entries(Families.Parts parts) {
    return List.of(
        command("script")
            .arity(-2)
            .categories("slow")
            .summary("A container for Lua scripts management commands.")
            .group("scripting")
            .since("2.6.0")
            .complexity("Depends on subcommand.")
            .subcommands(
                command("script|kill")
                    .arity(2)
                    .flags("noscript", "allow_busy")
                    .categories("slow", "scripting")
                    .summary("Terminates a server-side Lua script during execution.")
                    .group("scripting")
                    .since("2.6.0")
                    .complexity("O(1)")
                    .tips("request_policy:all_shards", "response_policy:one_succeeded")
                    .handler(ScriptFamily::kill),
                command("script|flush")
                    .arity(-2)
                    .flags("noscript")
                    .categories("slow", "scripting")
                    .summary("Removes all server-side Lua scripts from the script cache.")
                    .group("scripting")
                    .since("2.6.0")
                    .complexity("O(N) with N being the number of scripts in cache")
                    .tips("request_policy:all_nodes", "response_policy:all_succeeded")
                    .history("6.2.0", "Added the `ASYNC` and `SYNC` flushing mode modifiers.")
                    .arguments(
                        oneOf("flush-type", token("async", "ASYNC"), token("sync", "SYNC"))
                            .since("6.2.0")
                            .optional())
                    .handler(ScriptFamily::flush),
                command("script|exists")
                    .arity(-3)
                    .flags("noscript")
                    .categories("slow", "scripting")
                    .summary(
                        "Determines whether server-side Lua scripts exist in the script cache.")
                    .group("scripting")
                    .since("2.6.0")
                    .complexity(
                        "O(N) with N being the number of scripts to check (so checking a single"
                            + " script is an O(1) operation).")
                    .tips("request_policy:all_shards", "response_policy:agg_logical_and")
                    .arguments(arg("sha1", STRING).multiple())
                    .handler(ScriptFamily::exists),
                HelpCommands.entry("script", "scripting", "5.0.0", ScriptFamily::help)
                    .categories("slow", "scripting")));
  }
}
