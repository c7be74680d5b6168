package dev.cuckoo.server.command;

import dev.cuckoo.server.cluster.SlotTable;
import dev.cuckoo.server.keyspace.CommandClock;
import dev.cuckoo.server.keyspace.HeapGuard;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.persist.RecordApplier;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;
import java.lang.System.Logger.Level;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.Lock;

/**
 * The command table and dispatcher: finds a request's command, checks arity and authentication in
 * Redis's order (unknown command, then arity, then NOAUTH) and runs it. A command the table marks
 * as a write runs through the {@link WritePath}, which locks its keys, decides its refusal and
 * records what it changed; any other command runs its handler here, after the deletion of the
 * expired keys it names.
 */
public final class Commands {
  private static final System.Logger LOGGER = System.getLogger(Commands.class.getName());

  /** Redis's reply to a command that may grow memory once maxmemory is exceeded. */
  public static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";

  /** Returns Redis's error for a subcommand {@code container} does not have. */
  static String unknownSubcommand(String container, byte[] subcommand) {
    return "ERR unknown subcommand '"
        + Args.text(subcommand)
        + "'. Try "
        + container.toUpperCase(Locale.ROOT)
        + " HELP.";
  }

  /**
   * Parses a timeout in milliseconds as Redis's getTimeoutFromObjectOrReply checks it (WAIT, CLIENT
   * PAUSE): returns it, or writes Redis's error and returns null for a non-integer or a negative
   * value.
   */
  static Long timeoutMillis(Reply reply, byte[] arg) {
    Long timeout = Numbers.parseLong(arg);
    if (timeout == null) {
      reply.error("ERR timeout is not an integer or out of range");
      return null;
    }
    if (timeout < 0) {
      reply.error("ERR timeout is negative");
      return null;
    }
    return timeout;
  }

  /**
   * Parses an integer argument as Redis's getRangeLongFromObjectOrReply checks it: returns it, or
   * writes Redis's error and returns null: {@code value is not an integer or out of range}, or
   * outside {@code min..max} {@code outOfRange} (null: {@code value is out of range, value must
   * between min and max}).
   */
  static Long rangeLong(Reply reply, byte[] arg, long min, long max, String outOfRange) {
    Long value = Numbers.parseLong(arg);
    if (value == null) {
      reply.error(Args.NOT_INTEGER);
      return null;
    }
    if (value < min || value > max) {
      reply.error(
          outOfRange != null
              ? outOfRange
              : "ERR value is out of range, value must between " + min + " and " + max);
      return null;
    }
    return value;
  }

  private final CommandTable table;
  private final ExpiryCycle expiryCycle;
  private final ServerContext context;
  private final WritePath writes;
  private final SlowLogCommands slowLog;
  private final AccessCheck access;

  /**
   * Builds the table over the shared server state; writes are logged to its persistence while that
   * is on.
   */
  public Commands(ServerContext context) {
    this.context = context;
    this.writes = new WritePath(context, this::table);
    this.expiryCycle = new ExpiryCycle(context, writes);
    slowLog = new SlowLogCommands(context);
    table =
        new CommandTable(Families.entries(new Families.Parts(context, writes, this, expiryCycle)));
    access = new AccessCheck(context, table);
  }

  /**
   * Loads the ACL users at start, as Redis's ACLLoadUsersAtStartup: the config file's {@code user}
   * lines, or the aclfile, never both.
   *
   * @throws IllegalArgumentException with Redis's words, naming the file and line of a mistake
   */
  public void loadUsers() {
    String aclFile = context.config().get(dev.cuckoo.server.config.Parameters.ACLFILE);
    var configured = context.config().users();
    if (aclFile != null && !configured.isEmpty()) {
      throw new IllegalArgumentException(
          "Configuring Redis with users defined in redis.conf and at the same setting an ACL file"
              + " path is invalid. This setup is very likely to lead to configuration errors and"
              + " security holes, please define either an ACL file or declare users directly in"
              + " your redis.conf, but not both.");
    }
    String error = context.acl().loadConfigured(configured);
    if (error != null) {
      throw new IllegalArgumentException(error);
    }
    if (aclFile != null) {
      java.nio.file.Path file =
          context.config().get(dev.cuckoo.server.config.Parameters.DIR).resolve(aclFile);
      String errors =
          AclFamily.loadFile(
              context, file, new java.util.ArrayList<>(), new java.util.ArrayList<>());
      if (errors != null) {
        throw new IllegalArgumentException(
            "Aborting Redis startup because of ACL errors: " + errors);
      }
    }
  }

