package dev.cuckoo.server.command;

import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.AtomicHistogram;
import org.HdrHistogram.Histogram;

/**
 * The counters of one command or subcommand that INFO commandstats and latencystats and LATENCY
 * HISTOGRAM report, as Redis keeps them per {@code redisCommand}: calls that ran, the microseconds
 * they took, calls refused before running (rejected) and calls that ran and answered an error
 * (failed), and a histogram of call durations in nanoseconds.
 *
 * <p>Every connection's thread counts without waiting for the others. A network thread (the threads
 * that run nearly every command) counts in a cell of its own with plain writes, and the readers add
 * the cells up when INFO or LATENCY asks; any other thread counts in shared lock-free counters
 * (adders and an atomic histogram). The histogram follows Redis's: values from 1 ns to 1 s
 * (clamped), two significant digits, and it is allocated at a command's first tracked call on a
 * thread (about 25 KiB; most of the table is never called).
 */
final class CommandStats {
  /*
   * Why cells: two adders and an atomic histogram cost four atomic read-modify-writes per request,
   * about 5% of the network thread's samples for pipelined CF.EXISTS (docs/server-benchmark.md). A
   * cell is written by one thread only, so its counts are plain additions published with opaque
   * (for the histogram's reference, release) stores, which are plain stores on x86. A thread's cell
   * slot is a small number handed out when it first counts and handed back when it ends, so a cell
   * outlives its thread and the next thread given the slot goes on adding to it.
   *
   * CONFIG RESETSTAT cannot clear another thread's cell without racing its writes: it starts a new
   * epoch instead. A cell of an older epoch counts for nothing, and its thread clears it before it
   * counts again (a count racing the reset may be lost, as an adder's reset may lose one).
   */

  /** The smallest duration the histogram keeps, in nanoseconds (Redis's limit). */
  static final long HISTOGRAM_MIN_NANOS = 1;

  /** The largest duration the histogram keeps, in nanoseconds: longer calls count as 1 s. */
  static final long HISTOGRAM_MAX_NANOS = 1_000_000_000L;

  private static final int HISTOGRAM_DIGITS = 2;

  /** Most threads that count in cells at once (io-threads is at most 256); others share. */
  static final int MAX_CELLS = 512;

