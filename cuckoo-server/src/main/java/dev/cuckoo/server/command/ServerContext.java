package dev.cuckoo.server.command;

import dev.cuckoo.server.ServerConfig;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.keyspace.Watches;
import dev.cuckoo.server.persist.Persistence;
import dev.cuckoo.server.persist.PersistenceContext;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/** What every connection shares: settings, the keyspace, persistence and counters. */
public final class ServerContext implements PersistenceContext {
  private final ServerConfig config;
  private final CfConfig cfConfig;
  private final Keyspace keyspace;
  private final Watches watches = new Watches();
  private final AtomicLong expiredKeys = new AtomicLong();
  private final AtomicInteger connectedClients = new AtomicInteger();
  private final AtomicLong totalConnections = new AtomicLong();
  private final LongAdder totalCommands = new LongAdder();
  private final AtomicLong nextClientId = new AtomicLong(1);
  private final long startMillis = System.currentTimeMillis();
  private volatile Persistence persistence;
  private volatile long maxMemory;
  private volatile int rewritePercentage;
  private volatile long rewriteMinSize;
  private volatile int port;
  private volatile Consumer<Boolean> shutdown = save -> {};

  public ServerContext(ServerConfig config, CfConfig cfConfig, Keyspace keyspace) {
    this.config = config;
    this.cfConfig = cfConfig;
    this.keyspace = keyspace;
    this.maxMemory = config.maxMemory();
    this.rewritePercentage = config.autoAofRewritePercentage();
    this.rewriteMinSize = config.autoAofRewriteMinSize();
  }

  /**
   * Returns the most bytes of filters that new commands may make the keyspace hold (Redis's {@code
   * maxmemory}; 0: no limit but the heap).
   */
  long maxMemory() {
    return maxMemory;
  }

  void maxMemory(long maxMemory) {
    this.maxMemory = maxMemory;
  }

  /** Returns the limit new commands are checked against: maxmemory, or no limit for 0. */
  long memoryLimit() {
    long limit = maxMemory;
    return limit == 0 ? Long.MAX_VALUE : limit;
  }

  /** Returns auto-aof-rewrite-percentage (0: no automatic rewrite). */
  @Override
  public int rewritePercentage() {
    return rewritePercentage;
  }

  void rewritePercentage(int rewritePercentage) {
    this.rewritePercentage = rewritePercentage;
  }

  /** Returns auto-aof-rewrite-min-size in bytes. */
  @Override
  public long rewriteMinSize() {
    return rewriteMinSize;
  }

  void rewriteMinSize(long rewriteMinSize) {
    this.rewriteMinSize = rewriteMinSize;
  }

  @Override
  public ServerConfig config() {
    return config;
  }

  CfConfig cfConfig() {
    return cfConfig;
  }

  @Override
  public Keyspace keyspace() {
    return keyspace;
  }

  /** Returns the keys connections WATCH. */
  public Watches watches() {
    return watches;
  }

  /** Returns the count of keys deleted because they expired (INFO expired_keys). */
  AtomicLong expiredKeys() {
    return expiredKeys;
  }

  /** Returns persistence, or null when it is off. */
  public Persistence persistence() {
    return persistence;
  }

  public void persistence(Persistence persistence) {
    this.persistence = persistence;
  }

  public AtomicInteger connectedClients() {
    return connectedClients;
  }

  public AtomicLong totalConnections() {
    return totalConnections;
  }

  LongAdder totalCommands() {
    return totalCommands;
  }

  public long nextClientId() {
    return nextClientId.getAndIncrement();
  }

  long startMillis() {
    return startMillis;
  }

  public int port() {
    return port;
  }

  public void port(int port) {
    this.port = port;
  }

  /** Returns what SHUTDOWN runs: saves a snapshot if given true, then stops the server. */
  public Consumer<Boolean> shutdown() {
    return shutdown;
  }

  public void shutdown(Consumer<Boolean> shutdown) {
    this.shutdown = shutdown;
  }

  private final ClientRegistry clients = new ClientRegistry();

  /** Returns the registry of live client connections (CLIENT LIST, CLIENT KILL). */
  public ClientRegistry clients() {
    return clients;
  }
}
