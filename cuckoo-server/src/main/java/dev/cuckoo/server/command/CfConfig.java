package dev.cuckoo.server.command;

import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.Parameters;

/**
 * The runtime cf-* parameters (RedisBloom's module configuration) as CF commands read them: the
 * defaults used when CF.ADD or CF.INSERT create a key, and the sub-filter limit. Their values,
 * bounds and CONFIG GET/SET live in the parameter table ({@link Parameters}).
 */
final class CfConfig {
  /** Largest capacity CF.RESERVE and CF.INSERT accept (2^30). */
  static final long MAX_CAPACITY = 1L << 30;

  private final Config config;

  /** Creates the reader over the parameters' values. */
  CfConfig(Config config) {
    this.config = config;
  }

  /** Returns cf-bucket-size. */
  int bucketSize() {
    return (int) (long) config.get(Parameters.CF_BUCKET_SIZE);
  }

  /** Returns cf-initial-size, the capacity of auto-created filters. */
  long initialSize() {
    return config.get(Parameters.CF_INITIAL_SIZE);
  }

  /** Returns cf-max-iterations. */
  int maxIterations() {
    return (int) (long) config.get(Parameters.CF_MAX_ITERATIONS);
  }

  /** Returns cf-expansion-factor. */
  int expansionFactor() {
    return (int) (long) config.get(Parameters.CF_EXPANSION_FACTOR);
  }

  /** Returns cf-max-expansions: write commands are refused once a filter has this many links. */
  long maxExpansions() {
    return config.get(Parameters.CF_MAX_EXPANSIONS);
  }
}
