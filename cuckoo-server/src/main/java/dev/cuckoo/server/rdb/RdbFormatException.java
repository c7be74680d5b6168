package dev.cuckoo.server.rdb;

/**
 * An RDB file or transfer that cannot be read: a wrong header, an unknown type or opcode, a length
 * the input does not hold, a value that is not what its type says, or a CRC64 that does not match.
 * The message names the field, its offset from the start of the RDB and what was expected.
 */
public final class RdbFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final long offset;
  private final String detail;

  /**
   * Creates the exception.
   *
   * @param field the field that was wrong
   * @param offset its offset from the start of the RDB
   * @param detail the value found and what was expected
   * @param cause what was wrong inside the field (a filter's own check), or null
   */
  public RdbFormatException(String field, long offset, String detail, Throwable cause) {
    super("RDB " + field + " at offset " + offset + ": " + detail, cause);
    this.field = field;
    this.offset = offset;
    this.detail = detail;
  }

  /**
   * Returns what was found and what was expected (the message without the field and offset).
   *
   * @return the detail
   */
  public String detail() {
    return detail;
  }

  /**
   * Returns the name of the field that was wrong.
   *
   * @return the field
   */
  public String field() {
    return field;
  }

  /**
   * Returns the offset of the field from the start of the RDB.
   *
   * @return the offset
   */
  public long offset() {
    return offset;
  }
}
