package dev.cuckoo.cli;

import java.io.IOException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The options of the commands that talk to a server: --password and --timeout-ms. */
final class ServerOptions {
  private static final int DEFAULT_TIMEOUT_MILLIS = 30_000;

  @Option(
      names = "--password",
      paramLabel = "PASSWORD",
      description = "Send AUTH PASSWORD first (requirepass).")
  private String password;

  @Option(
      names = "--timeout-ms",
      defaultValue = "30000",
      paramLabel = "MILLIS",
      description = "Connect and read timeout (default ${DEFAULT-VALUE}).")
  private int timeoutMillis = DEFAULT_TIMEOUT_MILLIS;

  /**
   * Checks the options.
   *
   * @throws ParameterException naming --timeout-ms if it is below 1
   */
  void check(CommandSpec spec) {
    if (timeoutMillis < 1) {
      throw new ParameterException(
          spec.commandLine(), "--timeout-ms: " + timeoutMillis + " (expected: at least 1)");
    }
  }

  /** Connects to {@code server} and authenticates if a password was given. */
  RespClient connect(HostPort server) throws IOException {
    RespClient client = new RespClient(server.host(), server.port(), timeoutMillis);
    try {
      if (password != null) {
        client.call("AUTH", password);
      }
    } catch (IOException | RuntimeException e) {
      client.close();
      throw e;
    }
    return client;
  }
}
