package dev.cuckoo.server.command;

import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/** COMMAND, COMMAND COUNT / INFO / DOCS / LIST: command metadata in Redis 7's reply shapes. */
public final class CommandInfo {
  /**
   * The flags of Redis's command JSON that its COMMAND INFO leaves out ({@code
   * addReplyFlagsForCommand}: "hidden on purpose").
   */
  private static final java.util.Set<String> HIDDEN_FLAGS =
      java.util.Set.of("may_replicate", "sentinel", "only_sentinel", "protected");

  /** The order of Redis's {@code addReplyFlagsForCommand}, which COMMAND INFO's flags follow. */
  private static final List<String> FLAG_ORDER =
      List.of(
          "write",
          "readonly",
          "denyoom",
          "module",
          "admin",
          "pubsub",
          "noscript",
          "blocking",
          "loading",
          "stale",
          "skip_monitor",
          "skip_slowlog",
          "asking",
          "fast",
          "no_auth",
          "no_mandatory_keys",
          "no_async_loading",
          "no_multi",
          "movablekeys",
          "allow_busy");

  /**
   * The order of Redis's ACL categories (acl.c's table, then the categories modules add, as
   * RedisBloom adds "bloom" and "cuckoo"), which COMMAND INFO's categories follow.
   */
  private static final List<String> CATEGORY_ORDER =
      java.util.stream.Stream.concat(
              dev.cuckoo.server.acl.CommandCatalog.REDIS_CATEGORIES.stream(),
              dev.cuckoo.server.acl.CommandCatalog.MODULE_CATEGORIES.stream())
          .toList();

  private final Commands commands;

  /** Returns the place of {@code name} in {@code order}; names it lacks go last, in turn. */
  private static int orderOf(List<String> order, String name) {
    int index = order.indexOf(name);
    return index < 0 ? order.size() : index;
  }

  CommandInfo(Commands commands) {
    this.commands = commands;
  }

  private static void writeInfo(Reply reply, CommandSpec spec) {
    reply.array(10);
    reply.bulk(spec.name());
    reply.integer(spec.arity());
    List<String> shown = new ArrayList<>(spec.flags());
    shown.removeAll(HIDDEN_FLAGS);
    shown.sort(Comparator.comparingInt(flag -> orderOf(FLAG_ORDER, flag)));
    List<String> categories = new ArrayList<>(spec.categories());
    categories.sort(Comparator.comparingInt(category -> orderOf(CATEGORY_ORDER, category)));
    reply.set(shown.size());
    for (String flag : shown) {
      reply.simple(flag);
    }
    reply.integer(spec.firstKey());
    reply.integer(spec.lastKey());
    reply.integer(spec.keyStep());
    reply.set(categories.size());
    for (String category : categories) {
      reply.simple("@" + category);
    }
    // Redis's addReplyCommandTips and addReplyCommandKeySpecs reply with sets, and
    // addReplyCommandSubCommands with an empty set when there are none, an array otherwise
    reply.set(spec.tips().size());
    for (String tip : spec.tips()) {
      reply.bulk(tip);
    }
    KeySpecs.write(reply, spec);
    if (spec.subcommands().isEmpty()) {
      reply.set(0);
    } else {
      reply.array(spec.subcommands().size());
    }
    for (CommandSpec sub : spec.subcommands().values()) {
      writeInfo(reply, sub);
    }
  }

  /** COMMAND: every command's info. */
  void all(Session session, Request request) {
    Reply reply = session.reply();
    reply.array(commands.all().size());
    for (CommandSpec spec : commands.all()) {
      writeInfo(reply, spec);
    }
  }

  /** COMMAND COUNT. */
  void count(Session session, Request request) {
    session.reply().integer(commands.all().size());
  }

