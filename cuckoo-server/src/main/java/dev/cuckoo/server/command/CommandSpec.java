package dev.cuckoo.server.command;

import dev.cuckoo.server.session.CommandRef;
import dev.cuckoo.server.session.Session;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One entry of the command table, the shape of Redis's {@code src/commands/*.json}: name, arity,
 * flags, ACL categories, key specs, tips, docs (summary, since, group, complexity, arguments,
 * history), how it writes, its subcommands and the code that runs it. COMMAND INFO, DOCS and
 * GETKEYS, the dispatcher, MULTI queueing, key locking, WATCH and replay all read it.
 *
 * <p>Built with {@link #command}, e.g. {@code command("dbsize").arity(1).flags("readonly",
 * "fast").categories("keyspace", "read", "fast").summary(...).handler(database::dbsize)}.
 */
public final class CommandSpec implements CommandRef {
  /** The code of a command: reads the request, writes the reply. */
  @FunctionalInterface
  public interface Handler {
    /** Runs the request (already resolved to this command) for a session. */
    void run(Session session, Request request);
  }

  /**
   * Finds the keys of a command whose key specs cannot (Redis's getkeys function, e.g. MIGRATE's,
   * whose keys follow a KEYS option or are the third argument).
   */
  @FunctionalInterface
  public interface KeyFinder {
    /** Returns the positions of the keys in {@code args} (the command name at 0), in order. */
    int[] positions(byte[][] args);
  }

  private final String name;
  private final int arity;
  private final KeyFinder keyFinder;
  private final List<String> flags;
  private final List<String> categories;
  private final List<KeySpec> keySpecs;
  private final boolean namesKeys;
  private final List<String> tips;
  private final String summary;
  private final String since;
  private final String group;
  private final String complexity;
  private final String module;
  private final List<String> docFlags;
  private final String deprecatedSince;
  private final String replacedBy;
  private final List<String[]> history;
  private final List<Argument> arguments;
  private final Writes writes;
  private final boolean runsInsideMulti;
  private final boolean allowedWhileSubscribed;
  private final Handler handler;
  private final Map<String, CommandSpec> subcommands;
  // resolved once: what every request looks at, and COMMAND INFO's legacy key range
  private final boolean write;
  private final boolean denyOom;
  private final boolean noAuth;
  private final boolean noMulti;
  private final boolean propagated;
  private final int firstKey;
  private final int lastKey;
  private final int keyStep;
  private final CommandStats stats = new CommandStats();
  // what the ACL check needs of this command, set once when the server's check is built from the
  // table (before any request); read on every request of a restricted user
  private AccessCheck.Entry accessEntry;

  private CommandSpec(Builder b) {
    this.name = b.name;
    this.arity = b.arity;
    this.flags = withMovableKeys(withModuleFlag(b.flags, b.module), b.keyFinder);
    this.keyFinder = b.keyFinder;
    this.categories = b.categories;
    this.keySpecs = b.keySpecs;
    this.namesKeys =
        !keySpecs.isEmpty() && keySpecs.stream().noneMatch(k -> k.flags().contains("not_key"));
    this.tips = b.tips;
    this.summary = b.summary;
    this.since = b.since;
    this.group = b.group;
    this.complexity = b.complexity;
    this.module = b.module;
    this.docFlags = b.docFlags;
    this.deprecatedSince = b.deprecatedSince;
    this.replacedBy = b.replacedBy;
    this.history = b.history;
    this.arguments = b.arguments;
    this.writes = b.writes;
    this.runsInsideMulti = b.runsInsideMulti;
    this.allowedWhileSubscribed = b.allowedWhileSubscribed;
    this.propagated = b.propagated;
    this.handler = b.handler;
    Map<String, CommandSpec> subs = new LinkedHashMap<>();
    for (CommandSpec sub : b.subcommands) {
      subs.put(sub.name.substring(sub.name.indexOf('|') + 1), sub);
    }
    this.subcommands = Collections.unmodifiableMap(subs);
    this.write = flags.contains("write");
    this.denyOom = flags.contains("denyoom");
    this.noAuth = flags.contains("no_auth");
    this.noMulti = flags.contains("no_multi");
    int[] legacy = legacyRange(keySpecs);
    this.firstKey = legacy[0];
    this.lastKey = legacy[1];
    this.keyStep = legacy[2];
  }

