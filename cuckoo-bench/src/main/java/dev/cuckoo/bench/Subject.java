package dev.cuckoo.bench;

import java.util.function.IntPredicate;

/**
 * One filter under test behind a common face, so that every benchmark feeds every filter the same
 * keys. Each benchmark fork uses one subclass only, so the calls stay monomorphic and inline.
 */
public abstract class Subject {
  /** Adds a long key; false if the filter refused it. */
  public abstract boolean add(long key);

  /** Adds a string key; false if the filter refused it. */
  public abstract boolean add(String key);

  /** Returns the filter's answer for a long key. */
  public abstract boolean mightContain(long key);

  /** Returns the filter's answer for a string key. */
  public abstract boolean mightContain(String key);

  /** Removes a long key; only for filters whose {@link #supportsRemove()} is true. */
  public boolean remove(long key) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot remove");
  }

  /** Removes a string key; only for filters whose {@link #supportsRemove()} is true. */
  public boolean remove(String key) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot remove");
  }

  /** Returns true if {@link #remove} works. */
  public boolean supportsRemove() {
    return false;
  }

  /** Returns the size of the filter's table in bits. */
  public abstract long bitCount();

  /**
   * Sets bit {@code i − from} of {@code resultBits} iff {@code mightContain(keys[i])}; filters
   * without a batch API answer with single lookups.
   */
  public void mightContainAll(long[] keys, int from, int to, long[] resultBits) {
    answerEach(from, to, resultBits, i -> mightContain(keys[i]));
  }

  /** String-key {@link #mightContainAll(long[], int, int, long[])}. */
  public void mightContainAll(String[] keys, int from, int to, long[] resultBits) {
    answerEach(from, to, resultBits, i -> mightContain(keys[i]));
  }

  private static void answerEach(int from, int to, long[] resultBits, IntPredicate answer) {
    for (int start = from, word = 0; start < to; start += 64, word++) {
      int end = Math.min(to, start + 64);
      long bits = 0;
      for (int i = start; i < end; i++) {
        bits |= (answer.test(i) ? 1L : 0L) << (i - start);
      }
      resultBits[word] = bits;
    }
  }
}
