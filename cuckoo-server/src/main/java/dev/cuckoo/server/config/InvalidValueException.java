package dev.cuckoo.server.config;

/**
 * A parameter's value that its type or a constraint refuses. {@link #reason()} is the text CONFIG
 * SET puts after Redis's "CONFIG SET failed (possibly related to argument ...) - "; the message
 * names the parameter, the value and the reason, for the command line and config files.
 */
public final class InvalidValueException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** Redis's words for what is wrong, without the parameter's name. */
  private final String reason;

  /**
   * Creates the exception.
   *
   * @param reason Redis's words for what is wrong (e.g. "argument must be 'yes' or 'no'")
   * @param message the whole message: parameter, value and reason
   */
  InvalidValueException(String reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** Returns Redis's words for what is wrong, without the parameter's name or the value. */
  public String reason() {
    return reason;
  }
}
