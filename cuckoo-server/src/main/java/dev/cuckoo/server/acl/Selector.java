package dev.cuckoo.server.acl;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiPredicate;

/**
 * One set of permissions of a user, as Redis's {@code aclSelector}: the commands it allows (a bit
 * per command number, plus first arguments allowed of otherwise denied commands), the key patterns
 * with their read/write permission, and the channel patterns. A user's root selector holds the
 * rules given outside parentheses; each {@code (...)} adds another. A request passes if one
 * selector allows its command, every key and every channel.
 *
 * <p>Mutable while rules are applied to a draft; never changed once the user publishes it.
 */
final class Selector {
  /** Key permission: the command reads the key's value. */
  static final int READ = 1;

  /** Key permission: the command changes, inserts or deletes the key. */
  static final int WRITE = 2;

  /** The bit +@all sets and no command has: the selector may run commands added later. */
  private static final int FUTURE = CommandCatalog.MAX_COMMANDS;

  /** One key pattern with the permissions it grants (READ, WRITE or both). */
  private static final class KeyPattern {
    final String pattern;
    final byte[] bytes;
    // the length of the literal before a single trailing '*' ("k*", "user:*"), or -1 when the
    // pattern needs the whole glob: such a pattern matches a key exactly when the key starts with
    // that literal, and comparing bytes costs a fraction of a glob walk
    final int prefix;
    int flags;

    KeyPattern(String pattern, int flags) {
      this.pattern = pattern;
      this.bytes = Latin1.bytes(pattern);
      this.prefix = literalPrefix(bytes);
      this.flags = flags;
    }

    boolean matches(byte[] key, BiPredicate<byte[], byte[]> glob) {
      return prefix >= 0
          ? key.length >= prefix && Arrays.equals(bytes, 0, prefix, key, 0, prefix)
          : glob.test(bytes, key);
    }

    private static int literalPrefix(byte[] pattern) {
      int last = pattern.length - 1;
      if (last < 0 || pattern[last] != '*') {
        return -1;
      }
      for (int i = 0; i < last; i++) {
        byte c = pattern[i];
        if (c == '*' || c == '?' || c == '[' || c == '\\') {
          return -1;
        }
      }
      return last;
    }
  }

  private final boolean root;
  private boolean allKeys;
  private boolean allChannels;
  private boolean allCommands;
  private final BitSet allowed;
  private final Map<Integer, List<String>> firstArgs;
  private final List<KeyPattern> patterns;
  private final List<String> channels;
  private final List<byte[]> channelBytes;
  private final List<String> commandRules;

  /**
   * Creates a selector with no permissions, as Redis's ACLCreateSelector: no commands, no keys, and
   * every channel or none as acl-pubsub-default says.
   *
   * @param root true for a user's root selector
   * @param allChannels true if it starts with every channel (acl-pubsub-default allchannels)
   */
  Selector(boolean root, boolean allChannels) {
    this.root = root;
    this.allChannels = allChannels;
    this.allowed = new BitSet();
    this.firstArgs = new HashMap<>();
    this.patterns = new ArrayList<>();
    this.channels = new ArrayList<>();
    this.channelBytes = new ArrayList<>();
    this.commandRules = new ArrayList<>();
  }

  private Selector(Selector other) {
    this.root = other.root;
    this.allKeys = other.allKeys;
    this.allChannels = other.allChannels;
    this.allCommands = other.allCommands;
    this.allowed = (BitSet) other.allowed.clone();
    this.firstArgs = new HashMap<>();
    other.firstArgs.forEach((id, args) -> firstArgs.put(id, new ArrayList<>(args)));
    this.patterns = new ArrayList<>();
    for (KeyPattern pattern : other.patterns) {
      patterns.add(new KeyPattern(pattern.pattern, pattern.flags));
    }
    this.channels = new ArrayList<>(other.channels);
    this.channelBytes = new ArrayList<>(other.channelBytes);
    this.commandRules = new ArrayList<>(other.commandRules);
  }

