package dev.cuckoo.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;

/**
 * A failure the user can fix (bad input, missing file, full filter): reported as one line on
 * stderr, with exit code {@link ExitCode#ERROR}, and no stack trace unless {@code --verbose}.
 */
final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Returns the exception for a failure to read {@code name}.
   *
   * @param name the file (or "stdin")
   * @param cause the failure
   * @return e.g. "no such file: x.txt", "permission denied: x.txt", "cannot read x.txt: ..."
   */
  static CliException reading(String name, IOException cause) {
    if (cause instanceof NoSuchFileException) {
      return new CliException("no such file: " + name, cause);
    }
    if (cause instanceof AccessDeniedException) {
      return new CliException("permission denied: " + name, cause);
    }
    return new CliException("cannot read " + name + ": " + ErrorHandler.describe(cause), cause);
  }

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
