package dev.cuckoo.server.keyspace;

import io.netty.util.concurrent.FastThreadLocal;
import java.time.Instant;

/**
 * The time a command sees: fixed when a command starts and kept for its whole execution (a
 * transaction's too), as Redis does, so that a key cannot expire in the middle of a command that
 * already looked at it. Outside a command, the wall clock.
 *
 * <p>A command's start reads one clock: {@link System#nanoTime}, which also starts the measure of
 * its duration ({@link #startNanos}); the wall-clock time is derived from it through a pair of
 * readings of both clocks that each thread takes again once {@link #RESYNC_NANOS} have passed, so
 * the derived time follows a step of the wall clock within that delay and differs from a direct
 * reading by the monotonic clock's drift over it (microseconds at most).
 */
public final class CommandClock {
  // reading both clocks for every request cost about 2% of a pipelined CF.EXISTS's CPU time (the
  // vDSO's clock_gettime, twice per request besides the duration's end)

  /** How long a thread's pair of clock readings serves before it is read again: 1 ms. */
  static final long RESYNC_NANOS = 1_000_000;

  private static final int MILLIS = 0;
  private static final int DEPTH = 1;
  private static final int START_NANOS = 2;
  private static final int BASE_NANOS = 3;
  private static final int BASE_EPOCH_NANOS = 4;

  private static final FastThreadLocal<long[]> FROZEN =
      new FastThreadLocal<>() {
        @Override
        protected long[] initialValue() {
          long[] state = new long[5];
          resync(state, System.nanoTime());
          return state;
        }
      };

  private CommandClock() {}

  /** Fixes the time for the command starting on this thread (nested commands keep the outer's). */
  public static void enter() {
    long[] state = FROZEN.get();
    if (state[DEPTH]++ == 0) {
      long nanos = System.nanoTime();
      state[START_NANOS] = nanos;
      state[MILLIS] = wallMillis(state, nanos);
    }
  }

  /**
   * Fixes the time for the command starting on this thread at {@code millis} (a replica applying
   * its master's writes passes {@link Long#MIN_VALUE}: no key has expired for them, as in Redis,
   * whose master deletes expired keys explicitly).
   */
  public static void enterAt(long millis) {
    long[] state = FROZEN.get();
    if (state[DEPTH]++ == 0) {
      state[START_NANOS] = System.nanoTime();
      state[MILLIS] = millis;
    }
  }

  /** Ends a command started with {@link #enter} or {@link #enterAt}. */
  public static void exit() {
    long[] state = FROZEN.get();
    state[DEPTH]--;
  }

  /** Returns the current command's time in Unix milliseconds, or the wall clock outside one. */
  public static long now() {
    long[] state = FROZEN.get();
    return state[DEPTH] > 0 ? state[MILLIS] : System.currentTimeMillis();
  }

  /**
   * Returns {@link System#nanoTime} as read when the command running on this thread started, if it
   * is the outermost one, or reads it now for a nested command (one EXEC runs) or outside one.
   */
  public static long startNanos() {
    long[] state = FROZEN.get();
    return state[DEPTH] == 1 ? state[START_NANOS] : System.nanoTime();
  }

  /** Returns the wall-clock milliseconds at {@code nanos}, reading both clocks again if due. */
  private static long wallMillis(long[] state, long nanos) {
    if (nanos - state[BASE_NANOS] >= RESYNC_NANOS) {
      resync(state, nanos);
    }
    return Math.floorDiv(state[BASE_EPOCH_NANOS] + (nanos - state[BASE_NANOS]), 1_000_000L);
  }

  private static void resync(long[] state, long nanos) {
    Instant wall = Instant.now();
    state[BASE_NANOS] = nanos;
    state[BASE_EPOCH_NANOS] = wall.getEpochSecond() * 1_000_000_000L + wall.getNano();
  }
}
