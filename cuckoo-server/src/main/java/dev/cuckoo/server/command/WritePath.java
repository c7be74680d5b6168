package dev.cuckoo.server.command;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.persist.StreamMark;
import dev.cuckoo.server.persist.Transaction;
import dev.cuckoo.server.replication.Replication;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * The one way a write goes: decided (refused or not), recorded as one record (a single command, or
 * a whole EXEC) and announced to the log and the replication stream, in log order.
 *
 * <p>Refusals are decided here, in Redis's order: a log that cannot be written (MISCONF), too few
 * good replicas (NOREPLICAS), a read-only replica (READONLY); then, for commands that may grow
 * memory, maxmemory (OOM). Neither the recovery session nor the replica's link to its master is
 * ever refused. Announcing holds one lock across the log append and the stream, so replicas get
 * exactly the records the log gets, in the same order, with persistence on or off.
 *
 * <p>A write of one key's filter runs through {@link #writeKey}: the refusal under the lock, the
 * creating transaction and the memory count are decided there, not per command.
 */
public final class WritePath {
  /**
   * Code a write runs with its key's stripe held; the filter is null when the key does not exist.
   */
  @FunctionalInterface
  interface KeyWrite {
    /** Runs the write of {@code key}, whose filter is {@code filter} (null: no such key). */
    void run(Key key, RedisCuckooFilter<byte[]> filter);
  }

  private final ServerContext context;
  private final WriteLog log;
  private final Supplier<CommandTable> table;
  // where the logged records leave the stream (settled; guarded by this); see StreamMark
  private StreamMark lastMark;
  // true after a position alone was logged (or set): the next record logs its own mark, since a
  // position followed by a record reads as that record's mark
  private boolean markNext = true;

  /**
   * Creates the write path over the log; {@code table} answers which keys a write touches (for
   * WATCH).
   */
  WritePath(ServerContext context, WriteLog log, Supplier<CommandTable> table) {
    this.context = context;
    this.log = log;
    this.table = table;
  }

  /**
   * Returns the error a write of this session gets now (without the dash), or null: MISCONF,
   * NOREPLICAS, READONLY; OOM too if {@code denyOom} and maxmemory is exceeded.
   */
  String refusal(Session session, boolean denyOom) {
    if (session.replaying() || session.fromMaster()) {
      return null;
    }
    String refusal = log.refusal();
    if (refusal == null) {
      refusal = context.writeStream().refusal();
    }
    if (refusal == null && denyOom && context.keyspace().usedBytes() > context.memoryLimit()) {
      refusal = Commands.OOM;
    }
    return refusal;
  }

  /**
   * Returns true if a command without the {@code stale} flag is refused with MASTERDOWN for this
   * session: a replica whose link is down with replica-serve-stale-data no.
   */
  boolean masterDown(Session session) {
    Replication replication = context.replication();
    return replication != null
        && !session.replaying()
        && !session.fromMaster()
        && replication.masterDown();
  }

  /**
   * Answers the session's write with the refusal and returns true if writes are refused now (not
   * counting maxmemory, which the dispatcher decides before the command runs).
   */
  boolean refuses(Session session) {
    String refusal = refusal(session, false);
    if (refusal != null) {
      session.reply().error(refusal);
      return true;
    }
    return false;
  }

