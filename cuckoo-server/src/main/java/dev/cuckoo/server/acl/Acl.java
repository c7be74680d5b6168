package dev.cuckoo.server.acl;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.BiPredicate;

/**
 * The server's ACL users, as Redis's {@code Users} table with its {@code default} user: creating
 * and changing users (ACL SETUSER), removing them, authenticating, checking a request, and loading
 * a whole set of users all or nothing (ACL LOAD, the ACL file and {@code user} lines at start).
 * Changes are serialised; reads (AUTH, the check) take no lock.
 */
public final class Acl {
  /** The name of the user every new connection starts as. */
  public static final String DEFAULT = "default";

  private final CommandCatalog catalog;
  private final BiPredicate<byte[], byte[]> glob;
  private final ConcurrentSkipListMap<String, User> users = new ConcurrentSkipListMap<>();
  private final User defaultUser;
  private volatile boolean allChannelsByDefault;

  /**
   * Creates the table with the default user (on, nopass, every command, key and channel).
   *
   * @param catalog the commands and categories rules name
   * @param glob tells whether a pattern (first argument) matches a key or channel, as Redis's
   *     stringmatchlen
   */
  public Acl(CommandCatalog catalog, BiPredicate<byte[], byte[]> glob) {
    this.catalog = catalog;
    this.glob = glob;
    this.defaultUser = new User(DEFAULT, Rules.defaultUser(catalog));
    users.put(DEFAULT, defaultUser);
  }

  /** Returns the commands and categories rules name. */
  public CommandCatalog catalog() {
    return catalog;
  }

  /**
   * Sets acl-pubsub-default: whether users and selectors created from now on, and users reset,
   * start with every channel (allchannels) or none (resetchannels, Redis 7's default). Existing
   * users keep their channels.
   */
  public void allChannelsByDefault(boolean allChannels) {
    this.allChannelsByDefault = allChannels;
  }

  /** Returns the default user. */
  public User defaultUser() {
    return defaultUser;
  }

  /**
   * Returns true if connections must authenticate before running commands (Redis's authRequired):
   * the default user has a password or is off.
   */
  public boolean authRequired() {
    Rules rules = defaultUser.rules();
    return !rules.noPass() || !rules.enabled();
  }

  /** Returns the user with this name, or null. */
  public User user(String name) {
    return users.get(name);
  }

  /** Returns the users in name order (ACL LIST, ACL USERS). */
  public Collection<User> users() {
    return users.values();
  }

  /**
   * Sets requirepass as Redis's ACLUpdateDefaultUserPassword does: resetpass, then the password, or
   * nopass for none.
   */
  public synchronized void defaultPassword(byte[] password) {
    Rules draft = defaultUser.rules().draft(allChannelsByDefault);
    try {
      draft.apply("resetpass", catalog);
      draft.apply(password == null ? "nopass" : ">" + Latin1.text(password), catalog);
    } catch (AclRuleException e) {
      throw new IllegalStateException("resetpass, nopass and >password always apply", e);
    }
    defaultUser.rules(draft.seal());
  }

  /**
   * Creates or changes a user, all rules or none (ACL SETUSER): rules inside parentheses spread
   * over several arguments are joined into one selector first.
   *
   * @return null if done, else Redis's error text without "ERR "
   */
  public String setUser(String name, List<String> ops) {
    return setUser(name, ops, new ArrayList<>());
  }

  /**
   * Creates or changes a user, all rules or none (ACL SETUSER), and tells which channels the change
   * took away from the user's subscribed clients.
   *
   * @param revoked receives what the change took away, if it took any channel away
   * @return null if done, else Redis's error text without "ERR "
   */
  public synchronized String setUser(
      String name, List<String> ops, List<ChannelRevocation> revoked) {
    List<String> merged = mergeSelectors(ops);
    if (merged == null) {
      return "Unmatched parenthesis in acl selector starting at '" + unmatched(ops) + "'.";
    }
    User user = users.get(name);
    Rules draft =
        user == null ? new Rules(allChannelsByDefault) : user.rules().draft(allChannelsByDefault);
    for (String op : merged) {
      try {
        draft.apply(op, catalog);
      } catch (AclRuleException e) {
        return "Error in ACL SETUSER modifier '" + op + "': " + e.getMessage();
      }
    }
    draft.seal();
    if (user == null) {
      users.put(name, new User(name, draft));
    } else {
      addRevocation(user, draft, revoked);
      user.rules(draft);
    }
    return null;
  }