  /** Returns a deep copy, to apply rules to without changing this one. */
  Selector copy() {
    return new Selector(this);
  }

  /** Returns true for the user's root selector (the rules outside parentheses). */
  boolean root() {
    return root;
  }

  /** Returns true if the selector allows every channel (allchannels, {@code &*}). */
  boolean allChannels() {
    return allChannels;
  }

  /** Returns the channel patterns the selector allows (none if it allows every channel). */
  List<String> channelPatterns() {
    return channels;
  }

  /** Returns true if the selector allows every command, key and channel (the check's fast path). */
  boolean unrestricted() {
    return allCommands && allKeys && allChannels;
  }

  /**
   * Applies one rule, as Redis's ACLSetSelector: key and channel patterns, allkeys, resetkeys,
   * allchannels, resetchannels, +cmd, -cmd, +cmd|sub, +@category, -@category, allcommands,
   * nocommands.
   *
   * @throws AclRuleException with Redis's reason if the rule is not understood
   */
  void apply(String op, CommandCatalog catalog) throws AclRuleException {
    String lower = op.toLowerCase(Locale.ROOT);
    if (lower.equals("allkeys") || op.equals("~*")) {
      allKeys = true;
      patterns.clear();
    } else if (lower.equals("resetkeys")) {
      allKeys = false;
      patterns.clear();
    } else if (lower.equals("allchannels") || op.equals("&*")) {
      allChannels = true;
      channels.clear();
      channelBytes.clear();
    } else if (lower.equals("resetchannels")) {
      allChannels = false;
      channels.clear();
      channelBytes.clear();
    } else if (lower.equals("allcommands") || lower.equals("+@all")) {
      allowed.set(0, FUTURE + 1);
      allCommands = true;
      commandRules.clear();
      firstArgs.clear();
    } else if (lower.equals("nocommands") || lower.equals("-@all")) {
      allowed.clear();
      allCommands = false;
      commandRules.clear();
      firstArgs.clear();
    } else if (op.startsWith("~") || op.startsWith("%")) {
      addKeyPattern(op);
    } else if (op.startsWith("&")) {
      if (allChannels) {
        throw new AclRuleException(AclRuleException.AFTER_ALLCHANNELS);
      }
      String pattern = op.substring(1);
      if (Acl.hasSpaces(pattern)) {
        throw new AclRuleException(AclRuleException.SYNTAX);
      }
      if (!channels.contains(pattern)) {
        channels.add(pattern);
        channelBytes.add(Latin1.bytes(pattern));
      }
      allChannels = false;
    } else if (op.startsWith("+@") || op.startsWith("-@")) {
      boolean allow = op.charAt(0) == '+';
      long bit = catalog.categoryBit(op.substring(2));
      if (bit == 0) {
        throw new AclRuleException(AclRuleException.UNKNOWN);
      }
      updateRules(op.substring(1), allow);
      for (AclCommand command : catalog.topLevel()) {
        setCategory(command, bit, allow);
      }
    } else if (op.startsWith("+")) {
      allow(op.substring(1), catalog);
    } else if (op.startsWith("-")) {
      AclCommand command = catalog.find(op.substring(1));
      if (command == null) {
        throw new AclRuleException(AclRuleException.UNKNOWN);
      }
      change(command, false);
      updateRules(command.name(), false);
    } else {
      throw new AclRuleException(AclRuleException.SYNTAX);
    }
  }

  private void addKeyPattern(String op) throws AclRuleException {
    if (allKeys) {
      throw new AclRuleException(AclRuleException.AFTER_ALLKEYS);
    }
    int flags = 0;
    int offset = 1;
    if (op.charAt(0) == '%') {
      for (; offset < op.length(); offset++) {
        char c = Character.toUpperCase(op.charAt(offset));
        if (c == 'R' && (flags & READ) == 0) {
          flags |= READ;
        } else if (c == 'W' && (flags & WRITE) == 0) {
          flags |= WRITE;
        } else if (op.charAt(offset) == '~' && flags != 0) {
          offset++;
          break;
        } else {
          throw new AclRuleException(AclRuleException.SYNTAX);
        }
      }
    } else {
      flags = READ | WRITE;
    }
    String pattern = op.substring(offset);
    if (Acl.hasSpaces(pattern)) {
      throw new AclRuleException(AclRuleException.SYNTAX);
    }
    for (KeyPattern existing : patterns) {
      if (existing.pattern.equals(pattern)) {
        existing.flags |= flags;
        return;
      }
    }
    patterns.add(new KeyPattern(pattern, flags));
    allKeys = false;
  }

