package dev.cuckoo.server.config;

/**
 * The type of {@code save}, Redis's snapshot points: pairs of "seconds changes" (seconds at least
 * 1, changes at least 0) separated by spaces, e.g. {@code 3600 1 300 100 60 10000}; the empty text
 * means none. Kept with single spaces, as CONFIG GET shows it.
 */
final class SaveType implements ValueType<String> {
  static final SaveType INSTANCE = new SaveType();

  private SaveType() {}

  @Override
  public String parse(String text) {
    String trimmed = text.trim();
    if (trimmed.isEmpty()) {
      return "";
    }
    String[] words = trimmed.split("\\s+");
    if (words.length % 2 != 0) {
      throw ValueType.invalid("Invalid save parameters");
    }
    for (int i = 0; i < words.length; i++) {
      Long number = Types.parseInteger(words[i]);
      if (number == null || number < (i % 2 == 0 ? 1 : 0)) {
        throw ValueType.invalid("Invalid save parameters");
      }
    }
    return String.join(" ", words);
  }

  @Override
  public String format(String value) {
    return value;
  }
}
