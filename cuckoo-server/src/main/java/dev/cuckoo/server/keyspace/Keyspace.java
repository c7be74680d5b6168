package dev.cuckoo.server.keyspace;

import dev.cuckoo.RedisCuckooFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The databases: keys (a database index and a name) mapped to cuckoo filters, with optional expiry
 * times, guarded by striped locks.
 *
 * <p>Expiry: a key whose expiry time has passed (by the {@link CommandClock} of the command
 * looking) is invisible to {@link #get} although it is still stored; it is deleted, and the
 * deletion logged, by the next write command on it or by the active expiry cycle. While {@link
 * #loading} (replaying the log), nothing expires, as the records must meet the keys they met when
 * they were written.
 *
 * <p>Execution model: commands run on the network thread that read them. A command on one key holds
 * that key's stripe lock for its whole execution, including its append-log record, so each command
 * is atomic. Stripes are read-write locks: commands that only read a filter (CF.EXISTS, CF.MEXISTS,
 * CF.COUNT, CF.INFO, CF.DEBUG, CF.SCANDUMP, TYPE) share the read lock, so lookups on one key
 * proceed on several threads at once, while writers hold the write lock alone and the log holds the
 * writes of one key in the order they were applied. Commands on several keys lock their stripes in
 * ascending stripe order; commands on the whole database (FLUSHALL, KEYS, SCAN, DBSIZE, SAVE) lock
 * every stripe in that order, so no lock order cycle exists. Commands of one connection run in
 * order on one thread, so pipelined replies come back in request order. Different keys proceed in
 * parallel on different threads.
 */
public final class Keyspace {
  /** Number of lock stripes (a power of two). */
  static final int STRIPES = 256;

  /** Number of map segments (a power of two); SCAN's cursor names the segment in its high bits. */
  static final int SEGMENTS = 4096;

  private static final int SEGMENT_SHIFT = 32 - Integer.numberOfTrailingZeros(SEGMENTS);

  /** Databases of a keyspace built without a count (Redis's default). */
  static final int DEFAULT_DATABASES = 16;

  /** No expiry time. */
  public static final long NO_EXPIRY = -1;

  /*
   * Heap bytes of the keyspace's own objects per key, from the object layout of a 64-bit JVM with
   * compressed references and 12-byte object headers (the default below 32 GiB of heap), checked
   * against a heap walk in KeyspaceMemoryTest: the Entry (Key's database, name and hash, the filter
   * reference, the access time, the next entry of its bucket and its slot index position: 40; it
   * is its own map node) and a share of its segment's table (one 4-byte slot per key at load 0.375
   * to 0.75: 5 to 11 bytes, counted as 8). The name's array is counted by its length. A cluster
   * node's slot index adds about 5 bytes a key (SlotIndex), not counted here.
   */
  private static final long ENTRY_BYTES = 40 + 8;

  /** Heap bytes of an expiry time: the expiry map's node, the boxed Long and a table share. */
  static final long EXPIRY_BYTES = 32 + 16 + 8;

  /**
   * A stored key with its filter and when it was last looked up (in {@link #clockSeconds} units):
   * the map's key, value and node at once, so a stored key costs one object besides its name's
   * array.
   */
  static final class Entry extends Key {
    /** Replaced only under the key's exclusive lock (a new filter stored under the same key). */
    RedisCuckooFilter<byte[]> filter;

    volatile int accessed;

    /** The next entry of its segment's bucket (guarded by the segment). */
    Entry next;

    /**
     * Its position in its slot's array of the {@link SlotIndex} (cluster mode, database 0; guarded
     * by the index). Costs no heap: it fills the entry's padding.
     */
    int slotPosition;

    Entry(Key key, RedisCuckooFilter<byte[]> filter, int accessed) {
      super(key);
      this.filter = filter;
      this.accessed = accessed;
    }
  }

  // a coarse clock for access times: seconds since the keyspace began, advanced by tick()
  private final long clockOrigin = System.currentTimeMillis();
  private volatile int clockSeconds;
  // the stored keys, in segments by the high bits of their scan order, so that SCAN pages and
  // RANDOMKEY look at one segment rather than the whole keyspace
  private final Segments filters = new Segments();
  private final ConcurrentHashMap<Key, Long> expires = new ConcurrentHashMap<>();
  private final AtomicInteger[] keyCounts;
  private final AtomicInteger[] expiryCounts;
  // per database, entryBytes of its stored keys (MEMORY STATS's overhead.hashtable.main)
  private final AtomicLong[] keyOverheads;
  // keys with an expiry in every database: lookups skip the expiry check while it is 0
  private final AtomicInteger expiringKeys = new AtomicInteger();
  private final TtlAverages ttlAverages;
  // read lookups that found their key and that did not (INFO's keyspace_hits, keyspace_misses)
  private final java.util.concurrent.atomic.LongAdder hits =
      new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder misses =
      new java.util.concurrent.atomic.LongAdder();
  private volatile boolean loading;
  private final ReentrantReadWriteLock[] stripes = new ReentrantReadWriteLock[STRIPES];
  // every stripe's exclusive lock, in ascending order (what a write of everything holds)
  private final Lock[] allWriteLocks = new Lock[STRIPES];
  private final MemoryCount memory = new MemoryCount();
  private final MoveGate moveGate = new MoveGate();
  // keys removed while a snapshot lists the keys (null when no snapshot is listing them)
  private volatile java.util.Set<Key> removedKeys;
  // test seam: runs in remove() after the removal is recorded, before the key leaves the map
  private volatile java.util.function.Consumer<Key> removing = key -> {};
  // the keys of database 0 by hash slot, in cluster mode only (null otherwise)
  private final SlotIndex slotIndex;

  /** Creates an empty keyspace of {@link #DEFAULT_DATABASES} databases. */
  public Keyspace() {
    this(DEFAULT_DATABASES);
  }

  /** Creates an empty keyspace of {@code databases} databases. */
  public Keyspace(int databases) {
    this(databases, null);
  }

  /**
   * Creates an empty keyspace of {@code databases} databases that indexes the keys of database 0 by
   * hash slot (a cluster node's keyspace), for {@link #countKeysInSlot} and {@link #keysInSlot}.
   *
   * @param databases the number of databases
   * @param slots the number of hash slots
   * @param slotOf the slot (0 to {@code slots} - 1) of a key's name
   */
  public Keyspace(int databases, int slots, java.util.function.ToIntFunction<byte[]> slotOf) {
    this(databases, new SlotIndex(slots, slotOf));
  }

  private Keyspace(int databases, SlotIndex slotIndex) {
    this.slotIndex = slotIndex;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantReadWriteLock();
      allWriteLocks[i] = stripes[i].writeLock();
    }
    keyCounts = new AtomicInteger[databases];
    expiryCounts = new AtomicInteger[databases];
    keyOverheads = new AtomicLong[databases];
    for (int i = 0; i < databases; i++) {
      keyCounts[i] = new AtomicInteger();
      expiryCounts[i] = new AtomicInteger();
      keyOverheads[i] = new AtomicLong();
    }
    ttlAverages = new TtlAverages(databases);
  }

  /** Returns the number of databases. */
  public int databases() {
    return keyCounts.length;
  }

  /** Stops (true) or resumes (false) expiry: nothing expires while the log is replayed. */
  public void loading(boolean loading) {
    this.loading = loading;
  }

  /** Returns the stripe index of a key. */
  public static int stripeOf(Key key) {
    int h = key.hashCode();
    h ^= h >>> 16;
    h *= 0x45d9f3b;
    h ^= h >>> 16;
    return h & (STRIPES - 1);
  }

  /** Returns the exclusive lock guarding the key (for commands that may change it). */
  public Lock lockFor(Key key) {
    return stripes[stripeOf(key)].writeLock();
  }

  /** Returns the shared lock guarding the key (for commands that only read it). */
  public Lock readLockFor(Key key) {
    return stripes[stripeOf(key)].readLock();
  }

  /** Locks every stripe, in ascending order. */
  public void lockAll() {
    for (Lock lock : allWriteLocks) {
      lock.lock();
    }
  }

  /** Unlocks every stripe. */
  public void unlockAll() {
    unlock(allWriteLocks);
  }

  private static final Lock[] NO_LOCKS = {};

  /** Locks the stripes of the keys in ascending stripe order and returns them for unlocking. */
  public Lock[] lockKeys(Key[] keys) {
    return lockStripes(keys, true);
  }

  /**
   * Takes the shared locks of the keys' stripes in ascending stripe order (for a command that only
   * reads them) and returns them for unlocking.
   */
  public Lock[] readLockKeys(Key[] keys) {
    return lockStripes(keys, false);
  }

  private Lock[] lockStripes(Key[] keys, boolean exclusive) {
    if (keys.length <= 1) {
      // most commands name one key: no stripe set to build
      if (keys.length == 0) {
        return NO_LOCKS;
      }
      ReentrantReadWriteLock stripe = stripes[stripeOf(keys[0])];
      Lock lock = exclusive ? stripe.writeLock() : stripe.readLock();
      lock.lock();
      return new Lock[] {lock};
    }
    boolean[] needed = new boolean[STRIPES];
    int count = 0;
    for (Key key : keys) {
      int stripe = stripeOf(key);
      if (!needed[stripe]) {
        needed[stripe] = true;
        count++;
      }
    }
    Lock[] locked = new Lock[count];
    int n = 0;
    for (int i = 0; i < STRIPES; i++) {
      if (needed[i]) {
        Lock lock = exclusive ? stripes[i].writeLock() : stripes[i].readLock();
        lock.lock();
        locked[n++] = lock;
      }
    }
    return locked;
  }

  /** Unlocks locks taken by {@link #lockKeys}. */
  public static void unlock(Lock[] locked) {
    for (int i = locked.length - 1; i >= 0; i--) {
      locked[i].unlock();
    }
  }

  /**
   * Begins a write's part in the keyspace, filling {@code write} (ended by {@link
   * KeyspaceWrite#end}): takes the exclusive locks of the stripes of {@code keys} (every stripe if
   * {@code everything}; none if {@code keys} is null, the write being part of a transaction that
   * holds them), then, under them, finds the filter of {@code openable} (the key the write may open
   * for writing; null: none) with its size, and notes the memory in use and whether some key has an
   * expiry time. One call for all the write needs of the keyspace.
   */
  public void beginWrite(KeyspaceWrite write, Key[] keys, boolean everything, Key openable) {
    if (everything) {
      lockAll();
      write.several = allWriteLocks;
    } else if (keys != null && keys.length == 1) {
      // most writes name one key: its stripe's lock alone, no array
      Lock lock = lockFor(keys[0]);
      lock.lock();
      write.one = lock;
    } else if (keys != null) {
      write.several = lockKeys(keys);
    }
    write.memory = memory;
    write.usedBytes = memory.get();
    write.hadExpiries = expiringKeys.get() != 0;
    write.openable = openable;
    if (openable != null) {
      Entry entry = filters.get(openable);
      if (entry != null && !(write.hadExpiries && isExpired(openable))) {
        write.entry = entry;
        write.filter = entry.filter;
        write.filterBytes = entry.filter.sizeInBytes();
        write.clock = clockSeconds;
      }
    }
  }

  /**
   * Returns the filter stored under the key, or null if there is none or it has expired (caller
   * holds the key's lock).
   */
  public RedisCuckooFilter<byte[]> get(Key key) {
    Entry entry = filters.get(key);
    if (entry == null || expiringKeys.get() != 0 && isExpired(key)) {
      return null;
    }
    int now = clockSeconds;
    if (entry.accessed != now) {
      entry.accessed = now;
    }
    return entry.filter;
  }

  /**
   * Returns what {@link #get} returns, counted as a read lookup in {@link #hits} or {@link #misses}
   * (Redis's lookupKeyRead: the lookups of commands that only read the key).
   */
  public RedisCuckooFilter<byte[]> read(Key key) {
    return counted(get(key));
  }

  /** Returns what {@link #peek} returns, counted as a read lookup (Redis's LOOKUP_NOTOUCH). */
  public RedisCuckooFilter<byte[]> readWithoutTouch(Key key) {
    return counted(peek(key));
  }

  private RedisCuckooFilter<byte[]> counted(RedisCuckooFilter<byte[]> filter) {
    (filter == null ? misses : hits).increment();
    return filter;
  }

  /** Returns the read lookups that found their key (keyspace_hits). */
  public long hits() {
    return hits.sum();
  }

  /** Returns the read lookups that found no key (keyspace_misses). */
  public long misses() {
    return misses.sum();
  }

  /** Sets the lookup counts to 0 (CONFIG RESETSTAT). */
  public void resetLookupCounts() {
    hits.reset();
    misses.reset();
  }

  /**
   * Returns the filter stored under the key even if it has expired, or null, without counting it as
   * accessed (snapshots, OBJECT IDLETIME).
   */
  public RedisCuckooFilter<byte[]> stored(Key key) {
    Entry entry = filters.get(key);
    return entry == null ? null : entry.filter;
  }

  /** Returns what {@link #get} returns, without counting the key as accessed. */
  public RedisCuckooFilter<byte[]> peek(Key key) {
    Entry entry = filters.get(key);
    return entry == null || expiringKeys.get() != 0 && isExpired(key) ? null : entry.filter;
  }

  /**
   * Returns the seconds since the key was last looked up (OBJECT IDLETIME), or -1 if it is not
   * stored or has expired.
   */
  public long idleSeconds(Key key) {
    Entry entry = filters.get(key);
    if (entry == null || expiringKeys.get() != 0 && isExpired(key)) {
      return -1;
    }
    return Math.max(0, clockSeconds - entry.accessed);
  }

  /**
   * Sets the key's last access {@code seconds} ago, so that {@link #idleSeconds} answers that many
   * (RESTORE … IDLETIME); does nothing if the key is not stored (caller holds the key's lock).
   */
  public void idleSeconds(Key key, long seconds) {
    Entry entry = filters.get(key);
    if (entry != null) {
      entry.accessed = (int) Math.max(Integer.MIN_VALUE, clockSeconds - Math.max(0, seconds));
    }
  }

  /** Advances the access clock (called every 100 ms by the expiry cycle). */
  public void tick() {
    int now = (int) ((System.currentTimeMillis() - clockOrigin) / 1000);
    if (now != clockSeconds) {
      clockSeconds = now;
    }
  }

  /**
   * Returns true if the key is stored with an expiry time that has passed (never while loading).
   */
  public boolean isExpired(Key key) {
    if (loading) {
      return false;
    }
    Long at = expires.get(key);
    return at != null && at <= CommandClock.now();
  }

  /** Returns the key's expiry time in Unix milliseconds, or {@link #NO_EXPIRY}. */
  public long expireAt(Key key) {
    Long at = expires.get(key);
    return at == null ? NO_EXPIRY : at;
  }

  /** Sets the expiry time of a stored key (caller holds the key's lock). */
  public void expireAt(Key key, long unixMillis) {
    Entry entry = filters.get(key);
    // the stored entry is the expiry map's key too: no key object of its own
    if (entry != null && expires.put(entry, unixMillis) == null) {
      expiryCounts[key.db()].incrementAndGet();
      expiringKeys.incrementAndGet();
      memory.add(EXPIRY_BYTES);
    }
  }

  /** Removes the key's expiry time; returns true if it had one (caller holds the key's lock). */
  public boolean persist(Key key) {
    if (expires.remove(key) != null) {
      expiryCounts[key.db()].decrementAndGet();
      expiringKeys.decrementAndGet();
      memory.add(-EXPIRY_BYTES);
      return true;
    }
    return false;
  }

  /** Returns true if some key has an expiry time (a cheap check before expiry work). */
  public boolean hasExpiries() {
    return expiringKeys.get() != 0;
  }

  /** Returns the keys that have an expiry time (a weakly consistent live view). */
  public java.util.Set<Key> keysWithExpiry() {
    return expires.keySet();
  }

  /** Returns the per-database estimates of the milliseconds left of expiring keys (avg_ttl). */
  public TtlAverages ttlAverages() {
    return ttlAverages;
  }

  /** Returns the number of keys with an expiry time in the database. */
  public int expiring(int db) {
    return expiryCounts[db].get();
  }

  /**
   * Stores a filter a write created under the key it opened (caller holds the key's lock), as
   * {@link #put}, and makes it the write's opened filter: its size change until the write ends is
   * counted then, as that of a filter the write found.
   */
  public void putOpened(KeyspaceWrite write, Key key, RedisCuckooFilter<byte[]> filter) {
    put(key, filter);
    write.entry = filters.get(key);
    write.filter = filter;
    write.filterBytes = filter.sizeInBytes();
    write.clock = clockSeconds;
  }

  /** Stores a filter under the key (caller holds the key's lock); a new key has no expiry. */
  public void put(Key key, RedisCuckooFilter<byte[]> filter) {
    Entry entry = filters.get(key);
    if (entry != null) {
      // the map keeps its first key object: replace the filter in place
      long oldBytes = entry.filter.sizeInBytes();
      entry.filter = filter;
      entry.accessed = clockSeconds;
      memory.add(filter.sizeInBytes() - oldBytes);
      return;
    }
    entry = new Entry(key, filter, clockSeconds);
    filters.put(entry);
    indexAdd(entry);
    keyCounts[key.db()].incrementAndGet();
    keyOverheads[key.db()].addAndGet(entryBytes(key));
    persist(key);
    memory.add(filter.sizeInBytes() + entryBytes(key));
  }

  /**
   * Returns the heap bytes a stored key takes besides its filter and its expiry time: the map's
   * node and table share, the entry and the name's array.
   */
  public static long entryBytes(Key key) {
    return ENTRY_BYTES + ((16 + key.bytes().length + 7) & ~7L);
  }

  /**
   * Returns the heap bytes of a stored key with its filter and expiry time (MEMORY USAGE), or -1 if
   * it is not stored (caller holds the key's lock).
   */
  public long usageBytes(Key key) {
    Entry entry = filters.get(key);
    if (entry == null) {
      return -1;
    }
    return entry.filter.sizeInBytes()
        + entryBytes(entry)
        + (expires.containsKey(entry) ? EXPIRY_BYTES : 0);
  }

  /** Returns the most bytes {@link #usedBytes} has counted since the keyspace was created. */
  public long peakUsedBytes() {
    return memory.peak();
  }

  /** Removes the key; returns true if it existed (caller holds the key's lock). */
  public boolean remove(Key key) {
    // recorded before the key leaves the map, never after: a snapshot listing the keys meanwhile
    // then either still finds the key in the map or finds it recorded (see keysAcross)
    if (removedKeys != null && filters.containsKey(key)) {
      noteRemoved(key);
    }
    removing.accept(key);
    Entry removed = filters.remove(key);
    if (removed == null) {
      return false;
    }
    indexRemove(removed);
    RedisCuckooFilter<byte[]> old = removed.filter;
    keyCounts[key.db()].decrementAndGet();
    keyOverheads[key.db()].addAndGet(-entryBytes(key));
    persist(key);
    memory.add(-old.sizeInBytes() - entryBytes(key));
    return true;
  }

  /** Returns the number of keys of every database (expired keys not yet deleted included). */
  public int size() {
    int size = 0;
    for (AtomicInteger count : keyCounts) {
      size += count.get();
    }
    return size;
  }

  /** Returns the number of keys of the database (expired keys not yet deleted included). */
  public int size(int db) {
    return keyCounts[db].get();
  }

  /** Removes every key (caller holds every lock). */
  public void clear() {
    if (removedKeys != null) {
      filters.forEachKey(this::noteRemoved);
    }
    filters.clear();
    if (slotIndex != null) {
      slotIndex.clear();
    }
    expires.clear();
    for (int i = 0; i < keyCounts.length; i++) {
      keyCounts[i].set(0);
      expiryCounts[i].set(0);
      keyOverheads[i].set(0);
    }
    expiringKeys.set(0);
    memory.set(0);
  }

  /** Removes every key of the database (caller holds every lock). */
  public void clear(int db) {
    for (Key key : keys()) {
      if (key.db() == db) {
        remove(key);
      }
    }
  }

  /** Exchanges the contents of two databases (caller holds every lock). */
  public void swap(int a, int b) {
    if (a == b) {
      return;
    }
    List<Key> moving = new ArrayList<>();
    for (Key key : filters.keys()) {
      if (key.db() == a || key.db() == b) {
        moving.add(key);
      }
    }
    List<Entry> values = new ArrayList<>(moving.size());
    List<Long> times = new ArrayList<>(moving.size());
    for (Key key : moving) {
      noteRemoved(key);
      Entry removed = filters.remove(key);
      indexRemove(removed);
      values.add(removed);
      Long at = expires.remove(key);
      times.add(at);
    }
    for (int i = 0; i < moving.size(); i++) {
      Key key = moving.get(i);
      Key swapped = key.in(key.db() == a ? b : a);
      Entry moved = values.get(i);
      Entry entry = new Entry(swapped, moved.filter, moved.accessed);
      filters.put(entry);
      indexAdd(entry);
      if (times.get(i) != null) {
        expires.put(entry, times.get(i));
      }
    }
    swapCounts(keyCounts, a, b);
    swapCounts(expiryCounts, a, b);
    long overhead = keyOverheads[a].get();
    keyOverheads[a].set(keyOverheads[b].get());
    keyOverheads[b].set(overhead);
    ttlAverages.swap(a, b);
  }

  private void indexAdd(Entry entry) {
    if (slotIndex != null && entry.db() == 0) {
      slotIndex.add(entry);
    }
  }

  private void indexRemove(Entry entry) {
    if (slotIndex != null && entry.db() == 0) {
      slotIndex.remove(entry);
    }
  }

  /** Returns true if this keyspace indexes the keys of database 0 by hash slot. */
  public boolean indexesSlots() {
    return slotIndex != null;
  }

  /**
   * Returns how many keys of database 0 are stored in the hash slot (expired ones not yet deleted
   * included, as Redis counts them), from the slot index: O(1).
   *
   * @throws IllegalStateException if the keyspace does not index slots
   */
  public int countKeysInSlot(int slot) {
    return slotIndex().count(checkedSlot(slot));
  }

  /**
   * Returns at most {@code max} keys of database 0 stored in the hash slot (expired ones not yet
   * deleted included, as Redis lists them), from the slot index: O(returned keys).
   *
   * @throws IllegalStateException if the keyspace does not index slots
   */
  public List<Key> keysInSlot(int slot, int max) {
    return slotIndex().keys(checkedSlot(slot), max);
  }

  /** Returns the heap bytes of the slot index's own arrays (0 if there is no index). */
  public long slotIndexBytes() {
    return slotIndex == null ? 0 : slotIndex.bytes();
  }

  private SlotIndex slotIndex() {
    if (slotIndex == null) {
      throw new IllegalStateException("this keyspace does not index keys by hash slot");
    }
    return slotIndex;
  }

  private int checkedSlot(int slot) {
    if (slot < 0 || slot >= slotIndex().slots()) {
      throw new IllegalArgumentException(
          "slot: " + slot + " (expected: 0 to " + (slotIndex().slots() - 1) + ")");
    }
    return slot;
  }

  private static void swapCounts(AtomicInteger[] counts, int a, int b) {
    int held = counts[a].get();
    counts[a].set(counts[b].get());
    counts[b].set(held);
  }

  /**
   * Sets code that {@link #remove} runs after it recorded a removal for a listing snapshot and
   * before the key leaves the map (tests hold a removal at that moment).
   */
  void onRemoving(java.util.function.Consumer<Key> hook) {
    removing = hook;
  }

  private void noteRemoved(Key key) {
    java.util.Set<Key> removed = removedKeys;
    if (removed != null) {
      removed.add(key);
    }
  }

  /**
   * Returns every key that is stored at the moment this method returns, or was stored at some
   * moment during the call and then removed, for a snapshot, without stopping commands; {@code
   * atCut} runs once, in the middle, at the moment the snapshot is cut (the log rotated).
   *
   * <p>A command removes a key from the map before it logs the removal, both under the key's lock.
   * So that every key the log holds as existing at the cut is listed, removals are recorded from
   * before the cut: first recording starts, then each stripe is locked and unlocked in turn (every
   * command that was running, and may have removed a key unrecorded, has finished and logged), then
   * {@code atCut} runs, then the keys are listed and recording ends. A removal records its key
   * before the key leaves the map, so a key that existed at the cut is either still in the map when
   * the listing reaches it or was recorded (had recording already ended when the removal looked,
   * the listing was over and had met the key in the map). Keys created after the cut may be listed
   * too (the snapshot writes each with the number of the last record it holds).
   *
   * @throws E what {@code atCut} throws (recording then ends)
   */
  public <E extends Exception> List<Key> keysAcross(CutAction<E> atCut) throws E {
    java.util.Set<Key> removed = ConcurrentHashMap.newKeySet();
    removedKeys = removed;
    try {
      for (ReentrantReadWriteLock stripe : stripes) {
        stripe.writeLock().lock();
        stripe.writeLock().unlock();
      }
      atCut.run();
      // a plain list, 4 bytes a key: a snapshot keeps it until its last key is written, so a set
      // here (about 56 bytes a key) outlived young collections and filled the old generation. A
      // map's traversal yields each key once (it covers every table position once, and a key
      // removed and stored again goes back to a position already passed or not yet reached, not
      // both); a recorded removal may also have been listed, so those are moved to the end.
      List<Key> keys = new ArrayList<>(size() + size() / 8 + 16);
      filters.forEachKey(keys::add);
      removedKeys = null;
      if (!removed.isEmpty()) {
        // one copy for both steps: a removal that read the set before it was let go may still add
        // to it (its key was in the map for the listing, so it is listed)
        java.util.Set<Key> recorded = new java.util.HashSet<>(removed);
        keys.removeIf(recorded::contains);
        keys.addAll(recorded);
      }
      return keys;
    } finally {
      removedKeys = null;
    }
  }

  /** What {@link #keysAcross} runs at the cut. */
  @FunctionalInterface
  public interface CutAction<E extends Exception> {
    /** Cuts the snapshot (rotates the log). */
    void run() throws E;
  }

  /** Returns the gate that keeps commands moving data between keys apart from snapshots. */
  public MoveGate moveGate() {
    return moveGate;
  }

  /**
   * Returns a snapshot of the stored keys of every database, expired ones included (consistent if
   * the caller holds every lock).
   */
  public List<Key> keys() {
    return filters.keys();
  }

  /** Returns a snapshot of the live (unexpired) keys of one database. */
  public List<Key> keys(int db) {
    List<Key> keys = new ArrayList<>();
    filters.forEachKey(
        key -> {
          if (key.db() == db && live(key)) {
            keys.add(key);
          }
        });
    return keys;
  }

  /**
   * Reads the filter of {@code key} (null if there is none, expired or not) under its stripe's read
   * lock, for code that walks keys a request did not name, so the dispatcher has not locked them
   * (DEBUG DIGEST, DEBUG OBJECT).
   *
   * @param key the key
   * @param reader what to compute from the filter, or from null
   * @return what {@code reader} returned
   */
  public <R> R readLocked(
      Key key, java.util.function.Function<RedisCuckooFilter<byte[]>, R> reader) {
    Lock lock = readLockFor(key);
    lock.lock();
    try {
      return reader.apply(peek(key));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns the heap bytes of the key tables themselves (the segments' slot arrays, which grow with
   * the keys), beside {@link #keyOverheadBytes} of the entries in them.
   */
  public long tableBytes() {
    return filters.tableBytes();
  }

  /**
   * Returns per database the heap bytes of its keys besides their filters: {@link #entryBytes} of
   * each stored key (expired ones not yet deleted included), the figure MEMORY STATS shows as the
   * main hash table's overhead. Kept as keys come and go: no walk over the keys.
   */
  public long[] keyOverheadBytes() {
    long[] bytes = new long[keyOverheads.length];
    for (int db = 0; db < bytes.length; db++) {
      bytes[db] = keyOverheads[db].get();
    }
    return bytes;
  }

  /** Returns the heap bytes of the expiry times of the database's keys (MEMORY STATS). */
  public long expiryOverheadBytes(int db) {
    return EXPIRY_BYTES * expiryCounts[db].get();
  }

  /**
   * Returns a copy of every stored key with its filter (consistent if the caller holds every lock).
   */
  public Map<Key, RedisCuckooFilter<byte[]>> entries() {
    Map<Key, RedisCuckooFilter<byte[]>> view = new java.util.HashMap<>();
    for (Entry entry : filters.entries()) {
      view.put(entry, entry.filter);
    }
    return view;
  }

  /**
   * Returns the heap bytes of every stored key (its filter, {@link #entryBytes} and expiry time),
   * as counted when keys were stored, removed or changed size (the figure {@code maxmemory} is
   * compared with; garbage is not counted).
   */
  public long usedBytes() {
    return memory.get();
  }

  /** Recounts the bytes of every filter (after filters were stored through {@link #entries}). */
  public void recountUsed() {
    long total = EXPIRY_BYTES * expires.size();
    for (Entry entry : filters.entries()) {
      total += entry.filter.sizeInBytes() + entryBytes(entry);
    }
    memory.set(total);
  }

  /**
   * Returns the position of a key in SCAN's order, 0 to 2^32 - 1: its hash, mixed so that short
   * names spread over every segment. Keys of one segment share the high bits.
   */
  public static long scanOrder(Key key) {
    int h = key.hashCode();
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h & 0xffffffffL;
  }

  /** A page of SCAN: the keys visited, in scan order, and the cursor to continue from (0: done). */
  public record ScanPage(List<Key> keys, long cursor) {}

  /**
   * Returns the next page of SCAN over one database: at least {@code count} of its live keys whose
   * scan order is {@code cursor} or more (fewer only at the end), in scan order, never splitting
   * keys of one position between pages. A key stored from the first page to the last is returned
   * once (unless it moves between databases); keys stored or removed meanwhile may or may not be,
   * as in Redis. Looks at the segments the page covers only.
   *
   * @param cursor 0 to 2^32 (2^32: past the end)
   */
  public ScanPage scan(int db, long cursor, long count) {
    List<Key> page = new ArrayList<>();
    long from = cursor;
    List<Key> candidates = new ArrayList<>();
    for (int segment = (int) (cursor >>> SEGMENT_SHIFT); segment < SEGMENTS; segment++) {
      candidates.clear();
      for (Key key : filters.entries(segment)) {
        if (key.db() == db && scanOrder(key) >= from && live(key)) {
          candidates.add(key);
        }
      }
      // a segment's keys share the high bits of their order: sort by the rest, packed with the
      // candidate's index into one primitive
      long[] packed = new long[candidates.size()];
      for (int i = 0; i < packed.length; i++) {
        packed[i] = (scanOrder(candidates.get(i)) & ~(-1L << SEGMENT_SHIFT)) << 32 | i;
      }
      java.util.Arrays.sort(packed);
      long segmentStart = (long) segment << SEGMENT_SHIFT;
      long last = -1;
      for (long entry : packed) {
        long order = segmentStart | entry >>> 32;
        if (page.size() >= count && order != last) {
          return new ScanPage(page, last + 1);
        }
        page.add(candidates.get((int) entry));
        last = order;
      }
      from = 0;
      if (page.size() >= count && segment + 1 < SEGMENTS) {
        return new ScanPage(page, segmentStart + (1L << SEGMENT_SHIFT));
      }
    }
    return new ScanPage(page, 0);
  }

  /**
   * Returns true if a key found by a listing (made without its lock) is stored and has not expired
   * now. A deletion removes the key from the map before its expiry time, so the key is looked up
   * again after its expiry was read: an expired key being deleted meanwhile, whose expiry is then
   * gone, is not taken for a key without one.
   */
  private boolean live(Key key) {
    return (expiringKeys.get() == 0 || !isExpired(key)) && filters.containsKey(key);
  }

  /**
   * Returns a random live key of the database, or null if it has none (RANDOMKEY). As Redis's, not
   * exactly uniform: a random segment holding keys of the database is chosen first, then one of its
   * keys.
   */
  public Key randomKey(int db) {
    if (keyCounts[db].get() == 0) {
      return null;
    }
    java.util.concurrent.ThreadLocalRandom random =
        java.util.concurrent.ThreadLocalRandom.current();
    int start = random.nextInt(SEGMENTS);
    for (int i = 0; i < SEGMENTS; i++) {
      int found = 0;
      Key chosen = null;
      // reservoir sampling: one pass over a copy of the segment's entries
      for (Key key : filters.entries((start + i) & (SEGMENTS - 1))) {
        if (key.db() == db && live(key) && random.nextInt(++found) == 0) {
          chosen = key;
        }
      }
      if (chosen != null) {
        return chosen;
      }
    }
    return null;
  }

  /**
   * The key map, split into {@link #SEGMENTS} hash tables by the high bits of the scan order. The
   * entries are the tables' nodes themselves (chained through {@link Entry#next}), so a stored key
   * costs its entry and a table slot, not also a map node (a ConcurrentHashMap's: 32 bytes and an
   * object per key, which every young collection of a growing keyspace copied). Each segment is
   * guarded by its own monitor; its operations are short (a bucket's chain) and listings copy a
   * segment's entries under it, so callers iterate without holding it. A listing is weakly
   * consistent as the map's was: a key stored throughout the listing is in it once.
   */
  private static final class Segments {
    private static final Entry[] NONE = new Entry[0];

    private final Segment[] segments = new Segment[SEGMENTS];

    Segments() {
      for (int i = 0; i < SEGMENTS; i++) {
        segments[i] = new Segment();
      }
    }

    Entry get(Key key) {
      long order = scanOrder(key);
      return segments[(int) (order >>> SEGMENT_SHIFT)].get(key, (int) order);
    }

    boolean containsKey(Key key) {
      return get(key) != null;
    }

    /** Stores the entry, replacing the entry of an equal key. */
    void put(Entry entry) {
      long order = scanOrder(entry);
      segments[(int) (order >>> SEGMENT_SHIFT)].put(entry, (int) order);
    }

    Entry remove(Key key) {
      long order = scanOrder(key);
      return segments[(int) (order >>> SEGMENT_SHIFT)].remove(key, (int) order);
    }

    void clear() {
      for (Segment segment : segments) {
        segment.clear();
      }
    }

    /** Returns the heap bytes of the segments and their tables (not of the entries in them). */
    long tableBytes() {
      long bytes = 16 + 4L * segments.length;
      for (Segment segment : segments) {
        bytes += segment.tableBytes();
      }
      return bytes;
    }

    /** Returns a copy of one segment's entries. */
    Entry[] entries(int segment) {
      return segments[segment].entries();
    }

    /**
     * Returns the stored keys (weakly consistent: every key stored throughout the call is in it).
     */
    List<Key> keys() {
      List<Key> keys = new ArrayList<>();
      forEachKey(keys::add);
      return keys;
    }

    void forEachKey(java.util.function.Consumer<Key> action) {
      for (Segment segment : segments) {
        for (Entry entry : segment.entries()) {
          action.accept(entry);
        }
      }
    }

    /** Returns the stored entries (weakly consistent, as {@link #keys}). */
    List<Entry> entries() {
      List<Entry> entries = new ArrayList<>();
      for (Segment segment : segments) {
        java.util.Collections.addAll(entries, segment.entries());
      }
      return entries;
    }
  }

  /**
   * One segment: a hash table of entries chained through {@link Entry#next}, indexed by the low
   * bits of the scan order, doubled when it holds more than three entries per four slots.
   */
  private static final class Segment {
    private Entry[] table = new Entry[2];
    private int size;

    /** Returns the heap bytes of this segment and its table: headers and 4-byte references. */
    synchronized long tableBytes() {
      return 24 + 16 + 4L * table.length;
    }

    // order: the key's scan order (its low 32 bits)
    synchronized Entry get(Key key, int order) {
      int hash = key.hashCode();
      for (Entry entry = table[order & (table.length - 1)]; entry != null; entry = entry.next) {
        if (entry.hashCode() == hash && entry.equals(key)) {
          return entry;
        }
      }
      return null;
    }

    synchronized void put(Entry added, int order) {
      unlink(added, order);
      int slot = order & (table.length - 1);
      added.next = table[slot];
      table[slot] = added;
      if (++size > table.length - (table.length >>> 2)) {
        grow();
      }
    }

    synchronized Entry remove(Key key, int order) {
      return unlink(key, order);
    }

    /** Takes the entry of the key out of its chain; returns it, or null if there is none. */
    private Entry unlink(Key key, int order) {
      int hash = key.hashCode();
      int slot = order & (table.length - 1);
      Entry previous = null;
      for (Entry entry = table[slot]; entry != null; previous = entry, entry = entry.next) {
        if (entry.hashCode() == hash && entry.equals(key)) {
          if (previous == null) {
            table[slot] = entry.next;
          } else {
            previous.next = entry.next;
          }
          entry.next = null;
          size--;
          return entry;
        }
      }
      return null;
    }

    private void grow() {
      Entry[] grown = new Entry[table.length * 2];
      for (Entry head : table) {
        for (Entry entry = head, next; entry != null; entry = next) {
          next = entry.next;
          int slot = (int) scanOrder(entry) & (grown.length - 1);
          entry.next = grown[slot];
          grown[slot] = entry;
        }
      }
      table = grown;
    }

    /**
     * Empties the segment in place, allocating nothing: a replay that ran out of heap clears the
     * keys it loaded before it reports, when not even a small array can be had.
     */
    synchronized void clear() {
      java.util.Arrays.fill(table, null);
      size = 0;
    }

    synchronized Entry[] entries() {
      if (size == 0) {
        return Segments.NONE;
      }
      Entry[] entries = new Entry[size];
      int i = 0;
      for (Entry head : table) {
        for (Entry entry = head; entry != null; entry = entry.next) {
          entries[i++] = entry;
        }
      }
      return entries;
    }
  }
}
