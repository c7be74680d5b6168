package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.opentest4j.TestAbortedException;

/** File modes, temporary files and ended processes for the tests of {@link AtomicFile}. */
final class TestFiles {
  private TestFiles() {}

  /** Skips the test unless {@code dir} is on a file system with POSIX permissions. */
  static void assumePosix(Path dir) {
    assumeTrue(
        Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null,
        "needs POSIX file permissions");
  }

  /** Returns the permissions that {@code Files.newOutputStream} gives a new file in {@code dir}. */
  static Set<PosixFilePermission> plainPermissions(Path dir) throws IOException {
    Path plain = dir.resolve("plain-" + System.nanoTime());
    Files.newOutputStream(plain).close();
    Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(plain);
    Files.delete(plain);
    return permissions;
  }

  /** Returns the id of a process that has ended (a "killed run"); skips if it was reused. */
  static long endedPid() throws InterruptedException {
    Process process;
    try {
      process = new ProcessBuilder("true").redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    } catch (IOException e) {
      throw new TestAbortedException("needs the POSIX command 'true': " + e.getMessage(), e);
    }
    process.waitFor();
    long pid = process.pid();
    assumeFalse(ProcessHandle.of(pid).isPresent(), "pid " + pid + " was reused at once");
    return pid;
  }

  /**
   * Creates a temporary file of {@code target} as a run of process {@code pid} names it, last
   * modified {@code age} ago, with some bytes of a half-written file.
   */
  static Path tempFile(Path target, long pid, String hex16, Duration age) throws IOException {
    Path temp =
        target.resolveSibling("." + target.getFileName() + "." + pid + "-" + hex16 + ".tmp");
    Files.write(temp, new byte[4096]);
    Files.setLastModifiedTime(temp, FileTime.from(Instant.now().minus(age)));
    return temp;
  }

  /** Returns the names of the files in {@code dir}, sorted. */
  static Set<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(file -> file.getFileName().toString())
          .collect(Collectors.toCollection(TreeSet::new));
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
