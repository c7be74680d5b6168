package dev.cuckoo.server.command;

import dev.cuckoo.server.cluster.HashSlots;
import dev.cuckoo.server.cluster.SlotTable;
import dev.cuckoo.server.cluster.SlotTable.Route;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.session.Session;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * The cluster's slot check: decides from a request's keys (or, for EXEC, from the keys of every
 * queued request together) whether this node serves it, as Redis's {@code getNodeByQuery} does, and
 * answers the redirect or refusal with Redis's text otherwise. It reads a published {@link
 * SlotTable} and the existence of keys only; it never takes the cluster state's monitor.
 */
final class SlotCheck {
  static final String CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot";
  static final String TRYAGAIN = "TRYAGAIN Multiple keys request during rehashing of slot";
  static final String DOWN = "CLUSTERDOWN The cluster is down";
  static final String DOWN_READS_ONLY =
      "CLUSTERDOWN The cluster is down and only accepts read commands";
  static final String UNBOUND = "CLUSTERDOWN Hash slot not served";

  private SlotCheck() {}

  /**
   * What the check needs to know about the connection and the server besides the keys.
   *
   * @param asking the connection sent ASKING (for this command or the transaction)
   * @param readOnly the connection sent READONLY
   * @param allowReadsWhenDown cluster-allow-reads-when-down
   * @param exists whether a key exists in database 0 (expired keys do not)
   */
  record Context(
      boolean asking, boolean readOnly, boolean allowReadsWhenDown, Predicate<byte[]> exists) {}

  /**
   * Returns the refusal or redirect for a request of {@code session} against {@code table}, or null
   * if this node serves it: for EXEC, from the keys of every queued request together. Requests from
   * the master, the log's replay, keyless requests and commands MULTI refuses anyway are not
   * checked.
   *
   * @param context the server (cluster-allow-reads-when-down, the keyspace)
   * @param session the connection (ASKING, READONLY, its transaction)
   * @param request the request
   * @param table the slot table to check against
   */
  static String refusal(ServerContext context, Session session, Request request, SlotTable table) {
    CommandSpec spec = request.spec();
    if (session.fromMaster() || session.replaying() || session.inMulti() && spec.noMulti()) {
      return null;
    }
    boolean exec = spec.writes() == Writes.TRANSACTION;
    if (!exec && request.keyCount() == 0 || exec && !session.inMulti()) {
      return null;
    }
    Context flags =
        new Context(
            session.asking(),
            session.readOnly(),
            context.clusterAllowReadsWhenDown(),
            name -> context.keyspace().peek(new Key(name)) != null);
    boolean asking = spec.flags().contains("asking");
    if (!exec) {
      return refusal(table, request.keys(), spec.write(), asking, flags);
    }
    List<Key[]> keySets = new ArrayList<>();
    boolean write = false;
    for (Request queued : Request.queuedIn(session)) {
      keySets.add(queued.keys());
      write |= queued.spec().write();
    }
    return refusal(table, keySets, write, asking, flags);
  }

  /**
   * Checks a request that passed the slot check again, under its keys' locks: returns the redirect
   * or refusal it gets now, or null if this node still serves it. It is checked again if the
   * cluster published a new slot table since (a slot this node lost in between is being emptied: a
   * write let through would leave a key behind there), or if its slot is migrating from this node
   * or importing to it, where the answer depends on whether its keys exist: MIGRATE deletes a key
   * it moved under the key's lock, so a request that found the key before that must not create it
   * again here or read it as missing — it is sent to the target with ASK, as Redis, which runs one
   * command at a time, would have sent it.
   *
   * @param context the server (its cluster's slot table, the keyspace)
   * @param session the connection
   * @param request the request, with the table it passed ({@link Request#slotsChecked})
   */
  static String recheck(ServerContext context, Session session, Request request) {
    SlotTable checked = request.slotsChecked();
    if (checked == null) {
      return null;
    }
    SlotTable now = context.cluster().slotTable();
    if (now == checked && !decidedByKeys(now, session, request)) {
      return null;
    }
    return refusal(context, session, request, now);
  }

