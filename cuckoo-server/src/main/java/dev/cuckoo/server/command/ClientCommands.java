package dev.cuckoo.server.command;

import dev.cuckoo.server.keyspace.CommandClock;
import dev.cuckoo.server.persist.Transaction;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.Kind;
import dev.cuckoo.server.pubsub.Subscriber;
import dev.cuckoo.server.session.ClientBuffers;
import dev.cuckoo.server.session.ClientPause;
import dev.cuckoo.server.session.ClientRegistry;
import dev.cuckoo.server.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * CLIENT LIST, CLIENT INFO, CLIENT KILL, CLIENT NO-EVICT / NO-TOUCH, CLIENT REPLY, CLIENT UNBLOCK
 * and RESET, answered as Redis 8 does (Redis's {@code src/networking.c}: {@code clientCommand},
 * {@code catClientInfoString}, {@code clientKillCommand}, {@code resetCommand}).
 */
public final class ClientCommands {
  private static final String SYNTAX_ERROR = "ERR syntax error";

  private final ServerContext context;
  private final ClientRegistry clients;

  /** Creates the commands over the server's settings and client registry. */
  ClientCommands(ServerContext context) {
    this.context = context;
    this.clients = context.clients();
  }

  /** The kinds of client CLIENT LIST TYPE and CLIENT KILL TYPE name (getClientTypeByName). */
  private static boolean knownType(String type) {
    return type.equals("normal")
        || type.equals("slave")
        || type.equals("replica")
        || type.equals("pubsub")
        || type.equals("master");
  }

  /**
   * Returns true if the client is of the type CLIENT LIST TYPE or CLIENT KILL TYPE names (a known
   * type, lower case; "replica" and "slave" are the same type).
   */
  private boolean isOfType(ClientRegistry.Client client, String type) {
    return clients.type(client).equals(type.equals("replica") ? "slave" : type);
  }

  private static String orEmpty(String text) {
    return text == null ? "" : text;
  }

  /**
   * Returns the commands of the client's transaction: queued since MULTI, or running in EXEC (Redis
   * ends the transaction only after they ran), or -1 outside one.
   */
  private static int multi(Session session) {
    Transaction running = session.transaction();
    return running != null ? running.commands() : session.queuedCommands();
  }

  /**
   * Returns the client flags as Redis's {@code catClientInfoString} prints them: 'S' a replica's
   * link, 'O' a monitor, 'M' the link to the master, 'P' subscribed, 'x' in MULTI (EXEC included),
   * 'b' blocked (WAIT, or held back by CLIENT PAUSE), 'e' no-evict, 'T' no-touch, 'N' for none.
   */
  private static String flags(Session session, ClientRegistry.Role role) {
    StringBuilder flags = new StringBuilder();
    if (role == ClientRegistry.Role.MONITOR) {
      flags.append('O');
    } else if (role == ClientRegistry.Role.REPLICA) {
      flags.append('S');
    } else if (role == ClientRegistry.Role.MASTER) {
      flags.append('M');
    }
    if (session.subscriber().subscribed()) {
      flags.append('P');
    }
    if (multi(session) >= 0) {
      flags.append('x');
    }
    if (session.blocked()) {
      flags.append('b');
    }
    if (session.noEvict()) {
      flags.append('e');
    }
    if (session.noTouch()) {
      flags.append('T');
    }
    return flags.length() == 0 ? "N" : flags.toString();
  }

