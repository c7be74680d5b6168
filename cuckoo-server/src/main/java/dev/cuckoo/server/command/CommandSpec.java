package dev.cuckoo.server.command;

import java.util.List;
import java.util.Map;

/**
 * A command's metadata as COMMAND reports it (arity, flags, key positions, ACL categories, docs)
 * and the code that runs it.
 */
public final class CommandSpec {
  /** The code of a command: reads the arguments, writes the reply. */
  @FunctionalInterface
  interface Action {
    /** Runs the command for a session; args[0] is the command name. */
    void run(Session session, byte[][] args);
  }

  private final String name;
  private final int arity;
  private final List<String> flags;
  private final int firstKey;
  private final int lastKey;
  private final int keyStep;
  private final List<String> categories;
  private final String group;
  private final String summary;
  private final Action action;
  private final Map<String, CommandSpec> subcommands;
  // flags every request looks at, resolved once
  private final boolean write;
  private final boolean denyOom;
  private final boolean noAuth;
  private final boolean noMulti;

  CommandSpec(
      String name,
      int arity,
      List<String> flags,
      int firstKey,
      int lastKey,
      int keyStep,
      List<String> categories,
      String group,
      String summary,
      Action action,
      Map<String, CommandSpec> subcommands) {
    this.name = name;
    this.arity = arity;
    this.flags = flags;
    this.write = flags.contains("write");
    this.denyOom = flags.contains("denyoom");
    this.noAuth = flags.contains("no_auth");
    this.noMulti = flags.contains("no_multi");
    this.firstKey = firstKey;
    this.lastKey = lastKey;
    this.keyStep = keyStep;
    this.categories = categories;
    this.group = group;
    this.summary = summary;
    this.action = action;
    this.subcommands = subcommands;
  }

  /** Returns the lower-case name, e.g. "cf.add" or "client|setinfo". */
  String name() {
    return name;
  }

  /** Returns the arity: n means exactly n arguments, -n means at least n (name included). */
  int arity() {
    return arity;
  }

  /** Returns true if the argument count satisfies the arity. */
  boolean arityAccepts(int argc) {
    return arity > 0 ? argc == arity : argc >= -arity;
  }

  /** Returns the flags, e.g. "write", "denyoom", "fast". */
  List<String> flags() {
    return flags;
  }

  /** Returns the position of the first key (0: no keys). */
  int firstKey() {
    return firstKey;
  }

  /** Returns the position of the last key (-1: the last argument). */
  int lastKey() {
    return lastKey;
  }

  /** Returns the step between keys. */
  int keyStep() {
    return keyStep;
  }

  /** Returns the ACL categories without the '@'. */
  List<String> categories() {
    return categories;
  }

  /** Returns the documentation group, e.g. "cf" or "connection". */
  String group() {
    return group;
  }

  /** Returns the one-line summary. */
  String summary() {
    return summary;
  }

  /** Returns true if the command may run before AUTH. */
  boolean noAuth() {
    return noAuth;
  }

  /** Returns true if the command may change data (flag {@code write}). */
  boolean write() {
    return write;
  }

  /** Returns true if the command may grow memory (flag {@code denyoom}). */
  boolean denyOom() {
    return denyOom;
  }

  /** Returns true if the command may not be queued in a transaction (flag {@code no_multi}). */
  boolean noMulti() {
    return noMulti;
  }

  /** Returns the subcommands by lower-case name (empty unless this is a container command). */
  Map<String, CommandSpec> subcommands() {
    return subcommands;
  }

  /** Returns the code that runs the command. */
  Action action() {
    return action;
  }
}
