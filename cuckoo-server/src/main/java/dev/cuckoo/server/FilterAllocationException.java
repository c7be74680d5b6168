package dev.cuckoo.server;

/**
 * Thrown when a filter's table cannot be allocated (too large for the heap or the limits).
 *
 * <p>Temporary stand-in for {@code dev.cuckoo.FilterAllocationException}; removed when the core
 * library provides it.
 */
final class FilterAllocationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with a message naming the size that could not be allocated. */
  FilterAllocationException(String message) {
    super(message);
  }
}