  /** Returns the ACL check: what ACL DRYRUN asks and where failed AUTHs are logged. */
  AccessCheck access() {
    return access;
  }

  /** Returns the table: every entry, and what the log asks about commands. */
  public CommandTable table() {
    return table;
  }

  /**
   * Returns what a connection's decoder shows its buffered requests to, so that the memory they
   * will read is loaded early (a hint; see {@link BucketPrefetch}).
   */
  public dev.cuckoo.server.protocol.RequestLookahead lookahead(Session session) {
    return new BucketPrefetch(context.keyspace(), session);
  }

  /** Returns the write path: what the network layer asks before it acknowledges writes. */
  public WritePath writePath() {
    return writes;
  }

  /**
   * Returns what replays logged records through this table: a session of its own that neither logs
   * nor applies limits, whose error reply (if any) is handed back.
   */
  public RecordApplier replayer() {
    // user null: recovery may run anything, as Redis's AOF client
    Session session = new Session(0, Reply.discarding(), new Authentication(true), true);
    return (db, args) -> {
      session.db(db);
      execute(session, args);
      String error = session.reply().takeErrorReply();
      return error == null ? null : error.trim();
    };
  }

  /** Logs the stream mark in force at a snapshot's cut (persistence calls it after rotating). */
  public void rotated() {
    writes.rotated();
  }

  /** Returns how a replica applies its master's stream through this table. */
  public dev.cuckoo.server.replication.Replication.Applier masterStreamApplier() {
    return new ReplicationFamily(this, context, writes).applier();
  }

  /** Runs the active expiry cycle once (every 100 ms on a network thread). */
  public void expireCycle() {
    context.keyspace().tick();
    expiryCycle.run(25);
  }

  /** Returns every top-level command. */
  public Collection<CommandSpec> all() {
    return table.all();
  }

  /** Returns the command with this lower-case name, or null. */
  public CommandSpec find(String name) {
    return table.find(name);
  }

  private static String unknownCommand(byte[][] args) {
    StringBuilder list = new StringBuilder();
    for (int i = 1; i < args.length && list.length() < 128; i++) {
      String arg = Args.text(args[i]);
      int room = 128 - list.length();
      list.append('\'').append(arg, 0, Math.min(arg.length(), room)).append("' ");
    }
    String name = Args.text(args[0]);
    return "ERR unknown command '"
        + name.substring(0, Math.min(name.length(), 128))
        + "', with args beginning with: "
        + list;
  }

  /**
   * Runs one request for the session, writing exactly one reply (or none for SHUTDOWN, or for a
   * command that asked to run again later). Inside MULTI, queues it instead (answering QUEUED); a
   * request refused while queueing makes EXEC abort, as in Redis.
   */
  public void execute(Session session, byte[][] args) {
    context.totalCommands().increment();
    // the command's time is fixed before it is looked up: CLIENT LIST's idle reads it too, so a
    // request reads the clock once
    CommandClock.enter();
    session.enterCommand();
    try {
      dispatch(session, args);
    } finally {
      session.exitCommand();
      CommandClock.exit();
    }
  }

  /**
   * Runs a request EXEC took from the transaction's queue (resolved when it was queued), with the
   * checks a request meets after its lookup; the caller bound it to the database selected now.
   */
  void execute(Session session, Request request) {
    context.totalCommands().increment();
    CommandClock.enter();
    session.enterCommand();
    try {
      session.executing(request.spec().name(), CommandClock.now());
      run(session, request, true);
    } finally {
      session.exitCommand();
      CommandClock.exit();
    }
  }

  /** Looks up, checks and runs one request. */
  private void dispatch(Session session, byte[][] args) {
    Request request = lookUp(session, args);
    if (request != null) {
      run(session, request, false);
    }
    // ASKING counts for the next command only, or for the transaction it precedes (Redis's
    // resetClient)
    if (session.asking()
        && !session.inMulti()
        && (request == null || !request.spec().name().equals("asking"))) {
      session.asking(false);
    }
  }

