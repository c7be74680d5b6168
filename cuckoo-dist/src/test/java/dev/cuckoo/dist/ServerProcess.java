package dev.cuckoo.dist;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A cuckoo-server started as an operator starts it (a launcher script, a service's command line),
 * with its output in a file; stopped with SIGTERM as a service manager stops it.
 */
final class ServerProcess implements AutoCloseable {
  private static final Pattern LISTENING =
      Pattern.compile("^cuckoo-server listening on [^ ]+:(\\d+)$", Pattern.MULTILINE);

  private final Process process;
  private final Path outputFile;

  private ServerProcess(Process process, Path outputFile) {
    this.process = process;
    this.outputFile = outputFile;
  }

  /** Starts {@code command} in {@code directory}, with {@code environment} added. */
  static ServerProcess start(
      Path directory, Map<String, String> environment, Path outputFile, List<String> command)
      throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(directory.toFile())
            .redirectErrorStream(true)
            .redirectOutput(outputFile.toFile());
    builder.environment().putAll(environment);
    return new ServerProcess(builder.start(), outputFile);
  }

  /** Waits until the server says it listens and returns its port; fails if it exits first. */
  int awaitPort() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      Matcher listening = LISTENING.matcher(output());
      if (listening.find()) {
        return Integer.parseInt(listening.group(1));
      }
      if (process.waitFor(20, TimeUnit.MILLISECONDS)) {
        throw new IOException("the server exited with " + process.exitValue() + ":\n" + output());
      }
    }
    throw new IOException("the server did not listen within 60 s:\n" + output());
  }

  /**
   * Sends SIGTERM and waits up to 30 s for the process to end.
   *
   * @return the milliseconds from the signal to the end of the process
   */
  long terminate() throws IOException, InterruptedException {
    long start = System.nanoTime();
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IOException("the server still runs 30 s after SIGTERM:\n" + output());
    }
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  /** Returns the exit code, once the process ended. */
  int exitCode() {
    return process.exitValue();
  }

  /** Returns everything the server printed so far. */
  String output() throws IOException {
    return Files.exists(outputFile) ? Files.readString(outputFile, StandardCharsets.UTF_8) : "";
  }

  /** Kills the server if it still runs (a test that failed before {@link #terminate}). */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
