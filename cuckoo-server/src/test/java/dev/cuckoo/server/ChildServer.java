package dev.cuckoo.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A cuckoo-server running in a child JVM (the test class path, {@link CuckooServer#main}), so that
 * tests can kill it with SIGKILL ({@link Process#destroyForcibly}) at any moment.
 *
 * <p>The child's stdout and stderr go to a file (a pipe nobody reads would fill up and stall the
 * child); {@link #output} returns what it printed, for failure messages.
 */
final class ChildServer implements AutoCloseable {
  private static final String LISTENING = "cuckoo-server listening on ";

  private final Process process;
  private final Path outputFile;
  private int port = -1;

  private ChildServer(Process process, Path outputFile) {
    this.process = process;
    this.outputFile = outputFile;
  }

  /**
   * Starts a child server on a free port.
   *
   * @param heap the child's maximum heap, e.g. {@code "256m"}
   * @param outputFile where the child's output goes (outside the data directory)
   * @param options server options after {@code --port} and a free port, e.g. {@code "--dir", path}
   */
  static ChildServer launch(String heap, Path outputFile, String... options) throws IOException {
    return launch(List.of("-Xmx" + heap), outputFile, options);
  }

  /**
   * Starts a child server on a free port with the JVM options given (the heap among them, e.g.
   * {@code -Xmx96m}, and a collector).
   */
  static ChildServer launch(List<String> jvmOptions, Path outputFile, String... options)
      throws IOException {
    Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>(List.of(java.toString()));
    command.addAll(jvmOptions);
    // C1 only: the child starts faster, and speed is not what these tests measure
    command.addAll(
        List.of(
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("java.class.path"),
            CuckooServer.class.getName(),
            "--port",
            Integer.toString(TestServers.freePort())));
    command.addAll(List.of(options));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(outputFile.toFile())
            .start();
    return new ChildServer(process, outputFile);
  }

  /**
   * Waits until the child listens (true) or exits (false).
   *
   * @throws IOException if it does neither within {@code timeoutMillis}
   */
  boolean awaitListening(long timeoutMillis) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (System.nanoTime() < deadline) {
      for (String line : output().split("\n")) {
        if (line.startsWith(LISTENING)) {
          port = Integer.parseInt(line.substring(line.lastIndexOf(':') + 1).trim());
          return true;
        }
      }
      if (!process.isAlive()) {
        process.waitFor();
        return false;
      }
      Thread.sleep(10);
    }
    throw new IOException(
        "child server neither listened nor exited within "
            + timeoutMillis
            + " ms; output:\n"
            + output());
  }

  /** Starts a child and waits until it listens; fails with the child's output otherwise. */
  static ChildServer start(String heap, Path outputFile, String... options)
      throws IOException, InterruptedException {
    return start(List.of("-Xmx" + heap), outputFile, options);
  }

  /** Starts a child server with the JVM options given and waits until it listens. */
  static ChildServer start(List<String> jvmOptions, Path outputFile, String... options)
      throws IOException, InterruptedException {
    ChildServer child = launch(jvmOptions, outputFile, options);
    if (!child.awaitListening(30_000)) {
      throw new IOException(
          "child server exited with " + child.process.exitValue() + "; output:\n" + child.output());
    }
    return child;
  }

  /**
   * Starts a child of 256 MiB whose data directory is {@code parent/name} (created if missing) and
   * whose output goes to {@code parent/name.out}: the same name restarts the same server.
   */
  static ChildServer startNamed(Path parent, String name, String... options)
      throws IOException, InterruptedException {
    Path data = parent.resolve(name);
    Files.createDirectories(data);
    List<String> all = new ArrayList<>(List.of("--dir", data.toString()));
    all.addAll(List.of(options));
    return start("256m", parent.resolve(name + ".out"), all.toArray(new String[0]));
  }

  /** Returns the port the child listens on. */
  int port() {
    return port;
  }

  /** Waits until the child exits; returns false if it still runs after the timeout. */
  boolean awaitExit(long timeout, TimeUnit unit) throws InterruptedException {
    return process.waitFor(timeout, unit);
  }

  /** Returns the child's exit code (after it exited). */
  int exitCode() {
    return process.exitValue();
  }

  /** Returns everything the child printed so far. */
  String output() throws IOException {
    return Files.exists(outputFile)
        ? new String(Files.readAllBytes(outputFile), StandardCharsets.UTF_8)
        : "";
  }

  /**
   * Sends the child signals by name ({@code "TERM"}, {@code "INT"}) in this order from one shell,
   * microseconds apart (one {@code kill} process each would leave milliseconds between them, time
   * enough for a quick shutdown to finish first).
   */
  void signals(String... names) throws IOException, InterruptedException {
    StringBuilder script = new StringBuilder();
    for (String name : names) {
      script.append(script.length() == 0 ? "" : " && ").append("kill -").append(name).append(" $0");
    }
    Process kill =
        new ProcessBuilder("sh", "-c", script.toString(), Long.toString(process.pid()))
            .redirectErrorStream(true)
            .start();
    String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (kill.waitFor() != 0) {
      throw new IOException(script + " (" + process.pid() + ") failed: " + said);
    }
  }

  /** Waits up to {@code timeoutMillis} for the child to exit; returns true if it did. */
  boolean awaitExit(long timeoutMillis) throws InterruptedException {
    return process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS);
  }

  /** Kills the child with SIGKILL and waits until it is gone. */
  void kill() throws InterruptedException, IOException {
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new IOException("child server survived SIGKILL for 10 s");
    }
  }

  /** Kills the child if it still runs (close() must not throw InterruptedException). */
  @Override
  public void close() throws IOException {
    if (process.isAlive()) {
      try {
        kill();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while killing the child server", e);
      }
    }
  }
}
