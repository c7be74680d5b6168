package dev.cuckoo.server.command;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.keyspace.Watches;
import dev.cuckoo.server.session.Session;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.ArrayList;
import java.util.List;

/**
 * What a write handler tells the write path while it runs: whether it changed anything, and the
 * record of the change when that is not the request itself. The write path begins the scope after
 * taking the request's locks and deciding its refusal, and reads it when the handler returns: it
 * then records the change (log and replication stream), counts memory and touches WATCH, and ends
 * the scope (the thread's scope is reused by its next write: a handler never keeps it). A handler
 * only parses, changes and replies.
 *
 * <p>A handler that changes a filter in place opens it here ({@link #open}), so the write path
 * counts the filter's size change and, for a module write, touches WATCH whatever the handler
 * answers (Redis's module key opened for writing). A handler about to create a value asks {@link
 * #admits} first: maxmemory is decided by the write path, never while replaying.
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

  // true from begin() to end(): a write that runs inside another on the same thread gets its own
  private boolean inUse;
  private WritePath path;
  private Session session;
  private Request request;
  private Keyspace keyspace;
  // the WATCHes a write of whole databases touches before it changes them; null: none to touch
  private Watches watches;
  // the records of the change, in order (the first kept apart: most writes have one)
  private byte[][] first;
  private List<byte[][]> more;
  // the filter opened for writing and its size then; opened is null until open() is called
  private Key opened;
  private RedisCuckooFilter<byte[]> openedFilter;
  private long openedBytes;
  // the keyspace notifications the change raises, published once it is recorded; null: none
  private List<Event> events;

  /** A keyspace notification the write raises: its class, its name, its key. */
  record Event(int type, String name, Key key) {}

  private WriteScope() {}

  /**
   * Begins the scope of a write on this thread: the thread's scope, or a new one while that one is
   * in use; {@link #end} ends it.
   */
  static WriteScope begin(
      WritePath path, Session session, Request request, Keyspace keyspace, Watches watches) {
    WriteScope scope = SCOPES.get();
    if (scope.inUse) {
      scope = new WriteScope();
    }
    scope.inUse = true;
    scope.path = path;
    scope.session = session;
    scope.request = request;
    scope.keyspace = keyspace;
    scope.watches = watches;
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
    openedFilter = null;
    openedBytes = 0;
    events = null;
    inUse = false;
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
   * answers.
   */
  public RedisCuckooFilter<byte[]> open(Key key) {
    RedisCuckooFilter<byte[]> filter = keyspace.get(key);
    opened = key;
    openedFilter = filter;
    openedBytes = filter == null ? 0 : filter.sizeInBytes();
    return filter;
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

  /** Returns the filter the opened key held when it was opened (null: none). */
  RedisCuckooFilter<byte[]> openedFilter() {
    return openedFilter;
  }

  /** Returns the size of the opened filter when it was opened. */
  long openedBytes() {
    return openedBytes;
  }
}