  /**
   * Returns COMMAND INFO's first key, last key and step, derived from the key specs as Redis's
   * {@code populateCommandLegacyRangeSpec} derives them: one spec is taken as it is; otherwise the
   * consecutive plain ranges are joined.
   */
  private static int[] legacyRange(List<KeySpec> specs) {
    if (specs.isEmpty()) {
      return new int[] {0, 0, 0};
    }
    if (specs.size() == 1) {
      KeySpec only = specs.get(0);
      int last = only.lastKey() >= 0 ? only.lastKey() + only.index() : only.lastKey();
      return new int[] {only.index(), last, only.keyStep()};
    }
    int first = Integer.MAX_VALUE;
    int last = 0;
    int previousLast = 0;
    for (KeySpec spec : specs) {
      if (!spec.byIndex()
          || spec.keyStep() != 1
          || (previousLast != 0 && previousLast != spec.index() - 1)) {
        continue;
      }
      first = Math.min(first, spec.index());
      int absolute = spec.lastKey() >= 0 ? spec.lastKey() + spec.index() : spec.lastKey();
      // Redis compares as unsigned: a negative (from the end) last key wins
      last = Integer.compareUnsigned(last, absolute) >= 0 ? last : absolute;
      previousLast = last;
    }
    return first == Integer.MAX_VALUE ? new int[] {0, 0, 0} : new int[] {first, last, 1};
  }

  /** Starts an entry for the lower-case name, e.g. "cf.add" or "client|setinfo". */
  public static Builder command(String name) {
    return new Builder(name);
  }

  /** Returns the lower-case name, e.g. "cf.add" or "client|setinfo". */
  public String name() {
    return name;
  }

  /** Returns the arity: n means exactly n arguments, -n means at least n (name included). */
  public int arity() {
    return arity;
  }

  /** Returns true if the argument count satisfies the arity. */
  public boolean arityAccepts(int argc) {
    return arity > 0 ? argc == arity : argc >= -arity;
  }

  /** Returns the flags, e.g. "write", "denyoom", "fast". */
  public List<String> flags() {
    return flags;
  }

  /** Returns the position of the first key (0: no keys), derived from the key specs. */
  public int firstKey() {
    return firstKey;
  }

  /** Returns the position of the last key (-1: the last argument), derived from the key specs. */
  public int lastKey() {
    return lastKey;
  }

  /** Returns the step between keys, derived from the key specs. */
  public int keyStep() {
    return keyStep;
  }

  /** Returns the flags, with "module" among them for a module's command (as Redis marks it). */
  private static List<String> withModuleFlag(List<String> flags, String module) {
    if (module == null || flags.contains("module")) {
      return flags;
    }
    List<String> marked = new java.util.ArrayList<>(flags);
    marked.add("module");
    return List.copyOf(marked);
  }

  /** Returns the flags, with "movablekeys" among them for a command with a key finder. */
  private static List<String> withMovableKeys(List<String> flags, KeyFinder finder) {
    if (finder == null || flags.contains("movablekeys")) {
      return flags;
    }
    List<String> marked = new java.util.ArrayList<>(flags);
    marked.add("movablekeys");
    return List.copyOf(marked);
  }

  /** Returns the command's own key finder, or null when its key specs find its keys. */
  public KeyFinder keyFinder() {
    return keyFinder;
  }

  /** Returns the ACL categories without the '@'. */
  public List<String> categories() {
    return categories;
  }

  /** Returns the key specs (empty for a command without keys). */
  public List<KeySpec> keySpecs() {
    return keySpecs;
  }

  /**
   * Returns true if the key specs find keys: not none, and not shard channels (SSUBSCRIBE's, which
   * are found like keys but are none). The dispatcher locks those keys for the command.
   */
  public boolean namesKeys() {
    return namesKeys;
  }