  /**
   * Joins the arguments of a selector given over several arguments ({@code "(~x" "+get)"}) into
   * one, as Redis's ACLMergeSelectorArguments; returns null if a parenthesis is not closed.
   */
  static List<String> mergeSelectors(List<String> ops) {
    List<String> merged = new ArrayList<>();
    StringBuilder selector = null;
    for (String op : ops) {
      if (selector == null && op.startsWith("(") && !op.endsWith(")")) {
        selector = new StringBuilder(op);
        continue;
      }
      if (selector != null) {
        selector.append(' ').append(op);
        if (op.endsWith(")")) {
          merged.add(selector.toString());
          selector = null;
        }
        continue;
      }
      merged.add(op);
    }
    return selector == null ? merged : null;
  }

  private static String unmatched(List<String> ops) {
    boolean open = false;
    String start = "";
    for (String op : ops) {
      if (!open && op.startsWith("(") && !op.endsWith(")")) {
        open = true;
        start = op;
      } else if (open && op.endsWith(")")) {
        open = false;
      }
    }
    return start;
  }

  /**
   * Removes users (ACL DELUSER); the default user cannot be removed.
   *
   * @return the users removed, whose connections the caller closes
   */
  public synchronized List<User> delete(List<String> names) {
    List<User> removed = new ArrayList<>();
    for (String name : names) {
      if (name.equals(DEFAULT)) {
        continue;
      }
      User user = users.remove(name);
      if (user != null) {
        user.remove();
        removed.add(user);
      }
    }
    return removed;
  }

  /**
   * Returns the user a name and password authenticate as (Redis's ACLCheckUserCredentials), or null
   * for an unknown user, a user that is off, or a wrong password.
   */
  public User authenticate(String name, byte[] password) {
    User user = users.get(name);
    if (user == null) {
      // hash anyway: an unknown name costs what a known one does
      Passwords.hash(password);
      return null;
    }
    Rules rules = user.rules();
    if (!rules.enabled()) {
      return null;
    }
    return rules.passwordMatches(password) ? user : null;
  }

  /**
   * Checks a request against a user's selectors, as Redis's ACLCheckAllUserCommandPerm: allowed if
   * one selector allows it; otherwise the denial to report is the most relevant one (command &lt;
   * key &lt; channel), the last position among equals.
   *
   * @param user the user, or null for the master's link and recovery (allowed everything)
   * @return null if allowed
   */
  public Denial check(User user, AccessRequest request) {
    if (user == null) {
      return null;
    }
    Rules rules = user.rules();
    if (rules.unrestricted()) {
      return null;
    }
    Denial relevant = null;
    List<Selector> selectors = rules.selectors();
    // indexed: no iterator per request
    for (int i = 0, n = selectors.size(); i < n; i++) {
      Denial denial = selectors.get(i).check(request, glob);
      if (denial == null) {
        return null;
      }
      if (relevant == null
          || denial.reason().compareTo(relevant.reason()) > 0
          || denial.reason() == relevant.reason() && denial.position() > relevant.position()) {
        relevant = denial;
      }
    }
    return relevant;
  }