  /** Applies {@code +name}: a command, a subcommand, or a first argument of a command. */
  private void allow(String name, CommandCatalog catalog) throws AclRuleException {
    int bar = name.lastIndexOf('|');
    if (bar < 0) {
      AclCommand command = catalog.find(name);
      if (command == null) {
        throw new AclRuleException(AclRuleException.UNKNOWN);
      }
      change(command, true);
      updateRules(command.name(), true);
      return;
    }
    AclCommand command = catalog.find(name.substring(0, bar));
    if (command == null) {
      throw new AclRuleException(AclRuleException.UNKNOWN);
    }
    if (command.container() != null) {
      throw new AclRuleException(AclRuleException.FIRST_ARG_OF_SUBCOMMAND);
    }
    String sub = name.substring(bar + 1);
    if (sub.isEmpty()) {
      throw new AclRuleException(AclRuleException.SYNTAX);
    }
    if (!command.subcommands().isEmpty()) {
      AclCommand subcommand = catalog.find(name);
      if (subcommand == null) {
        throw new AclRuleException(AclRuleException.UNKNOWN);
      }
      change(subcommand, true);
    } else {
      // Redis's deprecated first-arg form (SELECT|0): allowed only with that first argument
      List<String> args = firstArgs.computeIfAbsent(command.id(), id -> new ArrayList<>());
      if (args.stream().noneMatch(arg -> arg.equalsIgnoreCase(sub))) {
        args.add(sub);
      }
    }
    updateRules(name, true);
  }

  /** Sets a command's bit and its subcommands' (Redis's ACLChangeSelectorPerm). */
  private void change(AclCommand command, boolean allow) {
    setBit(command.id(), allow);
    firstArgs.remove(command.id());
    for (AclCommand sub : command.subcommands()) {
      setBit(sub.id(), allow);
    }
  }

  private void setCategory(AclCommand command, long bit, boolean allow) {
    if ((command.categories() & bit) != 0) {
      change(command, allow);
    }
    for (AclCommand sub : command.subcommands()) {
      setCategory(sub, bit, allow);
    }
  }

  private void setBit(int id, boolean allow) {
    if (allow) {
      allowed.set(id);
    } else {
      allowed.clear(id);
      allCommands = false;
    }
  }

  /**
   * Keeps the command rules in the order given, as Redis's ACLUpdateCommandRules: an earlier rule
   * for the same command (or a subcommand of it) is dropped before the new one is appended.
   */
  private void updateRules(String rule, boolean allow) {
    String lower = rule.toLowerCase(Locale.ROOT);
    commandRules.removeIf(
        existing -> {
          String body = existing.substring(1);
          return body.equals(lower) || body.startsWith(lower + "|");
        });
    commandRules.add((allow ? "+" : "-") + lower);
  }

