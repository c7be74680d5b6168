package dev.cuckoo.cli;

import dev.cuckoo.FilterFormatException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

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
    String message = ex.getMessage();
    List<String> unknown = unknownOptions(command, args);
    if (!unknown.isEmpty()) {
      // named first: picocli reports a required option as missing before an unknown one, and
      // lists an unknown option's value as another unknown option
      message =
          (unknown.size() == 1 ? "Unknown option: '" : "Unknown options: '")
              + String.join("', '", unknown)
              + "'";
      List<String> similar = new UnmatchedArgumentException(command, unknown).getSuggestions();
      if (!similar.isEmpty()) {
        message += " (did you mean '" + similar.get(0) + "'?)";
      }
    }
    err.println(
        command.getCommandSpec().qualifiedName()
            + ": "
            + message
            + " (see '"
            + command.getCommandSpec().qualifiedName()
            + " --help')");
    if (cli.verbose()) {
      ex.printStackTrace(err);
    }
    err.flush();
    return ExitCode.ERROR;
  }

  /**
   * Returns the arguments of {@code command} that look like options it does not have, in order: a
   * token after the command's name that starts with {@code --} (up to an {@code =}), or is a dash
   * and one letter, and names no option; the value of a known option that takes one is skipped.
   * Empty for a command that hands unknown arguments on ({@code serve}).
   */
  private static List<String> unknownOptions(CommandLine command, String[] args) {
    CommandSpec spec = command.getCommandSpec();
    List<String> unknown = new ArrayList<>();
    if (!spec.unmatchedArgsBindings().isEmpty()) {
      return unknown;
    }
    int start = 0;
    if (spec.parent() != null) {
      List<String> names = new ArrayList<>(List.of(spec.aliases()));
      names.add(spec.name());
      while (start < args.length && !names.contains(args[start])) {
        start++;
      }
      start++;
    }
    for (int i = start; i < args.length; i++) {
      String token = args[i];
      if (token.equals("--")) {
        break;
      }
      boolean longOption = token.startsWith("--") && token.length() > 2;
      boolean shortOption = token.length() == 2 && token.charAt(0) == '-' && token.charAt(1) != '-';
      if (!longOption && !shortOption) {
        continue;
      }
      int equals = token.indexOf('=');
      String name = equals < 0 ? token : token.substring(0, equals);
      OptionSpec option = spec.findOption(name);
      if (option == null) {
        unknown.add(name);
      } else if (equals < 0 && option.arity().max() > 0 && !option.arity().isVariable()) {
        i += option.arity().max();
      }
    }
    return unknown;
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
