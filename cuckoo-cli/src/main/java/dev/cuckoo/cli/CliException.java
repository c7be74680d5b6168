package dev.cuckoo.cli;

/**
 * A failure the user can fix (bad input, missing file, full filter): reported as one line on
 * stderr, with exit code {@link ExitCode#ERROR}, and no stack trace unless {@code --verbose}.
 */
final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message for the user.
   *
   * @param message one line that says what is wrong and, where possible, how to fix it
   */
  CliException(String message) {
    super(message);
  }

  /**
   * Creates an exception with a message for the user and the underlying cause.
   *
   * @param message one line that says what is wrong
   * @param cause the exception that revealed the problem (shown with {@code --verbose})
   */
  CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