  /**
   * Returns true if the request's slot (that of its first key, or for EXEC of the first key queued)
   * is migrating from this node or importing to it in {@code table}.
   */
  private static boolean decidedByKeys(SlotTable table, Session session, Request request) {
    if (!table.hasMigrations()) {
      return false;
    }
    Key first = null;
    if (request.keyCount() > 0) {
      first = request.key(0);
    } else if (request.spec().writes() == Writes.TRANSACTION) {
      for (Request queued : Request.queuedIn(session)) {
        if (queued.keyCount() > 0) {
          first = queued.key(0);
          break;
        }
      }
    }
    if (first == null) {
      return false;
    }
    int slot = HashSlots.slot(first.bytes());
    return table.migratingTo(slot) != null || table.importingFrom(slot) != null;
  }

  /**
   * Returns the refusal or redirect for one request's keys, or null if this node serves it.
   *
   * @param table the slot table in force
   * @param keys the request's keys
   * @param write whether the request writes
   * @param askingCommand whether the command itself counts as asking (RESTORE-ASKING)
   * @param context the connection's flags and the keyspace
   */
  static String refusal(
      SlotTable table, Key[] keys, boolean write, boolean askingCommand, Context context) {
    if (keys.length == 0) {
      return null;
    }
    return refusal(table, List.<Key[]>of(keys), write, askingCommand, context);
  }

  /**
   * Returns the refusal or redirect for the keys of several requests checked together (a
   * transaction's queue at EXEC), or null if this node serves them.
   *
   * @param table the slot table in force
   * @param keySets each request's keys
   * @param write whether any of the requests writes
   * @param askingCommand whether the command itself counts as asking
   * @param context the connection's flags and the keyspace
   */
  static String refusal(
      SlotTable table, List<Key[]> keySets, boolean write, boolean askingCommand, Context context) {
    byte[] firstKey = null;
    int slot = -1;
    Route owner = null;
    boolean migrating = false;
    boolean importing = false;
    boolean multipleKeys = false;
    int missing = 0;
    int existing = 0;
    for (Key[] keys : keySets) {
      for (Key key : keys) {
        byte[] name = key.bytes();
        int keySlot = HashSlots.slot(name);
        if (firstKey == null) {
          firstKey = name;
          slot = keySlot;
          owner = table.owner(slot);
          if (owner == null) {
            return UNBOUND;
          }
          if (owner.myself() && table.migratingTo(slot) != null) {
            migrating = true;
          } else if (table.importingFrom(slot) != null) {
            importing = true;
          }
        } else {
          if (keySlot != slot) {
            return CROSSSLOT;
          }
          if (importing && !multipleKeys && !Arrays.equals(firstKey, name)) {
            multipleKeys = true;
          }
        }
        if (migrating || importing) {
          if (context.exists().test(name)) {
            existing++;
          } else {
            missing++;
          }
        }
      }
    }
    if (owner == null) {
      return null;
    }
    if (!table.ok()) {
      if (!context.allowReadsWhenDown()) {
        return DOWN;
      }
      if (write) {
        return DOWN_READS_ONLY;
      }
    }
    if (migrating && missing > 0) {
      return existing > 0 ? TRYAGAIN : redirect("ASK", slot, table.migratingTo(slot));
    }
    if (importing && (context.asking() || askingCommand)) {
      return multipleKeys && missing > 0 ? TRYAGAIN : null;
    }
    if (context.readOnly() && !write && table.myMaster() == owner) {
      return null;
    }
    return owner.myself() ? null : redirect("MOVED", slot, owner);
  }

  private static String redirect(String kind, int slot, Route node) {
    return kind + " " + slot + " " + node.endpoint();
  }
}