  /**
   * Returns true if the user may use a channel (a pattern literally, for PSUBSCRIBE), as Redis's
   * ACLUserCheckChannelPerm.
   */
  public boolean channelAllowed(User user, byte[] channel, boolean isPattern) {
    if (user == null) {
      return true;
    }
    for (Selector selector : user.rules().selectors()) {
      if (selector.channelAllowed(channel, isPattern, glob)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns Redis's text for a denial (getAclErrorMessage): verbose for ACL DRYRUN ({@code User
   * alice has no permissions to access the 'k' key}), short for NOPERM ({@code No permissions to
   * access a key}).
   *
   * @param command the command's full name
   * @param object the key or channel refused (unused for a command)
   */
  public static String message(
      Denial denial, String user, String command, String object, boolean verbose) {
    return switch (denial.reason()) {
      case COMMAND -> "User " + user + " has no permissions to run the '" + command + "' command";
      case KEY ->
          verbose
              ? "User " + user + " has no permissions to access the '" + object + "' key"
              : "No permissions to access a key";
      case CHANNEL ->
          verbose
              ? "User " + user + " has no permissions to access the '" + object + "' channel"
              : "No permissions to access a channel";
      case AUTH -> "invalid username-password pair or user is disabled.";
    };
  }

  /**
   * Replaces every user with those described by {@code user <name> <rules...>} lines, all or none
   * (Redis's ACLLoadFromFile): each line is checked; if any is wrong nothing changes and the errors
   * are returned, each naming the file and line. A user left out is removed; the default user, if
   * left out, gets its initial rules.
   *
   * @param fileName the file's name as configured, for the errors
   * @param lines the file's lines
   * @param removed receives the users removed, whose connections the caller closes
   * @return null if loaded, else Redis's text of every error (without "ERR ")
   */
  public String load(String fileName, List<String> lines, List<User> removed) {
    return load(fileName, lines, removed, new ArrayList<>());
  }

  /**
   * Replaces every user as {@link #load(String, List, List)} does, and tells which channels the
   * users kept lost.
   *
   * @param revoked receives, for each user kept, what its new rules took away from it
   */
  public synchronized String load(
      String fileName, List<String> lines, List<User> removed, List<ChannelRevocation> revoked) {
    StringBuilder errors = new StringBuilder();
    Map<String, Rules> loaded = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      int lineNumber = i + 1;
      String line = lines.get(i).strip();
      if (line.isEmpty()) {
        continue;
      }
      List<String> argv = split(line);
      if (argv.isEmpty()) {
        continue;
      }
      if (!argv.get(0).equals("user") || argv.size() < 2) {
        errors
            .append(fileName)
            .append(':')
            .append(lineNumber)
            .append(" should start with user keyword followed by the username. ");
        continue;
      }
      String name = argv.get(1);
      if (loaded.containsKey(name)) {
        errors
            .append("WARNING: Duplicate user '")
            .append(name)
            .append("' found on line ")
            .append(lineNumber)
            .append(". ");
        continue;
      }
      Rules rules = new Rules(allChannelsByDefault);
      loaded.put(name, rules);
      List<String> ops = mergeSelectors(argv.subList(2, argv.size()));
      if (ops == null) {
        errors
            .append(fileName)
            .append(':')
            .append(lineNumber)
            .append(": Unmatched parenthesis in selector definition.");
        continue;
      }
      boolean syntaxError = false;
      for (String op : ops) {
        try {
          rules.apply(op, catalog);
        } catch (AclRuleException e) {
          if (e.unknownName()) {
            errors
                .append(fileName)
                .append(':')
                .append(lineNumber)
                .append(": Error in applying operation '")
                .append(op)
                .append("': ")
                .append(e.getMessage())
                .append(". ");
          } else if (!syntaxError) {
            errors
                .append(fileName)
                .append(':')
                .append(lineNumber)
                .append(": ")
                .append(e.getMessage())
                .append(". ");
            syntaxError = true;
          }
        }
      }
    }
    if (errors.length() > 0) {
      return errors
          .append(
              "WARNING: ACL errors detected, no change to the previously active ACL rules was"
                  + " performed")
          .toString();
    }
    replaceAll(loaded, removed, revoked);
    return null;
  }