  /**
   * Checks one request as Redis's ACLSelectorCheckCmd: the command (or its allowed first argument),
   * then each key against the patterns with the permission it needs, then each channel.
   *
   * @return null if allowed, else the denial with the position of the key or channel refused
   */
  Denial check(AccessRequest request, BiPredicate<byte[], byte[]> glob) {
    AclCommand command = request.command();
    if (!allCommands && !command.noAuth() && !allowed.get(command.id())) {
      List<String> args = firstArgs.get(command.id());
      int index = command.container() != null ? 2 : 1;
      if (args == null || request.argCount() <= index) {
        return new Denial(Denial.Reason.COMMAND, 0);
      }
      String first = Latin1.text(request.arg(index));
      if (args.stream().noneMatch(arg -> arg.equalsIgnoreCase(first))) {
        return new Denial(Denial.Reason.COMMAND, 0);
      }
    }
    if (!allKeys) {
      for (int i = 0; i < request.keyCount(); i++) {
        int position = request.keyPosition(i);
        if (!keyAllowed(request.arg(position), request.keyAccess(i), glob)) {
          return new Denial(Denial.Reason.KEY, position);
        }
      }
    }
    if (!allChannels) {
      for (int i = 0; i < request.channelCount(); i++) {
        int position = request.channelPosition(i);
        if (!channelAllowed(request.arg(position), request.channelIsPattern(i), glob)) {
          return new Denial(Denial.Reason.CHANNEL, position);
        }
      }
    }
    return null;
  }

  private boolean keyAllowed(byte[] key, int access, BiPredicate<byte[], byte[]> glob) {
    // indexed: no iterator per key on the request path
    for (int i = 0, n = patterns.size(); i < n; i++) {
      KeyPattern pattern = patterns.get(i);
      if ((pattern.flags & access) == access && pattern.matches(key, glob)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns true if a channel passes, as Redis's ACLCheckChannelAgainstList: a channel name is
   * matched against the patterns; a PSUBSCRIBE pattern must equal one of them literally.
   */
  boolean channelAllowed(byte[] channel, boolean isPattern, BiPredicate<byte[], byte[]> glob) {
    return allChannels || matchesAny(channelBytes, channel, isPattern, glob);
  }

  /**
   * Returns true if a channel passes a list of channel patterns (Redis's
   * ACLCheckChannelAgainstList): a channel name if a pattern matches it, a PSUBSCRIBE pattern if it
   * equals one of them.
   */
  static boolean matchesAny(
      List<byte[]> patterns, byte[] channel, boolean isPattern, BiPredicate<byte[], byte[]> glob) {
    for (byte[] pattern : patterns) {
      if (isPattern ? java.util.Arrays.equals(pattern, channel) : glob.test(pattern, channel)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns the command rules as ACL GETUSER's {@code commands}: {@code +@all} or {@code -@all}
   * first.
   */
  String describeCommands() {
    StringBuilder rules = new StringBuilder(allowed.get(FUTURE) ? "+@all" : "-@all");
    for (String rule : commandRules) {
      rules.append(' ').append(rule);
    }
    return rules.toString();
  }

  /** Returns ACL GETUSER's {@code keys}: {@code ~*}, or the patterns with their permissions. */
  String describeKeys() {
    if (allKeys) {
      return "~*";
    }
    StringBuilder keys = new StringBuilder();
    for (KeyPattern pattern : patterns) {
      if (keys.length() > 0) {
        keys.append(' ');
      }
      keys.append(prefix(pattern.flags)).append(pattern.pattern);
    }
    return keys.toString();
  }

  /** Returns ACL GETUSER's {@code channels}: {@code &*}, or the patterns. */
  String describeChannels() {
    if (allChannels) {
      return "&*";
    }
    StringBuilder text = new StringBuilder();
    for (String channel : channels) {
      if (text.length() > 0) {
        text.append(' ');
      }
      text.append('&').append(channel);
    }
    return text.toString();
  }

  private static String prefix(int flags) {
    return flags == (READ | WRITE) ? "~" : flags == READ ? "%R~" : "%W~";
  }

  /** Returns the selector as ACL LIST shows it (Redis's ACLDescribeSelector). */
  String describe() {
    StringBuilder text = new StringBuilder();
    if (allKeys) {
      text.append("~* ");
    } else {
      for (KeyPattern pattern : patterns) {
        text.append(prefix(pattern.flags)).append(pattern.pattern).append(' ');
      }
    }
    if (allChannels) {
      text.append("&* ");
    } else {
      text.append("resetchannels ");
      for (String channel : channels) {
        text.append('&').append(channel).append(' ');
      }
    }
    return text.append(describeCommands()).toString();
  }
}
