package dev.cuckoo.server.rdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Crc64Test {
  @Test
  void of_checkString_isRedisKnownAnswer() {
    byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
    assertEquals(0xe9c6d914c4b8d9caL, Crc64.of(check, 0, check.length));
  }

  @Test
  void of_empty_isZero() {
    assertEquals(0L, Crc64.of(new byte[0], 0, 0));
  }

  @Test
  void of_range_readsOnlyTheRange() {
    byte[] padded = "xx123456789yy".getBytes(StandardCharsets.US_ASCII);
    assertEquals(0xe9c6d914c4b8d9caL, Crc64.of(padded, 2, 9));
  }

  @Test
  void of_everyRecordedPayload_matchesItsFooter() {
    int checked = 0;
    for (RecordedDumps.Case c : RecordedDumps.all()) {
      byte[] dump = c.dump();
      long stored = ByteBuffer.wrap(dump).order(ByteOrder.LITTLE_ENDIAN).getLong(dump.length - 8);
      assertEquals(stored, Crc64.of(dump, 0, dump.length - 8), c.name());
      checked++;
    }
    assertEquals(27, checked);
  }
}
