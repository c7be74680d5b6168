package dev.cuckoo.cli;

import java.util.List;
import java.util.Locale;

/** Writes a flat JSON object of {@link Property} values (the only JSON the command line emits). */
final class Json {
  private Json() {}

  /**
   * Returns {@code properties} as a JSON object, one member per line.
   *
   * @param properties the members, in order
   * @return the JSON text, without a trailing newline
   */
  static String object(List<Property> properties) {
    StringBuilder json = new StringBuilder("{\n");
    for (int i = 0; i < properties.size(); i++) {
      Property property = properties.get(i);
      json.append("  ").append(string(property.key)).append(": ").append(value(property.value));
      json.append(i + 1 < properties.size() ? ",\n" : "\n");
    }
    return json.append('}').toString();
  }

  private static String value(Object value) {
    if (value instanceof Double || value instanceof Float) {
      double number = ((Number) value).doubleValue();
      return Double.isFinite(number) ? Double.toString(number) : "null";
    }
    if (value instanceof Number || value instanceof Boolean) {
      return value.toString();
    }
    return value == null ? "null" : string(value.toString());
  }

  /**
   * Returns {@code text} as a JSON string literal.
   *
   * @param text any text
   * @return the quoted, escaped literal
   */
  static String string(String text) {
    StringBuilder json = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        json.append('\\').append(c);
      } else if (c < 0x20) {
        json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        json.append(c);
      }
    }
    return json.append('"').toString();
  }
}
