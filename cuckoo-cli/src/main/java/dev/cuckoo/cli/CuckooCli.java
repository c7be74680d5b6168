package dev.cuckoo.cli;

import java.io.InputStream;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code cuckoo} command: the entry point of the executable jar, with one subcommand per job.
 *
 * <p>Every subcommand returns its exit code; only {@link #main} calls {@link System#exit}. Tests
 * and embedders run it with {@code CuckooCli.commandLine(new CuckooCli()).execute(args)}.
 */
@Command(
    name = "cuckoo",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Cuckoo filters: build, query, inspect, export to Redis, serve.",
    synopsisSubcommandLabel = "COMMAND",
    subcommands = {
      DemoCommand.class,
      BuildCommand.class,
      QueryCommand.class,
      InfoCommand.class,
      CommandLine.HelpCommand.class
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  cuckoo demo              1,000,000 URLs: memory, false positives, speed",
      "  cuckoo help demo         the options of one command",
      "",
      "Exit codes: 0 success, 1 'query' found an absent item, 2 usage or input error."
    })
public final class CuckooCli implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(
      names = "--verbose",
      scope = ScopeType.INHERIT,
      description = "Print stack traces of errors.")
  private boolean verbose;

  private final InputStream stdin;

  /** Creates the command reading standard input from {@link System#in}. */
  public CuckooCli() {
    this(System.in);
  }

  /**
   * Creates the command reading "{@code -}" inputs from {@code stdin}.
   *
   * @param stdin what {@code --input -} reads
   */
  public CuckooCli(InputStream stdin) {
    this.stdin = stdin;
  }

  /**
   * Returns a command line for {@code cli} with this project's error handling: one line on stderr
   * and exit code 2 for bad input, no stack trace unless {@code --verbose}.
   *
   * @param cli the top-level command
   * @return the configured command line
   */
  public static CommandLine commandLine(CuckooCli cli) {
    ErrorHandler handler = new ErrorHandler(cli);
    return new CommandLine(cli)
        .setParameterExceptionHandler(handler)
        .setExecutionExceptionHandler(handler)
        .setCaseInsensitiveEnumValuesAllowed(true)
        .setUsageHelpAutoWidth(true);
  }

  /**
   * Runs the command line and exits the JVM with its exit code.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    System.exit(commandLine(new CuckooCli()).execute(args));
  }

  /**
   * Without a subcommand: prints the usage on stderr and returns {@link ExitCode#ERROR}.
   *
   * @return the exit code
   */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCode.ERROR;
  }

  /**
   * Returns true if {@code --verbose} was given (on this command or a subcommand).
   *
   * @return the flag
   */
  boolean verbose() {
    return verbose;
  }

  /**
   * Returns the stream that "{@code -}" inputs read.
   *
   * @return standard input
   */
  InputStream stdin() {
    return stdin;
  }
}
