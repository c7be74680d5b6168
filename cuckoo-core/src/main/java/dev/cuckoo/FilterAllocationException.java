package dev.cuckoo;

/**
 * Thrown when a filter's table cannot be allocated: it is beyond the library's table limits or
 * larger than the maximum heap (both refused before anything is allocated), or the heap has no room
 * for it even after the full garbage collection the JVM makes before giving up. Garbage never
 * causes it: whether a table fits is decided by allocating it, not by the free heap. It replaces
 * the {@link OutOfMemoryError} that a size taken from untrusted input (a command argument, a dump
 * header) would otherwise cause; the filter is left as it was.
 */
public final class FilterAllocationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The bytes the failed allocation needed, or -1 if not known. */
  private final long requestedBytes;

  /**
   * Creates an exception for a request of {@code requestedBytes} bytes.
   *
   * @param requestedBytes the bytes the allocation needed, or -1 if not known
   * @param message what was being allocated and which limit it exceeded
   */
  public FilterAllocationException(long requestedBytes, String message) {
    super(message);
    this.requestedBytes = requestedBytes;
  }

  /**
   * Creates an exception for a request of {@code requestedBytes} bytes, caused by {@code cause}.
   *
   * @param requestedBytes the bytes the allocation needed, or -1 if not known
   * @param message what was being allocated
   * @param cause the underlying error, e.g. an {@link OutOfMemoryError} that was caught
   */
  public FilterAllocationException(long requestedBytes, String message, Throwable cause) {
    super(message, cause);
    this.requestedBytes = requestedBytes;
  }

  /**
   * Returns the number of bytes the failed allocation needed, or -1 if not known.
   *
   * @return the requested bytes
   */
  public long requestedBytes() {
    return requestedBytes;
  }
}
