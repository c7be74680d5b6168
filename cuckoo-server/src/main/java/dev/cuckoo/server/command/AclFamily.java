package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.INTEGER;
import static dev.cuckoo.server.command.Argument.STRING;
import static dev.cuckoo.server.command.Argument.arg;
import static dev.cuckoo.server.command.Argument.oneOf;
import static dev.cuckoo.server.command.Argument.token;
import static dev.cuckoo.server.command.CommandSpec.command;

import dev.cuckoo.server.acl.Acl;
import dev.cuckoo.server.acl.AclLog;
import dev.cuckoo.server.acl.ChannelRevocation;
import dev.cuckoo.server.acl.Denial;
import dev.cuckoo.server.acl.Latin1;
import dev.cuckoo.server.acl.Passwords;
import dev.cuckoo.server.acl.User;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.Kind;
import dev.cuckoo.server.pubsub.Subscriber;
import dev.cuckoo.server.session.ClientRegistry;
import dev.cuckoo.server.session.Session;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * The ACL command and its subcommands (SETUSER, GETUSER, DELUSER, LIST, USERS, WHOAMI, CAT, DRYRUN,
 * GENPASS, LOG, SAVE, LOAD, HELP), answering as Redis 8 does; the users themselves live in {@link
 * Acl}. Flags and categories as Redis 8 reports them; docs from Redis's command JSON.
 */
final class AclFamily {
  private static final System.Logger LOGGER = System.getLogger(AclFamily.class.getName());

  /** Redis's ACL HELP text (acl.c aclCommand). */
  private static final String[] HELP = {
    "CAT [<category>]",
    "    List all commands that belong to <category>, or all command categories",
    "    when no category is specified.",
    "DELUSER <username> [<username> ...]",
    "    Delete a list of users.",
    "DRYRUN <username> <command> [<arg> ...]",
    "    Returns whether the user can execute the given command without executing the command.",
    "GETUSER <username>",
    "    Get the user's details.",
    "GENPASS [<bits>]",
    "    Generate a secure 256-bit user password. The optional `bits` argument can",
    "    be used to specify a different size.",
    "LIST",
    "    Show users details in config file format.",
    "LOAD",
    "    Reload users from the ACL file.",
    "LOG [<count> | RESET]",
    "    Show the ACL log entries.",
    "SAVE",
    "    Save the current config to the ACL file.",
    "SETUSER <username> <attribute> [<attribute> ...]",
    "    Create or modify a user with the specified attributes.",
    "USERS",
    "    List all the registered usernames.",
    "WHOAMI",
    "    Return the current connection username."
  };

  private static final String NO_ACL_FILE =
      "ERR This Redis instance is not configured to use an ACL file. You may want to specify users"
          + " via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis"
          + " configuration file set) in order to store users in the Redis configuration.";

  private final ServerContext context;
  private final Commands commands;

  private AclFamily(ServerContext context, Commands commands) {
    this.context = context;
    this.commands = commands;
  }

  private Acl acl() {
    return context.acl();
  }

  /** ACL SETUSER username [rule ...]: all rules apply or none. */
  void setUser(Session session, Request request) {
    Reply reply = session.reply();
    String name = Latin1.text(request.arg(2));
    if (Acl.hasSpaces(name)) {
      reply.error("ERR Usernames can't contain spaces or null characters");
      return;
    }
    List<String> ops = new ArrayList<>();
    for (int i = 3; i < request.argCount(); i++) {
      ops.add(Latin1.text(request.arg(i)));
    }
    List<ChannelRevocation> revoked = new ArrayList<>();
    String error = acl().setUser(name, ops, revoked);
    if (error == null) {
      reply.ok();
      closeSubscribers(session, revoked);
    } else {
      reply.error("ERR " + error.replace('\r', ' ').replace('\n', ' '));
    }
  }

  /** ACL DELUSER username [username ...]: the number removed; their connections are closed. */
  void delUser(Session session, Request request) {
    List<String> names = new ArrayList<>();
    for (int i = 2; i < request.argCount(); i++) {
      String name = Latin1.text(request.arg(i));
      if (name.equals(Acl.DEFAULT)) {
        session.reply().error("ERR The 'default' user cannot be removed");
        return;
      }
      names.add(name);
    }
    List<User> removed = acl().delete(names);
    session.reply().integer(removed.size());
    closeConnections(session, removed);
  }

