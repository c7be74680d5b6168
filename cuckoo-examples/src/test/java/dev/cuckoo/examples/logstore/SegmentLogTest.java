package dev.cuckoo.examples.logstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentLogTest {
  @TempDir Path dir;

  @Test
  void appendThenRead_roundTripsAndCountsReads() throws IOException {
    Path file = dir.resolve("log");
    try (SegmentLog log = opened(file, new ArrayList<>())) {
      long first = log.append(LogRecord.TYPE_PUT, bytes("key"), bytes("value"));
      long second = log.append(LogRecord.TYPE_DELETE, bytes("key"), new byte[0]);
      assertEquals(SegmentLog.FILE_HEADER_BYTES, first);
      assertEquals(first + SegmentLog.RECORD_HEADER_BYTES + 8, second);
      LogRecord record = log.read(first);
      assertArrayEquals(bytes("value"), record.value());
      assertTrue(log.read(second).isTombstone());
      assertEquals(2, log.recordReads());
    }
  }

  @Test
  void recordLayout_knownRecord_matchesDocumentedBytes() throws IOException {
    Path file = dir.resolve("log");
    try (SegmentLog log = opened(file, new ArrayList<>())) {
      log.append(LogRecord.TYPE_PUT, bytes("k"), bytes("vv"));
    }
    byte[] all = Files.readAllBytes(file);
    assertArrayEquals(SegmentLog.MAGIC, java.util.Arrays.copyOf(all, 8));
    ByteBuffer record = ByteBuffer.wrap(all, 8, all.length - 8).order(ByteOrder.LITTLE_ENDIAN);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(all, 12, all.length - 12);
    assertEquals((int) crc.getValue(), record.getInt());
    assertEquals(1, record.get());
    assertEquals(1, record.getShort());
    assertEquals(2, record.getInt());
    assertEquals('k', record.get());
    assertEquals(8 + 11 + 3, all.length);
  }

  @Test
  void open_otherFile_refusesAndLeavesItUntouched() throws IOException {
    Path text = dir.resolve("notes.txt");
    Files.write(text, bytes("hello, this is not a log\n"));
    IOException e = assertThrows(IOException.class, () -> SegmentLog.open(text));
    assertTrue(e.getMessage().contains("not a log store file"), e.getMessage());
    assertArrayEquals(bytes("hello, this is not a log\n"), Files.readAllBytes(text));
  }

  @Test
  void open_headerCutShort_startsAnEmptyLog() throws IOException {
    Path file = dir.resolve("log");
    Files.write(file, java.util.Arrays.copyOf(SegmentLog.MAGIC, 3));
    List<LogRecord> seen = new ArrayList<>();
    try (SegmentLog log = opened(file, seen)) {
      assertEquals(SegmentLog.FILE_HEADER_BYTES, log.sizeInBytes());
    }
    assertEquals(0, seen.size());
  }

  @Test
  void recover_crcMismatchInLastRecord_dropsOnlyThatRecord() throws IOException {
    Path file = writeThreeRecords();
    byte[] all = Files.readAllBytes(file);
    all[all.length - 1] ^= 0x01;
    Files.write(file, all);
    List<LogRecord> seen = new ArrayList<>();
    try (SegmentLog log = opened(file, seen)) {
      assertEquals(2, seen.size());
      assertEquals(14, log.discardedTailBytes());
    }
    assertEquals(all.length - 14, Files.size(file), "the torn tail is cut off");
  }

  @Test
  void recover_crcMismatchInMiddleRecord_refusesAndLeavesFileUntouched() throws IOException {
    Path file = writeThreeRecords();
    byte[] all = Files.readAllBytes(file);
    int secondRecordValue = 8 + 14 + 11 + 2;
    all[secondRecordValue] ^= 0x01;
    Files.write(file, all);
    IOException e = assertThrows(IOException.class, () -> opened(file, new ArrayList<>()));
    assertTrue(e.getMessage().contains("corrupt record at offset 22"), e.getMessage());
    assertArrayEquals(all, Files.readAllBytes(file));
  }

  @Test
  void recover_zeroFilledTail_isDropped() throws IOException {
    Path file = writeThreeRecords();
    long validLength = Files.size(file);
    Files.write(file, new byte[4096], java.nio.file.StandardOpenOption.APPEND);
    List<LogRecord> seen = new ArrayList<>();
    try (SegmentLog log = opened(file, seen)) {
      assertEquals(3, seen.size());
      assertEquals(4096, log.discardedTailBytes());
    }
    assertEquals(validLength, Files.size(file));
  }

  @Test
  void recover_hugeLengthInTornHeader_doesNotAllocateIt() throws IOException {
    Path file = writeThreeRecords();
    ByteBuffer header = ByteBuffer.allocate(11).order(ByteOrder.LITTLE_ENDIAN);
    header.putInt(0).put(LogRecord.TYPE_PUT).putShort((short) 0xFFFF).putInt(Integer.MAX_VALUE);
    Files.write(file, header.array(), java.nio.file.StandardOpenOption.APPEND);
    List<LogRecord> seen = new ArrayList<>();
    try (SegmentLog log = opened(file, seen)) {
      assertEquals(3, seen.size());
      assertEquals(11, log.discardedTailBytes());
    }
  }

  @Test
  void read_offsetOutsideLog_namesOffsetAndRange() throws IOException {
    try (SegmentLog log = opened(dir.resolve("log"), new ArrayList<>())) {
      log.append(LogRecord.TYPE_PUT, bytes("k"), bytes("v"));
      IOException e = assertThrows(IOException.class, () -> log.read(5000));
      assertEquals("record offset: 5000 (expected: 8 <= offset <= 10)", e.getMessage());
    }
  }

  /** Three 14-byte records after the 8-byte header: puts of k1, k2, k3, each to "v". */
  private Path writeThreeRecords() throws IOException {
    Path file = dir.resolve("log");
    try (SegmentLog log = opened(file, new ArrayList<>())) {
      for (String key : new String[] {"k1", "k2", "k3"}) {
        log.append(LogRecord.TYPE_PUT, bytes(key), bytes("v"));
      }
    }
    return file;
  }

  private static SegmentLog opened(Path file, List<LogRecord> seen) throws IOException {
    SegmentLog log = SegmentLog.open(file);
    try {
      log.recover(seen::add);
    } catch (IOException e) {
      log.close();
      throw e;
    }
    return log;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(UTF_8);
  }
}
