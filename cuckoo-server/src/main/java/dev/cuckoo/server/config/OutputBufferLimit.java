package dev.cuckoo.server.config;

/**
 * An output buffer limit, as Redis's {@code client-output-buffer-limit}: a connection is closed
 * when the replies and messages waiting for it exceed {@code hardBytes}, or stay above {@code
 * softBytes} for more than {@code softSeconds}; 0 turns a limit off.
 *
 * @param hardBytes the hard limit in bytes (0: none)
 * @param softBytes the soft limit in bytes (0: none)
 * @param softSeconds how long the soft limit may be exceeded
 */
public record OutputBufferLimit(long hardBytes, long softBytes, long softSeconds) {
  /**
   * Returns true if {@code bytes} reach the hard limit, as Redis's checkClientOutputBufferLimits
   * compares ({@code >=}); a hard limit of 0 is none.
   */
  public boolean hardReached(long bytes) {
    return hardBytes > 0 && bytes >= hardBytes;
  }

  /** Returns true if {@code bytes} reach the soft limit ({@code >=}); 0 is none. */
  public boolean softReached(long bytes) {
    return softBytes > 0 && bytes >= softBytes;
  }

  /** Redis's default for pub/sub connections: {@code pubsub 32mb 8mb 60}. */
  public static final OutputBufferLimit PUBSUB_DEFAULT =
      new OutputBufferLimit(32L << 20, 8L << 20, 60);

  /** Redis's default for normal clients: no limit. */
  public static final OutputBufferLimit NORMAL_DEFAULT = new OutputBufferLimit(0, 0, 0);

  /** Redis's default for replicas: {@code slave 256mb 64mb 60}. */
  public static final OutputBufferLimit REPLICA_DEFAULT =
      new OutputBufferLimit(256L << 20, 64L << 20, 60);
}
