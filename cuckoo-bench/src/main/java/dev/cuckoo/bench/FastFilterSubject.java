package dev.cuckoo.bench;

import dev.cuckoo.ItemHashers;
import java.util.function.LongConsumer;
import org.fastfilter.Filter;

/**
 * A fastfilter_java filter. It takes 64-bit keys only and hashes them again internally; long keys
 * are passed as they are, strings as XXH3-64 of their UTF-8 bytes ({@link ItemHashers#utf8()}, the
 * same hash this project's filter computes for them).
 */
final class FastFilterSubject extends Subject {
  private final Filter filter;
  private final LongConsumer inserter;

  /**
   * Wraps {@code filter}; {@code inserter} adds a key (fastfilter's cuckoo filters insert with
   * {@code insert(long)}, not {@link Filter#add}).
   */
  FastFilterSubject(Filter filter, LongConsumer inserter) {
    this.filter = filter;
    this.inserter = inserter;
  }

  /** Returns the 64-bit key fastfilter gets for a string. */
  static long stringKey(String key) {
    return ItemHashers.utf8().hash(key);
  }

  @Override
  public boolean add(long key) {
    try {
      inserter.accept(key);
      return true;
    } catch (IllegalStateException full) {
      return false;
    }
  }

  @Override
  public boolean add(String key) {
    return add(stringKey(key));
  }

  @Override
  public boolean mightContain(long key) {
    return filter.mayContain(key);
  }

  @Override
  public boolean mightContain(String key) {
    return filter.mayContain(stringKey(key));
  }

  @Override
  public long bitCount() {
    return filter.getBitCount();
  }
}
