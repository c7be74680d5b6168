package dev.cuckoo.server.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Known answers of Redis's keyHashSlot and crc16. */
class HashSlotsTest {
  private static int slot(String key) {
    return HashSlots.slot(key.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void crc16_xmodemCheckValue_is0x31C3() {
    byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
    assertEquals(0x31C3, HashSlots.crc16(check, 0, check.length));
  }

  @Test
  void slot_knownKeys_matchRedis() {
    assertEquals(12182, slot("foo"));
    assertEquals(5061, slot("bar"));
    assertEquals(0, slot(""));
    assertEquals(slot("user1000"), slot("{user1000}.following"));
    assertEquals(slot("{user1000}.following"), slot("{user1000}.followers"));
  }

  @Test
  void slot_emptyOrUnclosedTag_hashesWholeKey() {
    int whole = HashSlots.crc16("foo{}{bar}".getBytes(StandardCharsets.UTF_8), 0, 10) & 16383;
    assertEquals(whole, slot("foo{}{bar}"));
    assertEquals(
        HashSlots.crc16("foo{bar".getBytes(StandardCharsets.UTF_8), 0, 7) & 16383, slot("foo{bar"));
    assertEquals(
        HashSlots.crc16("{bar".getBytes(StandardCharsets.UTF_8), 0, 4) & 16383,
        slot("foo{{bar}}zap"));
    assertEquals(slot("bar"), slot("foo{bar}{zap}"));
  }
}
