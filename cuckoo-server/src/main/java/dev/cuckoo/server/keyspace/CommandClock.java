package dev.cuckoo.server.keyspace;

import io.netty.util.concurrent.FastThreadLocal;

/**
 * The time a command sees: fixed when a command starts and kept for its whole execution (a
 * transaction's too), as Redis does, so that a key cannot expire in the middle of a command that
 * already looked at it. Outside a command, the wall clock.
 */
public final class CommandClock {
  private static final FastThreadLocal<long[]> FROZEN =
      new FastThreadLocal<>() {
        @Override
        protected long[] initialValue() {
          return new long[2];
        }
      };

  private CommandClock() {}

  /** Fixes the time for the command starting on this thread (nested commands keep the outer's). */
  public static void enter() {
    long[] state = FROZEN.get();
    if (state[1]++ == 0) {
      state[0] = System.currentTimeMillis();
    }
  }

  /**
   * Fixes the time for the command starting on this thread at {@code millis} (a replica applying
   * its master's writes passes {@link Long#MIN_VALUE}: no key has expired for them, as in Redis,
   * whose master deletes expired keys explicitly).
   */
  public static void enterAt(long millis) {
    long[] state = FROZEN.get();
    if (state[1]++ == 0) {
      state[0] = millis;
    }
  }

  /** Ends a command started with {@link #enter} or {@link #enterAt}. */
  public static void exit() {
    long[] state = FROZEN.get();
    state[1]--;
  }

  /** Returns the current command's time in Unix milliseconds, or the wall clock outside one. */
  public static long now() {
    long[] state = FROZEN.get();
    return state[1] > 0 ? state[0] : System.currentTimeMillis();
  }
}
