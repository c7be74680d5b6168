package dev.cuckoo.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The words of a config line as Redis's sdssplitargs makes them. */
class SplitArgsTest {
  @Test
  void split_plainWords_separatedByAnyWhiteSpace() {
    assertEquals(List.of("user", "alice", "on"), SplitArgs.split("  user\talice \r on \n"));
    assertEquals(List.of(), SplitArgs.split(" \t "));
  }

  @Test
  void split_doubleQuotes_escapesAndHexBytes() {
    assertEquals(
        List.of(">pass with spaces", "a\"b\\c\n\r\t\b\u0007z", "\u00ff\u0041", ""),
        SplitArgs.split(
            "\">pass with spaces\" \"a\\\"b\\\\c\\n\\r\\t\\b\\az\" \"\\xff\\x41\" \"\""));
    // not a hex escape: \x followed by something else is an escaped x
    assertEquals(List.of("xg1"), SplitArgs.split("\"\\xg1\""));
  }

  @Test
  void split_singleQuotes_onlyQuoteEscaped() {
    assertEquals(List.of("it's \\n"), SplitArgs.split("'it\\'s \\n'"));
  }

  @Test
  void split_quoteInsideAWord_opensQuotedPart() {
    assertEquals(List.of("ab c"), SplitArgs.split("a\"b c\""));
  }

  @Test
  void split_unbalancedOrGluedQuote_refused() {
    for (String line : List.of("\"open", "'open", "\"a\"b", "'a'b", "ok \"x\\\"")) {
      IllegalArgumentException refused =
          assertThrows(IllegalArgumentException.class, () -> SplitArgs.split(line), line);
      assertEquals("unbalanced quotes", refused.getMessage());
    }
  }
}
