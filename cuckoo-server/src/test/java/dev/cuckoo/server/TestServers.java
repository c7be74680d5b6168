package dev.cuckoo.server;

import java.io.IOException;

/** Starts in-process servers on free loopback ports for tests. */
public final class TestServers {
  private TestServers() {}

  /** A builder for a server on a free port without persistence. */
  public static ServerConfig.Builder memoryOnly() {
    return ServerConfig.builder().port(0).appendOnly(false).threads(2);
  }

  /**
   * Writes a config file holding {@code port 0}, {@code appendonly no} and the given lines, and
   * starts a server from it (as {@code cuckoo-server file}), so CONFIG REWRITE has a file.
   */
  public static CuckooServer startFromConfigFile(java.nio.file.Path file, String... lines)
      throws IOException {
    java.util.List<String> all =
        new java.util.ArrayList<>(java.util.List.of("port 0", "appendonly no"));
    all.addAll(java.util.List.of(lines));
    java.nio.file.Files.write(file, all, java.nio.charset.StandardCharsets.UTF_8);
    return CuckooServer.start(ServerConfig.parse(file.toString()));
  }

  /** Starts a server without persistence. */
  public static CuckooServer start() throws IOException {
    return CuckooServer.start(memoryOnly().build());
  }
}
