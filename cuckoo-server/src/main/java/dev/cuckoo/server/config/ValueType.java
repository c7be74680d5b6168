package dev.cuckoo.server.config;

/**
 * How a parameter's text reads into its value and its value prints back, as Redis's config.c {@code
 * typeInterface}: {@link #parse} refuses with Redis's reason, {@link #format} is what CONFIG GET
 * shows, {@link #rewrite} what CONFIG REWRITE writes (memory with units); {@link #parse} reads both
 * back to the same value.
 *
 * @param <T> the value's type
 */
public interface ValueType<T> {
  /**
   * Reads a value from its text.
   *
   * @throws InvalidValueException with Redis's reason if the text is not a value of this type
   */
  T parse(String text);

  /**
   * Reads a value from its text given the value it replaces: a type whose text may set only part of
   * the value (Redis's {@code client-output-buffer-limit}, one class at a time) keeps the rest of
   * {@code current}; the others ignore it.
   *
   * @param text the value's text
   * @param current the value it replaces
   * @throws InvalidValueException with Redis's reason if the text is not a value of this type
   */
  default T parse(String text, T current) {
    return parse(text);
  }

  /** Returns the value as CONFIG GET shows it. */
  String format(T value);

  /** Returns the value as a config file holds it (what CONFIG REWRITE writes). */
  default String rewrite(T value) {
    return format(value);
  }

  /** Returns a refusal with Redis's reason; the message adds the parameter and the value. */
  static InvalidValueException invalid(String reason) {
    return new InvalidValueException(reason, null);
  }

  /** Returns a refusal whose message (after the parameter's name) is {@code detail}. */
  static InvalidValueException invalid(String reason, String detail) {
    return new InvalidValueException(reason, detail);
  }
}