  /**
   * Runs a write of one key's filter with the key's exclusive stripe lock held:
   *
   * <ol>
   *   <li>writes refused now (checked under the lock, so no write starts after a log failure has
   *       been handled) answer the refusal and change nothing;
   *   <li>a write that creates the key logs its creation and its change as one record, so a crash
   *       between two records never leaves an empty filter that no client saw;
   *   <li>the keyspace's memory count follows the filter's size change;
   *   <li>a command whose entry says it touches WATCH whenever it opens its key (a module write)
   *       does so whatever it answered.
   * </ol>
   */
  void writeKey(Session session, Request request, Key key, KeyWrite write) {
    Keyspace keyspace = context.keyspace();
    Lock lock = keyspace.lockFor(key);
    lock.lock();
    try {
      RedisCuckooFilter<byte[]> before = keyspace.get(key);
      if (refuses(session)) {
        return;
      }
      long sizeBefore = before == null ? 0 : before.sizeInBytes();
      Transaction creating =
          before == null && !session.replaying() && session.transaction() == null
              ? new Transaction()
              : null;
      if (creating == null) {
        write.run(key, before);
      } else {
        session.transaction(creating);
        try {
          write.run(key, before);
        } finally {
          session.transaction(null);
        }
        recordAll(session, session.db(), creating);
      }
      RedisCuckooFilter<byte[]> after = keyspace.get(key);
      if (after == before && after != null) {
        keyspace.adjustUsed(after.sizeInBytes() - sizeBefore);
      }
      Writes writes = request.spec().writes();
      if (!session.replaying() && writes != null && writes.touchesWatchAlways()) {
        context.watches().touch(key);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns true if a write that is nobody's command (an expired key's deletion) may run now: not
   * while the log refuses writes or clients are paused (CLIENT PAUSE), never on a replica (its
   * master sends those deletions).
   */
  boolean accepting() {
    return log.refusal() == null
        && context.writeStream().deletesExpired()
        && !context.clientPause().active();
  }

  /** Invalidates the WATCHes of the keys a write touches (its keys still locked). */
  void touched(int db, byte[][] args) {
    if (context.watches().size() > 0) {
      table.get().keysOf(db, args, context.watches()::touch);
    }
  }

  /**
   * Records a write the session made (not while replaying): announces it and notes its number in
   * the session, or, while a transaction runs, adds it to the transaction's single record.
   */
  void record(Session session, byte[][] args) {
    if (session.replaying()) {
      return;
    }
    touched(session.db(), args);
    add(session, session.db(), args);
  }

  /**
   * Records the request's own line as the session's write, as {@link #record(Session, byte[][])}
   * does; the WATCHes it invalidates are those of the keys the request already found.
   */
  void record(Session session, Request request) {
    if (session.replaying()) {
      return;
    }
    if (context.watches().size() > 0) {
      for (Key key : request.keys()) {
        context.watches().touch(key);
      }
    }
    add(session, request.db(), request.args());
  }

  private void add(Session session, int db, byte[][] args) {
    Transaction transaction = session.transaction();
    if (transaction != null) {
      transaction.add(db, args);
    } else {
      announce(session, db, args, null);
    }
  }

  /**
   * Records the writes gathered in {@code transaction} as one record (a single write as itself), so
   * that recovery and replicas apply all of them or none (never while replaying).
   *
   * @param db the database the transaction began in
   */
  void recordAll(Session session, int db, Transaction transaction) {
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
        context.writeStream().record(db, null, transaction.writes());
      }
    } else if (logged.size() == 1) {
      announce(session, logged.get(0).db, logged.get(0).args, transaction.writes());
    } else {
      announce(session, db, transaction.encode(), transaction.writes());
    }
  }

  /**
   * Records the deletion of an expired key (caller holds its lock): nobody's command, so nothing
   * waits for it.
   */
  void expired(Key key, byte[][] del) {
    touched(key.db(), del);
    announce(null, key.db(), del, null);
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
        log.append(0, mark.args());
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
      return log.append(0, mark.args());
    }
  }

  /**
   * Logs the stream mark in force as the first record of a new log generation (a snapshot's cut).
   */
  void rotated() {
    synchronized (this) {
      if (lastMark != null) {
        log.append(0, lastMark.settled().args());
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
    synchronized (this) {
      StreamMark mark = session != null ? session.takeStreamMark() : null;
      offset =
          stream == null
              ? context.writeStream().record(db, args)
              : context.writeStream().record(db, args, stream);
      if (mark == null) {
        mark = context.writeStream().takeRecordMark();
      }
      if (mark == null && lastMark != null && lastMark.continuable()) {
        // a write that is not in the stream (a writable replica's own) moves it by nothing
        mark = lastMark;
      }
      if (mark != null) {
        if (markNext || lastMark == null || !lastMark.continuedBy(mark, db, args)) {
          // in the same log write as the record: a restarted server continues from it
          log.append(0, mark.args());
        }
        lastMark = mark.settled();
        markNext = false;
      }
      lsn = log.append(db, args);
    }
    if (session != null) {
      session.logged(lsn);
      session.streamOffset(offset);
    }
  }
}
