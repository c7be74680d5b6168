package dev.cuckoo.server.command;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The versions this server reports (HELLO, INFO): those whose behaviour it reproduces. */
public final class ServerVersion {
  /** The Redis version this server reports (the RedisBloom 8.x behaviour it reproduces). */
  public static final String REDIS_VERSION = "8.2.0";

  /** The module version reported for the bloom module (RedisBloom 8.2.0). */
  static final long MODULE_VERSION = 80200;

  private ServerVersion() {}

  /** Returns this build's version (the project version), or {@code "unknown"} outside a build. */
  public static String project() {
    Properties properties = new Properties();
    try (InputStream in = ServerVersion.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        return "unknown";
      }
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read version.properties", e);
    }
    return properties.getProperty("version", "unknown");
  }
}
