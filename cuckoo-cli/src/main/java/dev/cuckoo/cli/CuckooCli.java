package dev.cuckoo.cli;

import java.io.InputStream;
import java.io.OutputStream;
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
      ExportCommand.class,
      ImportCommand.class,
      ImportRdbCommand.class,
      ServeCommand.class,
      CommandLine.HelpCommand.class
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  cuckoo demo                 1,000,000 URLs: memory, false positives, speed",
      "  cuckoo build --input urls.txt --output urls.cuckoo",
      "  cuckoo query --filter urls.cuckoo https://example.com/",
      "  cuckoo info urls.cuckoo",
      "  cuckoo build --input ids.txt --scheme redisbloom --output ids.cuckoo",
      "  cuckoo export --key ids ids.cuckoo | redis-cli --pipe",
      "  cuckoo import --key ids --from 127.0.0.1:6379 --output ids.cuckoo",
      "  cuckoo serve --port 6379",
      "  cuckoo help build           the options of one command",
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
  private final OutputStream stdout;

  /** Creates the command on {@link System#in} and {@link System#out}. */
  public CuckooCli() {
    this(System.in, System.out);
  }

  /**
   * Creates the command reading "{@code -}" inputs from {@code stdin} and writing binary output
   * (such as {@code export}'s) to {@code stdout}.
   *
   * @param stdin what {@code --input -} reads
   * @param stdout where binary output goes when no file is given
   */
  public CuckooCli(InputStream stdin, OutputStream stdout) {
    this.stdin = stdin;
    this.stdout = stdout;
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
    CommandLine commandLine =
        new CommandLine(cli)
            .setParameterExceptionHandler(handler)
            .setExecutionExceptionHandler(handler)
            .setCaseInsensitiveEnumValuesAllowed(true)
            .setUsageHelpAutoWidth(true);
    ServeCommand.describeServerOptions(commandLine.getSubcommands().get("serve"));
    return commandLine;
  }

  /**
   * Runs the command line and exits the JVM with its exit code.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    int exitCode;
    try {
      exitCode = commandLine(new CuckooCli()).execute(args);
    } catch (OutOfMemoryError e) {
      System.err.println(
          "cuckoo: out of memory (heap "
              + Text.bytes(Runtime.getRuntime().maxMemory())
              + "); raise it with CUCKOO_JAVA_OPTS=-Xmx...");
      exitCode = ExitCode.ERROR;
    }
    System.exit(exitCode);
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

  /**
   * Returns the stream binary output goes to when no file is given.
   *
   * @return standard output, as bytes
   */
  OutputStream stdout() {
    return stdout;
  }
}
