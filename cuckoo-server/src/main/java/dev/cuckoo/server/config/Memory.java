package dev.cuckoo.server.config;

import java.util.Locale;

/** Memory amounts as Redis's config reads and writes them ({@code memtoull}, units kb, mb, gb). */
public final class Memory {
  private Memory() {}

  /**
   * Returns a byte count as Redis's CONFIG REWRITE writes it ({@code rewriteConfigFormatMemory}):
   * in the largest of gb, mb and kb that divides it exactly, else in bytes; {@link #parse} reads it
   * back.
   */
  public static String format(long bytes) {
    if (bytes != 0 && bytes % (1L << 30) == 0) {
      return bytes / (1L << 30) + "gb";
    }
    if (bytes != 0 && bytes % (1L << 20) == 0) {
      return bytes / (1L << 20) + "mb";
    }
    if (bytes != 0 && bytes % 1024 == 0) {
      return bytes / 1024 + "kb";
    }
    return Long.toString(bytes);
  }

  /**
   * Parses a memory amount as Redis's config does (memtoull): digits with an optional unit, b, k
   * (1000), kb (1024), m, mb, g, gb, case-insensitive. Returns null for anything else or a value
   * beyond 2^63 - 1.
   */
  public static Long parse(String text) {
    String lower = text.trim().toLowerCase(Locale.ROOT);
    int digits = 0;
    while (digits < lower.length() && Character.isDigit(lower.charAt(digits))) {
      digits++;
    }
    if (digits == 0 || digits > 19) {
      return null;
    }
    long multiplier;
    switch (lower.substring(digits)) {
      case "", "b" -> multiplier = 1;
      case "k" -> multiplier = 1000;
      case "kb" -> multiplier = 1024;
      case "m" -> multiplier = 1000 * 1000;
      case "mb" -> multiplier = 1024 * 1024;
      case "g" -> multiplier = 1000L * 1000 * 1000;
      case "gb" -> multiplier = 1024L * 1024 * 1024;
      default -> {
        return null;
      }
    }
    try {
      return Math.multiplyExact(Long.parseLong(lower.substring(0, digits)), multiplier);
    } catch (ArithmeticException | NumberFormatException e) {
      return null;
    }
  }
}
