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

  /** Requires 0 < value < 1 (a false-positive rate). */
  static double requireRate(String name, double value) {
    if (!(value > 0.0 && value < 1.0)) {
      throw new IllegalArgumentException(
          name + ": " + value + " (expected: 0.0 < " + name + " < 1.0)");
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