  /** Returns the command tips, e.g. "request_policy:all_shards". */
  public List<String> tips() {
    return tips;
  }

  /** Returns the one-line summary. */
  public String summary() {
    return summary;
  }

  /** Returns the version that introduced the command. */
  public String since() {
    return since;
  }

  /** Returns the documentation group, e.g. "generic", or "module" for a module's command. */
  public String group() {
    return group;
  }

  /** Returns the time complexity text, or null. */
  public String complexity() {
    return complexity;
  }

  /** Returns the name of the module that provides the command ("bf"), or null. */
  public String module() {
    return module;
  }

  /** Returns the documentation flags, e.g. "deprecated". */
  public List<String> docFlags() {
    return docFlags;
  }

  /** Returns the version the command was deprecated in, or null. */
  public String deprecatedSince() {
    return deprecatedSince;
  }

  /** Returns what replaces a deprecated command, or null. */
  public String replacedBy() {
    return replacedBy;
  }

  /** Returns the history: pairs of a version and what changed in it. */
  public List<String[]> history() {
    return history;
  }

  /** Returns the documented arguments (empty when it takes none or none are documented). */
  public List<Argument> arguments() {
    return arguments;
  }

  /** Returns how the command writes, or null if it never changes data. */
  public Writes writes() {
    return writes;
  }

  /** Returns true if the command runs at once inside MULTI instead of being queued (EXEC). */
  public boolean runsInsideMulti() {
    return runsInsideMulti;
  }

  /**
   * Returns true if a RESP2 connection with subscriptions may run the command (Redis allows only
   * (P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PING, QUIT and RESET there).
   */
  public boolean allowedWhileSubscribed() {
    return allowedWhileSubscribed;
  }

  /**
   * Returns true if the dispatcher sends the command itself to the replicas once it ran, without
   * logging it: a message published (PUBLISH, SPUBLISH), as Redis's {@code call()} propagates what
   * {@code forceCommandPropagation} asked for.
   */
  public boolean propagated() {
    return propagated;
  }

  /** Returns true if the command may run before AUTH. */
  public boolean noAuth() {
    return noAuth;
  }

  /** Returns true if the command may change data (flag {@code write}). */
  public boolean write() {
    return write;
  }

  /** Returns true if the command may grow memory (flag {@code denyoom}). */
  public boolean denyOom() {
    return denyOom;
  }

  /** Returns true if the command may not be queued in a transaction (flag {@code no_multi}). */
  public boolean noMulti() {
    return noMulti;
  }

  /** Returns the subcommands by lower-case name (empty unless this is a container command). */
  public Map<String, CommandSpec> subcommands() {
    return subcommands;
  }

  /** Returns the command's counters (INFO commandstats and latencystats, LATENCY HISTOGRAM). */
  CommandStats stats() {
    return stats;
  }

  /** Returns the code that runs the command (null for a container that needs a subcommand). */
  public Handler handler() {
    return handler;
  }

  /** Collects one entry's fields; every field but the name has Redis's default when not set. */
  public static final class Builder {
    private final String name;
    private int arity;
    private List<String> flags = List.of();
    private List<String> categories = List.of();
    private List<KeySpec> keySpecs = List.of();
    private KeyFinder keyFinder;
    private List<String> tips = List.of();
    private String summary;
    private String since;
    private String group;
    private String complexity;
    private String module;
    private List<String> docFlags = List.of();
    private String deprecatedSince;
    private String replacedBy;
    private List<String[]> history = List.of();
    private List<Argument> arguments = List.of();
    private Writes writes;
    private boolean runsInsideMulti;
    private boolean allowedWhileSubscribed;
    private boolean propagated;
    private Handler handler;
    private List<CommandSpec> subcommands = List.of();

    private Builder(String name) {
      this.name = name;
    }

    /** Sets the arity: n for exactly n arguments, -n for at least n (the name included). */
    public Builder arity(int arity) {
      this.arity = arity;
      return this;
    }

    /** Sets the command flags, e.g. "write", "denyoom". */
    public Builder flags(String... flags) {
      this.flags = List.of(flags);
      return this;
    }