  /**
   * Closes the connections authenticated as removed users, as Redis's deauthenticateAndCloseClient:
   * others once the replies they were sent are written, the caller's after this reply.
   */
  private void closeConnections(Session session, List<User> removed) {
    if (removed.isEmpty()) {
      return;
    }
    ClientRegistry clients = context.clients();
    for (ClientRegistry.Client client : clients.all()) {
      User user = client.session().user();
      if (user == null || !removed.contains(user)) {
        continue;
      }
      if (client.id() == session.id()) {
        session.requestClose();
      } else {
        clients.kill(client);
      }
    }
  }

  /**
   * Closes the clients subscribed to a channel or pattern their user's new rules no longer allow,
   * as Redis's ACLKillPubsubClientsIfNeeded: the caller's after this reply, others on their own
   * thread (only it may read their subscriptions).
   */
  private void closeSubscribers(Session session, List<ChannelRevocation> revoked) {
    if (revoked.isEmpty()) {
      return;
    }
    ClientRegistry clients = context.clients();
    for (ClientRegistry.Client client : clients.all()) {
      User user = client.session().user();
      for (ChannelRevocation revocation : revoked) {
        if (user != revocation.user()) {
          continue;
        }
        if (client.id() == session.id()) {
          if (!keeps(session.subscriber(), revocation)) {
            session.requestClose();
          }
          continue;
        }
        try {
          client
              .endpoint()
              .execute(
                  () -> {
                    if (!keeps(client.session().subscriber(), revocation)) {
                      clients.kill(client);
                    }
                  });
        } catch (RejectedExecutionException closing) {
          // the connection is closing already
        }
      }
    }
  }

  /** Returns true if every subscription of a client is still allowed after a revocation. */
  private static boolean keeps(Subscriber subscriber, ChannelRevocation revocation) {
    for (Kind kind : Kind.values()) {
      for (byte[] name : subscriber.subscribed(kind)) {
        if (!revocation.allows(name, kind == Kind.PATTERN)) {
          return false;
        }
      }
    }
    return true;
  }

  /** ACL GETUSER username: the user's flags, passwords, root selector and other selectors. */
  void getUser(Session session, Request request) {
    Reply reply = session.reply();
    User user = acl().user(Latin1.text(request.arg(2)));
    if (user == null) {
      reply.nullValue();
      return;
    }
    List<User.SelectorView> selectors = user.selectors();
    reply.map(6);
    reply.bulk("flags");
    List<String> flags = user.flags();
    reply.set(flags.size());
    for (String flag : flags) {
      reply.bulk(flag);
    }
    reply.bulk("passwords");
    List<String> passwords = user.passwords();
    reply.array(passwords.size());
    for (String hash : passwords) {
      reply.bulk(hash);
    }
    describe(reply, selectors.get(0));
    reply.bulk("selectors");
    reply.array(selectors.size() - 1);
    for (User.SelectorView selector : selectors.subList(1, selectors.size())) {
      reply.map(3);
      describe(reply, selector);
    }
  }

  private static void describe(Reply reply, User.SelectorView selector) {
    reply.bulk("commands");
    reply.bulk(Latin1.bytes(selector.commands()));
    reply.bulk("keys");
    reply.bulk(Latin1.bytes(selector.keys()));
    reply.bulk("channels");
    reply.bulk(Latin1.bytes(selector.channels()));
  }

  /** ACL LIST: every user as its {@code user ...} line. */
  void list(Session session, Request request) {
    List<String> lines = acl().lines();
    session.reply().array(lines.size());
    for (String line : lines) {
      session.reply().bulk(Latin1.bytes(line));
    }
  }

  /** ACL USERS: every user's name. */
  void users(Session session, Request request) {
    List<User> users = List.copyOf(acl().users());
    session.reply().array(users.size());
    for (User user : users) {
      session.reply().bulk(Latin1.bytes(user.name()));
    }
  }

