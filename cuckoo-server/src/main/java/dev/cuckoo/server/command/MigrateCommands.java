package dev.cuckoo.server.command;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.CommandClock;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.migrate.Transfer;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.KeyspaceEvents;
import dev.cuckoo.server.session.Session;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password | AUTH2 username
 * password] [KEYS key ...], with Redis's replies: each key's DUMP payload sent as RESTORE (as
 * RESTORE-ASKING in a cluster) with its remaining TTL, in one pipelined batch ({@link Transfer}).
 * Without COPY, the keys the target acknowledged are deleted here as a DEL through the write path
 * (logged, sent to replicas, a {@code del} notification each), as Redis propagates MIGRATE; a key
 * the target did not acknowledge stays.
 *
 * <p>Redis blocks the whole server while MIGRATE waits for its target. Here the network I/O runs on
 * {@link dev.cuckoo.server.migrate.TargetSockets}' threads and only the calling connection waits
 * (its reply deferred); the keys it serialized are held ({@link KeyHolds}) until the delete has
 * run, so another connection's write of one of them waits and runs after the delete, as it would
 * have after Redis's MIGRATE: no write lands between the DUMP and the DEL. Reads go on. A MIGRATE
 * inside a transaction runs whole under EXEC's locks, blocking as in Redis.
 */
final class MigrateCommands {
  static final String KEYS_NEED_EMPTY_KEY =
      "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string";

  private static final byte[] DEL = "DEL".getBytes(StandardCharsets.US_ASCII);

  private final ServerContext context;
  private final Keyspace keyspace;
  private final WritePath writes;

  /** Creates the command over the server's state and its write path. */
  MigrateCommands(ServerContext context, WritePath writes) {
    this.context = context;
    this.keyspace = context.keyspace();
    this.writes = writes;
  }

  /**
   * Returns the positions of MIGRATE's keys as Redis's {@code migrateGetKeys} finds them: the third
   * argument, or those after a KEYS option (none if the third argument is then not empty: the
   * command answers that error).
   */
  static int[] keyPositions(byte[][] args) {
    for (int i = 6; i < args.length; i++) {
      String option = Args.lower(args[i]);
      if (option.equals("keys")) {
        if (args[3].length > 0) {
          return new int[0];
        }
        int[] positions = new int[args.length - i - 1];
        for (int k = 0; k < positions.length; k++) {
          positions[k] = i + 1 + k;
        }
        return positions;
      }
      if (option.equals("auth")) {
        i++;
      } else if (option.equals("auth2")) {
        i += 2;
      }
    }
    return new int[] {3};
  }

  /** MIGRATE's options, its database and its timeout (milliseconds, 1000 for 0 or less). */
  private record Options(
      boolean copy, boolean replace, byte[] user, byte[] password, long db, long timeoutMillis) {}

  /** Parses the options as Redis does, or replies the error and returns null. */
  private static Options options(Reply reply, byte[][] args) {
    boolean copy = false;
    boolean replace = false;
    byte[] user = null;
    byte[] password = null;
    for (int i = 6; i < args.length; i++) {
      int more = args.length - 1 - i;
      String option = Args.lower(args[i]);
      if (option.equals("copy")) {
        copy = true;
      } else if (option.equals("replace")) {
        replace = true;
      } else if (option.equals("auth") && more >= 1) {
        password = args[++i];
      } else if (option.equals("auth2") && more >= 2) {
        user = args[++i];
        password = args[++i];
      } else if (option.equals("keys")) {
        if (args[3].length > 0) {
          reply.error(KEYS_NEED_EMPTY_KEY);
          return null;
        }
        break;
      } else {
        reply.error(Args.SYNTAX_ERROR);
        return null;
      }
    }
    Long timeout = Numbers.parseLong(args[5]);
    Long db = timeout == null ? null : Numbers.parseLong(args[4]);
    if (db == null) {
      reply.error(Args.NOT_INTEGER);
      return null;
    }
    return new Options(copy, replace, user, password, db, timeout <= 0 ? 1000 : timeout);
  }

