package dev.cuckoo.server.keyspace;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.System.Logger.Level;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Keeps the server off the edge of its heap: writes are refused with Redis's OOM error while the
 * heap in use after the last garbage collection is within a reserve of the maximum heap, whatever
 * {@code maxmemory} says; an {@link OutOfMemoryError} that still happens ends the process.
 *
 * <p>{@code maxmemory} is compared with the filters' own sizes, which leave out keys, maps and
 * buffers, so with {@code --maxmemory 0} (or a limit near the heap) only the heap itself would stop
 * writes, at an OutOfMemoryError in whatever thread allocated last. The figure watched here is what
 * each collection leaves in use (live data and garbage the collector has not reached yet, never
 * garbage a collection just freed), read from the collector's own notifications: nothing is
 * measured on the command path. The reserve is a tenth of the maximum heap, at least 32 MiB (a
 * quarter of heaps under 128 MiB) and at most 512 MiB, enough for replies, a snapshot's buffers and
 * the collector's headroom.
 *
 * <p>An OutOfMemoryError means some structure may be half changed: the process must not go on
 * serving nor save a snapshot of it. {@link #fatal} prints one line and halts with exit code 3
 * (shutdown hooks, which would save, do not run); every acknowledged write is in the log, which the
 * next start replays.
 */
public final class HeapGuard implements NotificationListener, AutoCloseable {
  private static final System.Logger LOGGER = System.getLogger(HeapGuard.class.getName());

  /** Exit code of a process ended by an OutOfMemoryError. */
  public static final int EXIT_OUT_OF_MEMORY = 3;

  private static final long MIN_RESERVE = 32L << 20;
  private static final long MAX_RESERVE = 512L << 20;

  private final long maxHeap;
  private final long reserve;
  private final Set<String> heapPools = new HashSet<>();
  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private volatile boolean low;
  private volatile long usedAfterLastGc;

  /** Creates a guard for this JVM's maximum heap; {@link #start} begins watching. */
  public HeapGuard() {
    this(Runtime.getRuntime().maxMemory());
  }

  HeapGuard(long maxHeap) {
    this.maxHeap = maxHeap;
    this.reserve = reserveFor(maxHeap);
  }

  /** Returns the bytes kept free below a maximum heap of {@code maxHeap} bytes. */
  static long reserveFor(long maxHeap) {
    return Math.min(MAX_RESERVE, Math.max(Math.min(MIN_RESERVE, maxHeap / 4), maxHeap / 10));
  }

  /** Starts reading the collector's notifications. */
  public HeapGuard start() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        heapPools.add(pool.getName());
      }
    }
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (collector instanceof NotificationEmitter) {
        NotificationEmitter emitter = (NotificationEmitter) collector;
        emitter.addNotificationListener(this, null, null);
        emitters.add(emitter);
      }
    }
    return this;
  }

  @Override
  public void handleNotification(Notification notification, Object handback) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
        notification.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    long used = 0;
    for (Map.Entry<String, MemoryUsage> pool :
        info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (heapPools.contains(pool.getKey())) {
        used += pool.getValue().getUsed();
      }
    }
    observed(used);
  }

  /** Takes the heap in use after a collection. */
  void observed(long usedAfterGc) {
    usedAfterLastGc = usedAfterGc;
    boolean nowLow = usedAfterGc > maxHeap - reserve;
    if (nowLow != low) {
      low = nowLow;
      LOGGER.log(
          nowLow ? Level.WARNING : Level.INFO,
          nowLow
              ? "the heap holds {0} bytes after a collection, within {1} bytes of its maximum"
                  + " ({2}): refusing writes that add data until it has room (raise -Xmx)"
              : "the heap holds {0} bytes after a collection, more than {1} bytes below its"
                  + " maximum ({2}): accepting writes again",
          usedAfterGc,
          reserve,
          maxHeap);
    }
  }

  /** Returns true while writes that add data must be refused. */
  public boolean low() {
    return low;
  }

  /** Returns the heap in use after the last collection, in bytes (0 before the first). */
  long usedAfterLastGc() {
    return usedAfterLastGc;
  }

  /** Returns the bytes kept free below the maximum heap. */
  long reserveBytes() {
    return reserve;
  }

  @Override
  public void close() {
    for (NotificationEmitter emitter : emitters) {
      try {
        emitter.removeNotificationListener(this);
      } catch (ListenerNotFoundException e) {
        // already removed
      }
    }
    emitters.clear();
  }

  /** Returns true if {@code error} is, or was caused by, an OutOfMemoryError. */
  public static boolean outOfMemory(Throwable error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof OutOfMemoryError) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  /**
   * Ends the process after an OutOfMemoryError: one line on standard error naming the thread, the
   * error and the heap, then a halt with {@link #EXIT_OUT_OF_MEMORY}. Never returns.
   */
  public static void fatal(String where, Throwable error) {
    try {
      System.err.println(
          "cuckoo-server: out of memory in "
              + where
              + " ("
              + error
              + "); maximum heap "
              + Runtime.getRuntime().maxMemory()
              + " bytes. Exiting: every acknowledged write is in the log; restart with a larger"
              + " -Xmx or a lower --maxmemory");
      System.err.flush();
    } finally {
      Runtime.getRuntime().halt(EXIT_OUT_OF_MEMORY);
    }
  }

  /**
   * Makes an OutOfMemoryError in any thread that does not catch it end the process ({@link
   * #fatal}); other uncaught errors go to the handler that was there before.
   */
  public static void exitOnUncaughtOutOfMemory() {
    Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler(
        (thread, error) -> {
          if (outOfMemory(error)) {
            fatal("thread " + thread.getName(), error);
          } else if (previous != null) {
            previous.uncaughtException(thread, error);
          } else {
            System.err.print("Exception in thread \"" + thread.getName() + "\" ");
            error.printStackTrace();
          }
        });
  }
}
