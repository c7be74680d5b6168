package dev.cuckoo.server.command;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.keyspace.KeyspaceWrite;
import dev.cuckoo.server.keyspace.Watches;
import dev.cuckoo.server.session.Session;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.ArrayList;
import java.util.List;

/**
 * What a write handler and the write path tell each other while the write runs: the keyspace's part
 * of the write ({@link KeyspaceWrite}: its locks and the filter its key held), whether the handler
 * changed anything, and the record of the change when that is not the request itself. The write
 * path begins the scope before it takes the request's locks, and reads it when the handler returns:
 * it then records the change (log and replication stream), touches WATCH, ends the keyspace's part
 * (the filter's size change is counted, the locks released) and ends the scope (the thread's scope
 * is reused by its next write: a handler never keeps it). A handler only parses, changes and
 * replies.
 *
 * <p>It only holds what is said: on a module write of an existing key none of its methods calls
 * further. A handler that changes a filter in place opens it here ({@link #open}: the filter the
 * keyspace found when the write began), so the write path counts the filter's size change and, for
 * a module write, touches WATCH whatever the handler answers (Redis's module key opened for
 * writing). A handler about to create a value asks {@link #admits} first: maxmemory is decided by
 * the write path, never while replaying.
 */
public final class WriteScope {
  // one scope per thread, reused write after write (a write is on one thread from start to end):
  // a scope per write was 64 of the 280 bytes alloc-per-request.sh counted per CF.ADD; network
  // threads are Netty's, where a FastThreadLocal is an array index
  private static final FastThreadLocal<WriteScope> SCOPES =
      new FastThreadLocal<>() {
        @Override
        protected WriteScope initialValue() {
          return new WriteScope();
        }
      };

  // true from begin() to end(): a write that runs inside another on the same thread (a command
  // EXEC runs) uses the scope of the next depth
  private boolean inUse;
  private WriteScope inner;
  // the keyspace's part of the write, filled by the keyspace when the write begins
  private final KeyspaceWrite keyspaceWrite = new KeyspaceWrite();
  private WritePath path;
  private Session session;
  private Request request;
  private Keyspace keyspace;
  // the WATCHes a write of whole databases touches before it changes them; null: none to touch
  private Watches watches;
  // the records of the change, in order (the first kept apart: most writes have one)
  private byte[][] first;
  private List<byte[][]> more;
  // the key opened for writing; null until open() is called
  private Key opened;
  // the keyspace notifications the change raises, published once it is recorded; null: none
  private List<Event> events;

  /** A keyspace notification the write raises: its class, its name, its key. */
  record Event(int type, String name, Key key) {}

  private WriteScope() {}

  /**
   * Begins the scope of a write on this thread: the thread's scope, or while that one is in use the
   * scope of the next depth (each made once per thread); {@link #end} ends it.
   */
  static WriteScope begin(WritePath path, Session session, Request request, Keyspace keyspace) {
    WriteScope scope = SCOPES.get();
    while (scope.inUse) {
      if (scope.inner == null) {
        scope.inner = new WriteScope();
      }
      scope = scope.inner;
    }
    scope.inUse = true;
    scope.path = path;
    scope.session = session;
    scope.request = request;
    scope.keyspace = keyspace;
    return scope;
  }

  /** Ends the scope: forgets the write, so that the next one on this thread starts empty. */
  void end() {
    path = null;
    session = null;
    request = null;
    keyspace = null;
    watches = null;
    first = null;
    more = null;
    opened = null;
    events = null;
    inUse = false;
  }