  /** Feeds a command that ran to every monitor (MONITOR's line, passwords redacted). */
  private void feedMonitors(Session session, byte[][] args) {
    java.time.Instant now = java.time.Instant.now();
    context
        .clients()
        .feedMonitors(
            MonitorLine.of(
                now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000,
                session.db(),
                context.clients().addressOf(session),
                SlowLog.redact(args)));
  }

  /**
   * Resolves a line into a request in the session's database: finds its command (or subcommand) and
   * checks its arity, or answers Redis's error and returns null. As in Redis's processCommand,
   * every request counts in CLIENT LIST's {@code tot-cmds} and sets its {@code cmd} to what the
   * lookup found, refused ones included: the command for an arity error, nothing ({@code NULL}) for
   * an unknown command or subcommand.
   */
  Request lookUp(Session session, byte[][] args) {
    Reply reply = session.reply();
    CommandSpec spec = (CommandSpec) session.lastCommand(args[0]);
    String name = spec != null ? spec.name() : Args.lower(args[0]);
    if (spec == null) {
      spec = table.find(name);
      if (spec != null) {
        session.lastCommand(args[0], spec);
      }
    }
    long now = CommandClock.now();
    if (spec == null) {
      session.executing(null, now);
      reply.error(unknownCommand(args));
      session.failQueue();
      return null;
    }
    if (!spec.arityAccepts(args.length)) {
      session.executing(spec.name(), now);
      reject(session, spec, CfFamily.arityError(spec.name()));
      return null;
    }
    if (!spec.subcommands().isEmpty() && (spec.handler() == null || args.length > 1)) {
      String subName = Args.lower(args[1]);
      CommandSpec sub = spec.subcommands().get(subName);
      session.executing(sub == null ? null : sub.name(), now);
      if (sub == null) {
        reply.error(unknownSubcommand(spec.name(), args[1]));
        session.failQueue();
        return null;
      }
      if (!sub.arityAccepts(args.length)) {
        countRejected(session, sub);
        reply.error(CfFamily.arityError(sub.name()));
        session.failQueue();
        return null;
      }
      spec = sub;
    } else {
      session.executing(spec.name(), now);
    }
    return new Request(spec, session.db(), args);
  }

  /**
   * Runs a resolved request: authentication, the ACL, the cluster's slot check, MULTI queueing,
   * write refusals, the subscribed context and a replica's stale data are checked in Redis's order,
   * then its handler runs. A request EXEC runs ({@code fromExec}) is checked against the ACL again,
   * as Redis's execCommand; its slots were checked with the whole transaction's at EXEC.
   */
  private void run(Session session, Request request, boolean fromExec) {
    Reply reply = session.reply();
    CommandSpec spec = request.spec();
    // as Redis's authRequired: a password cleared by CONFIG SET frees connections that never
    // authenticated
    if (!session.authenticated() && !spec.noAuth() && context.authRequired()) {
      reject(session, spec, "NOAUTH Authentication required.");
      return;
    }
    if (fromExec) {
      String denied = access.refusalAtExec(session, request);
      if (denied != null) {
        reply.error(denied);
        return;
      }
    } else {
      String denied = access.refusal(session, request);
      if (denied != null) {
        reject(session, spec, denied);
        return;
      }
      if (context.cluster() != null && refusedBySlot(session, request)) {
        return;
      }
    }
    if (paused(session, spec)) {
      return;
    }
    if (session.inMulti() && !spec.runsInsideMulti()) {
      queue(session, request);
      return;
    }
    boolean write = spec.writes() != null;
    if (!spec.allowedWhileSubscribed()
        && session.reply().protocol() == 2
        && session.subscriber().subscribed()) {
      reject(
          session,
          spec,
          "ERR Can't execute '"
              + spec.name()
              + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in"
              + " this context");
      return;
    }
    // a write's MASTERDOWN is decided with its other refusals, by the write path
    if (!write && !spec.flags().contains("stale") && writes.masterDown(session)) {
      countRejected(session, spec);
      reply.error(dev.cuckoo.server.persist.WriteRefusals.MASTERDOWN);
      return;
    }
    if (session.replaying()) {
      // recovery counts nothing, as Redis's AOF loading
      runHandler(session, request);
      return;
    }
    session.errorsCounted(reply.errors());
    // from the command's start (its lookup and checks included: a fraction of a microsecond), so
    // the clock is read once before and once after it
    long start = CommandClock.startNanos();
    if (!runHandler(session, request)) {
      return;
    }
    long micros = (System.nanoTime() - start) / 1000;
    long errors = reply.errors();
    if (!session.retryAsked()) {
      // a command that will run again counts once, when it finishes (Redis: when unblocked)
      spec.stats().called(micros, errors > session.errorsCounted(), context.latencyTracking());
      slowLog.ran(session, request, micros);
      if (context.clients().monitored() && !spec.flags().contains("admin")) {
        // as Redis's call(): after the command ran, in the database it left selected
        feedMonitors(session, request.args());
      }
    }
    session.errorsCounted(errors);
  }

