package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ServerConfigTest {
  @Test
  void defaultThreads_leavesOneCoreButKeepsOneThread() {
    assertEquals(1, ServerConfig.defaultThreads(1));
    assertEquals(1, ServerConfig.defaultThreads(2));
    assertEquals(3, ServerConfig.defaultThreads(4));
    assertEquals(
        ServerConfig.defaultThreads(Runtime.getRuntime().availableProcessors()),
        ServerConfig.builder().build().threads());
  }
}