  private static String name(Key key) {
    return new String(key.bytes(), java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Returns the keyspace's part of the write, for the keyspace to fill when the write begins. */
  KeyspaceWrite keyspaceWrite() {
    return keyspaceWrite;
  }

  /**
   * Sets the WATCHes a write of whole databases touches before it changes them (its locks held);
   * null: none to touch.
   */
  void touching(Watches watches) {
    this.watches = watches;
  }

  /** Notes that the request changed data and is its own record. */
  public void changed() {
    changed(request.args());
  }

  /**
   * Notes that the request changed data, recorded as {@code record} (a replay-safe form: an
   * implicit creation as CF.RESERVE with its parameters, an expiry as PEXPIREAT with the absolute
   * time). Called more than once, the records are logged as one unit. A write of whole databases (a
   * flush, a swap) says so before it changes them, so the WATCHes of the keys it is about to change
   * are touched while those keys still exist.
   */
  public void changed(byte[][] record) {
    if (first == null) {
      first = record;
      if (watches != null) {
        touchDatabases();
      }
    } else {
      if (more == null) {
        more = new ArrayList<>(2);
      }
      more.add(record);
    }
  }

  /**
   * Touches the WATCHes of the existing keys of the databases a write of whole databases changes
   * (all stripes held): the one it runs in, every one, or the two it swaps.
   */
  void touchDatabases() {
    switch (request.spec().writes().reach()) {
      case DATABASE -> watches.touchDatabase(request.db(), keyspace);
      case ALL_DATABASES -> watches.touchDatabase(-1, keyspace);
      case TWO_DATABASES -> {
        watches.touchDatabase(Request.databaseArgument(request.arg(1)), keyspace);
        watches.touchDatabase(Request.databaseArgument(request.arg(2)), keyspace);
      }
      default -> {
        // a write of keys: the write path touches them after the handler
      }
    }
  }

  /**
   * Opens a key for writing and returns its filter, or null if the key does not exist: its size
   * change is counted and, for a module write, its WATCHes are touched whatever the handler
   * answers. The key is the write's own, its first (the one the keyspace looked up when the write
   * began).
   *
   * @throws IllegalArgumentException if {@code key} is not the write's first key of a module write
   */
  public RedisCuckooFilter<byte[]> open(Key key) {
    Key openable = keyspaceWrite.openable();
    if (key != openable && !key.equals(openable)) {
      throw new IllegalArgumentException(
          "key: "
              + name(key)
              + " (expected: the module write's first key, "
              + (openable == null ? "none" : name(openable))
              + ")");
    }
    opened = key;
    return keyspaceWrite.filter();
  }

  /**
   * Stores the filter the handler created under the key it opened (absent then): counted at its
   * size now, and its size change until the write ends as an opened filter's (CF.INSERT may grow
   * the filter it created).
   */
  public void create(Key key, RedisCuckooFilter<byte[]> filter) {
    keyspace.putOpened(keyspaceWrite, key, filter);
  }

  /**
   * Returns true if a value of {@code bytes} may be created under {@code key} now; false if it
   * would pass maxmemory (the handler answers {@link Commands#OOM}). Never false while replaying.
   */
  public boolean admits(Key key, long bytes) {
    return path.admits(session, key, bytes);
  }

  /**
   * Raises keyspace notification {@code name} of class {@code type} ({@link
   * dev.cuckoo.server.pubsub.KeyspaceEvents}) on {@code key}: published after the change is
   * recorded, if notify-keyspace-events turns that class on.
   */
  public void notify(int type, String name, Key key) {
    if (events == null) {
      events = new ArrayList<>(2);
    }
    events.add(new Event(type, name, key));
  }

  /**
   * Holds {@code keys} (of this write, locked now) past the handler's return, for a write whose end
   * runs later: other connections' writes of them wait until {@link WritePath#runDetached} ends the
   * write and releases them. Returns the hold to hand to it.
   */
  KeyHolds.Hold hold(List<Key> keys) {
    return path.hold(session, keys);
  }

  /** Returns the notifications the handler raised, in order. */
  List<Event> events() {
    return events == null ? List.of() : events;
  }

  /** Returns true if the handler said it changed data. */
  boolean hasChanges() {
    return first != null;
  }

  /** Returns the first record of the change (null if nothing changed). */
  byte[][] firstRecord() {
    return first;
  }

  /** Returns the records after the first (empty for most writes). */
  List<byte[][]> moreRecords() {
    return more == null ? List.of() : more;
  }

  /** Returns the key opened for writing, or null. */
  Key opened() {
    return opened;
  }
}