  /**
   * Returns one CLIENT LIST line without its LF, the fields in the order of Redis 8's {@code
   * catClientInfoString} (8.2 added {@code tot-net-in tot-net-out tot-cmds}, redis#13944). Runs on
   * the session's event loop. The buffer fields are the connection's ({@link ClientBuffers} says
   * how each maps to the decoder, the reply buffer and the Netty channel); Redis's reply buffer
   * size and peak ({@code rbs}, {@code rbp}) have no counterpart (replies go to a buffer that is
   * handed to the channel whole) and are 0; there is no client tracking, so {@code redir=-1};
   * {@code user} is the connection's ACL user ({@code (superuser)} for the link to the master, as
   * Redis prints its master client). {@code tot-cmds} counts completed commands, so the caller's
   * own line leaves out the command asking ({@code self}).
   *
   * @param outputBytes the client's {@code omem} ({@link ClientMemory#outputBytes})
   */
  static String describe(
      ClientRegistry.Client client,
      ClientRegistry.Role role,
      boolean self,
      long nowMillis,
      long outputBytes) {
    Session session = client.session();
    ClientBuffers buffers = session.buffers();
    Subscriber subscriber = session.subscriber();
    String last = session.lastExecuted();
    return "id="
        + client.id()
        + " addr="
        + client.addr()
        + " laddr="
        + client.laddr()
        + " fd="
        + client.fd()
        + " name="
        + orEmpty(session.name())
        + " age="
        + (nowMillis / 1000 - client.createdMillis() / 1000)
        + " idle="
        + (nowMillis / 1000 - session.lastInteractionMillis() / 1000)
        + " flags="
        + flags(session, role)
        + " db="
        + session.db()
        + " sub="
        + subscriber.count(Kind.CHANNEL)
        + " psub="
        + subscriber.count(Kind.PATTERN)
        + " ssub="
        + subscriber.count(Kind.SHARD)
        + " multi="
        + multi(session)
        + " watch="
        + session.watchedKeys()
        + " qbuf="
        + buffers.queryBytes()
        + " qbuf-free="
        + buffers.queryFreeBytes()
        + " argv-mem="
        + buffers.argumentBytes()
        + " multi-mem="
        + buffers.multiBytes(session)
        + " rbs=0 rbp=0 obl="
        + buffers.replyBytes()
        + " oll="
        + buffers.outputBlocks()
        + " omem="
        + outputBytes
        + " tot-mem="
        + buffers.totalBytes(session, outputBytes)
        + " events=r"
        + " cmd="
        + (last == null ? "NULL" : last)
        // Redis's master client has no ACL user: catClientInfoString prints "(superuser)"
        + " user="
        + (role == ClientRegistry.Role.MASTER || session.user() == null
            ? "(superuser)"
            : session.user().name())
        + " redir=-1"
        + " resp="
        + session.reply().protocol()
        + " lib-name="
        + orEmpty(session.libName())
        + " lib-ver="
        + orEmpty(session.libVersion())
        + " io-thread=0"
        + " tot-net-in="
        + session.netIn()
        + " tot-net-out="
        + session.netOut()
        + " tot-cmds="
        + (session.commandsProcessed() - (self ? 1 : 0));
  }

  /** Returns a client's CLIENT LIST line for the listing {@code asking} asked for. */
  private String describeOther(ClientRegistry.Client client, Session asking, long nowMillis) {
    ClientRegistry.Role role = clients.role(client.id());
    return describe(
        client,
        role,
        client.id() == asking.id(),
        nowMillis,
        context.clientMemory().outputBytes(client, role));
  }

  /** CLIENT INFO: this connection's line, a verbatim string in RESP3 as in Redis. */
  void info(Session session, Request request) {
    session.reply().verbatimText(describeSelf(context, session, System.currentTimeMillis()) + "\n");
  }

  /**
   * Returns the session's own CLIENT LIST line without its LF (CLIENT INFO, the ACL log's {@code
   * client-info}); a session that is no registered connection is described with what it has.
   */
  static String describeSelf(ServerContext context, Session session, long nowMillis) {
    ClientRegistry clients = context.clients();
    ClientRegistry.Client self = clients.get(session.id());
    if (self == null) {
      self =
          new ClientRegistry.Client(session.id(), session, null, "", "", -1, context.startMillis());
    }
    ClientRegistry.Role role = clients.role(session.id());
    return describe(self, role, true, nowMillis, context.clientMemory().outputBytes(self, role));
  }

