package dev.cuckoo.server.command;

import dev.cuckoo.server.protocol.Reply;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The key specifications of the commands (Redis 7's {@code key_specs}): where each command's key
 * arguments are and what the command does to them. COMMAND INFO reports them and COMMAND GETKEYS
 * finds keys with them, as Redis's {@code getKeysUsingKeySpecs} does.
 *
 * <p>A command gets one spec derived from its legacy first/last/step positions in {@link
 * CommandSpec}, with the flags listed here for its name; a command that is not listed gets the
 * flags Redis gives a module command registered without key specs ({@code RW access update}) if it
 * has the {@code write} flag, {@code RO access} otherwise. A command whose keys cannot be described
 * by one range (RENAME: a source and a destination) lists its specs explicitly with {@link
 * #explicit}.
 */
public final class KeySpecs {
  /** One key spec: flags, begin_search by index, find_keys by range. */
  record KeySpec(List<String> flags, int index, int lastKey, int keyStep, int limit) {}

  private static final List<String> RO = List.of("RO");
  private static final List<String> RW = List.of("RW");

  /** Redis's CMD_KEY_FULL_ACCESS, the flags of a module command's legacy range spec. */
  private static final List<String> FULL_ACCESS = List.of("RW", "access", "update");

  private static final List<String> READ_ACCESS = List.of("RO", "access");

  private static final Map<String, List<String>> FLAGS = new HashMap<>();
  private static final Map<String, List<KeySpec>> EXPLICIT = new HashMap<>();

  /*
   * Redis core commands: flags from Redis's src/commands/*.json (DEL: RM delete; EXISTS, TYPE,
   * TOUCH, MEMORY USAGE, OBJECT *: RO). CF.*: RedisBloom's src/cmd_info/cf_info.c declares RW for
   * the writing commands and SCANDUMP, RO for the reading ones, begin_search index 1 and
   * find_keys range {lastkey 0, keystep 1, limit 0}. CF.COMPACT has no command info there, so it
   * keeps the default of a module command (FULL_ACCESS, whatever its command flags).
   */
  static {
    flags(List.of("RM", "delete"), "del", "unlink");
    flags(
        RO,
        "exists",
        "type",
        "touch",
        "memory|usage",
        "object|encoding",
        "object|freq",
        "object|refcount");
    flags(
        RW,
        "cf.reserve",
        "cf.add",
        "cf.addnx",
        "cf.insert",
        "cf.insertnx",
        "cf.del",
        "cf.loadchunk",
        "cf.scandump");
    flags(RO, "cf.exists", "cf.mexists", "cf.count", "cf.info", "cf.debug");
    flags(FULL_ACCESS, "cf.compact");
    // keyspace commands of issue 14, from the same JSON files: ready for when they register
    flags(List.of("RW", "update"), "expire", "pexpire", "expireat", "pexpireat", "persist");
    flags(READ_ACCESS, "ttl", "pttl", "expiretime", "pexpiretime");
    flags(FULL_ACCESS, "move");
    explicit("rename", spec(1, "RW", "access", "delete"), spec(2, "OW", "update"));
    explicit("renamenx", spec(1, "RW", "access", "delete"), spec(2, "OW", "insert"));
    explicit("copy", spec(1, "RO", "access"), spec(2, "OW", "update"));
  }

  private KeySpecs() {}

  private static void flags(List<String> flags, String... names) {
    for (String name : names) {
      FLAGS.put(name, flags);
    }
  }

  /**
   * Declares the specs of a command whose keys one range cannot describe, e.g. {@code
   * explicit("rename", spec(1, "RW", "access", "delete"), spec(2, "OW", "update"))}.
   */
  private static void explicit(String name, KeySpec... specs) {
    EXPLICIT.put(name, List.of(specs));
  }

  /** Returns a spec for the single key at argument {@code index}. */
  static KeySpec spec(int index, String... flags) {
    return new KeySpec(List.of(flags), index, 0, 1, 0);
  }

  /** Returns the key specs of a command (empty if it takes no keys). */
  static List<KeySpec> of(CommandSpec command) {
    List<KeySpec> specs = EXPLICIT.get(command.name());
    if (specs != null) {
      return specs;
    }
    if (command.firstKey() <= 0) {
      return List.of();
    }
    List<String> flags = FLAGS.get(command.name());
    if (flags == null) {
      flags = command.write() ? FULL_ACCESS : READ_ACCESS;
    }
    int first = command.firstKey();
    int last = command.lastKey();
    // Redis's populateCommandLegacyRangeSpec: lastkey is relative to the first key
    return List.of(new KeySpec(flags, first, last < 0 ? last : last - first, command.keyStep(), 0));
  }

  /** One key found in a command line: its argument position and its spec's flags. */
  record KeyPosition(int position, List<String> flags) {}

  /**
   * Returns the keys of a command line ({@code argc} arguments, the command name at 0) found by the
   * specs, in spec order, as Redis's {@code getKeysUsingKeySpecs} finds them: positions past the
   * end of the line are skipped.
   */
  static List<KeyPosition> find(List<KeySpec> specs, int argc) {
    List<KeyPosition> keys = new ArrayList<>();
    for (KeySpec spec : specs) {
      int first = spec.index();
      if (first >= argc) {
        continue;
      }
      int last;
      if (spec.lastKey() >= 0) {
        last = first + spec.lastKey();
      } else if (spec.limit() == 0) {
        last = argc + spec.lastKey();
      } else {
        last = first + ((argc - first) / spec.limit() + spec.lastKey());
      }
      for (int i = first; i <= last && i < argc; i += spec.keyStep()) {
        keys.add(new KeyPosition(i, spec.flags()));
      }
    }
    return keys;
  }

  /**
   * Writes the key specs as COMMAND INFO's ninth element: a set (RESP3 {@code ~}) of maps with
   * {@code flags}, {@code begin_search} and {@code find_keys}, as Redis's {@code
   * addReplyCommandKeySpecs}.
   */
  static void write(Reply reply, CommandSpec command) {
    List<KeySpec> specs = of(command);
    reply.set(specs.size());
    for (KeySpec spec : specs) {
      reply.map(3);
      reply.bulk("flags");
      writeFlags(reply, spec.flags());
      reply.bulk("begin_search");
      reply.map(2);
      reply.bulk("type");
      reply.bulk("index");
      reply.bulk("spec");
      reply.map(1);
      reply.bulk("index");
      reply.integer(spec.index());
      reply.bulk("find_keys");
      reply.map(2);
      reply.bulk("type");
      reply.bulk("range");
      reply.bulk("spec");
      reply.map(3);
      reply.bulk("lastkey");
      reply.integer(spec.lastKey());
      reply.bulk("keystep");
      reply.integer(spec.keyStep());
      reply.bulk("limit");
      reply.integer(spec.limit());
    }
  }

  /** Writes key flags as Redis's {@code addReplyFlagsForKeyArgs}: a set of simple strings. */
  static void writeFlags(Reply reply, List<String> flags) {
    reply.set(flags.size());
    for (String flag : flags) {
      reply.simple(flag);
    }
  }
}
