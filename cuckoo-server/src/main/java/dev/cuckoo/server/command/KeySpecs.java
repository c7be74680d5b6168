package dev.cuckoo.server.command;

import dev.cuckoo.server.protocol.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads key specifications ({@link KeySpec}, Redis 7's {@code key_specs}): finds the keys of a
 * command line as Redis's {@code getKeysUsingKeySpecs} does (COMMAND GETKEYS) and writes them as
 * COMMAND INFO's ninth element.
 */
final class KeySpecs {
  private KeySpecs() {}

  /** One key found in a command line: its argument position and its spec's flags. */
  record KeyPosition(int position, List<String> flags) {}

  /**
   * Returns the keys of a command line ({@code argc} arguments, the command name at 0) found by the
   * specs searching from an index, in spec order: positions past the end of the line are skipped.
   */
  static List<KeyPosition> find(List<KeySpec> specs, int argc) {
    List<KeyPosition> keys = new ArrayList<>();
    for (KeySpec spec : specs) {
      for (int j = 0, i = spec.index(), n = spec.count(argc); j < n; j++, i += spec.keyStep()) {
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
    List<KeySpec> specs = command.keySpecs();
    reply.set(specs.size());
    for (KeySpec spec : specs) {
      reply.map(3);
      reply.bulk("flags");
      writeFlags(reply, spec.flags());
      reply.bulk("begin_search");
      reply.map(2);
      reply.bulk("type");
      if (spec.byIndex()) {
        reply.bulk("index");
        reply.bulk("spec");
        reply.map(1);
        reply.bulk("index");
        reply.integer(spec.index());
      } else {
        reply.bulk("keyword");
        reply.bulk("spec");
        reply.map(2);
        reply.bulk("keyword");
        reply.bulk(spec.keyword());
        reply.bulk("startfrom");
        reply.integer(spec.index());
      }
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

  /** Writes flags as Redis's {@code addReplyCommandFlags}: a set of simple strings. */
  static void writeFlags(Reply reply, List<String> flags) {
    reply.set(flags.size());
    for (String flag : flags) {
      reply.simple(flag);
    }
  }
}
