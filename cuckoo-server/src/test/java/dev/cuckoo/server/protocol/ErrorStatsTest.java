package dev.cuckoo.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Error replies counted as Redis's afterErrorReply and incrementErrorCount count them. */
class ErrorStatsTest {

  @Test
  void codeOf_firstWordWithinThirtyOneCharacters_isTheCode() {
    assertEquals("ERR", ErrorStats.codeOf("ERR unknown command 'foo'"));
    assertEquals("WRONGTYPE", ErrorStats.codeOf("WRONGTYPE Operation against a key"));
    assertEquals("EXECABORT", ErrorStats.codeOf("EXECABORT Transaction discarded"));
    assertEquals("ERR", ErrorStats.codeOf("nospace"));
    String thirtyOne = "A".repeat(30) + " tail";
    assertEquals("A".repeat(30), ErrorStats.codeOf(thirtyOne));
    assertEquals("ERR", ErrorStats.codeOf("A".repeat(31) + " tail"));
  }

  @Test
  void count_moreThanMaxCodes_keepsOnlyDisabledUntilReset() {
    ErrorStats stats = new ErrorStats();
    for (int i = 0; i < ErrorStats.MAX_CODES; i++) {
      stats.count("CODE" + i + " text");
      stats.count("CODE" + i + " again");
    }
    assertEquals(ErrorStats.MAX_CODES, stats.byCode().size());
    assertEquals(2L, stats.byCode().get("CODE7"));
    stats.count("ONEMORE text");
    stats.count("ERR text");
    assertEquals(Map.of("ERRORSTATS_DISABLED", 1L), stats.byCode());
    assertEquals(2L * ErrorStats.MAX_CODES + 2, stats.total());
    stats.reset();
    stats.count("ERR text");
    assertEquals(Map.of("ERR", 1L), stats.byCode());
    assertEquals(1L, stats.total());
  }
}
