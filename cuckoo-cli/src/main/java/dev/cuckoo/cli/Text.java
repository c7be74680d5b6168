package dev.cuckoo.cli;

import java.util.Locale;

/** Formats numbers for people: counts with separators, binary sizes, rates and percentages. */
final class Text {
  private Text() {}

  /**
   * Formats a count with thousands separators.
   *
   * @param count any value
   * @return e.g. {@code "1,000,000"}
   */
  static String count(long count) {
    return String.format(Locale.ROOT, "%,d", count);
  }

  /**
   * Formats a size in bytes with a binary unit.
   *
   * @param bytes a size, at least 0
   * @return e.g. {@code "512 B"}, {@code "1.91 MiB"}
   */
  static String bytes(double bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    double value = bytes;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return unit == 0
        ? String.format(Locale.ROOT, "%.0f B", value)
        : String.format(Locale.ROOT, "%.2f %s", value, units[unit]);
  }

  /**
   * Formats a rate per second with a decimal prefix.
   *
   * @param perSecond events per second
   * @return e.g. {@code "12.3 M/s"}
   */
  static String rate(double perSecond) {
    if (perSecond >= 1e9) {
      return String.format(Locale.ROOT, "%.2f G/s", perSecond / 1e9);
    }
    if (perSecond >= 1e6) {
      return String.format(Locale.ROOT, "%.2f M/s", perSecond / 1e6);
    }
    if (perSecond >= 1e3) {
      return String.format(Locale.ROOT, "%.1f k/s", perSecond / 1e3);
    }
    return String.format(Locale.ROOT, "%.0f /s", perSecond);
  }

  /**
   * Formats a fraction as a percentage with enough digits for small rates.
   *
   * @param fraction a value in [0, 1]
   * @return e.g. {@code "0.0981%"}, {@code "94.5%"}
   */
  static String percent(double fraction) {
    double p = fraction * 100;
    if (p == 0 || p >= 10) {
      return String.format(Locale.ROOT, "%.1f%%", p);
    }
    if (p >= 1) {
      return String.format(Locale.ROOT, "%.2f%%", p);
    }
    return String.format(Locale.ROOT, "%.3g%%", p);
  }

  /**
   * Formats a duration in seconds.
   *
   * @param nanos a duration in nanoseconds
   * @return e.g. {@code "0.31 s"}
   */
  static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
  }

  /**
   * Formats a number with a fixed count of decimals.
   *
   * @param value the number
   * @param decimals digits after the point
   * @return the text
   */
  static String decimal(double value, int decimals) {
    return String.format(Locale.ROOT, "%." + decimals + "f", value);
  }
}
