package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.STRING;
import static dev.cuckoo.server.command.Argument.arg;
import static dev.cuckoo.server.command.Argument.oneOf;
import static dev.cuckoo.server.command.Argument.token;
import static dev.cuckoo.server.command.CommandSpec.command;

import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.rdb.FunctionPayload;
import dev.cuckoo.server.session.Session;
import java.util.List;

/**
 * FUNCTION DUMP, RESTORE, LIST, FLUSH, STATS and HELP as Redis answers them for an empty function
 * library: this server runs no scripts, so its library is always empty. {@code redis-cli --cluster
 * add-node} copies a cluster's functions to a new master with DUMP and RESTORE; an empty library's
 * payload restores (and changes nothing), a payload holding functions is refused. RESTORE and FLUSH
 * carry Redis's write flag but change no key, so they are not logged or replicated.
 */
final class FunctionFamily {
  private static final String[] HELP = {
    "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
    "    Return general information on all the libraries (this server holds none).",
    "STATS",
    "    Return information about the current function running (none) and the engines.",
    "FLUSH [ASYNC|SYNC]",
    "    Delete all the libraries.",
    "DUMP",
    "    Return a serialized payload representing the current libraries, can be restored using"
        + " FUNCTION RESTORE command",
    "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
    "    Restore the libraries represented by the given payload: only an empty library's payload,"
        + " as this server runs no scripts.",
  };

  private FunctionFamily() {}

  /** FUNCTION DUMP: the payload of an empty library. */
  static void dump(Session session, Request request) {
    session.reply().bulk(FunctionPayload.emptyLibrary());
  }

  /** FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]. */
  static void restore(Session session, Request request) {
    Reply reply = session.reply();
    if (request.argCount() > 4) {
      reply.error(syntaxError(request));
      return;
    }
    if (request.argCount() == 4) {
      String policy = Args.lower(request.arg(3));
      if (!policy.equals("flush") && !policy.equals("append") && !policy.equals("replace")) {
        reply.error(
            "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
        return;
      }
    }
    String refusal = FunctionPayload.restoreRefusal(request.arg(2));
    if (refusal != null) {
      reply.error(refusal);
      return;
    }
    reply.ok();
  }

  /** FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE]: no library. */
  static void list(Session session, Request request) {
    Reply reply = session.reply();
    boolean withCode = false;
    boolean named = false;
    for (int i = 2; i < request.argCount(); i++) {
      String option = Args.lower(request.arg(i));
      if (!withCode && option.equals("withcode")) {
        withCode = true;
      } else if (!named && option.equals("libraryname")) {
        if (i >= request.argCount() - 1) {
          reply.error("ERR library name argument was not given");
          return;
        }
        named = true;
        i++;
      } else {
        reply.error("ERR Unknown argument " + Args.text(request.arg(i)));
        return;
      }
    }
    reply.array(0);
  }

  /** FUNCTION FLUSH [ASYNC|SYNC]: the library is already empty. */
  static void flush(Session session, Request request) {
    Reply reply = session.reply();
    if (request.argCount() > 3) {
      reply.error(syntaxError(request));
      return;
    }
    if (request.argCount() == 3) {
      String mode = Args.lower(request.arg(2));
      if (!mode.equals("sync") && !mode.equals("async")) {
        reply.error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
        return;
      }
    }
    reply.ok();
  }

  /** FUNCTION STATS: no function running, and no script engine. */
  static void stats(Session session, Request request) {
    Reply reply = session.reply();
    reply.map(2);
    reply.bulk("running_script");
    reply.nullValue();
    reply.bulk("engines");
    reply.map(0);
  }

  /** FUNCTION HELP. */
  static void help(Session session, Request request) {
    HelpCommands.reply(session, "FUNCTION", HELP);
  }

  /** Redis's addReplySubcommandSyntaxError. */
  private static String syntaxError(Request request) {
    return "ERR unknown subcommand or wrong number of arguments for '"
        + Args.text(request.arg(1))
        + "'. Try FUNCTION HELP.";
  }

  private static CommandSpec.Builder sub(String name, int arity, String summary) {
    return command("function|" + name)
        .arity(arity)
        .flags("noscript")
        .categories("slow", "scripting")
        .summary(summary)
        .group("scripting")
        .since("7.0.0");
  }

  /**
   * Returns the entries, bound to handlers built from {@code parts}.
   *
   * @param parts what the handlers are built from
   */
  static List<CommandSpec.Builder> entries(Families.Parts parts) {
    return List.of(
        command("function")
            .arity(-2)
            .categories("slow")
            .summary("A container for function commands.")
            .group("scripting")
            .since("7.0.0")
            .complexity("Depends on subcommand.")
            .subcommands(
                sub("dump", 2, "Dumps all libraries into a serialized binary payload.")
                    .complexity("O(N) where N is the number of functions")
                    .handler(FunctionFamily::dump),
                sub("restore", -3, "Restores all libraries from a payload.")
                    .flags("write", "denyoom", "noscript")
                    .categories("write", "slow", "scripting")
                    .writes(Writes.KEYS)
                    .complexity("O(N) where N is the number of functions on the payload")
                    .tips("request_policy:all_shards", "response_policy:all_succeeded")
                    .arguments(
                        arg("serialized-value", STRING),
                        oneOf(
                                "policy",
                                token("flush", "FLUSH"),
                                token("append", "APPEND"),
                                token("replace", "REPLACE"))
                            .optional())
                    .handler(FunctionFamily::restore),
                sub("list", -2, "Returns information about all libraries.")
                    .complexity("O(N) where N is the number of functions")
                    .tips("nondeterministic_output_order")
                    .arguments(
                        arg("library-name-pattern", STRING).token("LIBRARYNAME").optional(),
                        token("withcode", "WITHCODE").optional())
                    .handler(FunctionFamily::list),
                sub("flush", -2, "Deletes all libraries and functions.")
                    .flags("write", "noscript")
                    .categories("write", "slow", "scripting")
                    .writes(Writes.KEYS)
                    .complexity("O(N) where N is the number of functions deleted")
                    .tips("request_policy:all_shards", "response_policy:all_succeeded")
                    .arguments(
                        oneOf("flush-type", token("async", "ASYNC"), token("sync", "SYNC"))
                            .optional())
                    .handler(FunctionFamily::flush),
                sub("stats", 2, "Returns information about a function during execution.")
                    .flags("noscript", "allow_busy")
                    .complexity("O(1)")
                    .tips(
                        "nondeterministic_output",
                        "request_policy:all_shards",
                        "response_policy:special")
                    .handler(FunctionFamily::stats),
                HelpCommands.entry("function", "scripting", "7.0.0", FunctionFamily::help)
                    .categories("slow", "scripting")));
  }
}
