package dev.cuckoo.server.protocol;

import dev.cuckoo.server.config.Memory;
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

  /** Returns a byte count as CONFIG REWRITE writes it; see {@link Memory#format}. */
  public static String formatMemory(long bytes) {
    return Memory.format(bytes);
  }

  /** Parses a memory amount as Redis's config does; see {@link Memory#parse}. */
  public static Long parseMemory(String text) {
    return Memory.parse(text);
  }
}
