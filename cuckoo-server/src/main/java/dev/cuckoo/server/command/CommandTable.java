package dev.cuckoo.server.command;

import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.persist.RecordRules;
import dev.cuckoo.server.persist.Transaction;
import dev.cuckoo.server.protocol.Args;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command table: every entry by lower-case name, in the order the families declare them. It
 * answers what the dispatcher, COMMAND and the log ask about a command, from the entries alone: the
 * keys a logged record changes and whether it moves data ({@link RecordRules}).
 */
public final class CommandTable implements RecordRules {
  private final Map<String, CommandSpec> entries = new LinkedHashMap<>();
  // names of the commands that move data, as bytes: checked on every logged write
  private final List<byte[]> movers = new ArrayList<>();

  /** Builds the table from the families' entries. */
  CommandTable(List<List<CommandSpec.Builder>> families) {
    for (List<CommandSpec.Builder> family : families) {
      for (CommandSpec.Builder builder : family) {
        CommandSpec spec = builder.build();
        entries.put(spec.name(), spec);
        if (spec.writes() != null && spec.writes().movesData()) {
          movers.add(spec.name().getBytes(StandardCharsets.US_ASCII));
        }
      }
    }
  }

  /** Returns every top-level command. */
  public Collection<CommandSpec> all() {
    return entries.values();
  }

  /** Returns the command with this lower-case name, or null. */
  public CommandSpec find(String name) {
    return entries.get(name);
  }

  /** Returns every command and subcommand name (COMMAND LIST). */
  public List<String> names() {
    List<String> names = new ArrayList<>();
    for (CommandSpec spec : entries.values()) {
      names.add(spec.name());
      for (CommandSpec sub : spec.subcommands().values()) {
        names.add(sub.name());
      }
    }
    return names;
  }

  @Override
  public void keysOf(int db, byte[][] args, KeySink sink) {
    if (Transaction.isRecord(args)) {
      for (Transaction.Write write : Transaction.decode(args)) {
        keysOf(write.db, write.args, sink);
      }
      return;
    }
    CommandSpec spec = entries.get(Args.lower(args[0]));
    Writes writes = spec == null ? null : spec.writes();
    if (writes == null) {
      // not a write of this table: its first argument, if any
      if (args.length > 1) {
        sink.key(new Key(db, args[1]));
      }
      return;
    }
    switch (writes.reach()) {
      case ALL_DATABASES -> sink.database(-1);
      case DATABASE -> sink.database(db);
      case TWO_DATABASES -> {
        sink.database(Request.databaseArgument(args[1]));
        sink.database(Request.databaseArgument(args[2]));
      }
      default -> {
        // the keys a live request of the command touches, found the one way requests find them
        for (Key key : new Request(spec, db, args).keys()) {
          sink.key(key);
        }
      }
    }
  }

  @Override
  public boolean movesData(byte[][] args) {
    if (Transaction.isRecord(args)) {
      for (Transaction.Write write : Transaction.decode(args)) {
        if (movesData(write.args)) {
          return true;
        }
      }
      return false;
    }
    // on every logged write: compare bytes, allocate nothing
    for (byte[] mover : movers) {
      if (Args.equalsIgnoreCase(args[0], mover)) {
        return true;
      }
    }
    return false;
  }
}
