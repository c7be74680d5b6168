package dev.cuckoo.server.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@link LogReader#header} says of a damaged log header. */
class LogReaderTest {
  @TempDir Path dir;

  @Test
  void header_magicBitFlipped_namesTheOffsetOfTheDamagedByte() throws Exception {
    Path log = dir.resolve("appendonly.log");
    AppendLog.create(log, FileChannels.DEFAULT, 3, 17).close();
    byte[] sound = Files.readAllBytes(log);
    for (int offset = 0; offset < 8; offset++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] damaged = sound.clone();
        damaged[offset] ^= (byte) (1 << bit);
        Files.write(log, damaged);
        LogReader.Header header;
        try {
          header = LogReader.header(log);
        } catch (LogReader.CorruptLogException e) {
          // a flip that makes another version's magic whose checksum does not hold
          assertTrue(e.getMessage().contains("offset"), e.getMessage());
          continue;
        }
        String damage = header.damage();
        assertTrue(damage != null, "byte " + offset + " bit " + bit + ": no damage reported");
        assertTrue(
            damage.contains("magic damaged at offset " + offset + " "),
            "byte " + offset + " bit " + bit + ": " + damage);
        assertEquals(3, header.generation(), damage);
      }
    }
  }
}
