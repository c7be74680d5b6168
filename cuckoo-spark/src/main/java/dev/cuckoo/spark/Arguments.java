package dev.cuckoo.spark;

import dev.cuckoo.Scheme;
import java.math.BigDecimal;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Checks of the functions' arguments; every message names the function, the parameter, the value
 * and the allowed range.
 */
final class Arguments {
  /** Smallest false-positive rate: 32-bit fingerprints, the core's widest, reach about 2^-29. */
  static final double MIN_FPP = 1e-8;

  private Arguments() {}

  /** Checks {@code fpp} and returns it. */
  static double fpp(String function, double fpp) {
    if (!(fpp >= MIN_FPP && fpp < 1.0)) {
      throw new IllegalArgumentException(
          function + ": fpp: " + fpp + " (expected: " + MIN_FPP + " <= fpp < 1.0)");
    }
    return fpp;
  }

  /** Checks {@code expectedItems} (named {@code parameter}) against the scheme's bound. */
  static long expectedItems(
      String function, String parameter, long expectedItems, Scheme scheme, double fpp) {
    return range(
        function,
        parameter,
        expectedItems,
        FilterSpec.maxExpectedItems(scheme, fpp),
        (scheme == Scheme.STANDARD_FAST ? " at fpp " + fpp : "")
            + ", so that the filter fits in one BINARY value of at most 2 GiB");
  }

  /** Checks {@code 1 <= value <= max}; {@code why} explains the bound in the message. */
  static long range(String function, String parameter, long value, long max, String why) {
    if (value < 1 || value > max) {
      throw new IllegalArgumentException(
          function
              + ": "
              + parameter
              + ": "
              + value
              + " (expected: 1 <= "
              + parameter
              + " <= "
              + max
              + why
              + ")");
    }
    return value;
  }

  /** Returns the value of a constant integral argument. */
  static long longConstant(String function, String parameter, Expression argument) {
    Object value = constant(function, parameter, argument);
    if (value instanceof Long
        || value instanceof Integer
        || value instanceof Short
        || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    BigDecimal decimal = decimal(value);
    if (decimal != null) {
      try {
        return decimal.longValueExact();
      } catch (ArithmeticException e) {
        // not a whole number within range: reported below
      }
    }
    throw new IllegalArgumentException(
        function + ": " + parameter + ": " + value + " (expected: an integer constant)");
  }

  /** Returns the value of a constant numeric argument. */
  static double doubleConstant(String function, String parameter, Expression argument) {
    Object value = constant(function, parameter, argument);
    if (value instanceof Number) {
      return ((Number) value).doubleValue();
    }
    BigDecimal decimal = decimal(value);
    if (decimal != null) {
      return decimal.doubleValue();
    }
    throw new IllegalArgumentException(
        function + ": " + parameter + ": " + value + " (expected: a numeric constant)");
  }

  private static Object constant(String function, String parameter, Expression argument) {
    if (!argument.foldable()) {
      throw new IllegalArgumentException(
          function + ": " + parameter + ": " + argument.sql() + " (expected: a constant)");
    }
    Object value = argument.eval(null);
    if (value == null) {
      throw new IllegalArgumentException(
          function + ": " + parameter + ": NULL (expected: a constant that is not NULL)");
    }
    return value;
  }

  private static BigDecimal decimal(Object value) {
    if (value instanceof Decimal) {
      return ((Decimal) value).toJavaBigDecimal();
    }
    if (value instanceof UTF8String) {
      try {
        return new BigDecimal(value.toString());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }
}
