package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MonitorLineTest {

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void of_timeDatabaseAddressAndArguments_writtenAsRedisFeedsThem() {
    MonitorLine line =
        MonitorLine.of(
            1_700_000_000_000_042L,
            3,
            "127.0.0.1:5000",
            new byte[][] {bytes("CF.ADD"), bytes("k"), bytes("a\"b\\c\r\n\t\u0007\b\u0000\u00ff")});
    assertEquals(
        "1700000000.000042 [3 127.0.0.1:5000] \"CF.ADD\" \"k\""
            + " \"a\\\"b\\\\c\\r\\n\\t\\a\\b\\x00\\xff\"",
        line.text());
  }

  @Test
  void of_hugeArgument_showsItsFirstBytesAndCountsTheRest() {
    byte[] big = new byte[MonitorLine.MAX_ARGUMENT_BYTES + 904];
    java.util.Arrays.fill(big, (byte) 'x');
    String text = MonitorLine.of(0, 0, "a:1", new byte[][] {bytes("CF.ADD"), big}).text();
    assertEquals(
        "0.000000 [0 a:1] \"CF.ADD\" \""
            + "x".repeat(MonitorLine.MAX_ARGUMENT_BYTES)
            + "... (904 more bytes)\"",
        text);
  }
}
