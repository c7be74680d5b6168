package dev.cuckoo;

/** Argument checks whose messages name the parameter, the value and the allowed range. */
final class Checks {
  private Checks() {}

  static void requireArgument(boolean ok, String format, Object... args) {
    if (!ok) {
      throw new IllegalArgumentException(String.format(format, args));
    }
  }

  static long requireRange(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + ": " + value + " (expected: " + min + " <= " + name + " <= " + max + ")");
    }
    return value;
  }

  static <T> T requireNonNull(T value, String name) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
    return value;
  }
}
