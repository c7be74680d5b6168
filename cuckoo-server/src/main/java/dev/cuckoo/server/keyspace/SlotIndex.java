package dev.cuckoo.server.keyspace;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The stored keys of database 0 by hash slot (Redis's slot-to-keys index in cluster mode), so that
 * a slot's keys are counted in O(1) and listed in O(listed), never by walking the keyspace.
 *
 * <p>Each slot holds its entries in an array, and each entry knows its position in it ({@link
 * Keyspace.Entry#slotPosition}): a key is added at the end and removed by moving the slot's last
 * entry into its place, both O(1).
 */
final class SlotIndex {
  /*
   * Heap cost. The position is an int in the entry, which fills the 4 bytes of padding the entry
   * has without it (36 bytes of fields and header, padded to 40, with compressed references; 52
   * padded to 56 without), so the entry does not grow. Each key then costs one 4-byte reference in
   * its slot's array; arrays grow by half and shrink by half when a quarter full, so they are 2/3
   * to full once grown: 4 to 6 bytes a key, about 5 on average. Fixed: the 16,384 array
   * references, counts and array headers, about 0.4 MB once every slot holds keys. The arrays are
   * Key[] (not Entry[], the key map's table type) so that a heap histogram shows them apart.
   */

  private static final Key[] EMPTY = {};
  private static final int LOCKS = 256;

  private final ToIntFunction<byte[]> slotOf;
  private final Key[][] keys;
  private final int[] counts;
  // slot s is guarded by locks[s % LOCKS]: keys of one slot live in many stripes of the keyspace
  private final Object[] locks = new Object[LOCKS];

  /**
   * Creates an empty index.
   *
   * @param slots the number of slots (16,384 in Redis Cluster)
   * @param slotOf the slot (0 to slots - 1) of a key's name
   */
  SlotIndex(int slots, ToIntFunction<byte[]> slotOf) {
    if (slots < 1) {
      throw new IllegalArgumentException("slots: " + slots + " (expected: >= 1)");
    }
    this.slotOf = slotOf;
    this.keys = new Key[slots][];
    this.counts = new int[slots];
    java.util.Arrays.fill(keys, EMPTY);
    for (int i = 0; i < LOCKS; i++) {
      locks[i] = new Object();
    }
  }

  /** Returns the number of slots. */
  int slots() {
    return counts.length;
  }

  private Object lock(int slot) {
    return locks[slot & (LOCKS - 1)];
  }

  /** Adds a newly stored entry (caller holds its key's lock; it is not in the index). */
  void add(Keyspace.Entry entry) {
    int slot = slotOf.applyAsInt(entry.bytes());
    synchronized (lock(slot)) {
      Key[] held = keys[slot];
      int count = counts[slot];
      if (count == held.length) {
        held = java.util.Arrays.copyOf(held, Math.max(4, count + (count >>> 1)));
        keys[slot] = held;
      }
      held[count] = entry;
      entry.slotPosition = count;
      counts[slot] = count + 1;
    }
  }

  /** Removes an entry taken out of the key map (caller holds its key's lock). */
  void remove(Keyspace.Entry entry) {
    int slot = slotOf.applyAsInt(entry.bytes());
    synchronized (lock(slot)) {
      Key[] held = keys[slot];
      int last = counts[slot] - 1;
      int position = entry.slotPosition;
      if (position > last || held[position] != entry) {
        throw new IllegalStateException(
            "slot index: the removed key is not at its position " + position + " of slot " + slot);
      }
      Keyspace.Entry moved = (Keyspace.Entry) held[last];
      held[position] = moved;
      moved.slotPosition = position;
      held[last] = null;
      counts[slot] = last;
      if (last == 0) {
        keys[slot] = EMPTY;
      } else if (held.length > 8 && last < held.length >>> 2) {
        keys[slot] = java.util.Arrays.copyOf(held, held.length >>> 1);
      }
    }
  }

  /** Empties the index (caller holds every lock of the keyspace). */
  void clear() {
    for (int slot = 0; slot < counts.length; slot++) {
      synchronized (lock(slot)) {
        keys[slot] = EMPTY;
        counts[slot] = 0;
      }
    }
  }

  /** Returns the number of stored keys in the slot (expired ones not yet deleted included). */
  int count(int slot) {
    synchronized (lock(slot)) {
      return counts[slot];
    }
  }

  /** Returns at most {@code max} stored keys of the slot, in no particular order. */
  List<Key> keys(int slot, int max) {
    synchronized (lock(slot)) {
      int n = Math.min(Math.max(0, max), counts[slot]);
      List<Key> listed = new ArrayList<>(n);
      Key[] held = keys[slot];
      for (int i = 0; i < n; i++) {
        listed.add(held[i]);
      }
      return listed;
    }
  }

  /** Returns the heap bytes of the index's own arrays (not of the entries they point to). */
  long bytes() {
    long bytes = 16 + 4L * keys.length + 16 + 4L * counts.length;
    for (int slot = 0; slot < counts.length; slot++) {
      synchronized (lock(slot)) {
        Key[] held = keys[slot];
        if (held != EMPTY) {
          bytes += (16 + 4L * held.length + 7) & ~7L;
        }
      }
    }
    return bytes;
  }
}
