package dev.cuckoo.server.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The value of {@code tls-protocols}: TLS versions separated by spaces, any case, among {@code
 * TLSv1}, {@code TLSv1.1}, {@code TLSv1.2} and {@code TLSv1.3} (Redis's words); none means TLSv1.2
 * and TLSv1.3, as Redis's default.
 */
public final class TlsProtocols {
  private TlsProtocols() {}

  /** The versions accepted when tls-protocols is not set. */
  public static final List<String> DEFAULT = List.of("TLSv1.2", "TLSv1.3");

  private static final List<String> KNOWN = List.of("TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3");

  /**
   * Returns the versions {@code value} names, in Java's spelling ({@link #DEFAULT} for null).
   *
   * @throws IllegalArgumentException if a word is not a TLS version
   */
  public static List<String> parse(String value) {
    if (value == null || value.isBlank()) {
      return DEFAULT;
    }
    List<String> versions = new ArrayList<>();
    for (String word : value.trim().split("\\s+")) {
      String known = null;
      for (String name : KNOWN) {
        if (name.toLowerCase(Locale.ROOT).equals(word.toLowerCase(Locale.ROOT))) {
          known = name;
        }
      }
      if (known == null) {
        throw new IllegalArgumentException(
            "tls-protocols: '"
                + word
                + "' is not a TLS version (expected a combination of TLSv1, TLSv1.1, TLSv1.2"
                + " and TLSv1.3)");
      }
      if (!versions.contains(known)) {
        versions.add(known);
      }
    }
    return List.copyOf(versions);
  }

  /** Returns why {@code value} is refused as tls-protocols, or null. */
  static String refusal(String value) {
    try {
      parse(value);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }
}
