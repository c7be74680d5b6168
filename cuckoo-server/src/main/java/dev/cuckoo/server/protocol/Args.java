package dev.cuckoo.server.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** Request arguments as text, and the error texts commands of several families share. */
public final class Args {
  /** Redis's reply to a malformed option list. */
  public static final String SYNTAX_ERROR = "ERR syntax error";

  /** Redis's reply to an argument that is not a 64-bit integer. */
  public static final String NOT_INTEGER = "ERR value is not an integer or out of range";

  /** Redis's reply to a database index outside 0..databases-1. */
  public static final String DB_OUT_OF_RANGE = "ERR DB index is out of range";

  private Args() {}

  /** Returns the argument decoded as UTF-8. */
  public static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** Returns the argument decoded as UTF-8, in lower case (command names, options). */
  public static String lower(byte[] bytes) {
    return text(bytes).toLowerCase(Locale.ROOT);
  }

  /**
   * Returns true if the two arguments are the same bytes ignoring ASCII case, as C's strcasecmp
   * compares command names and options; allocates nothing (it runs on every logged write).
   */
  public static boolean equalsIgnoreCase(byte[] bytes, byte[] other) {
    if (bytes.length != other.length) {
      return false;
    }
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] != other[i] && lowerAscii(bytes[i]) != lowerAscii(other[i])) {
        return false;
      }
    }
    return true;
  }

  private static int lowerAscii(int c) {
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
  }
}
