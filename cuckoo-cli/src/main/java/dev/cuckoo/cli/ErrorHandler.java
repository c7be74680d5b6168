package dev.cuckoo.cli;

import dev.cuckoo.FilterFormatException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Turns every failure into one line on stderr and an exit code: usage errors and bad input give
 * {@link ExitCode#ERROR}, anything unexpected {@link ExitCode#INTERNAL}. The stack trace is printed
 * only with {@code --verbose}.
 */
final class ErrorHandler implements IParameterExceptionHandler, IExecutionExceptionHandler {
  private final CuckooCli cli;

  /**
   * Creates a handler that reads the {@code --verbose} flag from {@code cli}.
   *
   * @param cli the top-level command
   */
  ErrorHandler(CuckooCli cli) {
    this.cli = cli;
  }

  @Override
  public int handleParseException(ParameterException ex, String[] args) {
    CommandLine command = ex.getCommandLine();
    PrintWriter err = command.getErr();
    err.println(
        command.getCommandSpec().qualifiedName()
            + ": "
            + ex.getMessage()
            + " (see '"
            + command.getCommandSpec().qualifiedName()
            + " --help')");
    if (cli.verbose()) {
      ex.printStackTrace(err);
    }
    err.flush();
    return ExitCode.ERROR;
  }

  @Override
  public int handleExecutionException(Exception ex, CommandLine command, ParseResult parseResult) {
    PrintWriter err = command.getErr();
    boolean expected = isUserError(ex);
    String message = expected ? describe(ex) : "internal error: " + ex;
    if (!expected && !cli.verbose()) {
      message += " (run with --verbose for the stack trace)";
    }
    err.println(command.getCommandSpec().qualifiedName() + ": " + message);
    if (cli.verbose()) {
      ex.printStackTrace(err);
    }
    err.flush();
    return expected ? ExitCode.ERROR : ExitCode.INTERNAL;
  }

  private static boolean isUserError(Throwable ex) {
    return ex instanceof CliException
        || ex instanceof IOException
        || ex instanceof UncheckedIOException
        || ex instanceof FilterFormatException
        || ex instanceof IllegalArgumentException;
  }

  /**
   * Returns one line that describes {@code ex} for the user.
   *
   * @param ex a failure
   * @return its description, without a stack trace
   */
  static String describe(Throwable ex) {
    if (ex instanceof UncheckedIOException && ex.getCause() != null) {
      return describe(ex.getCause());
    }
    if (ex instanceof NoSuchFileException) {
      return "no such file: " + ((NoSuchFileException) ex).getFile();
    }
    if (ex instanceof AccessDeniedException) {
      return "permission denied: " + ((AccessDeniedException) ex).getFile();
    }
    if (ex instanceof FileAlreadyExistsException) {
      return "file already exists: " + ((FileAlreadyExistsException) ex).getFile();
    }
    if (ex instanceof NotDirectoryException) {
      return "not a directory: " + ((NotDirectoryException) ex).getFile();
    }
    if (ex instanceof FilterFormatException) {
      return "not a valid filter file: " + ex.getMessage();
    }
    String message = ex.getMessage();
    return message == null || message.isBlank() ? ex.getClass().getSimpleName() : message;
  }
}
