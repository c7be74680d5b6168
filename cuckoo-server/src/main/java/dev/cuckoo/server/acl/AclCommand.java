package dev.cuckoo.server.acl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A command or subcommand as the ACL sees it: a number that indexes users' command bits, its full
 * name ({@code "cf.add"}, {@code "config|get"}), its categories as bits of the {@link
 * CommandCatalog}'s category list, whether it runs before AUTH, its container and its subcommands.
 */
public final class AclCommand {
  private final int id;
  private final String name;
  private final long categories;
  private final boolean noAuth;
  private final AclCommand container;
  private final List<AclCommand> subcommands = new ArrayList<>();

  AclCommand(int id, String name, long categories, boolean noAuth, AclCommand container) {
    this.id = id;
    this.name = name;
    this.categories = categories;
    this.noAuth = noAuth;
    this.container = container;
  }

  /** Returns the command's number: its bit in a selector's allowed commands. */
  public int id() {
    return id;
  }

  /** Returns the full lower-case name, {@code container|sub} for a subcommand. */
  public String name() {
    return name;
  }

  /** Returns the categories as bits of the catalog's category list. */
  long categories() {
    return categories;
  }

  /** Returns true if the command may run before AUTH (flag no_auth): every user may run it. */
  boolean noAuth() {
    return noAuth;
  }

  /** Returns the container of a subcommand, or null for a top-level command. */
  public AclCommand container() {
    return container;
  }

  /** Returns the subcommands (empty unless this is a container). */
  List<AclCommand> subcommands() {
    return Collections.unmodifiableList(subcommands);
  }

  void addSubcommand(AclCommand sub) {
    subcommands.add(sub);
  }

  @Override
  public String toString() {
    return name;
  }
}
