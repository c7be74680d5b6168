package dev.cuckoo.server.config;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The value of {@code latency-tracking-info-percentiles} (the percentiles INFO latencystats
 * prints): numbers from 0 to 100 separated by spaces, possibly none, read and printed as Redis
 * reads and prints them.
 */
public final class LatencyPercentiles {
  /** Redis's default: {@code 50 99 99.9}. */
  public static final List<Double> DEFAULT = List.of(50.0, 99.0, 99.9);

  /** The parameter's type: the percentiles as a list (compared by value), Redis's texts. */
  static final ValueType<List<Double>> TYPE =
      new ValueType<>() {
        @Override
        public List<Double> parse(String text) {
          String error = error(text);
          if (error != null) {
            throw ValueType.invalid(error);
          }
          return java.util.Arrays.stream(LatencyPercentiles.parse(text)).boxed().toList();
        }

        @Override
        public String format(List<Double> value) {
          return text(value.stream().mapToDouble(Double::doubleValue).toArray());
        }
      };

  private static final Pattern DECIMAL =
      Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

  private LatencyPercentiles() {}

  private static String[] words(String value) {
    return value.trim().isEmpty() ? new String[0] : value.trim().split("\\s+");
  }

  /**
   * Returns Redis's error for the first word of {@code value} that is not a number, or not one from
   * 0 to 100, or null if every word is one.
   */
  public static String error(String value) {
    for (String word : words(value)) {
      if (!DECIMAL.matcher(word).matches()) {
        return "Invalid latency-tracking-info-percentiles parameters";
      }
      double percentile = Double.parseDouble(word);
      if (percentile < 0 || percentile > 100) {
        return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
      }
    }
    return null;
  }

  /**
   * Returns the percentiles {@code value} names.
   *
   * @throws IllegalArgumentException with Redis's text if {@link #error} finds one
   */
  public static double[] parse(String value) {
    String error = error(value);
    if (error != null) {
      throw new IllegalArgumentException(error);
    }
    String[] words = words(value);
    double[] percentiles = new double[words.length];
    for (int i = 0; i < words.length; i++) {
      percentiles[i] = Double.parseDouble(words[i]);
    }
    return percentiles;
  }

  /** Returns the percentiles as CONFIG GET shows them: {@code 50 99 99.9}. */
  public static String text(double[] percentiles) {
    StringBuilder text = new StringBuilder();
    for (double percentile : percentiles) {
      if (text.length() > 0) {
        text.append(' ');
      }
      text.append(format(percentile));
    }
    return text.toString();
  }

  /**
   * Returns a percentile as Redis prints it: {@code %f} with trailing zeros (and a trailing dot)
   * removed, e.g. 50, 99.9.
   */
  public static String format(double percentile) {
    String text = String.format(Locale.ROOT, "%f", percentile);
    if (text.indexOf('.') >= 0) {
      int end = text.length();
      while (text.charAt(end - 1) == '0') {
        end--;
      }
      if (text.charAt(end - 1) == '.') {
        end--;
      }
      text = text.substring(0, end);
    }
    return text;
  }
}
