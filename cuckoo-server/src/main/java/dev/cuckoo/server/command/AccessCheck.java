package dev.cuckoo.server.command;

import dev.cuckoo.server.acl.AccessRequest;
import dev.cuckoo.server.acl.Acl;
import dev.cuckoo.server.acl.AclCommand;
import dev.cuckoo.server.acl.CommandCatalog;
import dev.cuckoo.server.acl.Denial;
import dev.cuckoo.server.acl.Latin1;
import dev.cuckoo.server.acl.User;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.session.Session;
import java.util.List;
import java.util.Map;

/**
 * The dispatcher's ACL check, as Redis's processCommand and execCommand do it: from the resolved
 * request's command (or subcommand), its keys with the access their key specs give them, and its
 * channels, before the command runs. A denied request is logged in the ACL log and answered {@code
 * -NOPERM ...}; a denied command inside EXEC is answered with Redis's "ACLs rules changed" text.
 *
 * <p>A user allowed every command, key and channel (the default user as shipped) passes on one
 * volatile read: nothing about the request is looked at.
 */
final class AccessCheck {
  /**
   * The commands whose arguments are channels, as Redis's {@code commands_with_channels} (the
   * unsubscribing ones are never checked): name, first channel, count (-1: to the end), pattern.
   */
  record ChannelSpec(int first, int count, boolean pattern) {}

  private static final Map<String, ChannelSpec> CHANNELS =
      Map.of(
          "subscribe", new ChannelSpec(1, -1, false),
          "ssubscribe", new ChannelSpec(1, -1, false),
          "psubscribe", new ChannelSpec(1, -1, true),
          "publish", new ChannelSpec(1, 1, false),
          "spublish", new ChannelSpec(1, 1, false));

  /**
   * What the check needs of one command or subcommand, worked out once when the table is read: its
   * ACL entry, its channel arguments (or null), and the access each of its index key specs needs
   * (the specs' flags are strings; reading them on every request cost a tenth of a restricted
   * user's throughput at pipeline 16).
   */
  record Entry(AclCommand command, ChannelSpec channel, KeySpec[] keySpecs, int[] keyAccess) {}

  private final ServerContext context;

