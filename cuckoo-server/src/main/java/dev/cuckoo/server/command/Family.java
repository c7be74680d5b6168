package dev.cuckoo.server.command;

import java.util.List;

/**
 * A family of commands: its table entries, bound to handlers it builds from the server's parts. A
 * family lives in one file beside its handlers and is registered once, in {@link Families}; adding
 * a command means adding its entry to its family's file.
 */
@FunctionalInterface
interface Family {
  /**
   * Returns the family's entries in table order, bound to handlers built from {@code parts}.
   *
   * @param parts what the handlers are built from
   */
  List<CommandSpec.Builder> entries(Families.Parts parts);
}
