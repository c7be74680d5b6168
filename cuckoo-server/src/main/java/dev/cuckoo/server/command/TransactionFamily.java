package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.key;
import static dev.cuckoo.server.command.CommandSpec.command;

import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.keyspace.Watches;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;
import java.util.List;
import java.util.Map;

/**
 * The transaction commands: MULTI, EXEC, DISCARD, WATCH and UNWATCH. Flags, categories and key
 * specs as Redis 8 reports them; docs from Redis's command JSON.
 *
 * <p>The handlers answer as Redis 8 does.
 *
 * <p>EXEC is a write of its own to the write path: it runs the queued commands with every stripe
 * locked, so no other client sees or changes anything in between, and their writes are logged as
 * one record (see {@link dev.cuckoo.server.persist.Transaction}): recovery replays all of them or
 * none, and a failed log write undoes all of them. A transaction that moves data between keys
 * (RENAME, MOVE, SWAPDB) first takes the persistence's move gate, as those commands do alone. A
 * WATCHed key changed by anyone (or expired) since WATCH makes EXEC answer a null array without
 * running anything.
 */
final class TransactionFamily {
  static final String EXECABORT_QUEUED =
      "EXECABORT Transaction discarded because of previous errors.";

  private static final String EXECABORT_BECAUSE = "EXECABORT Transaction discarded because of: ";

  private final Commands commands;
  private final ServerContext context;
  private final Keyspace keyspace;

  /** Creates the commands; {@code commands} runs the queued commands at EXEC. */
  TransactionFamily(Commands commands, ServerContext context) {
    this.commands = commands;
    this.context = context;
    this.keyspace = context.keyspace();
  }

  /** MULTI. */
  void multi(Session session, Request request) {
    if (session.inMulti()) {
      session.reply().error("ERR MULTI calls can not be nested");
      return;
    }
    session.beginMulti();
    session.reply().ok();
  }

  /** DISCARD. */
  void discard(Session session, Request request) {
    if (!session.inMulti()) {
      session.reply().error("ERR DISCARD without MULTI");
      return;
    }
    end(session);
    session.reply().ok();
  }

  /** Ends the transaction: forgets the queue and the watched keys. */
  void end(Session session) {
    end(session, context.watches());
  }

  private static void end(Session session, Watches watches) {
    session.takeQueue();
    watches.unwatchAll(session);
  }

  /**
   * Discards the transaction being queued and the connection's watches (Redis's
   * discardTransaction).
   */
  static void discard(Session session, Watches watches) {
    end(session, watches);
  }

  /**
   * Answers an EXEC refused before it ran (wrong number of arguments, NOAUTH) as Redis's
   * rejectCommand does: the transaction, if any, is discarded and the reply is EXECABORT with the
   * reason, outside MULTI as well. {@code error} is the reply the refusal gives other commands.
   */
  static void reject(Session session, Watches watches, String error) {
    end(session, watches);
    String reason = error.startsWith("ERR ") ? error.substring("ERR ".length()) : error;
    session.reply().error(EXECABORT_BECAUSE + reason);
  }

  /** WATCH key [key ...]. */
  void watch(Session session, Request request) {
    if (session.inMulti()) {
      session.reply().error("ERR WATCH inside MULTI is not allowed");
      return;
    }
    for (Key key : request.keys()) {
      context.watches().watch(session, key, keyspace.isExpired(key));
    }
    session.reply().ok();
  }

  /** UNWATCH. */
  void unwatch(Session session, Request request) {
    context.watches().unwatchAll(session);
    session.reply().ok();
  }

  /**
   * EXEC: the write path holds every stripe (and the move gate if the queue moves data) and decided
   * the refusal of the queued writes; their records go into the transaction it logs.
   */
  void exec(Session session, Request request) {
    Reply reply = session.reply();
    if (!session.inMulti()) {
      reply.error("ERR EXEC without MULTI");
      return;
    }
    if (session.queueFailed()) {
      end(session);
      reply.error(EXECABORT_QUEUED);
      return;
    }
    if (session.watchTouched() || watchedKeyExpired(session)) {
      end(session);
      reply.nullArray();
      return;
    }
    List<Request> queued = Request.queuedIn(session);
    end(session);
    run(session, queued);
  }

  private boolean watchedKeyExpired(Session session) {
    for (Map.Entry<Key, Boolean> watched : session.watched().entrySet()) {
      if (!watched.getValue() && keyspace.isExpired(watched.getKey())) {
        return true;
      }
    }
    return false;
  }

  /** Runs the queued commands (every stripe locked), none of them asking to run again later. */
  private void run(Session session, List<Request> queued) {
    boolean retries = session.retriesAllowed();
    session.retriesAllowed(false);
    try {
      session.reply().array(queued.size());
      for (Request request : queued) {
        // resolved when queued; runs in the database selected now (a queued SELECT changes it)
        commands.execute(session, request.inDatabase(session.db()));
      }
    } finally {
      session.retriesAllowed(retries);
    }
  }

  /**
   * Returns the entries, bound to handlers built from {@code parts}.
   *
   * @param parts what the handlers are built from
   */
  static List<CommandSpec.Builder> entries(Families.Parts parts) {
    TransactionFamily tx = new TransactionFamily(parts.commands(), parts.context());
    return List.of(
        command("multi")
            .arity(1)
            .flags("noscript", "loading", "stale", "fast", "allow_busy")
            .categories("fast", "transaction")
            .runsInsideMulti()
            .summary("Starts a transaction.")
            .group("transactions")
            .since("1.2.0")
            .complexity("O(1)")
            .handler(tx::multi),
        command("exec")
            .arity(1)
            .flags("noscript", "loading", "stale", "skip_slowlog")
            .categories("slow", "transaction")
            .runsInsideMulti()
            .writes(Writes.TRANSACTION)
            .summary("Executes all commands in a transaction.")
            .group("transactions")
            .since("1.2.0")
            .complexity("Depends on commands in the transaction")
            .handler(tx::exec),
        command("discard")
            .arity(1)
            .flags("noscript", "loading", "stale", "fast", "allow_busy")
            .categories("fast", "transaction")
            .runsInsideMulti()
            .summary("Discards a transaction.")
            .group("transactions")
            .since("2.0.0")
            .complexity("O(N), when N is the number of queued commands")
            .handler(tx::discard),
        command("watch")
            .arity(-2)
            .flags("noscript", "loading", "stale", "fast", "allow_busy")
            .categories("fast", "transaction")
            .keys(KeySpec.range(1, -1, 1, "RO"))
            .runsInsideMulti()
            .summary("Monitors changes to keys to determine the execution of a transaction.")
            .group("transactions")
            .since("2.2.0")
            .complexity("O(1) for every key.")
            .arguments(key("key", 0).multiple())
            .handler(tx::watch),
        command("unwatch")
            .arity(1)
            .flags("noscript", "loading", "stale", "fast", "allow_busy")
            .categories("fast", "transaction")
            .summary("Forgets about watched keys of a transaction.")
            .group("transactions")
            .since("2.2.0")
            .complexity("O(1)")
            .handler(tx::unwatch));
  }
}
