package dev.cuckoo.server.command;

import dev.cuckoo.server.protocol.Numbers;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The runtime cf-* parameters (RedisBloom's module configuration): the defaults used when CF.ADD or
 * CF.INSERT create a key, and the sub-filter limit. Read and changed with CONFIG GET/SET.
 */
public final class CfConfig {
  /** Largest capacity CF.RESERVE and CF.INSERT accept (2^30). */
  static final long MAX_CAPACITY = 1L << 30;

  private volatile long bucketSize = 2;
  private volatile long initialSize = 1024;
  private volatile long maxIterations = 20;
  private volatile long expansionFactor = 1;
  private volatile long maxExpansions = 32;

  /** Returns cf-bucket-size. */
  int bucketSize() {
    return (int) bucketSize;
  }

  /** Returns cf-initial-size, the capacity of auto-created filters. */
  long initialSize() {
    return initialSize;
  }

  /** Returns cf-max-iterations. */
  int maxIterations() {
    return (int) maxIterations;
  }

  /** Returns cf-expansion-factor. */
  int expansionFactor() {
    return (int) expansionFactor;
  }

  /** Returns cf-max-expansions: write commands are refused once a filter has this many links. */
  long maxExpansions() {
    return maxExpansions;
  }

  /** Returns every parameter name with its current value, in a fixed order. */
  public synchronized Map<String, String> values() {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("cf-bucket-size", Long.toString(bucketSize));
    values.put("cf-initial-size", Long.toString(initialSize));
    values.put("cf-max-iterations", Long.toString(maxIterations));
    values.put("cf-expansion-factor", Long.toString(expansionFactor));
    values.put("cf-max-expansions", Long.toString(maxExpansions));
    return values;
  }

  /** Returns true if the name is a cf-* parameter. */
  public static boolean isParameter(String name) {
    switch (name) {
      case "cf-bucket-size":
      case "cf-initial-size":
      case "cf-max-iterations":
      case "cf-expansion-factor":
      case "cf-max-expansions":
        return true;
      default:
        return false;
    }
  }

  /**
   * Sets several parameters atomically: every pair is checked first, in order, each against the
   * values the pairs before it set; only if all are valid are the new values applied.
   *
   * @param names parameter names, each one for which {@link #isParameter} is true
   * @param texts the values, one per name
   * @return null on success, otherwise the index of the first invalid pair and RedisBloom's error
   *     text for it (nothing is changed then)
   */
  synchronized Map.Entry<Integer, String> setAll(String[] names, String[] texts) {
    CfConfig scratch = new CfConfig();
    scratch.copyFrom(this);
    for (int i = 0; i < names.length; i++) {
      String error = scratch.set(names[i], texts[i]);
      if (error != null) {
        return Map.entry(i, error);
      }
    }
    copyFrom(scratch);
    return null;
  }

  private void copyFrom(CfConfig other) {
    bucketSize = other.bucketSize;
    initialSize = other.initialSize;
    maxIterations = other.maxIterations;
    expansionFactor = other.expansionFactor;
    maxExpansions = other.maxExpansions;
  }

  /**
   * Sets a parameter.
   *
   * @return null on success, otherwise RedisBloom's error text (without any prefix)
   */
  public synchronized String set(String name, String text) {
    Long value = Numbers.parseLong(text);
    switch (name) {
      case "cf-bucket-size":
        {
          long max = Math.min(initialSize / 2, 255);
          if (value == null || value < 1 || value > max) {
            return range(name, 1, max);
          }
          bucketSize = value;
          return null;
        }
      case "cf-initial-size":
        {
          long min = 2 * bucketSize;
          if (value == null || value < min || value > MAX_CAPACITY) {
            return range(name, min, MAX_CAPACITY);
          }
          initialSize = value;
          return null;
        }
      case "cf-max-iterations":
        if (value == null || value < 1 || value > 65535) {
          return range(name, 1, 65535);
        }
        maxIterations = value;
        return null;
      case "cf-expansion-factor":
        if (value == null || value < 0 || value > 32768) {
          return range(name, 0, 32768);
        }
        expansionFactor = value;
        return null;
      case "cf-max-expansions":
        if (value == null || value < 1 || value > 65536) {
          return range(name, 1, 65536);
        }
        maxExpansions = value;
        return null;
      default:
        throw new IllegalArgumentException("not a cf-* parameter: " + name);
    }
  }

  private static String range(String name, long min, long max) {
    return "Value for `" + name + "` must be in the range [" + min + ", " + max + "]";
  }
}
