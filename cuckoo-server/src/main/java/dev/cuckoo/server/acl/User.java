package dev.cuckoo.server.acl;

import java.util.List;

/**
 * One ACL user: a name and its current rules. Connections authenticated as the user hold this
 * object, so ACL SETUSER and ACL LOAD reach them at their next command; the rules are replaced
 * whole, never changed in place, so a check reads one consistent set without locks.
 */
public final class User {
  private final String name;
  private volatile Rules rules;
  private volatile boolean removed;

  User(String name, Rules rules) {
    this.name = name;
    this.rules = rules;
  }

  /** Returns the user's name. */
  public String name() {
    return name;
  }

  /**
   * Returns true if the user may run every command on every key and channel (a selector with
   * allcommands, allkeys and allchannels): the dispatcher's check stops here.
   */
  public boolean unrestricted() {
    return rules.unrestricted();
  }

  /** Returns true if the user may authenticate (flag on). */
  public boolean enabled() {
    return rules.enabled();
  }

  /** Returns true if any password authenticates the user (flag nopass). */
  public boolean noPass() {
    return rules.noPass();
  }

  /** Returns true once ACL DELUSER or ACL LOAD removed the user. */
  public boolean removed() {
    return removed;
  }

  void remove() {
    removed = true;
  }

  Rules rules() {
    return rules;
  }

  void rules(Rules rules) {
    this.rules = rules;
  }

  /** Returns the flags as ACL GETUSER lists them (on/off, nopass, sanitize-payload). */
  public List<String> flags() {
    return rules.flags();
  }

  /** Returns the password hashes (hex SHA-256), in the order they were added. */
  public List<String> passwords() {
    return List.copyOf(rules.passwords());
  }

  /** Returns the rules as ACL LIST shows them after {@code user <name> }. */
  public String describe() {
    return rules.describe();
  }

  /**
   * Returns each selector's commands, keys and channels as ACL GETUSER shows them, the root
   * selector first.
   */
  public List<SelectorView> selectors() {
    return rules.selectors().stream()
        .map(s -> new SelectorView(s.describeCommands(), s.describeKeys(), s.describeChannels()))
        .toList();
  }

  /**
   * One selector as ACL GETUSER shows it.
   *
   * @param commands the command rules, {@code +@all} or {@code -@all} first
   * @param keys the key patterns ({@code ~*} for all)
   * @param channels the channel patterns ({@code &*} for all)
   */
  public record SelectorView(String commands, String keys, String channels) {}

  @Override
  public String toString() {
    return name;
  }
}
