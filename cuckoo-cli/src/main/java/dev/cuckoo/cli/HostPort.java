package dev.cuckoo.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * A server's address given as {@code HOST:PORT} ({@code [v6]:PORT} for an IPv6 address).
 *
 * @param host the host
 * @param port the port, 1 to 65535
 */
record HostPort(String host, int port) {
  /**
   * Parses {@code text}, given to {@code option}.
   *
   * @throws ParameterException naming the option and the value if it is not HOST:PORT
   */
  static HostPort parse(CommandSpec spec, String option, String text) {
    int colon = text.lastIndexOf(':');
    String host = colon > 0 ? text.substring(0, colon) : "";
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (host.isEmpty() || port < 1 || port > 65_535) {
      throw new ParameterException(
          spec.commandLine(), option + ": '" + text + "' (expected: HOST:PORT, port 1 to 65535)");
    }
    return new HostPort(host, port);
  }
}
