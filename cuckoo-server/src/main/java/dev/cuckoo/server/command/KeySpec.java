package dev.cuckoo.server.command;

import java.util.List;

/**
 * One key specification of a command (Redis 7's {@code key_specs}): the key flags, where the search
 * begins (an argument index) and how keys are found from there (a range: last key relative to the
 * first, or negative from the end; the step; a limit dividing what is left).
 */
public record KeySpec(List<String> flags, int index, int lastKey, int keyStep, int limit) {
  /** Returns a spec for the single key at argument {@code index}. */
  public static KeySpec one(int index, String... flags) {
    return new KeySpec(List.of(flags), index, 0, 1, 0);
  }

  /** Returns a spec for the keys from {@code index} up to {@code lastKey} every {@code step}. */
  public static KeySpec range(int index, int lastKey, int step, String... flags) {
    return new KeySpec(List.of(flags), index, lastKey, step, 0);
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