  /** ACL WHOAMI: the connection's user. */
  void whoami(Session session, Request request) {
    User user = session.user();
    if (user == null) {
      session.reply().nullValue();
    } else {
      session.reply().bulk(Latin1.bytes(user.name()));
    }
  }

  /** ACL CAT [category]: the categories, or the commands and subcommands in one. */
  void cat(Session session, Request request) {
    Reply reply = session.reply();
    if (request.argCount() > 3) {
      syntaxError(session, request);
      return;
    }
    List<String> names;
    if (request.argCount() == 2) {
      names = acl().catalog().categories();
    } else {
      names = acl().catalog().inCategory(Args.text(request.arg(2)));
      if (names == null) {
        String category = Args.text(request.arg(2));
        reply.error(
            "ERR Unknown category '"
                + category.substring(0, Math.min(128, category.length()))
                + "'");
        return;
      }
    }
    reply.array(names.size());
    for (String name : names) {
      reply.bulk(name);
    }
  }

  /** Answers Redis's addReplySubcommandSyntaxError: the subcommand as typed. */
  private static void syntaxError(Session session, Request request) {
    session
        .reply()
        .error(
            "ERR unknown subcommand or wrong number of arguments for '"
                + Args.text(request.arg(1))
                + "'. Try ACL HELP.");
  }

  /** ACL GENPASS [bits]: random hex, 256 bits unless asked. */
  void genpass(Session session, Request request) {
    Reply reply = session.reply();
    if (request.argCount() > 3) {
      syntaxError(session, request);
      return;
    }
    long bits = 256;
    if (request.argCount() == 3) {
      Long parsed = Numbers.parseLong(request.arg(2));
      if (parsed == null) {
        reply.error(Args.NOT_INTEGER);
        return;
      }
      bits = parsed;
    }
    if (bits <= 0 || bits > Passwords.GENPASS_MAX_BITS) {
      reply.error(
          "ERR ACL GENPASS argument must be the number of bits for the output password, a"
              + " positive number up to "
              + Passwords.GENPASS_MAX_BITS);
      return;
    }
    reply.bulk(Passwords.generate((int) bits));
  }

  /** ACL LOG [count|RESET]: the newest entries (10 unless asked), or empties the log. */
  void log(Session session, Request request) {
    Reply reply = session.reply();
    if (request.argCount() > 3) {
      syntaxError(session, request);
      return;
    }
    long count = 10;
    if (request.argCount() == 3) {
      if (Args.lower(request.arg(2)).equals("reset")) {
        context.aclLog().reset();
        reply.ok();
        return;
      }
      Long parsed = Numbers.parseLong(request.arg(2));
      if (parsed == null) {
        reply.error(Args.NOT_INTEGER);
        return;
      }
      count = Math.max(0, parsed);
    }
    long now = System.currentTimeMillis();
    List<AclLog.Entry> entries = context.aclLog().latest(count);
    reply.array(entries.size());
    for (AclLog.Entry entry : entries) {
      reply.map(10);
      reply.bulk("count");
      reply.integer(entry.count());
      reply.bulk("reason");
      reply.bulk(entry.reason().word());
      reply.bulk("context");
      reply.bulk(entry.context());
      reply.bulk("object");
      reply.bulk(Latin1.bytes(entry.object()));
      reply.bulk("username");
      reply.bulk(Latin1.bytes(entry.username()));
      reply.bulk("age-seconds");
      reply.doubleValue((now - entry.updatedMillis()) / 1000.0);
      reply.bulk("client-info");
      reply.bulk(entry.clientInfo());
      reply.bulk("entry-id");
      reply.integer(entry.entryId());
      reply.bulk("timestamp-created");
      reply.integer(entry.createdMillis());
      reply.bulk("timestamp-last-updated");
      reply.integer(entry.updatedMillis());
    }
  }

