package dev.cuckoo;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The payload of one table as it was when a {@link FilterImage} was captured, while the table goes
 * on changing: copy on write by regions of {@value #REGION_BYTES} bytes, for a {@link
 * PlainBucketTable}. Before a writer changes a region the image has not written yet, the region's
 * bytes are copied aside ({@link #beforeChange}); the image then writes each region from its copy
 * if it has one, else from the table ({@link #take}). Only regions changed before they were written
 * are ever copied, and each at most once.
 *
 * <p>Thread-safe between one writer of the table (who holds the filter's write lock) and the thread
 * writing the image: a region is copied, whether aside or out, under this object's monitor, so a
 * writer never changes a region while the image copies it.
 */
final class TableImage {
  /*
   * Region states go one way: PENDING -> SAVED (a writer copied it aside) or PENDING -> WRITTEN
   * (the image copied it out of the live table), SAVED -> WRITTEN (the image took the copy). Both
   * transitions out of PENDING happen under the monitor, and are published with a release store
   * after the copy; a writer reads the state with an acquire load, so once it sees anything but
   * PENDING its later stores to the region cannot be seen by the copy made before. A stale PENDING
   * only costs the monitor, under which the state is read again. A SWAR write of a bucket rewrites
   * 8 bytes that may reach into the next region, but only the slot's bytes change: the others are
   * written back as read, so a copy of that region made meanwhile reads the same values.
   *
   * Region size, 4 KiB, the page a fork copies on write: a cuckoo filter's writes land on random
   * buckets, so the bytes copied while an image is written are about (changes × region size)
   * until every region is copied; with 64 KiB regions, 8000 random adds during the snapshot of a
   * 512 MiB filter would copy about 400 MiB, with 4 KiB ones 32 MiB. A writer first to change a
   * region copies it under the monitor (well under a microsecond at memory speed); the states of a
   * 512 MiB link take 128 KiB and its copy references 512 KiB. The image writes one region per
   * output call: a monitor and a 4 KiB copy, small beside the CRC32C and the file write of the
   * same bytes.
   */

  /** log2 of {@link #REGION_BYTES}. */
  static final int REGION_SHIFT = 12;

  /** Bytes of payload per region. */
  static final int REGION_BYTES = 1 << REGION_SHIFT;

  private static final byte PENDING = 0;
  private static final byte SAVED = 1;
  private static final byte WRITTEN = 2;

  private static final VarHandle STATES = MethodHandles.arrayElementVarHandle(byte[].class);

  private final BucketTable table;
  private final long payloadBytes;
  private final byte[] states;
  private final byte[][] saved;
  private final CopyBudget budget;

  /** Bytes copied aside so far (tests, and the figures of a snapshot). */
  private long savedBytes;

  /** Writers waiting for a region to be written because the budget was spent. */
  private int waiting;

  /**
   * The bytes that copies aside may hold at once, shared by the tables of one image. A writer who
   * finds it spent waits until the image has written the region it changes (as a snapshot without
   * copy on write would make it wait), so that copies never take more memory than was allowed.
   */
  static final class CopyBudget {
    private final AtomicLong left;

    /** A budget of {@code bytes}; {@link Long#MAX_VALUE} for no limit. */
    CopyBudget(long bytes) {
      left = new AtomicLong(bytes);
    }

    /** Takes {@code bytes} if that many are left. */
    boolean take(long bytes) {
      for (long now = left.get(); now >= bytes; now = left.get()) {
        if (left.compareAndSet(now, now - bytes)) {
          return true;
        }
      }
      return false;
    }

    /** Gives back {@code bytes} of a copy that was written or dropped. */
    void give(long bytes) {
      left.addAndGet(bytes);
    }
  }

  /** Creates the image of {@code table}'s payload as it is now, with no limit on its copies. */
  TableImage(BucketTable table) {
    this(table, new CopyBudget(Long.MAX_VALUE));
  }

  /**
   * Creates the image of {@code table}'s payload as it is now, whose copies aside share {@code
   * budget}; {@link #attach} starts it.
   */
  TableImage(BucketTable table, CopyBudget budget) {
    // a SemiSortedTable re-encodes buckets through paths that do not report their changes
    Checks.requireArgument(
        table instanceof PlainBucketTable, "table: %s (expected: a PlainBucketTable)", table);
    this.table = table;
    this.payloadBytes = table.payloadBytes();
    int regions = Math.toIntExact((payloadBytes + REGION_BYTES - 1) >>> REGION_SHIFT);
    this.states = new byte[regions];
    this.saved = new byte[regions][];
    this.budget = budget;
  }

  /**
   * Makes the table's writers copy regions aside from now on. The caller holds the lock that guards
   * the table's writes.
   *
   * @throws IllegalStateException if another image of the table is being written
   */
  void attach() {
    if (table.image != null) {
      throw new IllegalStateException("table: an image of it is already being written");
    }
    table.image = this;
  }

  /** Returns the number of regions. */
  int regionCount() {
    return states.length;
  }

  /** Returns the payload bytes of {@code region}: {@value #REGION_BYTES}, less for the last. */
  int regionLength(int region) {
    return (int) Math.min(REGION_BYTES, payloadBytes - ((long) region << REGION_SHIFT));
  }

  /**
   * Called by the table before payload bytes {@code firstByte} to {@code lastByte} (inclusive)
   * change: copies aside every region among them that the image has not written yet.
   */
  void beforeChange(long firstByte, long lastByte) {
    int last = (int) (lastByte >>> REGION_SHIFT);
    for (int region = (int) (firstByte >>> REGION_SHIFT); region <= last; region++) {
      if ((byte) STATES.getAcquire(states, region) == PENDING) {
        save(region);
      }
    }
  }

  private synchronized void save(int region) {
    boolean interrupted = false;
    try {
      while (states[region] == PENDING) {
        int length = regionLength(region);
        if (budget.take(length)) {
          byte[] copy = new byte[length];
          table.readPayload((long) region << REGION_SHIFT, copy, 0, length);
          saved[region] = copy;
          savedBytes += length;
          STATES.setRelease(states, region, SAVED);
          return;
        }
        // the copies reached their budget: wait until the image has written this region
        waiting++;
        try {
          wait();
        } catch (InterruptedException e) {
          // the change must not start before the region is written: wait on, interrupt after
          interrupted = true;
        } finally {
          waiting--;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Returns the bytes of {@code region} as they were at the capture, and marks it written (writers
   * no longer copy it): its saved copy, or {@code buffer} (at least {@link #REGION_BYTES} long)
   * filled from the table. The first {@link #regionLength} bytes of the result are the region's.
   */
  synchronized byte[] take(int region, byte[] buffer) {
    byte[] bytes = saved[region];
    if (bytes != null) {
      saved[region] = null;
      // the copy is garbage once written: its bytes count no more
      budget.give(bytes.length);
    } else {
      bytes = buffer;
      table.readPayload((long) region << REGION_SHIFT, bytes, 0, regionLength(region));
    }
    STATES.setRelease(states, region, WRITTEN);
    if (waiting > 0) {
      notifyAll();
    }
    return bytes;
  }

  /** Returns the bytes copied aside by writers since the capture. */
  synchronized long savedBytes() {
    return savedBytes;
  }

  /**
   * Ends the image: writers no longer copy anything (and those waiting for the budget go on), the
   * copies not written are dropped, and the table no longer refers to it. Needs no lock: a writer
   * that still sees the image finds every region written and copies nothing.
   */
  synchronized void detach() {
    for (int region = 0; region < states.length; region++) {
      if (saved[region] != null) {
        budget.give(saved[region].length);
        saved[region] = null;
      }
      STATES.setRelease(states, region, WRITTEN);
    }
    if (table.image == this) {
      table.image = null;
    }
    notifyAll();
  }
}