  /**
   * Applies the {@code user} lines of the config file at start, as Redis's ACLLoadConfiguredUsers:
   * a user defined twice is an error, the default user is reset before its rules apply.
   *
   * @param lines each line's origin ("file:line") and its words after {@code user}
   * @return null if loaded, else the first error, naming its origin
   */
  public synchronized String loadConfigured(List<Map.Entry<String, List<String>>> lines) {
    Map<String, Rules> loaded = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> line : lines) {
      List<String> argv = line.getValue();
      String origin = line.getKey();
      if (argv.isEmpty()) {
        return origin + ": Error in user declaration 'user': " + AclRuleException.SYNTAX;
      }
      String name = argv.get(0);
      if (loaded.containsKey(name)) {
        return origin
            + ": Error in user declaration '"
            + name
            + "': "
            + AclRuleException.DUPLICATE_USER;
      }
      List<String> ops = mergeSelectors(argv.subList(1, argv.size()));
      if (ops == null) {
        return origin
            + ": Error in user declaration '"
            + unmatched(argv.subList(1, argv.size()))
            + "': "
            + AclRuleException.SYNTAX;
      }
      Rules rules =
          name.equals(DEFAULT)
              ? defaultUser.rules().draft(allChannelsByDefault)
              : new Rules(allChannelsByDefault);
      try {
        if (name.equals(DEFAULT)) {
          rules.apply("reset", catalog);
        }
        for (String op : ops) {
          apply(rules, op, origin);
        }
      } catch (AclRuleException e) {
        return e.getMessage();
      }
      loaded.put(name, rules);
    }
    publish(loaded);
    return null;
  }

  private void apply(Rules rules, String op, String origin) throws AclRuleException {
    try {
      rules.apply(op, catalog);
    } catch (AclRuleException e) {
      throw new AclRuleException(
          origin + ": Error in user declaration '" + op + "': " + e.getMessage());
    }
  }

  private void replaceAll(
      Map<String, Rules> loaded, List<User> removed, List<ChannelRevocation> revoked) {
    Rules defaults = loaded.remove(DEFAULT);
    Rules newDefaults = defaults != null ? defaults.seal() : Rules.defaultUser(catalog);
    addRevocation(defaultUser, newDefaults, revoked);
    defaultUser.rules(newDefaults);
    for (User user : List.copyOf(users.values())) {
      if (user == defaultUser) {
        continue;
      }
      Rules rules = loaded.get(user.name());
      if (rules == null) {
        users.remove(user.name());
        user.remove();
        removed.add(user);
      } else {
        addRevocation(user, rules, revoked);
      }
    }
    publish(loaded);
  }

  /** Adds what replacing a user's rules by {@code updated} takes away, if anything. */
  private void addRevocation(User user, Rules updated, List<ChannelRevocation> revoked) {
    ChannelRevocation revocation = ChannelRevocation.between(user, user.rules(), updated, glob);
    if (revocation != null) {
      revoked.add(revocation);
    }
  }

  /** Gives each user its loaded rules, creating the users that do not exist yet. */
  private void publish(Map<String, Rules> loaded) {
    for (Map.Entry<String, Rules> entry : loaded.entrySet()) {
      Rules rules = entry.getValue().seal();
      User user = users.get(entry.getKey());
      if (user == null) {
        users.put(entry.getKey(), new User(entry.getKey(), rules));
      } else {
        user.rules(rules);
      }
    }
  }

  /**
   * Returns every user as a {@code user <name> <rules>} line, in name order: ACL LIST, ACL SAVE and
   * CONFIG REWRITE write these.
   */
  public List<String> lines() {
    List<String> lines = new ArrayList<>();
    for (User user : users.values()) {
      lines.add("user " + user.name() + " " + user.describe());
    }
    return lines;
  }

  /**
   * Returns true if a user name or pattern holds a space, another white-space or NUL (Redis's
   * ACLStringHasSpaces): such names and patterns are refused.
   */
  public static boolean hasSpaces(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == 0 || c == ' ' || (c >= '\t' && c <= '\r')) {
        return true;
      }
    }
    return false;
  }

  /** Splits an ACL file line on spaces, as Redis's sdssplitlen (runs of spaces yield nothing). */
  public static List<String> split(String line) {
    List<String> words = new ArrayList<>();
    for (String word : line.split(" ")) {
      String trimmed = word.strip();
      if (!trimmed.isEmpty()) {
        words.add(trimmed);
      }
    }
    return words;
  }
}
