package dev.cuckoo.server.command;

import dev.cuckoo.server.keyspace.CommandClock;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.keyspace.KeyspaceWrite;
import dev.cuckoo.server.keyspace.Watches;
import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.persist.StreamMark;
import dev.cuckoo.server.persist.Transaction;
import dev.cuckoo.server.persist.WriteLog;
import dev.cuckoo.server.persist.WriteRefusals;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Authentication;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.KeyspaceEvents;
import dev.cuckoo.server.replication.StreamPosition;
import dev.cuckoo.server.session.Session;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * The one way a write goes, owned by the dispatcher as Redis's {@code call()} owns what a command
 * changed: for a command the table marks as a write, {@link #run} takes the move gate if the write
 * moves data between keys, takes the request's key locks (every stripe for a flush, a swap or a
 * transaction), decides the refusal once under them, deletes the request's expired keys, runs the
 * handler with a {@link WriteScope}, then records what the handler said it changed as one record
 * (or one transaction) to the log and the replication stream, counts the memory a filter grew by
 * and touches WATCH. Handlers only parse, change and reply.
 *
 * <p>Refusals are decided in Redis's order: a log that cannot be written (MISCONF), too few good
 * replicas (NOREPLICAS), a read-only replica (READONLY); then, for commands that may grow memory,
 * maxmemory (OOM); then a replica whose link to its master is down (MASTERDOWN). They are read from
 * {@link WriteRefusals}, which the log, replication and CONFIG SET keep up to date, so that a write
 * enters replication and the log once each, to record itself. Neither the recovery session nor the
 * replica's link to its master is ever refused, and a command that EXEC runs is not refused again:
 * EXEC's refusal covered the transaction. Announcing holds one lock across the log append and the
 * stream, so replicas get exactly the records the log gets, in the same order, with persistence on
 * or off.
 *
 * <p>A reply that acknowledges a write goes out only after its record is written: the network layer
 * asks {@link #acknowledge} before it sends a batch of replies, and replaces the reply of a write
 * whose record was undone after a log failure with {@link #undoneError}.
 */
public final class WritePath {
  private static final byte[] DEL = "DEL".getBytes(StandardCharsets.US_ASCII);

  private final ServerContext context;
  private final Supplier<CommandTable> table;
  private final KeyHolds holds = new KeyHolds();
  // what refusals are decided from: pushed there by the log, replication and CONFIG SET
  private final WriteRefusals refusals;
  // where the stream stands after the record being announced (guarded by this)
  private final StreamPosition position = new StreamPosition();
  // where the logged records leave the stream (settled; guarded by this); see StreamMark
  private StreamMark lastMark;
  // true after a position alone was logged (or set): the next record logs its own mark, since a
  // position followed by a record reads as that record's mark
  private boolean markNext = true;

  /**
   * Creates the write path over the server's state, whose persistence (if on) is the log; {@code
   * table} answers which keys a logged record touches (for WATCH).
   */
  WritePath(ServerContext context, Supplier<CommandTable> table) {
    this.context = context;
    this.table = table;
    this.refusals = context.writeRefusals();
  }

  /**
   * Returns the log writes go to now: persistence; with snapshots only, what counts the changes for
   * the save points; else a log that records nothing.
   */
  private WriteLog log() {
    Persistence persistence = context.persistence();
    if (persistence != null) {
      return persistence;
    }
    WriteLog snapshots = context.snapshotOnly();
    return snapshots != null ? snapshots : WriteLog.NONE;
  }

  /**
   * Why a write was refused before anything ran.
   *
   * @param error the error, without the dash
   * @param bySlot true if the cluster's slot check gave it (a redirect or refusal, checked again
   *     under the keys' locks because the slot table changed): the dispatcher answers it as its own
   *     slot check's
   */
  record Refusal(String error, boolean bySlot) {}

  /**
   * Runs a write command: returns the refusal if it was refused and nothing ran, else null (the
   * handler ran and wrote its reply, or the session will run the command again once the snapshot in
   * progress is done).
   */
  Refusal run(Session session, Request request) {
    CommandSpec spec = request.spec();
    Writes how = spec.writes();
    boolean transaction = how.reach() == Writes.Reach.QUEUED;
    if (transaction && (!session.inMulti() || session.queueFailed())) {
      // EXEC with no transaction to run: its handler answers why
      spec.handler().run(session, request);
      return null;
    }
    // one of the commands EXEC runs: EXEC holds every lock and decided the refusal
    boolean alone = session.transaction() == null;
    Keyspace keyspace = context.keyspace();
    boolean gated =
        alone && !session.replaying() && (transaction ? queueMovesData(session) : how.movesData());
    if (gated && !keyspace.moveGate().enter(session::retryAfter)) {
      return null;
    }
    WriteScope scope = WriteScope.begin(this, session, request, keyspace);
    KeyspaceWrite held = scope.keyspaceWrite();
    try {
      boolean all = how.locksEverything();
      Key[] keys = request.keys();
      // the one call into the keyspace: the locks (none inside EXEC, which holds them all), the
      // filter of the key a module write opens, the memory in use
      keyspace.beginWrite(
          held,
          alone ? keys : null,
          alone && all,
          how.touchesWatchAlways() && keys.length > 0 ? keys[0] : null);
      try {
        if (alone) {
          if (waitsForHold(session, all ? null : keys)) {
            return null;
          }
          String moved = SlotCheck.recheck(context, session, request);
          if (moved != null) {
            return new Refusal(moved, true);
          }
          String refusal =
              transaction
                  ? transactionRefusal(session, held.usedBytes())
                  : refusal(session, spec, held.usedBytes());
          if (refusal != null) {
            return new Refusal(refusal, false);
          }
        }
        if (transaction) {
          runTransaction(session, request);
        } else {
          runScoped(session, request, scope);
        }
        return null;
      } finally {
        held.end(scope.opened() != null);
      }
    } finally {
      scope.end();
      if (gated) {
        keyspace.moveGate().leave();
      }
    }
  }

  /**
   * Returns true if the write must wait for a key another connection holds ({@link KeyHolds}) and
   * will run again once it is released; {@code keys} null for a write of whole databases, which
   * waits for every hold. A session that cannot run again later (the master's link, a replay) runs
   * now.
   */
  private boolean waitsForHold(Session session, Key[] keys) {
    if (session.replaying() || session.fromMaster()) {
      return false;
    }
    CompletableFuture<Void> held = holds.blocking(session.id(), keys);
    if (held == null || !session.retryAfter(held)) {
      return false;
    }
    session.block();
    return true;
  }

  /** Holds {@code keys} for the session until {@link #release} (the caller holds their locks). */
  KeyHolds.Hold hold(Session session, List<Key> keys) {
    return holds.hold(session.id(), keys);
  }

  /** Returns the number of keys held by writes whose end comes later. */
  int heldKeys() {
    return holds.size();
  }

  /**
   * What a write run by {@link #runDetached} did.
   *
   * @param refusal the error it was refused with (without the dash), or null if it ran
   * @param lsn the number of the record it logged, 0 for none
   * @param streamOffset the replication stream's offset after its record, 0 for none
   */
  record Detached(String refusal, long lsn, long streamOffset) {}

  /**
   * Ends a write begun earlier whose keys {@code hold} holds, off its connection (on the thread
   * that waited for its end), then releases the hold: runs {@code args} (if not null) as a command
   * of the table in database {@code db}, as the hold's owner, through {@link #run} like any write —
   * its keys locked (its own holds let it pass), its refusal decided, its record logged and sent to
   * replicas, its notifications raised. It first waits out a CLIENT PAUSE, as the owner's next
   * write would. MIGRATE deletes the keys its target acknowledged so, as a DEL.
   */
  Detached runDetached(KeyHolds.Hold hold, int db, byte[][] args) {
    try {
      if (args == null) {
        return new Detached(null, 0, 0);
      }
      CompletableFuture<Void> paused = context.clientPause().holds(true);
      if (paused != null) {
        paused.join();
      }
      Session session =
          new Session(hold.owner(), Reply.discarding(), new Authentication(true), false);
      session.db(db);
      Request request = new Request(table.get().find(Args.lower(args[0])), db, args);
      CommandClock.enter();
      try {
        Refusal refusal = run(session, request);
        return new Detached(
            refusal == null ? null : refusal.error(), session.lastLogged(), session.streamOffset());
      } finally {
        CommandClock.exit();
      }
    } finally {
      if (hold != null) {
        holds.release(hold);
      }
    }
  }

  private static boolean queueMovesData(Session session) {
    for (Request queued : Request.queuedIn(session)) {
      Writes writes = queued.spec().writes();
      if (writes != null && writes.movesData()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns the refusal of an EXEC: that of its queued writes taken together, or null; {@code
   * usedBytes} is the memory in use (for OOM).
   */
  private String transactionRefusal(Session session, long usedBytes) {
    boolean anyWrite = false;
    boolean denyOom = false;
    for (Request queued : Request.queuedIn(session)) {
      CommandSpec spec = queued.spec();
      if (spec.writes() != null) {
        anyWrite = true;
        denyOom |= spec.denyOom();
      }
    }
    if (!anyWrite || session.replaying() || session.fromMaster()) {
      return null;
    }
    return refusals.refusal(true, denyOom && !fits(usedBytes, 0) ? Commands.OOM : null, false);
  }

  /**
   * Returns the refusal of a write command under its locks, MASTERDOWN included (unless the command
   * is flagged {@code stale}), or null; {@code usedBytes} is the memory in use (for OOM).
   */
  private String refusal(Session session, CommandSpec spec, long usedBytes) {
    if (session.replaying() || session.fromMaster()) {
      return null;
    }
    String refusal =
        refusals.refusal(true, spec.denyOom() && !fits(usedBytes, 0) ? Commands.OOM : null, true);
    // MASTERDOWN comes last: the flags are looked at only when it is the answer
    return WriteRefusals.MASTERDOWN.equals(refusal) && spec.flags().contains("stale")
        ? null
        : refusal;
  }

  /**
   * Returns the error a command of this session gets now (without the dash), or null: for a write
   * MISCONF, NOREPLICAS, READONLY; OOM too if {@code denyOom} and maxmemory is exceeded. MULTI asks
   * it when it queues a command.
   */
  String refusal(Session session, boolean write, boolean denyOom) {
    if (session.replaying() || session.fromMaster()) {
      return null;
    }
    return refusals.refusal(
        write, denyOom && !fits(context.keyspace().usedBytes(), 0) ? Commands.OOM : null, false);
  }

  /**
   * Returns true if a value of {@code bytes} may be created under {@code key} for the session:
   * within maxmemory with the key's own overhead, or replaying (memory limits apply to new commands
   * only).
   */
  boolean admits(Session session, Key key, long bytes) {
    return session.replaying()
        || fits(context.keyspace().usedBytes(), bytes + Keyspace.entryBytes(key));
  }

  /** Returns true if {@code usedBytes} in use plus {@code moreBytes} stay within maxmemory. */
  private boolean fits(long usedBytes, long moreBytes) {
    return usedBytes + moreBytes <= context.memoryLimit();
  }

  /**
   * Returns true if a command without the {@code stale} flag is refused with MASTERDOWN for this
   * session: a replica whose link is down with replica-serve-stale-data no.
   */
  boolean masterDown(Session session) {
    return !session.replaying() && !session.fromMaster() && refusals.masterDown();
  }

  /**
   * Runs a write's handler with its scope (its locks held, its refusal decided): deletes its
   * expired keys first (each logged as DEL before the write's own record, so the write meets the
   * keys a replay of the log will meet), then records what the handler changed.
   */
  private void runScoped(Session session, Request request, WriteScope scope) {
    Keyspace keyspace = context.keyspace();
    if (!session.replaying() && scope.keyspaceWrite().hadExpiries() && accepting()) {
      for (Key key : request.keys()) {
        deleteIfExpired(key);
      }
    }
    if (request.spec().writes().locksEverything() && !session.replaying()) {
      Watches watches = context.watches();
      scope.touching(watches.size() > 0 ? watches : null);
    }
    request.write(scope);
    KeyspaceEvents events = context.keyspaceEvents();
    List<Key> absent = null;
    if (!session.replaying() && events.wants(KeyspaceEvents.NEW)) {
      absent = new ArrayList<>();
      for (Key key : request.keys()) {
        if (keyspace.get(key) == null) {
          absent.add(key);
        }
      }
    }
    try {
      request.spec().handler().run(session, request);
    } finally {
      request.write(null);
      finish(session, request, scope);
      if (!session.replaying()) {
        publish(events, scope, absent);
      }
    }
  }

  /**
   * Publishes the keyspace notifications of a write: "new" for each key it created (Redis raises it
   * for every key added), then those its handler raised.
   */
  private void publish(KeyspaceEvents events, WriteScope scope, List<Key> absent) {
    if (absent != null) {
      for (Key key : absent) {
        if (context.keyspace().get(key) != null) {
          events.notify(KeyspaceEvents.NEW, "new", key.bytes(), key.db());
        }
      }
    }
    for (WriteScope.Event event : scope.events()) {
      events.notify(event.type(), event.name(), event.key().bytes(), event.key().db());
    }
  }

  /**
   * After a write's handler: records what it changed (into the running transaction, if any) and
   * touches WATCH. The size change of the filter it opened is counted when the keyspace's part of
   * the write ends.
   */
  private void finish(Session session, Request request, WriteScope scope) {
    Key opened = scope.opened();
    if (session.replaying()) {
      return;
    }
    Watches watches = context.watches();
    boolean watched = watches.size() > 0;
    if (scope.hasChanges()) {
      if (watched) {
        touchRecord(request, scope.firstRecord());
        for (byte[][] record : scope.moreRecords()) {
          touchRecord(request, record);
        }
        if (request.spec().writes().reach() == Writes.Reach.TWO_DATABASES) {
          // a swap changes the keys both databases hold after it too
          scope.touchDatabases();
        }
      }
      record(session, request.db(), scope);
    }
    if (watched && opened != null && request.spec().writes().touchesWatchAlways()) {
      watches.touch(opened);
    }
  }

  /** Invalidates the WATCHes of the keys a record of the request touches. */
  private void touchRecord(Request request, byte[][] record) {
    if (record == request.args()) {
      for (Key key : request.keys()) {
        context.watches().touch(key);
      }
    } else {
      touched(request.db(), record);
    }
  }

  /**
   * Records a write's change: into the transaction EXEC is running, else announced as one record
   * (several records as one transaction, so a crash between them never leaves half of the change).
   */
  private void record(Session session, int db, WriteScope scope) {
    Transaction running = session.transaction();
    List<byte[][]> more = scope.moreRecords();
    if (running == null && more.isEmpty()) {
      announce(session, db, scope.firstRecord(), null);
      return;
    }
    Transaction unit = running != null ? running : new Transaction();
    unit.add(db, scope.firstRecord());
    for (byte[][] record : more) {
      unit.add(db, record);
    }
    if (running == null) {
      recordAll(session, db, unit);
    }
  }

  /**
   * Runs EXEC (every stripe locked, its refusal decided): the commands it runs record their writes
   * into one transaction, logged as one record so that recovery and replicas apply all of them or
   * none.
   */
  private void runTransaction(Session session, Request request) {
    Transaction transaction = new Transaction(session.queuedCommands());
    int db = session.db();
    session.transaction(transaction);
    try {
      request.spec().handler().run(session, request);
    } finally {
      session.transaction(null);
    }
    recordAll(session, db, transaction);
  }

  /**
   * Deletes the key if its expiry has passed and records a DEL (caller holds its lock); returns
   * true if it did. The deletion is nobody's command: nothing waits for it, and a later record of
   * the key is behind it in the log.
   */
  boolean deleteIfExpired(Key key) {
    Keyspace keyspace = context.keyspace();
    if (!keyspace.isExpired(key) || !accepting()) {
      return false;
    }
    keyspace.remove(key);
    context.expiredKeys().incrementAndGet();
    context.keyspaceEvents().notify(KeyspaceEvents.EXPIRED, "expired", key.bytes(), key.db());
    byte[][] del = {DEL, key.bytes()};
    touched(key.db(), del);
    announce(null, key.db(), del, null);
    return true;
  }

  /**
   * Deletes a key of a hash slot this cluster node no longer serves and records a DEL, as Redis's
   * delKeysInSlot does: nobody's command, so nothing waits for it. Locks the key itself; returns
   * true if it deleted the key (false if it was not stored, or the log refuses writes).
   */
  public boolean deleteUnservedKey(Key key) {
    Keyspace keyspace = context.keyspace();
    if (refusals.logRefusal() != null) {
      return false;
    }
    Lock lock = keyspace.lockFor(key);
    lock.lock();
    CommandClock.enter();
    try {
      if (!keyspace.remove(key)) {
        return false;
      }
      byte[][] del = {DEL, key.bytes()};
      touched(key.db(), del);
      context.keyspaceEvents().notify(KeyspaceEvents.GENERIC, "del", key.bytes(), key.db());
      announce(null, key.db(), del, null);
      return true;
    } finally {
      CommandClock.exit();
      lock.unlock();
    }
  }

  /**
   * Returns true if the session's replies wait for the log before they are sent: it logged writes
   * since its last replies went out, and persistence is on.
   */
  public boolean awaitsLog(Session session) {
    return session.lastLogged() != 0 && context.persistence() != null;
  }

  /**
   * Makes the writes the session logged since its last replies durable per the fsync policy, before
   * the replies that acknowledge them are sent, and forgets them; returns false if some of them
   * were undone after a log failure (see {@link #acknowledged}).
   */
  public boolean acknowledge(Session session) {
    long first = session.firstLogged();
    long last = session.lastLogged();
    session.clearLogged();
    return last == 0 || log().commit(first, last);
  }

  /**
   * Returns true if the write logged as record {@code lsn} is acknowledged: durable per the fsync
   * policy and not undone after a log failure.
   */
  public boolean acknowledged(long lsn) {
    return log().acknowledged(lsn);
  }

  /** Returns the error that replaces the reply of a write whose record was undone. */
  public String undoneError() {
    String refusal = refusals.logRefusal();
    return refusal != null
        ? refusal
        : "MISCONF Errors writing to the AOF file: the write was undone";
  }

  /**
   * Returns true if a write that is nobody's command (an expired key's deletion) may run now: not
   * while the log refuses writes or clients are paused (CLIENT PAUSE), never on a replica (its
   * master sends those deletions).
   */
  boolean accepting() {
    return refusals.deletesExpired() && !context.clientPause().active();
  }

  /** Invalidates the WATCHes of the keys a write touches (its keys still locked). */
  private void touched(int db, byte[][] args) {
    if (context.watches().size() > 0) {
      table.get().keysOf(db, args, context.watches()::touch);
    }
  }

  /**
   * Records the writes gathered in {@code transaction} as one record (a single write as itself), so
   * that recovery and replicas apply all of them or none (never while replaying).
   *
   * @param db the database the transaction began in
   */
  private void recordAll(Session session, int db, Transaction transaction) {
    List<Transaction.Write> writes = transaction.writes();
    if (session.replaying() || writes.isEmpty()) {
      return;
    }
    if (transaction.hasMessages()) {
      recordWithMessages(session, db, transaction);
    } else if (writes.size() == 1) {
      announce(session, writes.get(0).db, writes.get(0).args, null);
    } else {
      announce(session, db, transaction.encode(), null);
    }
  }

  /**
   * Records a transaction in which messages were published: the log gets its writes alone, the
   * replicas every write and message in order (see {@link Transaction#addMessage}).
   */
  private void recordWithMessages(Session session, int db, Transaction transaction) {
    List<Transaction.Write> logged = transaction.loggedWrites();
    if (logged.isEmpty()) {
      synchronized (this) {
        // nothing to log; the stream moves without a record, so the next record logs its mark
        context.writeStream().record(db, null, transaction.writes(), position);
      }
    } else if (logged.size() == 1) {
      announce(session, logged.get(0).db, logged.get(0).args, transaction.writes());
    } else {
      announce(session, db, transaction.encode(), transaction.writes());
    }
  }

  /**
   * Sends a command that changes no data to the replicas once it ran, unlogged (a message
   * published: PUBLISH, SPUBLISH): at once, or into the transaction EXEC is running, in its place
   * among the transaction's writes (as Redis propagates it within the MULTI … EXEC block).
   */
  void propagate(Session session, byte[][] args) {
    Transaction transaction = session.transaction();
    if (transaction != null) {
      transaction.addMessage(session.db(), args);
    } else {
      context.writeStream().propagate(args);
    }
  }

  /**
   * Sets the stream mark in force without a record (a replica that swapped in a full transfer, or
   * stopped being a replica: {@link StreamMark#NONE}, logged at once so recovery finds it last).
   */
  void markStream(StreamMark mark) {
    synchronized (this) {
      lastMark = mark;
      markNext = true;
      if (!mark.continuable()) {
        log().append(0, mark.args());
      }
    }
  }

  /**
   * Sets the stream mark in force and logs it at once (not forced); returns its record's number (0
   * if nothing is logged).
   */
  long logMark(StreamMark mark) {
    synchronized (this) {
      lastMark = mark;
      markNext = true;
      return log().append(0, mark.args());
    }
  }

  /**
   * Logs the stream mark in force as the first record of a new log generation (a snapshot's cut).
   */
  void rotated() {
    synchronized (this) {
      if (lastMark != null) {
        log().append(0, lastMark.settled().args());
        markNext = true;
      }
    }
  }

  /**
   * Appends one record to the log and hands it to the replication stream, in one order; notes in
   * the session (if any) the record's number and the stream offset after it. {@code stream}, if not
   * null, is what replicas get instead: the record's writes with the messages published among them.
   */
  private void announce(Session session, int db, byte[][] args, List<Transaction.Write> stream) {
    long lsn;
    long offset;
    WriteLog log = log();
    synchronized (this) {
      StreamMark mark = session != null ? session.takeStreamMark() : null;
      if (stream == null) {
        context.writeStream().record(db, args, position);
      } else {
        context.writeStream().record(db, args, stream, position);
      }
      offset = position.offset();
      if (mark == null) {
        mark = position.mark();
      }
      if (mark == null && lastMark != null && lastMark.continuable()) {
        // a write that is not in the stream (a writable replica's own) moves it by nothing
        mark = lastMark;
      }
      StreamMark logged = null;
      if (mark != null) {
        if (markNext || lastMark == null || !lastMark.continuedBy(mark, db, args)) {
          // in the same log write as the record: a restarted server continues from it
          logged = mark;
        }
        lastMark = mark.settled();
        markNext = false;
      }
      lsn = log.append(db, args, logged);
    }
    if (session != null) {
      session.logged(lsn);
      session.streamOffset(offset);
    }
  }
}
