package dev.cuckoo;

/**
 * A function that turns an item into a well-mixed 64-bit hash, the only thing a cuckoo filter needs
 * to know about its items.
 *
 * <p>Implementations must be deterministic (equal items give equal hashes, in every JVM and on
 * every run: a filter written to disk is read back with the same hasher), thread-safe, and should
 * not allocate. All 64 bits are used: the filter takes the fingerprint from the high bits and the
 * bucket index from the low bits, so a weak hash (such as {@link Object#hashCode()}) raises the
 * false-positive rate. The built-in hashers in {@link ItemHashers} use XXH3-64 (hash4j).
 *
 * @param <T> the item type
 */
@FunctionalInterface
public interface ItemHasher<T> {

  /**
   * Returns the 64-bit hash of {@code item}.
   *
   * @param item the item, never {@code null} (the filter checks)
   * @return its hash
   */
  long hash(T item);

  /**
   * Returns the identifier stored in serialized filters so that reading a filter with a different
   * hasher than it was written with is detected. Built-in hashers return a fixed positive id; the
   * default, {@code 0}, means "custom hasher, not checked".
   *
   * @return the hasher id, {@code 0} for custom hashers
   */
  default int id() {
    return 0;
  }
}
