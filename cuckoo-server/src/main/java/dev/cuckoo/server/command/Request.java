package dev.cuckoo.server.command;

import dev.cuckoo.server.cluster.SlotTable;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import dev.cuckoo.server.session.CommandRef;
import dev.cuckoo.server.session.Session;
import java.util.ArrayList;
import java.util.List;

/**
 * One request resolved against the command table: the command (or subcommand) its name found, the
 * database it runs in, its arguments as they arrived and the keys it touches. The dispatcher builds
 * it once, after the lookup and arity checks; the handler, MULTI's queue, key locking, the deletion
 * of expired keys and the write path all take it instead of re-reading the raw line.
 *
 * <p>The arguments are not copied (the array is the decoder's). The keys are found from the entry's
 * key specs and its {@link Writes#reach()} the first time they are asked for, into one small array.
 */
public final class Request implements CommandRef {
  private static final Key[] NO_KEYS = {};

  private final CommandSpec spec;
  private final int db;
  private final byte[][] args;
  private Key[] keys;
  private WriteScope write;
  // the slot table the cluster's slot check passed this request against, null if never checked
  private SlotTable slotsChecked;

  /**
   * Creates the request for a line its command accepts.
   *
   * @param spec the entry the name (and subcommand) found, with an arity that fits {@code args}
   * @param db the database the request runs in
   * @param args the line, the command name at 0
   */
  Request(CommandSpec spec, int db, byte[][] args) {
    this.spec = spec;
    this.db = db;
    this.args = args;
  }

  /**
   * Returns the requests the session's transaction queued (MULTI), in order: the requests the
   * dispatcher queued there, as this layer's type.
   */
  static List<Request> queuedIn(Session session) {
    List<CommandRef> refs = session.queued();
    List<Request> requests = new ArrayList<>(refs.size());
    for (CommandRef ref : refs) {
      requests.add((Request) ref);
    }
    return requests;
  }

  /** Notes that the cluster's slot check passed this request against {@code table}. */
  void slotsChecked(SlotTable table) {
    slotsChecked = table;
  }

  /**
   * Returns the slot table the cluster's slot check passed this request against, or null if it was
   * not checked (no cluster, or a request EXEC runs).
   */
  SlotTable slotsChecked() {
    return slotsChecked;
  }

  /** Returns the command or subcommand the request runs. */
  public CommandSpec spec() {
    return spec;
  }

  /** Returns the database the request runs in. */
  public int db() {
    return db;
  }

  /** Returns the line as it arrived, the command name at 0 (not a copy: do not change it). */
  public byte[][] args() {
    return args;
  }

  /** Returns argument {@code index} (0: the command name). */
  public byte[] arg(int index) {
    return args[index];
  }

  /** Returns the number of arguments, the command name included. */
  public int argCount() {
    return args.length;
  }

  /**
   * Returns the same request in database {@code otherDb}: a queued request runs in the database
   * selected when EXEC reaches it, which a SELECT queued before it may have changed.
   */
  public Request inDatabase(int otherDb) {
    return otherDb == db ? this : new Request(spec, otherDb, args);
  }

  /**
   * Returns the scope of the write the request runs as (set by the write path while its handler
   * runs), or null for a command that does not write.
   */
  public WriteScope write() {
    return write;
  }

  /** Sets the scope of the write the request runs as (null when it is done). */
  void write(WriteScope scope) {
    this.write = scope;
  }

  /** Returns the number of keys the request touches (0 for a whole-database write). */
  public int keyCount() {
    return keys().length;
  }

  /** Returns the {@code index}-th key the request touches, in key-spec order. */
  public Key key(int index) {
    return keys()[index];
  }

  /**
   * Returns the keys the request touches, in key-spec order (not a copy: do not change it): the
   * keys its key specs find in its database; for MOVE its key in both databases; for COPY with a
   * {@code DB} option the destination in that database. A whole-database write (FLUSHDB, FLUSHALL,
   * SWAPDB) has none: it locks everything itself.
   */
  Key[] keys() {
    if (keys == null) {
      keys = findKeys();
    }
    return keys;
  }

  private Key[] findKeys() {
    Writes writes = spec.writes();
    Writes.Reach reach = writes == null ? Writes.Reach.KEYS : writes.reach();
    return switch (reach) {
      case DATABASE, ALL_DATABASES, TWO_DATABASES, QUEUED -> NO_KEYS;
      case KEY_IN_TWO_DATABASES -> {
        Key key = new Key(db, args[1]);
        yield new Key[] {key, new Key(databaseArgument(args[2]), args[1])};
      }
      case KEYS -> keysBySpecs();
      case KEYS_TO_DATABASE_OPTION -> {
        Key[] found = keysBySpecs();
        int target = databaseOption();
        if (found.length > 0 && target >= 0) {
          found[found.length - 1] = found[found.length - 1].in(target);
        }
        yield found;
      }
    };
  }

  /**
   * Returns the keys the key specs find in the line, as Redis's getKeysUsingKeySpecs finds them, or
   * those the command's own finder finds (Redis's getkeys function).
   */
  private Key[] keysBySpecs() {
    CommandSpec.KeyFinder finder = spec.keyFinder();
    if (finder != null) {
      int[] positions = finder.positions(args);
      Key[] found = new Key[positions.length];
      for (int i = 0; i < positions.length; i++) {
        found[i] = new Key(db, args[positions[i]]);
      }
      return found;
    }
    List<KeySpec> keySpecs = spec.keySpecs();
    if (keySpecs.size() == 1) {
      // most commands name one key at a fixed position: what the loops below find, without them
      KeySpec only = keySpecs.get(0);
      if (only.byIndex() && only.lastKey() == 0 && only.index() < args.length) {
        return new Key[] {new Key(db, args[only.index()])};
      }
    }
    int count = 0;
    for (KeySpec keySpec : keySpecs) {
      count += keySpec.count(args.length);
    }
    if (count == 0) {
      return NO_KEYS;
    }
    Key[] found = new Key[count];
    int n = 0;
    for (KeySpec keySpec : keySpecs) {
      int keys = keySpec.count(args.length);
      for (int j = 0, i = keySpec.index(); j < keys; j++, i += keySpec.keyStep()) {
        found[n++] = new Key(db, args[i]);
      }
    }
    return found;
  }

  /**
   * Returns the database a {@code DB n} option after the keys names (the last one wins, as in
   * Redis's COPY), or -1 if there is none or it is not a database index.
   */
  private int databaseOption() {
    int target = -1;
    for (int i = 3; i + 1 < args.length; i++) {
      if (Args.lower(args[i]).equals("db")) {
        target = databaseArgument(args[++i]);
      }
    }
    return target;
  }

  /** Returns the database index an argument names, or -1 if it is not one. */
  static int databaseArgument(byte[] arg) {
    Long db = Numbers.parseLong(arg);
    return db == null || db < 0 || db > Integer.MAX_VALUE ? -1 : (int) (long) db;
  }

  @Override
  public String toString() {
    return spec.name() + " in db " + db + " (" + args.length + " arguments)";
  }
}
