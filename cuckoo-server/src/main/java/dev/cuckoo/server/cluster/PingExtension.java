package dev.cuckoo.server.cluster;

import java.nio.charset.StandardCharsets;

/**
 * One ping extension (Redis's clusterMsgPingExt): a type and its payload, padded to 8 bytes on the
 * wire. Redis 7.0 knows only {@link #HOSTNAME}; 7.2 added the others, which 7.0 logs and ignores.
 *
 * @param type the extension type
 * @param payload the bytes after the 8-byte extension header, padding included
 */
public record PingExtension(int type, byte[] payload) {
  /** The announced hostname, NUL-terminated (Redis 7.0+). */
  public static final int HOSTNAME = 0;

  /** The human-readable node name (Redis 7.2+). */
  public static final int HUMAN_NODENAME = 1;

  /** A node the sender forgot, with a time to live (Redis 7.2+). */
  public static final int FORGOTTEN_NODE = 2;

  /** The sender's shard id (Redis 7.2+). */
  public static final int SHARD_ID = 3;

  /** Returns a NUL-terminated text extension ({@link #HOSTNAME}, {@link #HUMAN_NODENAME}). */
  public static PingExtension text(int type, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    byte[] payload = new byte[(bytes.length + 1 + 7) / 8 * 8];
    System.arraycopy(bytes, 0, payload, 0, bytes.length);
    return new PingExtension(type, payload);
  }

  /** Returns the payload read as a NUL-terminated text. */
  public String asText() {
    int end = 0;
    while (end < payload.length && payload[end] != 0) {
      end++;
    }
    return new String(payload, 0, end, StandardCharsets.UTF_8);
  }
}
