package dev.cuckoo.cli;

/**
 * One line of {@code cuckoo info}: a JSON key, a label for people, the value for JSON (a {@link
 * Number}, {@link Boolean} or {@link String}) and the value as people read it.
 */
final class Property {
  final String key;
  final String label;
  final Object value;
  final String text;

  /**
   * Creates a property.
   *
   * @param key the JSON key, e.g. {@code "fingerprintBits"}
   * @param label the label, e.g. {@code "fingerprint bits"}
   * @param value the machine value
   * @param text the human value
   */
  Property(String key, String label, Object value, String text) {
    this.key = key;
    this.label = label;
    this.value = value;
    this.text = text;
  }

  /**
   * Creates a property shown as its own value.
   *
   * @param key the JSON key
   * @param label the label
   * @param value the value, shown with {@link String#valueOf}
   * @return the property
   */
  static Property of(String key, String label, Object value) {
    String text = value instanceof Long ? Text.count((Long) value) : String.valueOf(value);
    return new Property(key, label, value, text);
  }
}