  /**
   * CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id [id ...]]: one line per client, each
   * line built on that client's event loop; the reply waits for all of them.
   */
  void list(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    List<ClientRegistry.Client> targets = new ArrayList<>();
    if (args.length == 4 && Args.lower(args[2]).equals("type")) {
      String type = Args.lower(args[3]);
      if (!knownType(type)) {
        reply.error("ERR Unknown client type '" + Args.text(args[3]) + "'");
        return;
      }
      for (ClientRegistry.Client client : clients.all()) {
        if (isOfType(client, type)) {
          targets.add(client);
        }
      }
    } else if (args.length > 3 && Args.lower(args[2]).equals("id")) {
      for (int i = 3; i < args.length; i++) {
        Long id = Numbers.parseLong(args[i]);
        if (id == null) {
          reply.error("ERR Invalid client ID");
          return;
        }
        ClientRegistry.Client client = clients.get(id);
        if (client != null) {
          targets.add(client);
        }
      }
    } else if (args.length == 2) {
      targets.addAll(clients.all());
    } else {
      reply.error(SYNTAX_ERROR);
      return;
    }
    if (session.transaction() != null) {
      // inside EXEC, which holds every key: no waiting for other event loops (they may be
      // waiting for a key); the other clients' fields are read from here, a diagnostic's view
      StringBuilder text = new StringBuilder();
      long now = System.currentTimeMillis();
      for (ClientRegistry.Client client : targets) {
        if (client.endpoint() == null || client.endpoint().isOpen()) {
          text.append(describeOther(client, session, now)).append('\n');
        }
      }
      reply.verbatimText(text.toString());
      return;
    }
    session.defer(
        ClientRegistry.describeAll(
                targets, client -> describeOther(client, session, System.currentTimeMillis()))
            .thenApply(
                lines ->
                    out -> {
                      StringBuilder text = new StringBuilder();
                      for (String line : lines) {
                        text.append(line).append('\n');
                      }
                      out.verbatimText(text.toString());
                    }));
  }

  /** The filters of CLIENT KILL's new form; null fields match every client. */
  private final class KillFilter {
    Long id;
    String addr;
    String laddr;
    String type;
    dev.cuckoo.server.acl.User user;
    long maxAgeSeconds;
    boolean skipMe = true;

    /** Returns true if every filter given matches the client (filters combine with AND). */
    boolean matches(ClientRegistry.Client client, long nowMillis) {
      return (id == null || id == client.id())
          && (addr == null || addr.equals(client.addr()))
          && (laddr == null || laddr.equals(client.laddr()))
          && (type == null || isOfType(client, type))
          && (user == null || user == client.session().user())
          // redis#12299: a client younger than MAXAGE is spared, one exactly that old is not
          && (maxAgeSeconds == 0
              || nowMillis / 1000 - client.createdMillis() / 1000 >= maxAgeSeconds);
    }
  }