  /**
   * ACL DRYRUN username command [arg ...]: {@code OK} if the user may run the line, else why not as
   * a bulk string (Redis's verbose text).
   */
  void dryrun(Session session, Request request) {
    Reply reply = session.reply();
    String name = Latin1.text(request.arg(2));
    User user = acl().user(name);
    if (user == null) {
      reply.error("ERR User '" + name + "' not found");
      return;
    }
    byte[][] line = java.util.Arrays.copyOfRange(request.args(), 3, request.argCount());
    CommandSpec spec = commands.find(Args.lower(line[0]));
    if (spec != null && !spec.subcommands().isEmpty() && line.length > 1) {
      spec = spec.subcommands().get(Args.lower(line[1]));
    }
    if (spec == null) {
      reply.error("ERR Command '" + Args.text(line[0]) + "' not found");
      return;
    }
    if (!spec.arityAccepts(line.length)) {
      reply.error("ERR wrong number of arguments for '" + spec.name() + "' command");
      return;
    }
    Denial denial = commands.access().denial(user, spec, line);
    if (denial == null) {
      reply.ok();
      return;
    }
    String object =
        denial.reason() == Denial.Reason.COMMAND ? "" : Latin1.text(line[denial.position()]);
    reply.bulk(Latin1.bytes(Acl.message(denial, user.name(), spec.name(), object, true)));
  }

  /** Returns the ACL file (a relative aclfile is read in dir, as Redis chdirs there), or null. */
  private Path aclFile() {
    String name = context.config().get(Parameters.ACLFILE);
    return name == null ? null : context.config().get(Parameters.DIR).resolve(name);
  }

  /** ACL SAVE: writes every user to the ACL file, atomically. */
  void save(Session session, Request request) {
    Path file = aclFile();
    if (file == null) {
      session.reply().error(NO_ACL_FILE);
      return;
    }
    StringBuilder text = new StringBuilder();
    for (String line : acl().lines()) {
      text.append(line).append('\n');
    }
    try {
      ConfigRewrite.replaceFile(file, Latin1.bytes(text.toString()));
    } catch (IOException e) {
      LOGGER.log(System.Logger.Level.WARNING, "Writing ACL file for ACL SAVE: " + e);
      session
          .reply()
          .error(
              "ERR There was an error trying to save the ACLs. Please check the server logs for"
                  + " more information");
      return;
    }
    session.reply().ok();
  }

  /** ACL LOAD: replaces the users by the ACL file's, all or none. */
  void load(Session session, Request request) {
    Path file = aclFile();
    if (file == null) {
      session.reply().error(NO_ACL_FILE);
      return;
    }
    List<User> removed = new ArrayList<>();
    List<ChannelRevocation> revoked = new ArrayList<>();
    String errors = loadFile(context, file, removed, revoked);
    if (errors != null) {
      session.reply().error("ERR " + errors);
      return;
    }
    session.reply().ok();
    closeConnections(session, removed);
    closeSubscribers(session, revoked);
  }

