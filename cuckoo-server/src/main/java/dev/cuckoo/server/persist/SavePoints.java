package dev.cuckoo.server.persist;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Redis's {@code save} parameter: pairs of seconds and changes. A point "S C" takes a snapshot in
 * the background when at least C changes were made and more than S seconds passed since the last
 * successful save; after a failed background save, only once more than {@value #RETRY_SECONDS}
 * seconds passed since it was tried (Redis's serverCron and {@code CONFIG_BGSAVE_RETRY_DELAY}).
 * Immutable.
 */
public final class SavePoints {
  /** Redis's default: {@code 3600 1 300 100 60 10000}. */
  public static final SavePoints DEFAULT = parse("3600 1 300 100 60 10000");

  /** No save point ({@code save ""}): nothing is saved automatically. */
  public static final SavePoints NONE = new SavePoints(new long[0]);

  /** Seconds after a failed background save before a save point may try again. */
  static final long RETRY_SECONDS = 5;

  private static final String INVALID = "Invalid save parameters";

  // seconds, changes, seconds, changes, ...
  private final long[] pairs;

  private SavePoints(long[] pairs) {
    this.pairs = pairs;
  }

  /**
   * Parses Redis's syntax: pairs of seconds (1 or more) and changes (0 or more) separated by
   * spaces, or an empty value for none.
   *
   * @throws IllegalArgumentException with Redis's text, "Invalid save parameters", if a number is
   *     missing, not an integer or out of range
   */
  public static SavePoints parse(String value) {
    String trimmed = value.trim();
    if (trimmed.isEmpty() || trimmed.equals("\"\"")) {
      return NONE;
    }
    String[] words = trimmed.split("\\s+");
    if (words.length % 2 != 0) {
      throw new IllegalArgumentException(INVALID);
    }
    long[] pairs = new long[words.length];
    for (int i = 0; i < words.length; i++) {
      long number;
      try {
        number = Long.parseLong(words[i]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(INVALID, e);
      }
      if (number < (i % 2 == 0 ? 1 : 0) || (i % 2 == 1 && number > Integer.MAX_VALUE)) {
        throw new IllegalArgumentException(INVALID);
      }
      pairs[i] = number;
    }
    return new SavePoints(pairs);
  }

  /** Returns these points followed by {@code more} (a config file's further {@code save} lines). */
  public SavePoints plus(SavePoints more) {
    long[] all = Arrays.copyOf(pairs, pairs.length + more.pairs.length);
    System.arraycopy(more.pairs, 0, all, pairs.length, more.pairs.length);
    return new SavePoints(all);
  }

  /** Returns true if there is no save point ({@code save ""}). */
  public boolean isEmpty() {
    return pairs.length == 0;
  }

  /**
   * Returns the first point that fires now, as "C changes in S seconds", or null if none does.
   *
   * @param changes writes since the last successful save
   * @param secondsSinceSave seconds since the last successful save
   * @param secondsSinceTry seconds since the last background save was tried
   * @param lastFailed whether the last background save failed
   */
  public String due(long changes, long secondsSinceSave, long secondsSinceTry, boolean lastFailed) {
    if (lastFailed && secondsSinceTry <= RETRY_SECONDS) {
      return null;
    }
    for (int i = 0; i < pairs.length; i += 2) {
      if (changes >= pairs[i + 1] && secondsSinceSave > pairs[i]) {
        return pairs[i + 1] + " changes in " + pairs[i] + " seconds";
      }
    }
    return null;
  }

  /** Returns Redis's text of the points, "S C S C ...", empty for none (CONFIG GET save). */
  @Override
  public String toString() {
    List<String> words = new ArrayList<>();
    for (long number : pairs) {
      words.add(Long.toString(number));
    }
    return String.join(" ", words);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof SavePoints points && Arrays.equals(pairs, points.pairs);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(pairs);
  }
}
