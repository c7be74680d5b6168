package dev.cuckoo.server.protocol;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The error replies sent to clients, counted in total ({@code total_error_replies} of INFO stats)
 * and by error code ({@code errorstat_<code>:count=N} of INFO errorstats), as Redis counts them.
 *
 * <p>The code is the error's first word ({@code ERR}, {@code WRONGTYPE}, {@code NOAUTH}, …) when a
 * space ends it within the first 31 characters, otherwise {@code ERR}. As in Redis, at most {@value
 * #MAX_CODES} codes are kept: a reply with one more new code empties the table, logs the codes it
 * held and counts from then on only {@code ERRORSTATS_DISABLED}, until {@link #reset} (CONFIG
 * RESETSTAT). The total is always counted. Safe for concurrent use.
 */
public final class ErrorStats {
  /** The most distinct error codes counted before counting by code stops. */
  public static final int MAX_CODES = 128;

  private static final Logger LOGGER = System.getLogger(ErrorStats.class.getName());
  private static final String DISABLED = "ERRORSTATS_DISABLED";

  private final LongAdder total = new LongAdder();
  private final ConcurrentHashMap<String, LongAdder> byCode = new ConcurrentHashMap<>();
  private volatile boolean enabled = true;

  /** Counts one error reply whose text (without the leading dash) is {@code text}. */
  public void count(String text) {
    total.increment();
    if (!enabled) {
      return;
    }
    String code = codeOf(text);
    LongAdder counter = byCode.get(code);
    if (counter == null) {
      synchronized (this) {
        if (!enabled) {
          return;
        }
        counter = byCode.get(code);
        if (counter == null) {
          if (byCode.size() >= MAX_CODES) {
            LOGGER.log(
                Level.WARNING,
                "Errorstats stopped adding new errors because the number of errors reached the"
                    + " limit of {0}; CONFIG RESETSTAT enables it again. Codes counted: {1}",
                MAX_CODES,
                String.join(", ", new TreeMap<>(byCode).keySet()));
            byCode.clear();
            byCode.computeIfAbsent(DISABLED, name -> new LongAdder()).increment();
            enabled = false;
            return;
          }
          counter = byCode.computeIfAbsent(code, name -> new LongAdder());
        }
      }
    }
    counter.increment();
  }

  /** Returns the error code Redis files an error under: its first word, or {@code ERR}. */
  static String codeOf(String text) {
    // Redis looks for the space within the first 32 bytes of the reply, its dash included
    int limit = Math.min(text.length(), 31);
    for (int i = 0; i < limit; i++) {
      if (text.charAt(i) == ' ') {
        return i == 0 ? "ERR" : text.substring(0, i);
      }
    }
    return "ERR";
  }

  /** Returns the number of error replies counted since the last reset. */
  public long total() {
    return total.sum();
  }

  /** Returns the counts by error code, in code order (a copy). */
  public Map<String, Long> byCode() {
    Map<String, Long> counts = new TreeMap<>();
    byCode.forEach((code, count) -> counts.put(code, count.sum()));
    return counts;
  }

  /** Clears every count and counts by code again (CONFIG RESETSTAT). */
  public synchronized void reset() {
    total.reset();
    byCode.clear();
    enabled = true;
  }
}
