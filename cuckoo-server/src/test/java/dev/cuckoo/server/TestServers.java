package dev.cuckoo.server;

import java.io.IOException;

/** Starts in-process servers on free loopback ports for tests. */
public final class TestServers {
  private TestServers() {}

  /**
   * A builder for a server on a free port that keeps nothing unless told: no log ({@code appendonly
   * no}), no save point ({@code save ""}), and a data directory of its own under {@code target/}
   * (empty, so nothing is loaded; an explicit SAVE writes there).
   */
  public static ServerConfig.Builder memoryOnly() {
    return ServerConfig.builder()
        .port(freePort())
        .appendOnly(false)
        .savePoints(dev.cuckoo.server.persist.SavePoints.NONE)
        .dir(freshDataDir())
        .threads(2);
  }

  /**
   * Returns a loopback port that was free a moment ago (the kernel's pick for a socket bound and
   * closed at once): port 0 means no plaintext listener, as in Redis, so a test server asks for a
   * port this way.
   */
  public static int freePort() {
    try (java.net.ServerSocket socket = new java.net.ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("no free loopback port", e);
    }
  }

  /** Returns a new, not yet created, data directory under {@code target/test-data}. */
  public static java.nio.file.Path freshDataDir() {
    return java.nio.file.Path.of("target", "test-data", java.util.UUID.randomUUID().toString());
  }

  /**
   * Writes a config file holding a free port, {@code appendonly no}, {@code save ""}, a fresh data
   * directory ({@link #freshDataDir}) and the given lines, and starts a server from it (as {@code
   * cuckoo-server file}), so CONFIG REWRITE has a file.
   */
  public static CuckooServer startFromConfigFile(java.nio.file.Path file, String... lines)
      throws IOException {
    java.util.List<String> all =
        new java.util.ArrayList<>(
            java.util.List.of(
                "port " + freePort(),
                "appendonly no",
                "save \"\"",
                "dir " + freshDataDir().toAbsolutePath()));
    all.addAll(java.util.List.of(lines));
    java.nio.file.Files.write(file, all, java.nio.charset.StandardCharsets.UTF_8);
    return CuckooServer.start(ServerConfig.parse(file.toString()));
  }

  /** Starts a server without persistence. */
  public static CuckooServer start() throws IOException {
    return CuckooServer.start(memoryOnly().build());
  }
}