  /**
   * COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]: every command and
   * subcommand, or those of a module (by name, any case), of an ACL category (any case; none for a
   * category that does not exist) or whose full name matches a glob (any case), as Redis's {@code
   * commandListCommand}.
   */
  void list(Session session, Request request) {
    byte[][] args = request.args();
    Predicate<CommandSpec> wanted = spec -> true;
    for (int i = 2; i < args.length; i += 3) {
      if (!Args.lower(args[i]).equals("filterby") || args.length - 1 - i != 2) {
        session.reply().error(Args.SYNTAX_ERROR);
        return;
      }
      String value = Args.text(args[i + 2]);
      String lower = value.toLowerCase(Locale.ROOT);
      switch (Args.lower(args[i + 1])) {
        case "module" -> wanted = spec -> spec.module() != null && spec.module().equals(lower);
        case "aclcat" -> wanted = spec -> spec.categories().contains(lower);
        case "pattern" -> {
          byte[] pattern = lower.getBytes(StandardCharsets.UTF_8);
          wanted = spec -> Glob.matches(pattern, spec.name().getBytes(StandardCharsets.UTF_8));
        }
        default -> {
          session.reply().error(Args.SYNTAX_ERROR);
          return;
        }
      }
    }
    List<String> names = new ArrayList<>();
    for (CommandSpec spec : commands.all()) {
      if (wanted.test(spec)) {
        names.add(spec.name());
      }
      for (CommandSpec sub : spec.subcommands().values()) {
        if (wanted.test(sub)) {
          names.add(sub.name());
        }
      }
    }
    session.reply().array(names.size());
    for (String name : names) {
      session.reply().bulk(name);
    }
  }

  private CommandSpec lookup(byte[] name) {
    String text = Args.lower(name);
    int bar = text.indexOf('|');
    if (bar < 0) {
      return commands.find(text);
    }
    CommandSpec parent = commands.find(text.substring(0, bar));
    return parent == null ? null : parent.subcommands().get(text.substring(bar + 1));
  }

  /** COMMAND INFO [name ...]: info per name, null for unknown names. */
  void info(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    if (args.length == 2) {
      all(session, request);
      return;
    }
    reply.array(args.length - 2);
    for (int i = 2; i < args.length; i++) {
      CommandSpec spec = lookup(args[i]);
      if (spec == null) {
        reply.nullValue();
      } else {
        writeInfo(reply, spec);
      }
    }
  }

  /**
   * Finds the command a COMMAND GETKEYS line names (args[2] on), with its subcommand when the line
   * has one, as Redis's {@code lookupCommand}; null if there is no such command.
   */
  private CommandSpec lookupLine(byte[][] args) {
    CommandSpec top = commands.find(Args.lower(args[2]));
    if (top == null || top.subcommands().isEmpty() || args.length == 3) {
      return top;
    }
    return top.subcommands().get(Args.lower(args[3]));
  }

  /**
   * COMMAND GETKEYS / GETKEYSANDFLAGS command [arg ...]: the keys of a command line found by its
   * key specs, with their flags if asked; errors in the order of Redis's {@code
   * getKeysSubcommandImpl}.
   */
  private void keys(Session session, byte[][] args, boolean withFlags) {
    Reply reply = session.reply();
    CommandSpec spec = lookupLine(args);
    if (spec == null) {
      reply.error("ERR Invalid command specified");
      return;
    }
    List<KeySpec> specs = spec.keySpecs();
    if (specs.isEmpty()) {
      reply.error("ERR The command has no key arguments");
      return;
    }
    int argc = args.length - 2;
    if (!spec.arityAccepts(argc)) {
      reply.error("ERR Invalid number of arguments specified for command");
      return;
    }
    List<KeySpecs.KeyPosition> keys;
    if (spec.keyFinder() != null) {
      // as Redis, a command's getkeys function reports the flags of its first spec
      keys = new ArrayList<>();
      byte[][] line = java.util.Arrays.copyOfRange(args, 2, args.length);
      for (int position : spec.keyFinder().positions(line)) {
        keys.add(new KeySpecs.KeyPosition(position, specs.get(0).flags()));
      }
    } else {
      keys = KeySpecs.find(specs, argc);
    }
    if (keys.isEmpty()) {
      reply.error("ERR Invalid arguments specified for command");
      return;
    }
    reply.array(keys.size());
    for (KeySpecs.KeyPosition key : keys) {
      if (withFlags) {
        reply.array(2);
        reply.bulk(args[key.position() + 2]);
        KeySpecs.writeFlags(reply, key.flags());
      } else {
        reply.bulk(args[key.position() + 2]);
      }
    }
  }

  /** COMMAND GETKEYS command [arg ...]. */
  void getKeys(Session session, Request request) {
    byte[][] args = request.args();
    keys(session, args, false);
  }

  /** COMMAND GETKEYSANDFLAGS command [arg ...]. */
  void getKeysAndFlags(Session session, Request request) {
    byte[][] args = request.args();
    keys(session, args, true);
  }