    /** Sets the ACL categories without the '@'. */
    public Builder categories(String... categories) {
      this.categories = List.of(categories);
      return this;
    }

    /** Sets the key specs. */
    public Builder keys(KeySpec... specs) {
      this.keySpecs = List.of(specs);
      return this;
    }

    /** Sets the command's own key finder (its key specs are then shown, not used). */
    public Builder keys(KeyFinder finder, KeySpec... specs) {
      this.keyFinder = finder;
      this.keySpecs = List.of(specs);
      return this;
    }

    /** Sets the command tips, e.g. "request_policy:all_shards". */
    public Builder tips(String... tips) {
      this.tips = List.of(tips);
      return this;
    }

    /** Sets the one-line summary. */
    public Builder summary(String summary) {
      this.summary = summary;
      return this;
    }

    /** Sets the version that introduced the command. */
    public Builder since(String since) {
      this.since = since;
      return this;
    }

    /** Sets the documentation group. */
    public Builder group(String group) {
      this.group = group;
      return this;
    }

    /** Sets the time complexity text. */
    public Builder complexity(String complexity) {
      this.complexity = complexity;
      return this;
    }

    /** Marks the command as a module's (group "module"), e.g. {@code module("bf")}. */
    public Builder module(String module) {
      this.module = module;
      this.group = "module";
      return this;
    }

    /** Sets the documentation flags, e.g. "deprecated". */
    public Builder docFlags(String... docFlags) {
      this.docFlags = List.of(docFlags);
      return this;
    }

    /** Sets the version the command was deprecated in. */
    public Builder deprecatedSince(String version) {
      this.deprecatedSince = version;
      return this;
    }

    /** Sets what replaces a deprecated command. */
    public Builder replacedBy(String replacement) {
      this.replacedBy = replacement;
      return this;
    }

    /** Sets the history as version, change, version, change, .... */
    public Builder history(String... versionsAndChanges) {
      List<String[]> pairs = new ArrayList<>();
      for (int i = 0; i + 1 < versionsAndChanges.length; i += 2) {
        pairs.add(new String[] {versionsAndChanges[i], versionsAndChanges[i + 1]});
      }
      this.history = List.copyOf(pairs);
      return this;
    }

    /** Sets the documented arguments. */
    public Builder arguments(Argument... arguments) {
      this.arguments = List.of(arguments);
      return this;
    }

    /** Declares how the command writes (see {@link Writes}). */
    public Builder writes(Writes writes) {
      this.writes = writes;
      return this;
    }

    /** Makes the command run at once inside MULTI instead of being queued (EXEC, WATCH). */
    public Builder runsInsideMulti() {
      this.runsInsideMulti = true;
      return this;
    }

    /** Lets a RESP2 connection with subscriptions run the command (see the getter). */
    public Builder allowedWhileSubscribed() {
      this.allowedWhileSubscribed = true;
      return this;
    }

    /** Has the dispatcher send the command to the replicas once it ran (see the getter). */
    public Builder propagated() {
      this.propagated = true;
      return this;
    }

    /** Sets the subcommands (a container command). */
    public Builder subcommands(Builder... subcommands) {
      List<CommandSpec> built = new ArrayList<>();
      for (Builder sub : subcommands) {
        built.add(sub.build());
      }
      this.subcommands = built;
      return this;
    }

    /** Sets the code that runs the command. */
    public Builder handler(Handler handler) {
      this.handler = handler;
      return this;
    }

    /** Returns the entry. */
    public CommandSpec build() {
      if (flags.contains("write") && writes == null) {
        // the dispatcher runs a command through the write path by its entry's writes
        throw new IllegalStateException(
            "writes: null for write command " + name + " (expected: how it writes)");
      }
      return new CommandSpec(this);
    }
  }

  /** Returns what the ACL check needs of this command (set when the server's check is built). */
  AccessCheck.Entry accessEntry() {
    return accessEntry;
  }

  /** Sets what the ACL check needs of this command; called once, before any request. */
  void accessEntry(AccessCheck.Entry entry) {
    this.accessEntry = entry;
  }
}
