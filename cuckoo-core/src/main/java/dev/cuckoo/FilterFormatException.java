package dev.cuckoo;

/**
 * Thrown when serialized filter bytes are corrupt, truncated, of an unknown version, or ask for
 * more memory than allowed: the one exception type every reader in this library raises for bad
 * input. The message names the field that was wrong and, where known, its byte offset.
 */
public final class FilterFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The name of the field that was wrong. */
  private final String field;

  /** The byte offset of the field in the stream, or -1 if unknown. */
  private final long offset;

  /**
   * Creates an exception for a bad {@code field} at byte {@code offset}.
   *
   * @param field the name of the field that was wrong
   * @param offset the byte offset of the field in the stream, or -1 if unknown
   * @param message what was wrong, including the value and the allowed range
   */
  public FilterFormatException(String field, long offset, String message) {
    super(field + (offset >= 0 ? " at offset " + offset : "") + ": " + message);
    this.field = field;
    this.offset = offset;
  }

  /**
   * Creates an exception for a bad {@code field} at byte {@code offset}, caused by {@code cause}.
   *
   * @param field the name of the field that was wrong
   * @param offset the byte offset of the field in the stream, or -1 if unknown
   * @param message what was wrong
   * @param cause the underlying exception
   */
  public FilterFormatException(String field, long offset, String message, Throwable cause) {
    super(field + (offset >= 0 ? " at offset " + offset : "") + ": " + message, cause);
    this.field = field;
    this.offset = offset;
  }

  /**
   * Returns the name of the field that was wrong.
   *
   * @return the field name
   */
  public String field() {
    return field;
  }

  /**
   * Returns the byte offset of the field in the stream, or -1 if unknown.
   *
   * @return the offset
   */
  public long offset() {
    return offset;
  }
}
