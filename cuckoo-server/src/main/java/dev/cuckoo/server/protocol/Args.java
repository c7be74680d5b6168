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
}