  /**
   * Loads the ACL file into the server's users (ACL LOAD, and the start): returns null, or Redis's
   * errors, each naming the file (as configured) and line.
   */
  static String loadFile(
      ServerContext context, Path file, List<User> removed, List<ChannelRevocation> revoked) {
    String name = context.config().get(Parameters.ACLFILE);
    List<String> lines;
    try {
      lines =
          List.of(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).split("\n"));
    } catch (NoSuchFileException e) {
      return "Error loading ACLs, opening file '" + name + "': No such file or directory";
    } catch (IOException e) {
      return "Error loading ACLs, opening file '" + name + "': " + e.getMessage();
    }
    return context.acl().load(name, lines, removed, revoked);
  }

  /**
   * Returns the entries, bound to handlers built from {@code parts}.
   *
   * @param parts what the handlers are built from
   */
  static List<CommandSpec.Builder> entries(Families.Parts parts) {
    AclFamily acl = new AclFamily(parts.context(), parts.commands());
    return List.of(
        command("acl")
            .arity(-2)
            .flags("sentinel")
            .categories("slow")
            .summary("A container for Access List Control commands.")
            .group("server")
            .since("6.0.0")
            .complexity("Depends on subcommand.")
            .subcommands(
                admin("acl|cat", -2, acl::cat, false)
                    .summary("Lists the ACL categories, or the commands inside a category.")
                    .complexity("O(1) since the categories and commands are a fixed set.")
                    .arguments(arg("category", STRING).optional()),
                admin("acl|deluser", -3, acl::delUser, true)
                    .summary("Deletes ACL users, and terminates their connections.")
                    .complexity("O(1) amortized time considering the typical user.")
                    .tips("request_policy:all_nodes", "response_policy:all_succeeded")
                    .arguments(arg("username", STRING).multiple()),
                admin("acl|dryrun", -4, acl::dryrun, true)
                    .summary(
                        "Simulates the execution of a command by a user, without executing the"
                            + " command.")
                    .since("7.0.0")
                    .complexity("O(1).")
                    .arguments(
                        arg("username", STRING),
                        arg("command", STRING),
                        arg("arg", STRING).optional().multiple()),
                admin("acl|genpass", -2, acl::genpass, false)
                    .summary(
                        "Generates a pseudorandom, secure password that can be used to identify"
                            + " ACL users.")
                    .complexity("O(1)")
                    .arguments(arg("bits", INTEGER).optional()),
                admin("acl|getuser", 3, acl::getUser, true)
                    .summary("Lists the ACL rules of a user.")
                    .complexity(
                        "O(N). Where N is the number of password, command and pattern rules that"
                            + " the user has.")
                    .history(
                        "6.2.0",
                        "Added Pub/Sub channel patterns.",
                        "7.0.0",
                        "Added selectors and changed the format of key and channel patterns from a"
                            + " list to their rule representation.")
                    .arguments(arg("username", STRING)),
                HelpCommands.entry("acl", "server", "6.0.0", AclFamily::help)
                    .flags("loading", "stale", "sentinel"),
                admin("acl|list", 2, acl::list, true)
                    .summary("Dumps the effective rules in ACL file format.")
                    .complexity("O(N). Where N is the number of configured users."),
                admin("acl|load", 2, acl::load, true)
                    .summary("Reloads the rules from the configured ACL file.")
                    .complexity("O(N). Where N is the number of configured users."),
                admin("acl|log", -2, acl::log, true)
                    .summary("Lists recent security events generated due to ACL rules.")
                    .complexity("O(N) with N being the number of entries shown.")
                    .history(
                        "7.2.0", "Added entry ID, timestamp created, and timestamp last updated.")
                    .arguments(
                        oneOf("operation", arg("count", INTEGER), token("reset", "RESET"))
                            .optional()),
                admin("acl|save", 2, acl::save, true)
                    .summary("Saves the effective ACL rules in the configured ACL file.")
                    .complexity("O(N). Where N is the number of configured users.")
                    .tips("request_policy:all_nodes", "response_policy:all_succeeded"),
                admin("acl|setuser", -3, acl::setUser, true)
                    .summary("Creates and modifies an ACL user and its rules.")
                    .complexity("O(N). Where N is the number of rules provided.")
                    .history(
                        "6.2.0",
                        "Added Pub/Sub channel patterns.",
                        "7.0.0",
                        "Added selectors and key based permissions.")
                    .tips("request_policy:all_nodes", "response_policy:all_succeeded")
                    .arguments(arg("username", STRING), arg("rule", STRING).optional().multiple()),
                admin("acl|users", 2, acl::users, true)
                    .summary("Lists all ACL users.")
                    .complexity("O(N). Where N is the number of configured users."),
                admin("acl|whoami", 2, acl::whoami, false)
                    .summary("Returns the authenticated username of the current connection.")
                    .complexity("O(1)")));
  }

  /**
   * Starts an ACL subcommand's entry with what Redis's JSON gives them all: the flags noscript,
   * loading, stale and sentinel, admin ones also admin (categories admin, slow, dangerous), the
   * others slow.
   */
  private static CommandSpec.Builder admin(
      String name, int arity, CommandSpec.Handler handler, boolean admin) {
    CommandSpec.Builder entry =
        command(name).arity(arity).group("server").since("6.0.0").handler(handler);
    return admin
        ? entry
            .flags("admin", "noscript", "loading", "stale", "sentinel")
            .categories("admin", "slow", "dangerous")
        : entry.flags("noscript", "loading", "stale", "sentinel").categories("slow");
  }

  /** ACL HELP. */
  static void help(Session session, Request request) {
    HelpCommands.reply(session, "ACL", HELP);
  }
}