  /** MIGRATE host port key|"" destination-db timeout [options] [KEYS key ...]. */
  void migrate(Session session, Request request) {
    Reply reply = session.reply();
    byte[][] args = request.args();
    Options options = options(reply, args);
    if (options == null) {
      return;
    }
    List<Key> keys = new ArrayList<>();
    List<byte[]> restores = new ArrayList<>();
    boolean asking = context.cluster() != null;
    for (Key key : request.keys()) {
      RedisCuckooFilter<byte[]> filter = keyspace.read(key);
      if (filter == null) {
        continue;
      }
      long ttl = 0;
      long expireAt = keyspace.expireAt(key);
      if (expireAt != Keyspace.NO_EXPIRY) {
        ttl = Math.max(1, expireAt - CommandClock.now());
      }
      byte[] payload = DumpCommands.payload(reply, filter);
      if (payload == null) {
        return;
      }
      keys.add(key);
      restores.add(Transfer.restore(asking, key.bytes(), ttl, payload, options.replace()));
    }
    if (keys.isEmpty()) {
      reply.simple("NOKEY");
      return;
    }
    Transfer.Batch batch =
        new Transfer.Batch(
            Args.text(args[1]),
            Args.text(args[2]),
            options.db(),
            options.timeoutMillis(),
            options.user(),
            options.password(),
            restores);
    if (session.transaction() != null || !session.retriesAllowed()) {
      migrateNow(session, request, keys, batch, options.copy());
      return;
    }
    KeyHolds.Hold hold = options.copy() ? null : request.write().hold(keys);
    CompletableFuture<Consumer<Reply>> answer = new CompletableFuture<>();
    int db = request.db();
    try {
      context
          .migrateSockets()
          .execute(
              () -> {
                try {
                  answer.complete(finish(session, hold, db, keys, batch));
                } catch (RuntimeException | Error e) {
                  answer.completeExceptionally(e);
                  throw e;
                }
              });
    } catch (RejectedExecutionException stopping) {
      writes.runDetached(hold, db, null);
      reply.error("ERR the server is stopping");
      return;
    }
    session.defer(answer);
  }

  /**
   * Runs the exchange on a migration thread, then ends the write: deletes the acknowledged keys as
   * one DEL through the write path (releasing the hold either way); returns the reply to write on
   * the caller's connection, which also waits for that DEL's record.
   */
  private Consumer<Reply> finish(
      Session session, KeyHolds.Hold hold, int db, List<Key> keys, Transfer.Batch batch) {
    Transfer.Outcome outcome = null;
    try {
      outcome = Transfer.run(context.migrateSockets(), batch);
    } finally {
      if (outcome == null && hold != null) {
        writes.runDetached(hold, db, null);
      }
    }
    Transfer.Outcome result = outcome;
    if (hold == null) {
      return out -> answer(out, result);
    }
    WritePath.Detached deleted = writes.runDetached(hold, db, deleteRecord(keys, result));
    return out -> {
      if (deleted.lsn() != 0) {
        session.logged(deleted.lsn());
      }
      if (deleted.streamOffset() != 0) {
        session.streamOffset(deleted.streamOffset());
      }
      if (deleted.refusal() != null) {
        out.error(deleted.refusal());
      } else {
        answer(out, result);
      }
    };
  }

  /**
   * Runs the whole migration on the caller's thread with its keys locked (inside EXEC, which holds
   * every lock): the acknowledged keys are deleted in this write's scope.
   */
  private void migrateNow(
      Session session, Request request, List<Key> keys, Transfer.Batch batch, boolean copy) {
    Transfer.Outcome outcome = Transfer.run(context.migrateSockets(), batch);
    byte[][] record = copy ? null : deleteRecord(keys, outcome);
    if (record != null) {
      for (int i = 1; i < record.length; i++) {
        Key key = new Key(request.db(), record[i]);
        keyspace.remove(key);
        request.write().notify(KeyspaceEvents.GENERIC, "del", key);
      }
      request.write().changed(record);
    }
    answer(session.reply(), outcome);
  }

  /** Returns DEL of the keys the target acknowledged, or null if it acknowledged none. */
  private static byte[][] deleteRecord(List<Key> keys, Transfer.Outcome outcome) {
    List<byte[]> record = new ArrayList<>();
    record.add(DEL);
    for (int i = 0; i < keys.size(); i++) {
      if (outcome.restored()[i]) {
        record.add(keys.get(i).bytes());
      }
    }
    return record.size() == 1 ? null : record.toArray(new byte[0][]);
  }

  private static void answer(Reply reply, Transfer.Outcome outcome) {
    if (outcome.error() == null) {
      reply.ok();
    } else {
      reply.error(outcome.error());
    }
  }
}
