package dev.cuckoo.server.protocol;

import java.nio.charset.StandardCharsets;

/**
 * Integer parsing with Redis's rules (string2ll): optional '-', no '+', no leading zeros; and
 * integers as the ASCII arguments of logged commands.
 */
public final class Numbers {
  /** Most small numbers {@link #ascii} hands out shared: CF.RESERVE's parameters are below it. */
  private static final int SHARED_ASCII = 1024;

  private static final byte[][] ASCII = new byte[SHARED_ASCII][];

  static {
    for (int i = 0; i < SHARED_ASCII; i++) {
      ASCII[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
    }
  }

  private Numbers() {}

  /**
   * Returns the decimal ASCII digits of {@code value}, as a command argument. Values from 0 to 1023
   * share one array each (a logged CF.RESERVE then allocates no number): the caller must not modify
   * it.
   */
  public static byte[] ascii(long value) {
    return value >= 0 && value < SHARED_ASCII
        ? ASCII[(int) value]
        : Long.toString(value).getBytes(StandardCharsets.US_ASCII);
  }

  /** Parses the bytes as a 64-bit integer; returns null if Redis would reject them. */
  public static Long parseLong(byte[] text) {
    return parseLong(text, text.length);
  }

  /** Parses the first {@code length} bytes as a 64-bit integer; null if Redis would reject them. */
  public static Long parseLong(byte[] text, int length) {
    if (length == 0 || length > 20) {
      return null;
    }
    if (length == 1 && text[0] == '0') {
      return 0L;
    }
    int i = 0;
    boolean negative = text[0] == '-';
    if (negative) {
      i++;
    }
    if (i == length || text[i] < '1' || text[i] > '9') {
      return null;
    }
    long value = 0;
    if (length - i <= 18) {
      // at most 18 digits cannot overflow: no range checks (request headers take this path)
      for (; i < length; i++) {
        int digit = text[i] - '0';
        if (digit < 0 || digit > 9) {
          return null;
        }
        value = value * 10 + digit;
      }
      return negative ? -value : value;
    }
    for (; i < length; i++) {
      int digit = text[i] - '0';
      if (digit < 0 || digit > 9) {
        return null;
      }
      if (negative) {
        if (value < (Long.MIN_VALUE + digit) / 10) {
          return null;
        }
        value = value * 10 - digit;
      } else {
        if (value > (Long.MAX_VALUE - digit) / 10) {
          return null;
        }
        value = value * 10 + digit;
      }
    }
    return value;
  }

  /** Parses the text as a 64-bit integer; returns null if Redis would reject it. */
  public static Long parseLong(String text) {
    return text == null ? null : parseLong(text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Returns a byte count as Redis's CONFIG REWRITE writes it ({@code rewriteConfigFormatMemory}):
   * in the largest of gb, mb and kb that divides it exactly, else in bytes; {@link #parseMemory}
   * reads it back.
   */
  public static String formatMemory(long bytes) {
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
  public static Long parseMemory(String text) {
    String lower = text.trim().toLowerCase(java.util.Locale.ROOT);
    int digits = 0;
    while (digits < lower.length() && Character.isDigit(lower.charAt(digits))) {
      digits++;
    }
    if (digits == 0 || digits > 19) {
      return null;
    }
    long multiplier;
    switch (lower.substring(digits)) {
      case "":
      case "b":
        multiplier = 1;
        break;
      case "k":
        multiplier = 1000;
        break;
      case "kb":
        multiplier = 1024;
        break;
      case "m":
        multiplier = 1000 * 1000;
        break;
      case "mb":
        multiplier = 1024 * 1024;
        break;
      case "g":
        multiplier = 1000L * 1000 * 1000;
        break;
      case "gb":
        multiplier = 1024L * 1024 * 1024;
        break;
      default:
        return null;
    }
    try {
      return Math.multiplyExact(Long.parseLong(lower.substring(0, digits)), multiplier);
    } catch (ArithmeticException | NumberFormatException e) {
      return null;
    }
  }
}
