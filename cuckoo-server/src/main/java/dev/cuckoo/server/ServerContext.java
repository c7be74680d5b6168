package dev.cuckoo.server;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/** What every connection shares: settings, the keyspace, persistence and counters. */
final class ServerContext {
  private final ServerConfig config;
  private final CfConfig cfConfig;
  private final Keyspace keyspace;
  private final AtomicInteger connectedClients = new AtomicInteger();
  private final AtomicLong totalConnections = new AtomicLong();
  private final LongAdder totalCommands = new LongAdder();
  private final AtomicLong nextClientId = new AtomicLong(1);
  private final long startMillis = System.currentTimeMillis();
  private volatile Persistence persistence;
  private volatile int port;
  private volatile Consumer<Boolean> shutdown = save -> { };

  ServerContext(ServerConfig config, CfConfig cfConfig, Keyspace keyspace) {
    this.config = config;
    this.cfConfig = cfConfig;
    this.keyspace = keyspace;
  }

  ServerConfig config() {
    return config;
  }

  CfConfig cfConfig() {
    return cfConfig;
  }

  Keyspace keyspace() {
    return keyspace;
  }

  /** Returns persistence, or null when it is off. */
  Persistence persistence() {
    return persistence;
  }

  void persistence(Persistence persistence) {
    this.persistence = persistence;
  }

  AtomicInteger connectedClients() {
    return connectedClients;
  }

  AtomicLong totalConnections() {
    return totalConnections;
  }

  LongAdder totalCommands() {
    return totalCommands;
  }

  long nextClientId() {
    return nextClientId.getAndIncrement();
  }

  long startMillis() {
    return startMillis;
  }

  int port() {
    return port;
  }

  void port(int port) {
    this.port = port;
  }

  /** Returns what SHUTDOWN runs: saves a snapshot if given true, then stops the server. */
  Consumer<Boolean> shutdown() {
    return shutdown;
  }

  void shutdown(Consumer<Boolean> shutdown) {
    this.shutdown = shutdown;
  }
}
