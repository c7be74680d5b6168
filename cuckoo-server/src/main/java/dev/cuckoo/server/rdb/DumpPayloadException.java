package dev.cuckoo.server.rdb;

/**
 * A DUMP payload that cannot be restored: its footer is wrong ({@link Kind#CHECKSUM}) or its
 * content is not a value this server can hold ({@link Kind#CONTENT}). The message names the field,
 * its offset in the payload and what was expected; {@link Kind#reply()} is Redis's error for
 * RESTORE.
 */
public final class DumpPayloadException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Which of Redis's two RESTORE errors a bad payload gets. */
  public enum Kind {
    /** Too short, an RDB version above the one written, or a CRC64 that does not match. */
    CHECKSUM("ERR DUMP payload version or checksum are wrong"),
    /** A valid footer over content that is not a cuckoo filter's RDB value. */
    CONTENT("ERR Bad data format");

    private final String reply;

    Kind(String reply) {
      this.reply = reply;
    }

    /**
     * Returns Redis's error reply for this kind, without the leading dash.
     *
     * @return the reply text
     */
    public String reply() {
      return reply;
    }
  }

  private final Kind kind;
  private final String field;
  private final long offset;

  /**
   * Creates the exception.
   *
   * @param kind which RESTORE error it is
   * @param field the field that was wrong
   * @param offset the field's offset in the payload (or in the LZF input), or −1 if none
   * @param detail the value found and what was expected
   */
  public DumpPayloadException(Kind kind, String field, long offset, String detail) {
    super(field + (offset >= 0 ? " at offset " + offset : "") + ": " + detail);
    this.kind = kind;
    this.field = field;
    this.offset = offset;
  }

  /**
   * Returns which RESTORE error this is.
   *
   * @return the kind
   */
  public Kind kind() {
    return kind;
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
   * Returns the offset of the field, or −1 if it has none.
   *
   * @return the offset
   */
  public long offset() {
    return offset;
  }
}