  /**
   * Writes one command's docs as Redis's {@code addReplyCommandDocs}: summary, since, group,
   * complexity, module, doc flags, deprecation, history, arguments and subcommands, each only when
   * the entry has it (the group always).
   */
  private static void writeDocs(Reply reply, CommandSpec spec) {
    boolean hasSubs = !spec.subcommands().isEmpty();
    int fields =
        1
            + (spec.summary() != null ? 1 : 0)
            + (spec.since() != null ? 1 : 0)
            + (spec.module() != null ? 1 : 0)
            + (spec.complexity() != null ? 1 : 0)
            + (spec.docFlags().isEmpty() ? 0 : 1)
            + (spec.deprecatedSince() != null ? 1 : 0)
            + (spec.replacedBy() != null ? 1 : 0)
            + (spec.history().isEmpty() ? 0 : 1)
            + (spec.arguments().isEmpty() ? 0 : 1)
            + (hasSubs ? 1 : 0);
    reply.map(fields);
    field(reply, "summary", spec.summary());
    field(reply, "since", spec.since());
    reply.bulk("group");
    reply.bulk(spec.group());
    field(reply, "complexity", spec.complexity());
    field(reply, "module", spec.module());
    if (!spec.docFlags().isEmpty()) {
      reply.bulk("doc_flags");
      KeySpecs.writeFlags(reply, spec.docFlags());
    }
    field(reply, "deprecated_since", spec.deprecatedSince());
    field(reply, "replaced_by", spec.replacedBy());
    if (!spec.history().isEmpty()) {
      reply.bulk("history");
      reply.set(spec.history().size());
      for (String[] change : spec.history()) {
        reply.array(2);
        reply.bulk(change[0]);
        reply.bulk(change[1]);
      }
    }
    if (!spec.arguments().isEmpty()) {
      reply.bulk("arguments");
      writeArguments(reply, spec.arguments());
    }
    if (hasSubs) {
      reply.bulk("subcommands");
      reply.map(spec.subcommands().size());
      for (CommandSpec sub : spec.subcommands().values()) {
        reply.bulk(sub.name());
        writeDocs(reply, sub);
      }
    }
  }

  private static void field(Reply reply, String name, String value) {
    if (value != null) {
      reply.bulk(name);
      reply.bulk(value);
    }
  }

  /** Writes arguments as Redis's {@code addReplyCommandArgList}. */
  private static void writeArguments(Reply reply, List<Argument> arguments) {
    reply.array(arguments.size());
    for (Argument arg : arguments) {
      boolean nested = arg.type().equals(Argument.ONEOF) || arg.type().equals(Argument.BLOCK);
      List<String> flags = new ArrayList<>(3);
      if (arg.isOptional()) {
        flags.add("optional");
      }
      if (arg.isMultiple()) {
        flags.add("multiple");
      }
      if (arg.isMultipleToken()) {
        flags.add("multiple_token");
      }
      reply.map(
          3
              + (arg.keySpecIndex() >= 0 ? 1 : 0)
              + (arg.token() != null ? 1 : 0)
              + (arg.summary() != null ? 1 : 0)
              + (arg.since() != null ? 1 : 0)
              + (arg.deprecatedSince() != null ? 1 : 0)
              + (flags.isEmpty() ? 0 : 1));
      field(reply, "name", arg.name());
      field(reply, "type", arg.type());
      if (!nested) {
        field(reply, "display_text", arg.displayText() != null ? arg.displayText() : arg.name());
      }
      if (arg.keySpecIndex() >= 0) {
        reply.bulk("key_spec_index");
        reply.integer(arg.keySpecIndex());
      }
      field(reply, "token", arg.token());
      field(reply, "summary", arg.summary());
      field(reply, "since", arg.since());
      field(reply, "deprecated_since", arg.deprecatedSince());
      if (!flags.isEmpty()) {
        reply.bulk("flags");
        KeySpecs.writeFlags(reply, flags);
      }
      if (nested) {
        reply.bulk("arguments");
        writeArguments(reply, arg.arguments());
      }
    }
  }

  /** COMMAND DOCS [name ...]: a map from name to summary, since and group. */
  void docs(Session session, Request request) {
    byte[][] args = request.args();
    List<CommandSpec> specs = new ArrayList<>();
    if (args.length == 2) {
      specs.addAll(commands.all());
    } else {
      for (int i = 2; i < args.length; i++) {
        CommandSpec spec = lookup(args[i]);
        if (spec != null) {
          specs.add(spec);
        }
      }
    }
    Reply reply = session.reply();
    reply.map(specs.size());
    for (CommandSpec spec : specs) {
      reply.bulk(spec.name());
      writeDocs(reply, spec);
    }
  }
}
