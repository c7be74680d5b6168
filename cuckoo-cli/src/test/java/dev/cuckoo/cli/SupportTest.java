package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SupportTest {
  private static LineReader reader(String text) {
    return new LineReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static String next(LineReader reader) throws IOException {
    byte[] line = reader.next();
    return line == null ? null : new String(line, StandardCharsets.UTF_8);
  }

  @Test
  void next_crlfEmptyAndUnterminatedLines_splitExactly() throws IOException {
    LineReader reader = reader("a\r\n\nbc\rd\nlast");
    assertEquals("a", next(reader));
    assertEquals("", next(reader));
    assertEquals("bc\rd", next(reader));
    assertEquals("last", next(reader));
    assertNull(next(reader));
    assertEquals(4, reader.lineNumber());
  }

  @Test
  void next_linesAcrossBufferBoundaries_intact() throws IOException {
    StringBuilder text = new StringBuilder();
    String longLine = "x".repeat(200_000);
    text.append(longLine).append('\n');
    for (int i = 0; i < 50_000; i++) {
      text.append(i).append('\n');
    }
    LineReader reader = reader(text.toString());
    assertEquals(longLine, next(reader));
    for (int i = 0; i < 50_000; i++) {
      assertEquals(String.valueOf(i), next(reader));
    }
    assertNull(next(reader));
  }

  @Test
  void decode_formats_roundTrip() {
    byte[] bytes = {0, (byte) 0xff, 0x10, 'a'};
    assertArrayEquals(bytes, ItemFormat.HEX.decode("00FF1061".getBytes(StandardCharsets.UTF_8), 1));
    assertArrayEquals(
        bytes, ItemFormat.BASE64.decode("AP8QYQ==".getBytes(StandardCharsets.UTF_8), 1));
    assertArrayEquals(
        bytes, ItemFormat.BASE64.decode("AP8QYQ".getBytes(StandardCharsets.UTF_8), 1));
    assertArrayEquals("é".getBytes(StandardCharsets.UTF_8), ItemFormat.LINES.decodeArgument("é"));
  }

  @Test
  void render_knownTotal_showsPercentRateAndEta() {
    Progress progress =
        new Progress(new PrintWriter(new StringWriter()), true, "building", 4_000_000, () -> 0);
    assertEquals(
        "building  1,000,000 / 4,000,000 items  25.0%  2.00 M/s  ETA 0:02",
        progress.render(1_000_000, 500_000_000L));
    Progress unknown =
        new Progress(new PrintWriter(new StringWriter()), true, "building", -1, () -> 0);
    assertEquals("building  5,000 items  5.0 k/s", unknown.render(5_000, 1_000_000_000L));
  }

  @Test
  void update_enabled_redrawsAtMostEveryQuarterSecondAndFinishClears() {
    StringWriter text = new StringWriter();
    AtomicLong now = new AtomicLong();
    Progress progress = new Progress(new PrintWriter(text), true, "b", 100_000, now::get);
    progress.update(4096);
    assertEquals("", text.toString(), "too early");
    now.set(300_000_000L);
    progress.update(8192);
    assertEquals(1, text.toString().split("\r", -1).length - 1);
    progress.update(12288);
    assertEquals(1, text.toString().split("\r", -1).length - 1, "no redraw within 250 ms");
    progress.finish();
    String all = text.toString();
    assertEquals('\r', all.charAt(all.length() - 1));
  }

  @Test
  void update_disabled_printsNothing() {
    StringWriter text = new StringWriter();
    AtomicLong now = new AtomicLong();
    Progress progress = new Progress(new PrintWriter(text), false, "b", 10, now::get);
    for (long i = 1; i <= 100_000; i++) {
      now.addAndGet(1_000_000);
      progress.update(i);
    }
    progress.finish();
    assertEquals("", text.toString());
  }

  @Test
  void object_escapesAndTypes() {
    String json =
        Json.object(
            List.of(
                Property.of("s", "s", "a\"b\\c\n"),
                Property.of("n", "n", 12L),
                Property.of("d", "d", 0.5),
                Property.of("b", "b", true)));
    assertEquals(
        "{\n  \"s\": \"a\\\"b\\\\c\\u000a\",\n  \"n\": 12,\n  \"d\": 0.5,\n  \"b\": true\n}", json);
  }

  @Test
  void formatting_units() {
    assertEquals("1,234,567", Text.count(1_234_567));
    assertEquals("512 B", Text.bytes(512));
    assertEquals("1.50 KiB", Text.bytes(1536));
    assertEquals("0.0923%", Text.percent(0.000923));
    assertEquals("94.5%", Text.percent(0.945));
    assertEquals("12.3 k/s", Text.rate(12_345));
  }
}
