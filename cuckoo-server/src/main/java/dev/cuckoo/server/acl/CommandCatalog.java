package dev.cuckoo.server.acl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The commands and categories the ACL knows: Redis's categories (in Redis's order, as ACL CAT lists
 * them) then the categories a module's commands add (RedisBloom's {@code cuckoo}), and every
 * command and subcommand of the table with its number, full name and categories. Built once from
 * the command table, in table order; read-only afterwards.
 */
public final class CommandCatalog {
  /** Redis's own ACL categories, in the order of its {@code ACLDefaultCommandCategories}. */
  public static final List<String> REDIS_CATEGORIES =
      List.of(
          "keyspace",
          "read",
          "write",
          "set",
          "sortedset",
          "list",
          "hash",
          "string",
          "bitmap",
          "hyperloglog",
          "geo",
          "stream",
          "pubsub",
          "admin",
          "fast",
          "slow",
          "blocking",
          "dangerous",
          "connection",
          "transaction",
          "scripting");

  /**
   * The categories RedisBloom registers for the filters this server has ({@code bloom} before
   * {@code cuckoo}, as its module registers them), after Redis's own.
   */
  public static final List<String> MODULE_CATEGORIES = List.of("bloom", "cuckoo");

  /** The most categories a catalog holds (one bit each in a long, as Redis's 64). */
  static final int MAX_CATEGORIES = 64;

  /** The most commands and subcommands a catalog holds; the next number marks "future commands". */
  static final int MAX_COMMANDS = 1023;

  private final List<String> categories = new ArrayList<>(REDIS_CATEGORIES);

  {
    categories.addAll(MODULE_CATEGORIES);
  }

  private final Map<String, AclCommand> byName = new HashMap<>();
  private final List<AclCommand> topLevel = new ArrayList<>();
  private final List<AclCommand> all = new ArrayList<>();

  /** Creates an empty catalog with Redis's categories; commands are added in table order. */
  public CommandCatalog() {}

  /**
   * Adds a command, or a subcommand ({@code "container|sub"}) of a container added before.
   *
   * @param name the full lower-case name
   * @param categoryNames its ACL categories without '@'; names not known yet become new categories
   * @param noAuth true if it may run before AUTH
   * @return the command
   * @throws IllegalArgumentException if a subcommand's container is unknown, the name repeats or
   *     more than {@value #MAX_CATEGORIES} categories or {@value #MAX_COMMANDS} commands would
   *     exist
   */
  public AclCommand add(String name, List<String> categoryNames, boolean noAuth) {
    if (byName.containsKey(name)) {
      throw new IllegalArgumentException("name: " + name + " (expected: a name not added yet)");
    }
    if (all.size() == MAX_COMMANDS) {
      throw new IllegalArgumentException(
          "name: " + name + " (expected: at most " + MAX_COMMANDS + " commands)");
    }
    long bits = 0;
    for (String category : categoryNames) {
      String lower = category.toLowerCase(Locale.ROOT);
      int index = categories.indexOf(lower);
      if (index < 0) {
        if (categories.size() == MAX_CATEGORIES) {
          throw new IllegalArgumentException(
              "category: " + lower + " (expected: at most " + MAX_CATEGORIES + " categories)");
        }
        categories.add(lower);
        index = categories.size() - 1;
      }
      bits |= 1L << index;
    }
    int bar = name.indexOf('|');
    AclCommand container = null;
    if (bar >= 0) {
      container = byName.get(name.substring(0, bar));
      if (container == null) {
        throw new IllegalArgumentException(
            "name: " + name + " (expected: its container added before it)");
      }
    }
    AclCommand command = new AclCommand(all.size(), name, bits, noAuth, container);
    all.add(command);
    byName.put(name, command);
    if (container == null) {
      topLevel.add(command);
    } else {
      container.addSubcommand(command);
    }
    return command;
  }

  /** Returns the category names, each at its bit's index (ACL CAT). */
  public List<String> categories() {
    return Collections.unmodifiableList(categories);
  }

  /** Returns the bit of a category (any case), or 0 if there is no such category. */
  long categoryBit(String name) {
    int index = categories.indexOf(name.toLowerCase(Locale.ROOT));
    return index < 0 ? 0 : 1L << index;
  }

  /**
   * Returns the command a rule names, as Redis's ACLLookupCommand: {@code name} or {@code
   * container|sub} (any case); null if there is none, or if {@code x|y} names a command without
   * subcommands.
   */
  public AclCommand find(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    int bar = lower.indexOf('|');
    if (bar >= 0 && lower.indexOf('|', bar + 1) >= 0) {
      return null;
    }
    return byName.get(lower);
  }

  /** Returns the top-level commands in table order. */
  List<AclCommand> topLevel() {
    return topLevel;
  }

  /** Returns how many commands and subcommands there are (the next unused number). */
  int size() {
    return all.size();
  }

  /**
   * Returns the full names of the commands and subcommands in a category (ACL CAT category), each
   * command followed by its subcommands; null if there is no such category.
   */
  public List<String> inCategory(String category) {
    long bit = categoryBit(category);
    if (bit == 0) {
      return null;
    }
    List<String> names = new ArrayList<>();
    for (AclCommand command : topLevel) {
      if ((command.categories() & bit) != 0) {
        names.add(command.name());
      }
      for (AclCommand sub : command.subcommands()) {
        if ((sub.categories() & bit) != 0) {
          names.add(sub.name());
        }
      }
    }
    return names;
  }
}
