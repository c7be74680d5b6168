package dev.cuckoo.server.command;

/** The versions this server reports (HELLO, INFO): those whose behaviour it reproduces. */
public final class ServerVersion {
  /** The Redis version this server reports (the RedisBloom 8.x behaviour it reproduces). */
  static final String REDIS_VERSION = "8.2.0";

  /** The module version reported for the bloom module (RedisBloom 8.2.0). */
  static final long MODULE_VERSION = 80200;

  private ServerVersion() {}
}