  /** Parses the new form's filter pairs; writes the error and returns null on a bad one. */
  private KillFilter parseFilter(Reply reply, byte[][] args) {
    KillFilter filter = new KillFilter();
    for (int i = 2; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        reply.error(SYNTAX_ERROR);
        return null;
      }
      String option = Args.lower(args[i]);
      String value = Args.text(args[i + 1]);
      switch (option) {
        case "id" -> {
          Long id = Numbers.parseLong(args[i + 1]);
          if (id == null || id < 1) {
            reply.error("ERR client-id should be greater than 0");
            return null;
          }
          filter.id = id;
        }
        case "type" -> {
          if (!knownType(value.toLowerCase(Locale.ROOT))) {
            reply.error("ERR Unknown client type '" + value + "'");
            return null;
          }
          filter.type = value.toLowerCase(Locale.ROOT);
        }
        case "addr" -> filter.addr = value;
        case "laddr" -> filter.laddr = value;
        case "user" -> {
          filter.user = context.acl().user(dev.cuckoo.server.acl.Latin1.text(args[i + 1]));
          if (filter.user == null) {
            reply.error("ERR No such user '" + value + "'");
            return null;
          }
        }
        case "skipme" -> {
          String yesNo = value.toLowerCase(Locale.ROOT);
          if (!yesNo.equals("yes") && !yesNo.equals("no")) {
            reply.error(SYNTAX_ERROR);
            return null;
          }
          filter.skipMe = yesNo.equals("yes");
        }
        case "maxage" -> {
          Long maxAge = Numbers.parseLong(args[i + 1]);
          if (maxAge == null) {
            reply.error("ERR maxage is not an integer or out of range");
            return null;
          }
          if (maxAge <= 0) {
            // 0 would read as "no age filter" and kill every other client
            reply.error("ERR maxage should be greater than 0");
            return null;
          }
          filter.maxAgeSeconds = maxAge;
        }
        default -> {
          reply.error(SYNTAX_ERROR);
          return null;
        }
      }
    }
    return filter;
  }

  /**
   * CLIENT KILL ip:port (old form: {@code +OK}, or {@code -ERR No such client}; may kill the
   * caller) and CLIENT KILL filter value [filter value ...] (new form: the number killed; SKIPME
   * yes by default). The caller, if killed, closes after this reply; others close on their own
   * event loop after the replies already sent to them are written.
   */
  void kill(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    boolean oldForm = args.length == 3;
    KillFilter filter;
    if (oldForm) {
      filter = new KillFilter();
      filter.addr = Args.text(args[2]);
      filter.skipMe = false;
    } else {
      filter = parseFilter(reply, args);
      if (filter == null) {
        return;
      }
    }
    long now = System.currentTimeMillis();
    long killed = 0;
    boolean killSelf = false;
    for (ClientRegistry.Client client : clients.all()) {
      if (!filter.matches(client, now)) {
        continue;
      }
      if (client.id() == session.id()) {
        if (filter.skipMe) {
          continue;
        }
        killSelf = true;
      } else {
        clients.kill(client);
      }
      killed++;
    }
    if (oldForm) {
      if (killed == 0) {
        reply.error("ERR No such client");
      } else {
        reply.ok();
      }
    } else {
      reply.integer(killed);
    }
    if (killSelf) {
      session.requestClose();
    }
  }

  /** CLIENT NO-EVICT on|off and CLIENT NO-TOUCH on|off: the flag shows in CLIENT LIST. */
  void flag(Session session, Request request) {
    byte[][] args = request.args();
    String value = Args.lower(args[2]);
    if (!value.equals("on") && !value.equals("off")) {
      session.reply().error(SYNTAX_ERROR);
      return;
    }
    if (Args.lower(args[1]).equals("no-evict")) {
      session.noEvict(value.equals("on"));
    } else {
      session.noTouch(value.equals("on"));
    }
    session.reply().ok();
  }

  /**
   * CLIENT REPLY ON|OFF|SKIP ({@link Reply#clientReply}): only ON is answered, as in Redis (OFF and
   * SKIP silence their own reply too).
   */
  void reply(Session session, Request request) {
    String mode = Args.lower(request.args()[2]);
    if (!mode.equals("on") && !mode.equals("off") && !mode.equals("skip")) {
      session.reply().error(SYNTAX_ERROR);
      return;
    }
    session.reply().clientReply(mode);
    if (mode.equals("on")) {
      session.reply().ok();
    }
  }

  /** Redis's answer to a CLIENT subcommand given too many arguments. */
  private static void wrongArguments(Reply reply, byte[][] args) {
    reply.error(
        "ERR unknown subcommand or wrong number of arguments for '"
            + Args.text(args[1])
            + "'. Try CLIENT HELP.");
  }

  /**
   * CLIENT UNBLOCK client-id [TIMEOUT|ERROR], as Redis's clientCommand: ends the WAIT or WAITAOF
   * the client is blocked in, answered as at its timeout (TIMEOUT, the default) or with Redis's
   * -UNBLOCKED error (ERROR); answers 1, or 0 if that client is not blocked in one (a command held
   * back by CLIENT PAUSE is not: it has no timeout reply).
   */
  void unblock(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    if (args.length > 4) {
      wrongArguments(reply, args);
      return;
    }
    boolean error = false;
    if (args.length == 4) {
      String reason = Args.lower(args[3]);
      if (reason.equals("error")) {
        error = true;
      } else if (!reason.equals("timeout")) {
        reply.error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
        return;
      }
    }
    Long id = Numbers.parseLong(args[2]);
    if (id == null) {
      reply.error("ERR value is not an integer or out of range");
      return;
    }
    ClientRegistry.Client target = clients.get(id);
    dev.cuckoo.server.replication.Replication replication = context.replication();
    boolean unblocked =
        target != null
            && target.session().blocked()
            && replication != null
            && replication.unblock(id, error);
    reply.integer(unblocked ? 1 : 0);
  }

  /**
   * CLIENT PAUSE timeout [WRITE|ALL]: holds clients' commands back ({@link ClientPause}) for {@code
   * timeout} milliseconds, as Redis parses it (the mode first, then the timeout).
   */
  void pause(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    if (args.length > 4) {
      wrongArguments(reply, args);
      return;
    }
    boolean all = true;
    if (args.length == 4) {
      String mode = Args.lower(args[3]);
      if (mode.equals("write")) {
        all = false;
      } else if (!mode.equals("all")) {
        reply.error("ERR CLIENT PAUSE mode must be WRITE or ALL");
        return;
      }
    }
    Long timeout = Commands.timeoutMillis(reply, args[2]);
    if (timeout == null) {
      return;
    }
    long now = CommandClock.now();
    if (timeout > Long.MAX_VALUE - now) {
      reply.error("ERR timeout is out of range");
      return;
    }
    context
        .clientPause()
        .pause(
            ClientPause.Purpose.CLIENT_COMMAND,
            timeout == 0 ? 0 : now + timeout,
            all ? ClientPause.Mode.ALL : ClientPause.Mode.WRITE);
    reply.ok();
  }

  /** CLIENT UNPAUSE: the held commands run, unless a failover holds them. */
  void unpause(Session session, Request request) {
    context.clientPause().unpause(ClientPause.Purpose.CLIENT_COMMAND);
    session.reply().ok();
  }

  /**
   * MONITOR: from now on the connection receives a line for every command any client runs (as
   * Redis's monitorCommand and replicationFeedMonitors: after the command ran, admin commands left
   * out, passwords redacted). Answers nothing when it is a replica's link or already a monitor. A
   * monitor that falls behind is closed at client-output-buffer-limit pubsub.
   */
  void monitor(Session session, Request request) {
    if (session.transaction() != null) {
      // Redis: inside EXEC a client expects one reply per command (CLIENT_DENY_BLOCKING)
      session.reply().error("ERR MONITOR isn't allowed for DENY BLOCKING client");
      return;
    }
    if (context.clients().monitor(session)) {
      session.reply().ok();
    }
  }

  /**
   * RESET: the connection back to its state after connect, as Redis's {@code
   * clearClientConnectionState} (a transaction discarded, no keys watched, every subscription left
   * without confirmations, MONITOR left, RESP2, not authenticated when a password is set, no name,
   * database 0, no NO-EVICT/NO-TOUCH; the library name and version stay), then {@code +RESET}.
   */
  void reset(Session session, Request request) {
    if (session.inMulti()) {
      session.takeQueue();
    }
    context.watches().unwatchAll(session);
    context.pubSub().leave(session.subscriber());
    context.clients().unmonitor(session);
    session.resetConnection(!context.authRequired(), context.acl().defaultUser());
    session.reply().simple("RESET");
  }
}
