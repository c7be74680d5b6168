package dev.cuckoo.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/** Runs the command line in-process with captured output, as the tests need it. */
final class CliRun {
  final int exitCode;
  final String out;
  final String err;
  final byte[] binary;

  private CliRun(int exitCode, String out, String err, byte[] binary) {
    this.exitCode = exitCode;
    this.out = out;
    this.err = err;
    this.binary = binary;
  }

  static CliRun run(String... args) {
    return runWithInput(new byte[0], args);
  }

  static CliRun runWithInput(String stdin, String... args) {
    return runWithInput(stdin.getBytes(StandardCharsets.UTF_8), args);
  }

  static CliRun runWithInput(byte[] stdin, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    ByteArrayOutputStream binary = new ByteArrayOutputStream();
    CommandLine commandLine =
        CuckooCli.commandLine(new CuckooCli(new ByteArrayInputStream(stdin), binary));
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new CliRun(exitCode, out.toString(), err.toString(), binary.toByteArray());
  }

  /** Returns the stderr lines (without the empty last one). */
  String[] errLines() {
    return err.isEmpty() ? new String[0] : err.split("\n");
  }

  @Override
  public String toString() {
    return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
  }
}
