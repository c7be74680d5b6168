package dev.cuckoo;

/**
 * The seeds of randomised tests: fixed by default so that the default build is deterministic,
 * replaced by {@code -Dcuckoo.test.seed=N} to replay a failure (tests print their seed in every
 * failure message) or to explore other sequences.
 */
final class TestSeeds {

  /** The system property that overrides every seed. */
  static final String PROPERTY = "cuckoo.test.seed";

  /** The seed of the default build. */
  static final long DEFAULT = 20261123L;

  private TestSeeds() {}

  /** The seed of a default-build test: {@value #PROPERTY} if set, else {@link #DEFAULT}. */
  static long seed() {
    return Long.getLong(PROPERTY, DEFAULT);
  }

  /** The seed of a long exploratory run: {@value #PROPERTY} if set, else a fresh one. */
  static long freshSeed() {
    return Long.getLong(PROPERTY, System.nanoTime());
  }
}