  /** Builds the ACL's catalog from the table and the server's ACL users over it. */
  AccessCheck(ServerContext context, CommandTable table) {
    this.context = context;
    CommandCatalog catalog = new CommandCatalog();
    for (CommandSpec spec : table.all()) {
      add(catalog, spec);
      for (CommandSpec sub : spec.subcommands().values()) {
        add(catalog, sub);
      }
    }
    context.acl(new Acl(catalog, Glob::matches));
    context.acl().allChannelsByDefault(context.allChannelsByDefault());
    String password = context.requirePass();
    if (password != null) {
      context.acl().defaultPassword(password.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  private void add(CommandCatalog catalog, CommandSpec spec) {
    List<KeySpec> byIndex =
        spec.namesKeys() ? spec.keySpecs().stream().filter(KeySpec::byIndex).toList() : List.of();
    int[] keyAccess = new int[byIndex.size()];
    for (int i = 0; i < keyAccess.length; i++) {
      keyAccess[i] = access(byIndex.get(i).flags());
    }
    // kept on the spec itself: the check reads it with one field load, no map lookup
    spec.accessEntry(
        new Entry(
            catalog.add(spec.name(), spec.categories(), spec.noAuth()),
            CHANNELS.get(spec.name()),
            byIndex.toArray(new KeySpec[0]),
            keyAccess));
  }

  /** Returns the ACL's entry for a command or subcommand of the table. */
  AclCommand command(CommandSpec spec) {
    return spec.accessEntry().command();
  }

  /**
   * Checks a request of the session's user before it runs (or is queued).
   *
   * @return null if allowed, else the NOPERM error to answer (the denial is logged)
   */
  String refusal(Session session, Request request) {
    User user = session.user();
    if (user == null || user.unrestricted()) {
      return null;
    }
    Denial denial = denied(session, request, session.inMulti() ? "multi" : "toplevel");
    return denial == null
        ? null
        : "NOPERM "
            + Acl.message(
                denial, user.name(), request.spec().name(), object(denial, request), false);
  }

  /** Returns the denial of the session user's request, logged in the context given, or null. */
  private Denial denied(Session session, Request request, String where) {
    Denial denial = denial(session.user(), request.spec(), request.args());
    if (denial != null) {
      logDenial(session, denial.reason(), where, object(denial, request), session.user().name());
    }
    return denial;
  }

  /**
   * Checks a queued request again when EXEC runs it, as Redis's execCommand: the rules may have
   * changed since it was queued.
   *
   * @return null if allowed, else Redis's error for a command no longer allowed (the denial is
   *     logged in context multi)
   */
  String refusalAtExec(Session session, Request request) {
    User user = session.user();
    if (user == null || user.unrestricted()) {
      return null;
    }
    Denial denial = denied(session, request, "multi");
    if (denial == null) {
      return null;
    }
    String reason =
        switch (denial.reason()) {
          case COMMAND -> "no permission to execute the command or subcommand";
          case KEY -> "no permission to touch the specified keys";
          case CHANNEL -> "no permission to access one of the channels used as arguments";
          case AUTH -> "no permission";
        };
    return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the"
        + " EXEC call. This command is no longer allowed for the following reason: "
        + reason;
  }

  /** Returns the denial of a line for a user (ACL DRYRUN), or null if it is allowed. */
  Denial denial(User user, CommandSpec spec, byte[][] args) {
    return context.acl().check(user, new LineAccess(spec.accessEntry(), args));
  }

  private static String object(Denial denial, Request request) {
    return denial.reason() == Denial.Reason.COMMAND
        ? request.spec().name()
        : Latin1.text(request.arg(denial.position()));
  }

  /** Adds a denial to the ACL log with the session's CLIENT LIST line (failed AUTH included). */
  void logDenial(
      Session session, Denial.Reason reason, String where, String object, String username) {
    long now = System.currentTimeMillis();
    context
        .aclLog()
        .add(
            reason,
            where,
            object,
            username,
            ClientCommands.describeSelf(context, session, now),
            now,
            context.config().get(Parameters.ACLLOG_MAX_LEN));
  }

  /**
   * A line as the ACL reads it: the keys its key specs find, each with the access its flags give
   * (access: read; insert, delete, update: write; a spec with none of those, as RedisBloom declares
   * its commands' keys: RO read, RW read and write, OW and RM write), and its channels.
   */
  private static final class LineAccess implements AccessRequest {
    private final AclCommand command;
    private final byte[][] args;
    private final KeySpec[] specs;
    private final int[] specAccess;
    private final int keyCount;
    // per spec, the keys the specs before it find; null for a line of one spec (none before it)
    private final int[] keysBefore;
    private final ChannelSpec channel;
    private final int channelCount;

    // the specs' key counts are worked out once, here; nothing but this object is allocated per
    // request unless the command has several specs (almost every command has one)
    LineAccess(Entry entry, byte[][] args) {
      this.command = entry.command();
      this.args = args;
      this.specs = entry.keySpecs();
      this.specAccess = entry.keyAccess();
      int argc = args.length;
      int count = 0;
      int[] before = specs.length > 1 ? new int[specs.length] : null;
      for (int s = 0; s < specs.length; s++) {
        if (before != null) {
          before[s] = count;
        }
        count += specs[s].count(argc);
      }
      this.keyCount = count;
      this.keysBefore = before;
      this.channel = entry.channel();
      if (channel == null) {
        channelCount = 0;
      } else {
        int stop = channel.count() < 0 ? argc : channel.first() + channel.count();
        channelCount = Math.max(0, Math.min(stop, argc) - channel.first());
      }
    }

    @Override
    public AclCommand command() {
      return command;
    }

    @Override
    public int argCount() {
      return args.length;
    }

    @Override
    public byte[] arg(int index) {
      return args[index];
    }

    @Override
    public int keyCount() {
      return keyCount;
    }

    @Override
    public int keyPosition(int index) {
      int s = spec(index);
      return specs[s].index() + (index - before(s)) * specs[s].keyStep();
    }

    @Override
    public int keyAccess(int index) {
      return specAccess[spec(index)];
    }

    /**
     * Returns which spec finds key {@code index} of the line: the last whose keys begin at or
     * before it (a spec that finds no key begins where the next one does).
     */
    private int spec(int index) {
      if (keysBefore == null) {
        return 0;
      }
      int s = keysBefore.length - 1;
      while (keysBefore[s] > index) {
        s--;
      }
      return s;
    }

    /** Returns how many keys the specs before spec {@code s} find. */
    private int before(int s) {
      return keysBefore == null ? 0 : keysBefore[s];
    }

    @Override
    public int channelCount() {
      return channelCount;
    }

    @Override
    public int channelPosition(int index) {
      return channel.first() + index;
    }

    @Override
    public boolean channelIsPattern(int index) {
      return channel.pattern();
    }
  }

  /** Returns the access a key spec's flags need, as Redis's ACLSelectorCheckKey reads them. */
  static int access(List<String> flags) {
    int access = 0;
    if (flags.contains("access")) {
      access |= AccessRequest.READ;
    }
    if (flags.contains("insert") || flags.contains("delete") || flags.contains("update")) {
      access |= AccessRequest.WRITE;
    }
    if (access == 0) {
      if (flags.contains("RO") || flags.contains("RW")) {
        access |= AccessRequest.READ;
      }
      if (flags.contains("RW") || flags.contains("OW") || flags.contains("RM")) {
        access |= AccessRequest.WRITE;
      }
    }
    return access;
  }
}
