package dev.cuckoo.server;

import java.io.IOException;

/** Starts in-process servers on free loopback ports for tests. */
public final class TestServers {
  private TestServers() {}

  /** A builder for a server on a free port without persistence. */
  public static ServerConfig.Builder memoryOnly() {
    return ServerConfig.builder().port(0).appendOnly(false).threads(2);
  }

  /** Starts a server without persistence. */
  public static CuckooServer start() throws IOException {
    return CuckooServer.start(memoryOnly().build());
  }
}
