package dev.cuckoo.server.command;

import java.util.List;

/**
 * One key specification of a command (Redis 7's {@code key_specs}): the key flags, where the search
 * begins (an argument index, or after a keyword searched for from {@code index}: forwards when
 * positive, backwards from the end when negative) and how keys are found from there (a range: last
 * key relative to the first, or negative from the end; the step; a limit dividing what is left).
 *
 * <p>A command with a keyword spec finds its keys with a {@link CommandSpec.KeyFinder} of its own
 * (Redis's getkeys function): a keyword spec is shown by COMMAND INFO only.
 *
 * @param keyword the keyword the search begins after, or null when it begins at {@code index}
 */
public record KeySpec(
    List<String> flags, int index, int lastKey, int keyStep, int limit, String keyword) {
  /** A spec whose search begins at argument {@code index}. */
  public KeySpec(List<String> flags, int index, int lastKey, int keyStep, int limit) {
    this(flags, index, lastKey, keyStep, limit, null);
  }

  /** Returns a spec for the single key at argument {@code index}. */
  public static KeySpec one(int index, String... flags) {
    return new KeySpec(List.of(flags), index, 0, 1, 0);
  }

  /** Returns a spec for the keys from {@code index} up to {@code lastKey} every {@code step}. */
  public static KeySpec range(int index, int lastKey, int step, String... flags) {
    return new KeySpec(List.of(flags), index, lastKey, step, 0);
  }

  /**
   * Returns a spec for the keys after {@code keyword} (searched for from {@code startFrom}) up to
   * {@code lastKey} every {@code step}.
   */
  public static KeySpec afterKeyword(
      String keyword, int startFrom, int lastKey, int step, String... flags) {
    return new KeySpec(List.of(flags), startFrom, lastKey, step, 0, keyword);
  }

  /** Returns true if the search begins at an argument index (not after a keyword). */
  boolean byIndex() {
    return keyword == null;
  }

  /**
   * Returns how many keys this spec finds in a line of {@code argc} arguments: those from {@code
   * index} up to {@link #last} every {@code keyStep}, positions past the end left out; 0 for a
   * keyword spec (its command finds its keys itself).
   */
  int count(int argc) {
    if (!byIndex() || index >= argc) {
      return 0;
    }
    int lastFound = Math.min(last(argc), argc - 1);
    return lastFound < index ? 0 : (lastFound - index) / keyStep + 1;
  }

  /**
   * Returns the position of the last key this spec finds in a line of {@code argc} arguments, as
   * Redis's {@code getKeysUsingKeySpecs} computes it (positions past the end are skipped by the
   * caller).
   */
  int last(int argc) {
    if (lastKey >= 0) {
      return index + lastKey;
    }
    if (limit == 0) {
      return argc + lastKey;
    }
    return index + ((argc - index) / limit + lastKey);
  }
}