  private static final VarHandle CELL_LONG = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle CELL_HISTOGRAM;
  private static final VarHandle CELL_EPOCH;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      CELL_HISTOGRAM = lookup.findVarHandle(Cell.class, "histogram", Histogram.class);
      CELL_EPOCH = lookup.findVarHandle(Cell.class, "epoch", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Slots in use by live network threads. */
  private static final BitSet SLOTS = new BitSet();

  /** The calling network thread's cell slot, or -1 when all are taken. */
  private static final FastThreadLocal<Integer> SLOT =
      new FastThreadLocal<>() {
        @Override
        protected Integer initialValue() {
          synchronized (SLOTS) {
            int slot = SLOTS.nextClearBit(0);
            if (slot >= MAX_CELLS) {
              return -1;
            }
            SLOTS.set(slot);
            return slot;
          }
        }

        @Override
        protected void onRemoval(Integer slot) {
          if (slot >= 0) {
            synchronized (SLOTS) {
              SLOTS.clear(slot);
            }
          }
        }
      };

  private static final int CALLS = 0;
  private static final int MICROS = 1;
  private static final int FAILED = 2;

  /** One thread's counts: written by the thread holding its slot, read by anyone. */
  private static final class Cell {
    /** Calls, microseconds and failed calls, indexed by CALLS, MICROS, FAILED. */
    final long[] counts = new long[3];

    /** The histogram of this cell's tracked calls, or null before the first. */
    Histogram histogram;

    /** The reset epoch the counts belong to. */
    int epoch;

    Cell(int epoch) {
      this.epoch = epoch;
    }

    void add(int index, long value) {
      CELL_LONG.setOpaque(counts, index, (long) CELL_LONG.getOpaque(counts, index) + value);
    }

    long get(int index) {
      return (long) CELL_LONG.getOpaque(counts, index);
    }

    /** Clears the counts for a new epoch (by the cell's thread). */
    void restart(int newEpoch) {
      for (int i = 0; i < counts.length; i++) {
        CELL_LONG.setOpaque(counts, i, 0L);
      }
      CELL_HISTOGRAM.setRelease(this, (Histogram) null);
      CELL_EPOCH.setRelease(this, newEpoch);
    }
  }

  private final LongAdder calls = new LongAdder();
  private final LongAdder micros = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private volatile AtomicHistogram histogram;

  /** The network threads' cells by slot (null where a slot has not counted). */
  private volatile Cell[] cells = new Cell[0];

  private volatile int epoch;

  /**
   * Counts one call that ran.
   *
   * @param durationMicros how long it ran, in whole microseconds
   * @param failedCall whether it answered an error
   * @param trackLatency whether to add the duration to the histogram (latency-tracking)
   */
  void called(long durationMicros, boolean failedCall, boolean trackLatency) {
    // Redis measures in microseconds and records nanoseconds: durationMicros * 1000
    long nanos =
        Math.max(HISTOGRAM_MIN_NANOS, Math.min(HISTOGRAM_MAX_NANOS, durationMicros * 1000));
    Cell cell = cell();
    if (cell != null) {
      cell.add(CALLS, 1);
      cell.add(MICROS, durationMicros);
      if (failedCall) {
        cell.add(FAILED, 1);
      }
      if (trackLatency) {
        Histogram cellHistogram = cell.histogram;
        if (cellHistogram == null) {
          cellHistogram = newHistogram();
          CELL_HISTOGRAM.setRelease(cell, cellHistogram);
        }
        cellHistogram.recordValue(nanos);
      }
      return;
    }
    calls.increment();
    micros.add(durationMicros);
    if (failedCall) {
      failed.increment();
    }
    if (trackLatency) {
      histogram().recordValue(nanos);
    }
  }

  /**
   * Returns the calling thread's cell, cleared if it belongs to an older epoch, or null if the
   * thread counts in the shared counters.
   */
  private Cell cell() {
    if (!(Thread.currentThread() instanceof FastThreadLocalThread)) {
      return null;
    }
    int slot = SLOT.get();
    if (slot < 0) {
      return null;
    }
    Cell[] current = cells;
    int currentEpoch = epoch;
    Cell cell = slot < current.length ? current[slot] : null;
    if (cell == null) {
      return newCell(slot, currentEpoch);
    }
    if (cell.epoch != currentEpoch) {
      cell.restart(currentEpoch);
    }
    return cell;
  }

  private synchronized Cell newCell(int slot, int currentEpoch) {
    Cell[] current = cells;
    if (slot >= current.length) {
      current = Arrays.copyOf(current, Math.min(MAX_CELLS, Math.max(slot + 1, current.length * 2)));
    } else {
      current = current.clone();
    }
    Cell cell = new Cell(currentEpoch);
    current[slot] = cell;
    cells = current;
    return cell;
  }

  /** Counts one call refused before it ran (arity, authentication, OOM, a read-only replica...). */
  void rejected() {
    rejected.increment();
  }

  private static Histogram newHistogram() {
    return new Histogram(HISTOGRAM_MIN_NANOS, HISTOGRAM_MAX_NANOS, HISTOGRAM_DIGITS);
  }

  private AtomicHistogram histogram() {
    AtomicHistogram current = histogram;
    if (current == null) {
      synchronized (this) {
        current = histogram;
        if (current == null) {
          current = new AtomicHistogram(HISTOGRAM_MIN_NANOS, HISTOGRAM_MAX_NANOS, HISTOGRAM_DIGITS);
          histogram = current;
        }
      }
    }
    return current;
  }

  /** Returns the sum of one count over the cells of the current epoch. */
  private long cellSum(int index) {
    int currentEpoch = epoch;
    long sum = 0;
    for (Cell cell : cells) {
      if (cell != null && (int) CELL_EPOCH.getAcquire(cell) == currentEpoch) {
        sum += cell.get(index);
      }
    }
    return sum;
  }

  /** Returns the number of calls that ran. */
  long calls() {
    return calls.sum() + cellSum(CALLS);
  }

  /** Returns the microseconds the calls took together. */
  long micros() {
    return micros.sum() + cellSum(MICROS);
  }

  /** Returns the number of calls refused before running. */
  long rejectedCalls() {
    return rejected.sum();
  }

  /** Returns the number of calls that ran and answered an error. */
  long failedCalls() {
    return failed.sum() + cellSum(FAILED);
  }

  /** Returns true if INFO commandstats lists the command: any call counted at all. */
  boolean used() {
    return calls() != 0 || rejectedCalls() != 0 || failedCalls() != 0;
  }

  /**
   * Returns a copy of the duration histogram (nanoseconds), all threads' together, or null if no
   * call was tracked since the last reset.
   */
  Histogram latencies() {
    int currentEpoch = epoch;
    Histogram copy = null;
    AtomicHistogram shared = histogram;
    if (shared != null) {
      copy = newHistogram();
      copy.add(shared);
    }
    for (Cell cell : cells) {
      if (cell == null || (int) CELL_EPOCH.getAcquire(cell) != currentEpoch) {
        continue;
      }
      Histogram cellHistogram = (Histogram) CELL_HISTOGRAM.getAcquire(cell);
      if (cellHistogram != null) {
        if (copy == null) {
          copy = newHistogram();
        }
        copy.add(cellHistogram);
      }
    }
    return copy;
  }

  /** Clears every counter and drops the histogram (CONFIG RESETSTAT). */
  synchronized void reset() {
    calls.reset();
    micros.reset();
    rejected.reset();
    failed.reset();
    histogram = null;
    epoch++;
  }
}