  /**
   * Returns true if the cluster's slot check refused or redirected the request (answered here, as
   * Redis's processCommand does): a refused command dooms the transaction being queued; a refused
   * EXEC discards the transaction and answers the redirect itself. Requests from the master and the
   * log's replay are never checked.
   */
  private boolean refusedBySlot(Session session, Request request) {
    SlotTable table = context.cluster().slotTable();
    String refusal = SlotCheck.refusal(context, session, request, table);
    if (refusal == null) {
      // the write path checks again under the keys' locks if the table changes meanwhile
      request.slotsChecked(table);
      return false;
    }
    answerSlotRefusal(session, request.spec(), refusal);
    return true;
  }

  /**
   * Answers a request the cluster's slot check refused or redirected (here, or in the write path
   * under the keys' locks): a refused command dooms the transaction being queued; a refused EXEC
   * discards the transaction and answers the redirect itself.
   */
  private void answerSlotRefusal(Session session, CommandSpec spec, String refusal) {
    countRejected(session, spec);
    if (spec.writes() == Writes.TRANSACTION) {
      TransactionFamily.discard(session, context.watches());
    } else {
      session.failQueue();
    }
    session.reply().error(refusal);
  }

  /**
   * Returns true if CLIENT PAUSE holds the command back: it runs again once the pause ends, as
   * Redis's blockPostponeClient. Replicas' links, monitors, the master's stream and the commands
   * EXEC runs are never held (EXEC itself is, when it would change data).
   */
  private boolean paused(Session session, CommandSpec spec) {
    if (!context.clientPause().active() || session.fromMaster() || session.replaying()) {
      return false;
    }
    boolean mayChangeData =
        spec.write()
            || spec.flags().contains("may_replicate")
            || spec.name().equals("exec") && session.inMulti() && queuesChanges(session);
    java.util.concurrent.CompletableFuture<Void> ended = context.clientPause().holds(mayChangeData);
    if (ended == null || context.clients().role(session.id()) != null) {
      return false;
    }
    if (!session.retryAfter(ended)) {
      return false;
    }
    session.block();
    return true;
  }

  private static boolean queuesChanges(Session session) {
    for (Request queued : Request.queuedIn(session)) {
      if (queued.spec().write() || queued.spec().flags().contains("may_replicate")) {
        return true;
      }
    }
    return false;
  }

  /** Counts a command refused before it ran (commandstats' rejected_calls), unless replaying. */
  private static void countRejected(Session session, CommandSpec spec) {
    if (!session.replaying()) {
      spec.stats().rejected();
    }
  }

