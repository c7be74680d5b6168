package dev.cuckoo.dist;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The files this module's build made (the archive, the Debian package), found through the system
 * properties the failsafe plugin sets, and a way to run programs to completion.
 */
final class Dist {
  /** The project version, e.g. {@code 0.1.0-SNAPSHOT}. */
  static final String VERSION = property("cuckoo.dist.version");

  /** The archive's top directory, {@code cuckoo-VERSION}. */
  static final String NAME = property("cuckoo.dist.name");

  private Dist() {}

  private static String property(String name) {
    String value = System.getProperty(name);
    if (value == null) {
      throw new IllegalStateException(
          name + " is not set: run these tests with mvn verify (the failsafe plugin sets it)");
    }
    return value;
  }

  /** Returns {@code cuckoo-VERSION.tar.gz}. */
  static Path archive() {
    return Paths.get(property("cuckoo.dist.archive"));
  }

  /** Returns the one {@code cuckoo_*_all.deb} of the build directory. */
  static Path deb() throws IOException {
    List<Path> found = new ArrayList<>();
    try (DirectoryStream<Path> debs =
        Files.newDirectoryStream(
            Paths.get(property("cuckoo.dist.directory")), "cuckoo_*_all.deb")) {
      debs.forEach(found::add);
    }
    if (found.size() != 1) {
      throw new IOException("expected one cuckoo_*_all.deb in the build directory, found " + found);
    }
    return found.get(0);
  }

  /** Returns the file the package gets as /etc/cuckoo/cuckoo-server.conf, as the build made it. */
  static Path packagedConfig() {
    return Paths.get(property("cuckoo.dist.staging"), "cuckoo-server.conf");
  }

  /** Unpacks the archive into {@code directory} with tar and returns its top directory. */
  static Path unpack(Path directory) throws IOException, InterruptedException {
    Result tar = run(directory, Map.of(), "tar", "-xzf", archive().toString());
    if (tar.exitCode() != 0) {
      throw new IOException("tar -xzf failed: " + tar);
    }
    return directory.resolve(NAME);
  }

  /** Returns where {@code program} is on the PATH, or null if it is not. */
  static Path whereIs(String program) {
    String path = System.getenv("PATH");
    for (String directory : path == null ? new String[0] : path.split(":")) {
      Path candidate = Paths.get(directory.isEmpty() ? "." : directory, program);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /** Runs a command in {@code directory} with {@code environment} added, to its end (2 min). */
  static Result run(Path directory, Map<String, String> environment, String... command)
      throws IOException, InterruptedException {
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
    builder.environment().putAll(environment);
    Process process = builder.start();
    process.getOutputStream().close();
    byte[] output = process.getInputStream().readAllBytes();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IOException(String.join(" ", command) + " did not end within 2 minutes");
    }
    return new Result(
        String.join(" ", command), process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }

  /** What a command printed (stdout and stderr together) and its exit code. */
  record Result(String command, int exitCode, String output) {
    @Override
    public String toString() {
      return command + ": exit " + exitCode + "\n" + output;
    }
  }

  /**
   * Returns a loopback port that was free a moment ago: port 0 means no plaintext listener, as in
   * Redis, so a test server asks for a port this way.
   */
  static int freePort() {
    try (java.net.ServerSocket socket = new java.net.ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0));
      return socket.getLocalPort();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("no free loopback port", e);
    }
  }
}
