package dev.cuckoo.server.command;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.KeyspaceEvents;
import dev.cuckoo.server.session.Session;

/**
 * Commands that move a filter between keys or databases: RENAME, RENAMENX, MOVE, SWAPDB, and COPY
 * (which Redis 8 refuses for this module's keys). A filter moves with its expiry.
 *
 * <p>These are logged as given and replayed whole, which is only exact if no snapshot is being
 * written meanwhile (a fuzzy snapshot could hold the source before the move and the destination
 * after it): their entries say they move data, so the write path takes the persistence's move gate
 * before their locks, and a connection that finds a snapshot running runs the command again when it
 * is done, without blocking its event loop.
 */
public final class MoveCommands {
  private static final String SAME_OBJECT = "ERR source and destination objects are the same";

  private final Keyspace keyspace;
  private final ConnectionCommands connection;

  /** Creates the commands over the server's keyspace. */
  MoveCommands(ServerContext context, ConnectionCommands connection) {
    this.keyspace = context.keyspace();
    this.connection = connection;
  }

  /** RENAME key newkey. */
  void rename(Session session, Request request) {
    rename(session, request, false);
  }

  /** RENAMENX key newkey. */
  void renameNx(Session session, Request request) {
    rename(session, request, true);
  }

  private void rename(Session session, Request request, boolean nx) {
    Key source = request.key(0);
    Key target = request.key(1);
    Reply reply = session.reply();
    RedisCuckooFilter<byte[]> filter = keyspace.get(source);
    if (filter == null) {
      reply.error("ERR no such key");
      return;
    }
    if (source.equals(target)) {
      if (nx) {
        reply.integer(0);
      } else {
        reply.ok();
      }
      return;
    }
    if (keyspace.get(target) != null && nx) {
      reply.integer(0);
      return;
    }
    transfer(source, target, filter);
    request.write().changed();
    request.write().notify(KeyspaceEvents.GENERIC, "rename_from", source);
    request.write().notify(KeyspaceEvents.GENERIC, "rename_to", target);
    if (nx) {
      reply.integer(1);
    } else {
      reply.ok();
    }
  }

  /** Moves the filter and its expiry from source to target, replacing what target held. */
  private void transfer(Key source, Key target, RedisCuckooFilter<byte[]> filter) {
    long expireAt = keyspace.expireAt(source);
    keyspace.remove(target);
    keyspace.remove(source);
    keyspace.put(target, filter);
    if (expireAt != Keyspace.NO_EXPIRY) {
      keyspace.expireAt(target, expireAt);
    }
  }

  /** MOVE key db. */
  void move(Session session, Request request) {
    if (connection.clusterMode()) {
      session.reply().error("ERR MOVE is not allowed in cluster mode");
      return;
    }
    byte[][] args = request.args();
    int db = connection.databaseIndex(session, args[2]);
    if (db < 0) {
      return;
    }
    if (db == session.db()) {
      session.reply().error(SAME_OBJECT);
      return;
    }
    Key source = request.key(0);
    Key target = source.in(db);
    RedisCuckooFilter<byte[]> filter = keyspace.get(source);
    if (filter == null || keyspace.get(target) != null) {
      session.reply().integer(0);
      return;
    }
    transfer(source, target, filter);
    request.write().changed();
    request.write().notify(KeyspaceEvents.GENERIC, "move_from", source);
    request.write().notify(KeyspaceEvents.GENERIC, "move_to", target);
    session.reply().integer(1);
  }

  /** SWAPDB index1 index2. */
  void swapDb(Session session, Request request) {
    if (connection.clusterMode()) {
      session.reply().error("ERR SWAPDB is not allowed in cluster mode");
      return;
    }
    byte[][] args = request.args();
    Long first = Numbers.parseLong(args[1]);
    if (first == null || first != (int) (long) first) {
      session.reply().error("ERR invalid first DB index");
      return;
    }
    Long second = Numbers.parseLong(args[2]);
    if (second == null || second != (int) (long) second) {
      session.reply().error("ERR invalid second DB index");
      return;
    }
    if (first < 0
        || first >= keyspace.databases()
        || second < 0
        || second >= keyspace.databases()) {
      session.reply().error(Args.DB_OUT_OF_RANGE);
      return;
    }
    int a = (int) (long) first;
    int b = (int) (long) second;
    if (a != b) {
      // said before the swap: the WATCHes of the keys both databases hold now are touched (the
      // write path touches those they hold after it)
      request.write().changed();
      keyspace.swap(a, b);
    }
    session.reply().ok();
  }

  /**
   * COPY source destination [DB index] [REPLACE]: Redis's checks in Redis's order; copying a filter
   * is refused as Redis 8 refuses it for this module's keys.
   */
  void copy(Session session, Request request) {
    byte[][] args = request.args();
    Reply reply = session.reply();
    int db = session.db();
    boolean replace = false;
    for (int i = 3; i < args.length; i++) {
      String option = Args.lower(args[i]);
      if (option.equals("replace")) {
        replace = true;
      } else if (option.equals("db") && i + 1 < args.length) {
        db = connection.databaseIndex(session, args[++i]);
        if (db < 0) {
          return;
        }
      } else {
        reply.error("ERR syntax error");
        return;
      }
    }
    if (connection.clusterMode() && (session.db() != 0 || db != 0)) {
      reply.error("ERR Copying to another database is not allowed in cluster mode");
      return;
    }
    Key source = request.key(0);
    Key target = new Key(db, args[2]);
    if (source.equals(target)) {
      reply.error(SAME_OBJECT);
      return;
    }
    if (keyspace.get(source) == null || keyspace.get(target) != null && !replace) {
      reply.integer(0);
      return;
    }
    reply.error("ERR not supported for this module key");
  }
}