  /**
   * Runs the command's handler: a write through the write path, anything else after the deletion of
   * its expired keys (where the keyspace holds expiring keys), then a propagated command (a message
   * published) is sent to the replicas through the write path. Returns false if the write path
   * refused the write (answered here, as Redis's rejectCommand).
   */
  private boolean runHandler(Session session, Request request) {
    Reply reply = session.reply();
    CommandSpec spec = request.spec();
    try {
      if (spec.writes() != null) {
        WritePath.Refusal refusal = writes.run(session, request);
        if (refusal != null) {
          if (refusal.bySlot()) {
            answerSlotRefusal(session, spec, refusal.error());
          } else {
            reject(session, spec, refusal.error());
          }
          return false;
        }
      } else {
        String moved = runRead(session, request);
        if (moved != null) {
          answerSlotRefusal(session, spec, moved);
          return false;
        }
        if (spec.propagated()) {
          writes.propagate(session, request.args());
        }
      }
    } catch (RuntimeException e) {
      LOGGER.log(Level.ERROR, "command " + spec.name() + " failed", e);
      reply.error("ERR internal error: " + e);
    } catch (OutOfMemoryError e) {
      if (session.replaying()) {
        // recovery reports a log that does not fit in the heap
        throw e;
      }
      // the command may have changed half a structure: never serve or save that (filter tables
      // too large to allocate are refused by the core before this point)
      HeapGuard.fatal("command " + spec.name(), e);
    }
    return true;
  }

  /**
   * Refuses a request that was found but may not run (arity, NOAUTH) as Redis's rejectCommand does:
   * a transaction being queued is doomed; a refused EXEC discards it and answers EXECABORT.
   */
  private void reject(Session session, CommandSpec spec, String error) {
    countRejected(session, spec);
    if (spec.name().equals("exec")) {
      TransactionFamily.reject(session, context.watches(), error);
      return;
    }
    session.reply().error(error);
    session.failQueue();
  }

  /** Queues a command of a transaction, or refuses it (and dooms the transaction) as Redis does. */
  private void queue(Session session, Request request) {
    Reply reply = session.reply();
    CommandSpec spec = request.spec();
    boolean write = spec.write();
    if (spec.noMulti()) {
      countRejected(session, spec);
      reply.error("ERR Command not allowed inside a transaction");
      session.failQueue();
      return;
    }
    String refusal = writes.refusal(session, write, spec.denyOom());
    if (refusal != null) {
      countRejected(session, spec);
      reply.error(refusal);
      session.failQueue();
      return;
    }
    session.queue(request);
    reply.simple("QUEUED");
  }

  /**
   * Runs a command that does not write: the expired keys it names are deleted first, then its
   * handler runs with the shared locks of its keys' stripes held — unless the cluster's slot check,
   * made again under those locks ({@link SlotCheck#recheck}), now redirects or refuses it: then
   * nothing runs and that answer is returned.
   */
  private String runRead(Session session, Request request) {
    CommandSpec spec = request.spec();
    if (!spec.namesKeys()) {
      spec.handler().run(session, request);
      return null;
    }
    Keyspace keyspace = context.keyspace();
    if (!session.replaying() && keyspace.hasExpiries() && writes.accepting()) {
      deleteExpiredKeys(request);
    }
    if (request.keyCount() == 1) {
      // most reads name one key: its stripe's lock alone, no array
      Lock lock = keyspace.readLockFor(request.key(0));
      lock.lock();
      try {
        return runLocked(session, request);
      } finally {
        lock.unlock();
      }
    }
    Lock[] locks = keyspace.readLockKeys(request.keys());
    try {
      return runLocked(session, request);
    } finally {
      Keyspace.unlock(locks);
    }
  }

  private String runLocked(Session session, Request request) {
    String moved = SlotCheck.recheck(context, session, request);
    if (moved == null) {
      request.spec().handler().run(session, request);
    }
    return moved;
  }

  /**
   * Deletes the expired keys a read names before it runs, as Redis's lookupKey does on a master:
   * each deletion is logged and sent to replicas as DEL through the write path ({@link
   * WritePath#deleteIfExpired}). Keys are found by the command's key specs; the key's lock is taken
   * only for a key that has expired.
   */
  private void deleteExpiredKeys(Request request) {
    Keyspace keyspace = context.keyspace();
    for (Key key : request.keys()) {
      if (keyspace.isExpired(key)) {
        Lock lock = keyspace.lockFor(key);
        lock.lock();
        try {
          writes.deleteIfExpired(key);
        } finally {
          lock.unlock();
        }
      }
    }
  }

  /** Returns every command and subcommand name (COMMAND LIST). */
  public List<String> names() {
    return table.names();
  }
}
