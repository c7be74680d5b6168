package dev.cuckoo.server.keyspace;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The heap bytes of the stored keys as the keyspace counts them (the figure {@code maxmemory} is
 * compared with), and the most it has counted. The keyspace changes it as keys are stored, removed
 * or resized; a write ({@link KeyspaceWrite}) adds the size change of the filter it changed in
 * place.
 */
final class MemoryCount {
  private static final VarHandle USED;

  static {
    try {
      USED = MethodHandles.lookup().findVarHandle(MemoryCount.class, "used", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  // changed through USED (atomic adds); read as a plain volatile field, so reading is only that
  private volatile long used;
  private final AtomicLong peak = new AtomicLong();

  /** Returns the bytes counted now. */
  long get() {
    return used;
  }

  /** Adds {@code delta} bytes (negative: fewer) and notes a new peak. */
  void add(long delta) {
    if (delta != 0) {
      notePeak((long) USED.getAndAdd(this, delta) + delta);
    }
  }

  /** Sets the count to {@code bytes} (a recount, or 0 when every key is gone). */
  void set(long bytes) {
    used = bytes;
    notePeak(bytes);
  }

  /** Returns the most bytes counted since the keyspace was created. */
  long peak() {
    return Math.max(peak.get(), used);
  }

  private void notePeak(long bytes) {
    if (bytes > peak.get()) {
      peak.accumulateAndGet(bytes, Math::max);
    }
  }
}
