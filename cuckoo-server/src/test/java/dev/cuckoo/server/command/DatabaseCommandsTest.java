package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** SCAN's cursor parsing; SCAN's replies are tested over the wire in {@code RedisRepliesTest}. */
class DatabaseCommandsTest {
  /* util.c string2ull: string2ll first (negatives refused), else strtoull base 10. */
  @Test
  void parseCursor_redisString2ull_acceptsAndRefusesTheSameTexts() {
    assertEquals(0L, DatabaseCommands.parseCursor("0".getBytes()));
    assertEquals(1L, DatabaseCommands.parseCursor("+1".getBytes()));
    assertEquals(1L, DatabaseCommands.parseCursor("01".getBytes()));
    assertEquals(7L, DatabaseCommands.parseCursor(" \t7".getBytes()));
    assertEquals(0L, DatabaseCommands.parseCursor("-0".getBytes()));
    assertEquals(
        -1L, DatabaseCommands.parseCursor("-01".getBytes()), "2^64 - 1, strtoull's negation");
    assertEquals(-1L, DatabaseCommands.parseCursor("18446744073709551615".getBytes()));
    assertEquals(1L << 40, DatabaseCommands.parseCursor("1099511627776".getBytes()));
    assertEquals(5L, DatabaseCommands.parseCursor("5\0junk".getBytes()), "a C string ends at NUL");
    for (String refused :
        new String[] {"", "-1", "1 ", "x", "+", " ", "1x", "18446744073709551616", "0x10", "\0"}) {
      assertNull(DatabaseCommands.parseCursor(refused.getBytes()), "'" + refused + "'");
    }
  }
}
