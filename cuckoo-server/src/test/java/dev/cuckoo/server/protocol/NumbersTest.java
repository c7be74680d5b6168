package dev.cuckoo.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Redis's string2ll rules, against a reference built on Long.parseLong. */
class NumbersTest {

  /** What Redis accepts: optional '-', digits without a leading zero (but "0"), in range. */
  private static Long reference(String text) {
    if (text.isEmpty()
        || text.length() > 20
        || text.startsWith("+")
        || text.equals("-")
        || text.equals("-0")
        || !text.matches("-?[0-9]+")) {
      return null;
    }
    String digits = text.startsWith("-") ? text.substring(1) : text;
    if (digits.length() > 1 && digits.startsWith("0")) {
      return null;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Long parse(String text) {
    return Numbers.parseLong(text.getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void knownAnswers() {
    assertEquals(0L, parse("0"));
    assertEquals(-1L, parse("-1"));
    assertEquals(Long.MAX_VALUE, parse("9223372036854775807"));
    assertEquals(Long.MIN_VALUE, parse("-9223372036854775808"));
    assertEquals(999_999_999_999_999_999L, parse("999999999999999999"));
    assertEquals(-999_999_999_999_999_999L, parse("-999999999999999999"));
    assertNull(parse("9223372036854775808"));
    assertNull(parse("-9223372036854775809"));
    assertNull(parse("99999999999999999999"));
    assertNull(parse("01"));
    assertNull(parse("-0"));
    assertNull(parse("+1"));
    assertNull(parse(""));
    assertNull(parse("-"));
    assertNull(parse("1a"));
    assertNull(parse(" 1"));
    assertEquals(12L, Numbers.parseLong("12345".getBytes(StandardCharsets.US_ASCII), 2));
  }

  @Test
  void randomStrings_matchTheReference() {
    long seed = Long.getLong("cuckoo.test.seed", 20261124L);
    Random random = new Random(seed);
    String alphabet = "0123456789-+a ";
    for (int i = 0; i < 200_000; i++) {
      StringBuilder text = new StringBuilder();
      int length = random.nextInt(22);
      boolean digitsOnly = random.nextBoolean();
      for (int j = 0; j < length; j++) {
        text.append(
            digitsOnly && !(j == 0 && random.nextInt(4) == 0)
                ? (char) ('0' + random.nextInt(10))
                : alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String value = text.toString();
      assertEquals(reference(value), parse(value), "seed " + seed + ": '" + value + "'");
    }
  }
}
