package dev.cuckoo.server.config;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** The value types of the parameter table, with Redis's texts for what each refuses. */
public final class Types {
  private Types() {}

  /** yes or no (any case), as Redis's {@code yesnotoi}. */
  public static final ValueType<Boolean> YES_NO =
      new ValueType<>() {
        @Override
        public Boolean parse(String text) {
          String lower = text.trim().toLowerCase(Locale.ROOT);
          if (lower.equals("yes")) {
            return Boolean.TRUE;
          }
          if (lower.equals("no")) {
            return Boolean.FALSE;
          }
          throw ValueType.invalid("argument must be 'yes' or 'no'");
        }

        @Override
        public String format(Boolean value) {
          return value ? "yes" : "no";
        }
      };

  /** Any text; the empty text is kept as it is. */
  public static final ValueType<String> TEXT =
      new ValueType<>() {
        @Override
        public String parse(String text) {
          return text;
        }

        @Override
        public String format(String value) {
          return value;
        }
      };

  /**
   * A directory: CONFIG GET shows it absolute (as Redis shows the directory it changed to), a
   * config file keeps it as written.
   */
  public static final ValueType<Path> DIRECTORY =
      new ValueType<>() {
        @Override
        public Path parse(String text) {
          return Paths.get(text);
        }

        @Override
        public String format(Path value) {
          return value.toAbsolutePath().toString();
        }

        @Override
        public String rewrite(Path value) {
          return value.toString();
        }
      };

  /** A path or the empty text for none (null). */
  public static final ValueType<Path> OPTIONAL_PATH = optional(Paths::get);

  /** A text or the empty text for none (null), as Redis's passwords and names. */
  public static final ValueType<String> OPTIONAL_TEXT = optional(Function.identity());

  /**
   * Returns a type whose empty text means none (null) and any other text is read by {@code read}.
   */
  private static <T> ValueType<T> optional(Function<String, T> read) {
    return new ValueType<>() {
      @Override
      public T parse(String text) {
        return text.isEmpty() ? null : read.apply(text);
      }

      @Override
      public String format(T value) {
        return value == null ? "" : value.toString();
      }
    };
  }

  /**
   * A 64-bit integer that refuses nothing itself: text that is not an integer reads as null, for a
   * constraint to refuse in its own words (RedisBloom's parameters name their range whatever is
   * wrong).
   */
  public static final ValueType<Long> LENIENT_INTEGER = longs(Types::parseInteger);

  /**
   * Returns a 64-bit integer type from {@code min} to {@code max}, read by Redis's {@code
   * string2ll} rules (no '+', no leading zeros, no spaces).
   */
  public static ValueType<Long> integer(long min, long max) {
    return longs(text -> bounded(parseInteger(text), min, max, false));
  }

  /** Returns an integer type read by {@code read} and printed in decimal. */
  private static ValueType<Long> longs(Function<String, Long> read) {
    return new ValueType<>() {
      @Override
      public Long parse(String text) {
        return read.apply(text);
      }

      @Override
      public String format(Long value) {
        return String.valueOf(value);
      }
    };
  }

  /**
   * Returns a memory type from {@code min} to {@code max} bytes: digits with an optional unit
   * ({@link Memory#parse}); CONFIG GET shows bytes, CONFIG REWRITE writes units.
   */
  public static ValueType<Long> memory(long min, long max) {
    return new ValueType<>() {
      @Override
      public Long parse(String text) {
        return bounded(Memory.parse(text), min, max, true);
      }

      @Override
      public String format(Long value) {
        return Long.toString(value);
      }

      @Override
      public String rewrite(Long value) {
        return Memory.format(value);
      }
    };
  }

  /**
   * Returns an enumeration type: one of {@code names} (any case), in the order Redis lists them in
   * its error; {@code valueOf} maps a lower-case name to the value and {@code nameOf} back.
   */
  public static <E> ValueType<E> oneOf(
      List<String> names, Function<String, E> valueOf, Function<E, String> nameOf) {
    return new ValueType<>() {
      @Override
      public E parse(String text) {
        String lower = text.trim().toLowerCase(Locale.ROOT);
        if (!names.contains(lower)) {
          throw ValueType.invalid(
              "argument(s) must be one of the following: " + String.join(", ", names));
        }
        return valueOf.apply(lower);
      }

      @Override
      public String format(E value) {
        return nameOf.apply(value);
      }
    };
  }

  /** Returns a type whose values are the words of {@code names} themselves. */
  public static ValueType<String> words(String... names) {
    return oneOf(List.of(names), Function.identity(), Function.identity());
  }

  /** Reads an integer as Redis's {@code string2ll}; null if Redis would refuse it. */
  static Long parseInteger(String text) {
    int length = text.length();
    if (length == 0 || length > 20) {
      return null;
    }
    if (text.equals("0")) {
      return 0L;
    }
    int start = text.charAt(0) == '-' ? 1 : 0;
    if (start == length || text.charAt(start) < '1' || text.charAt(start) > '9') {
      return null;
    }
    for (int i = start + 1; i < length; i++) {
      if (text.charAt(i) < '0' || text.charAt(i) > '9') {
        return null;
      }
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Long bounded(Long number, long min, long max, boolean memory) {
    if (number == null) {
      throw ValueType.invalid(
          memory
              ? "argument must be a memory value"
              : "argument couldn't be parsed into an integer");
    }
    if (number < min || number > max) {
      throw ValueType.invalid("argument must be between " + min + " and " + max + " inclusive");
    }
    return number;
  }
}
