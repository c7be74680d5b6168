package dev.cuckoo.server.command;

import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Reply;
import java.util.ArrayList;
import java.util.List;

/** COMMAND, COMMAND COUNT / INFO / DOCS / LIST: command metadata in Redis 7's reply shapes. */
public final class CommandInfo {
  private final Commands commands;

  CommandInfo(Commands commands) {
    this.commands = commands;
  }

  private static void writeInfo(Reply reply, CommandSpec spec) {
    reply.array(10);
    reply.bulk(spec.name());
    reply.integer(spec.arity());
    reply.set(spec.flags().size());
    for (String flag : spec.flags()) {
      reply.simple(flag);
    }
    reply.integer(spec.firstKey());
    reply.integer(spec.lastKey());
    reply.integer(spec.keyStep());
    reply.set(spec.categories().size());
    for (String category : spec.categories()) {
      reply.simple("@" + category);
    }
    // Redis's addReplyCommandTips and addReplyCommandKeySpecs reply with sets, and
    // addReplyCommandSubCommands with an empty set when there are none, an array otherwise
    reply.set(0);
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
  void all(Session session, byte[][] args) {
    Reply reply = session.reply();
    reply.array(commands.all().size());
    for (CommandSpec spec : commands.all()) {
      writeInfo(reply, spec);
    }
  }

  /** COMMAND COUNT. */
  void count(Session session, byte[][] args) {
    session.reply().integer(commands.all().size());
  }

  /** COMMAND LIST [FILTERBY ...] (filters are ignored). */
  void list(Session session, byte[][] args) {
    List<String> names = commands.names();
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
  void info(Session session, byte[][] args) {
    Reply reply = session.reply();
    if (args.length == 2) {
      all(session, args);
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
    List<KeySpecs.KeySpec> specs = KeySpecs.of(spec);
    if (specs.isEmpty()) {
      reply.error("ERR The command has no key arguments");
      return;
    }
    int argc = args.length - 2;
    if (!spec.arityAccepts(argc)) {
      reply.error("ERR Invalid number of arguments specified for command");
      return;
    }
    List<KeySpecs.KeyPosition> keys = KeySpecs.find(specs, argc);
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
  void getKeys(Session session, byte[][] args) {
    keys(session, args, false);
  }

  /** COMMAND GETKEYSANDFLAGS command [arg ...]. */
  void getKeysAndFlags(Session session, byte[][] args) {
    keys(session, args, true);
  }

  private static void writeDocs(Reply reply, CommandSpec spec) {
    boolean hasSubs = !spec.subcommands().isEmpty();
    reply.map(hasSubs ? 4 : 3);
    reply.bulk("summary");
    reply.bulk(spec.summary());
    reply.bulk("since");
    reply.bulk("1.0.0");
    reply.bulk("group");
    reply.bulk(spec.group());
    if (hasSubs) {
      reply.bulk("subcommands");
      reply.map(spec.subcommands().size());
      for (CommandSpec sub : spec.subcommands().values()) {
        reply.bulk(sub.name());
        writeDocs(reply, sub);
      }
    }
  }

  /** COMMAND DOCS [name ...]: a map from name to summary, since and group. */
  void docs(Session session, byte[][] args) {
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
