package dev.cuckoo.server.acl;

import java.nio.charset.StandardCharsets;

/**
 * Byte-exact text: rules, names, patterns and passwords arrive as bytes and are kept as strings one
 * char per byte (ISO-8859-1), so a binary password hashes to the same digest as in Redis and a
 * pattern matches the bytes it was given.
 */
public final class Latin1 {
  private Latin1() {}

  /** Returns the bytes as a string of one char per byte. */
  public static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  /** Returns the bytes of a string made by {@link #text}. */
  public static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }
}
