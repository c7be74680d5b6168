package dev.cuckoo.cli;

import dev.cuckoo.server.CuckooServer;
import dev.cuckoo.server.ServerConfig;
import dev.cuckoo.server.ServerLogging;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/** {@code cuckoo serve}: runs cuckoo-server in this process until SHUTDOWN or a signal. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Start cuckoo-server: a Redis-protocol server with RedisBloom's CF.* commands, an"
          + " append-only log and snapshots. Runs until SHUTDOWN, Ctrl-C or SIGTERM."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  cuckoo serve                                127.0.0.1:6379, data in ./data",
      "  cuckoo serve --port 6380 --appendonly no    snapshots only (Redis's save points)",
      "  cuckoo serve --appendonly no --save ''      keep nothing (loads a snapshot if there is one)",
      "  cuckoo export --key seen words.cuckoo | redis-cli -p 6380 --pipe",
      "  cuckoo serve server.conf --port 6380        options over a config file",
      ""
    })
final class ServeCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Unmatched private List<String> serverArguments = new ArrayList<>();

  /**
   * Appends the server's options ({@link ServerConfig#USAGE}) to the help of {@code serve}.
   *
   * <p>Not in the annotation: picocli formats footer text with {@code String.format}, and the
   * options' text has a literal {@code %} ("grew N% since") that must be doubled for it.
   *
   * @param serve the command line of {@code serve}
   */
  static void describeServerOptions(CommandLine serve) {
    String options;
    try {
      options = ServerConfig.USAGE;
    } catch (NoClassDefFoundError withoutServer) {
      // a classpath without cuckoo-server (cuckoo-spark uses the command line's export alone):
      // serve cannot run there, and its help names no options
      return;
    }
    UsageMessageSpec usage = serve.getCommandSpec().usageMessage();
    String[] footer = Arrays.copyOf(usage.footer(), usage.footer().length + 1);
    footer[footer.length - 1] = options.replace("%", "%%");
    usage.footer(footer);
  }

  @Override
  public Integer call() throws InterruptedException {
    ServerConfig config;
    try {
      config = ServerConfig.parse(serverArguments.toArray(new String[0]));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    } catch (IOException e) {
      throw new CliException(
          "cannot read the server configuration: " + ErrorHandler.describe(e), e);
    }
    try {
      ServerLogging.install(config.logFile());
    } catch (IOException e) {
      throw new CliException(
          "cannot append to the log file " + config.logFile() + ": " + ErrorHandler.describe(e), e);
    }
    try {
      // the same start, signals and stop as bin/cuckoo-server: SIGTERM stops cleanly, exit 0
      CuckooServer.runUntilStopped(config, spec.commandLine().getOut());
    } catch (IOException e) {
      String where = config.bind() + ":" + config.port();
      String message = ErrorHandler.describe(e);
      if (e.getCause() != null) {
        message += ": " + ErrorHandler.describe(e.getCause());
      }
      throw new CliException(
          message.contains(where) ? message : "cannot start on " + where + ": " + message, e);
    }
    return ExitCode.OK;
  }
}
