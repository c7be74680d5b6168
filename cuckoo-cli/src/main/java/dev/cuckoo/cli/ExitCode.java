package dev.cuckoo.cli;

/** The process exit codes every {@code cuckoo} command returns. */
final class ExitCode {
  /** The command did what was asked (for {@code query}: every item might be present). */
  static final int OK = 0;

  /** {@code query} only: at least one item is definitely absent. */
  static final int SOME_ABSENT = 1;

  /** A usage error or bad input (missing or corrupt file, invalid number, full filter...). */
  static final int ERROR = 2;

  /** An unexpected internal failure (a bug); {@code --verbose} shows the stack trace. */
  static final int INTERNAL = 70;

  private ExitCode() {}
}
