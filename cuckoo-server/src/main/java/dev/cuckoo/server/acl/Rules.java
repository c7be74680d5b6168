package dev.cuckoo.server.acl;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a user may do, as Redis's {@code user} struct without the name: on or off, nopass, the
 * payload sanitisation flag, the password hashes and the selectors (the root one first). A draft is
 * copied from the user's current rules, changed rule by rule, then published whole; published rules
 * are never changed again, so a check reads them without locks.
 */
final class Rules {
  private boolean enabled;
  private boolean noPass;
  private boolean skipSanitizePayload;
  private final List<String> passwords;
  private final List<Selector> selectors;
  private boolean unrestricted;
  private String description;

  /**
   * Whether a selector made by these rules ({@code (...)}, {@code reset}) starts with every
   * channel: acl-pubsub-default when the draft was made.
   */
  private final boolean allChannelsByDefault;

  /**
   * Creates the rules of a new user: off, no passwords, no commands or keys, and every channel or
   * none as {@code allChannelsByDefault} (acl-pubsub-default) says.
   */
  Rules(boolean allChannelsByDefault) {
    this.allChannelsByDefault = allChannelsByDefault;
    passwords = new ArrayList<>();
    selectors = new ArrayList<>();
    selectors.add(new Selector(true, allChannelsByDefault));
  }

  private Rules(Rules other, boolean allChannelsByDefault) {
    this.allChannelsByDefault = allChannelsByDefault;
    enabled = other.enabled;
    noPass = other.noPass;
    skipSanitizePayload = other.skipSanitizePayload;
    passwords = new ArrayList<>(other.passwords);
    selectors = new ArrayList<>();
    for (Selector selector : other.selectors) {
      selectors.add(selector.copy());
    }
  }

  /** Returns the rules of Redis's default user: on, nopass, every key, channel and command. */
  static Rules defaultUser(CommandCatalog catalog) {
    Rules rules = new Rules(false);
    try {
      for (String op : List.of("+@all", "~*", "&*", "on", "nopass")) {
        rules.apply(op, catalog);
      }
    } catch (AclRuleException e) {
      throw new IllegalStateException("the default user's rules are valid", e);
    }
    return rules.seal();
  }

  /**
   * Returns a draft copy to change.
   *
   * @param allChannelsByDefault acl-pubsub-default now: whether selectors the draft makes start
   *     with every channel
   */
  Rules draft(boolean allChannelsByDefault) {
    return new Rules(this, allChannelsByDefault);
  }

  /** Finishes a draft: computes what the check's fast path reads. */
  Rules seal() {
    unrestricted = false;
    for (Selector selector : selectors) {
      unrestricted |= selector.unrestricted();
    }
    return this;
  }

  boolean enabled() {
    return enabled;
  }

  boolean noPass() {
    return noPass;
  }

  List<String> passwords() {
    return passwords;
  }

  List<Selector> selectors() {
    return selectors;
  }

  boolean unrestricted() {
    return unrestricted;
  }

  /**
   * Applies one rule to the draft, as Redis's ACLSetUser.
   *
   * @throws AclRuleException with Redis's reason
   */
  void apply(String op, CommandCatalog catalog) throws AclRuleException {
    description = null;
    if (op.isEmpty()) {
      return;
    }
    String lower = op.toLowerCase(Locale.ROOT);
    switch (lower) {
      case "on" -> enabled = true;
      case "off" -> enabled = false;
      case "skip-sanitize-payload" -> skipSanitizePayload = true;
      case "sanitize-payload" -> skipSanitizePayload = false;
      case "nopass" -> {
        noPass = true;
        passwords.clear();
      }
      case "resetpass" -> {
        noPass = false;
        passwords.clear();
      }
      case "clearselectors" -> selectors.subList(1, selectors.size()).clear();
      case "reset" -> {
        for (String each :
            List.of(
                "resetpass",
                "resetkeys",
                "resetchannels",
                allChannelsByDefault ? "allchannels" : "",
                "off",
                "sanitize-payload",
                "clearselectors",
                "-@all")) {
          apply(each, catalog);
        }
      }
      default -> applyOther(op, catalog);
    }
  }

  private void applyOther(String op, CommandCatalog catalog) throws AclRuleException {
    char first = op.charAt(0);
    if (first == '>' || first == '#') {
      String hash = hashOf(op);
      if (!passwords.contains(hash)) {
        passwords.add(hash);
      }
      noPass = false;
    } else if (first == '<' || first == '!') {
      String hash = hashOf(op);
      if (!passwords.remove(hash)) {
        throw new AclRuleException(AclRuleException.NO_SUCH_PASSWORD);
      }
    } else if (first == '(' && op.charAt(op.length() - 1) == ')') {
      Selector selector = new Selector(false, allChannelsByDefault);
      for (String inner : op.substring(1, op.length() - 1).trim().split("\\s+")) {
        if (!inner.isEmpty()) {
          selector.apply(inner, catalog);
        }
      }
      selectors.add(selector);
    } else {
      selectors.get(0).apply(op, catalog);
    }
  }

  /**
   * Returns the hash a password rule names: the SHA-256 of the password after {@code >} or {@code
   * <}, or the hash itself after {@code #} or {@code !} (which must be 64 lower-case hex digits).
   */
  private static String hashOf(String op) throws AclRuleException {
    char first = op.charAt(0);
    if (first == '>' || first == '<') {
      return Passwords.hash(Latin1.bytes(op.substring(1)));
    }
    String hash = op.substring(1);
    if (!Passwords.validHash(hash)) {
      throw new AclRuleException(AclRuleException.BAD_HASH);
    }
    return hash;
  }

  /**
   * Returns true if the password matches one of the hashes (or the user is nopass). Every hash is
   * compared in constant time; the password itself is hashed first, so how much of it is right
   * changes nothing.
   */
  boolean passwordMatches(byte[] password) {
    if (noPass) {
      return true;
    }
    String hashed = Passwords.hash(password);
    boolean match = false;
    for (String hash : passwords) {
      match |= Passwords.sameHash(hashed, hash);
    }
    return match;
  }

  /** Returns the flags as ACL GETUSER lists them: on or off, nopass, the sanitisation flag. */
  List<String> flags() {
    List<String> flags = new ArrayList<>();
    flags.add(enabled ? "on" : "off");
    if (noPass) {
      flags.add("nopass");
    }
    flags.add(skipSanitizePayload ? "skip-sanitize-payload" : "sanitize-payload");
    return flags;
  }

  /**
   * Returns the rules as ACL LIST and the ACL file write them (Redis's ACLDescribeUser): flags,
   * {@code #hash} for each password, the root selector, then {@code (...)} for each other one.
   */
  String describe() {
    String text = description;
    if (text == null) {
      StringBuilder out = new StringBuilder();
      for (String flag : flags()) {
        out.append(flag).append(' ');
      }
      for (String hash : passwords) {
        out.append('#').append(hash).append(' ');
      }
      for (Selector selector : selectors) {
        if (selector.root()) {
          out.append(selector.describe());
        } else {
          out.append(" (").append(selector.describe()).append(')');
        }
      }
      text = out.toString();
      description = text;
    }
    return text;
  }
}
