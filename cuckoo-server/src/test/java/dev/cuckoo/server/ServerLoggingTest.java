package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerLoggingTest {
  @TempDir Path dir;

  @Test
  void format_record_oneLineWithTimeLevelLoggerAndMessage() {
    LogRecord record = new LogRecord(Level.WARNING, "listening on {0}:{1}");
    record.setParameters(new Object[] {"127.0.0.1", "6379"});
    record.setLoggerName("dev.cuckoo.server.CuckooServer");
    record.setInstant(Instant.parse("2026-03-05T13:02:03.123Z"));
    String line = new ServerLogging.LineFormatter().format(record);
    assertTrue(
        line.matches(
            "2026-03-0\\dT\\d\\d:\\d2:03\\.123(Z|[+-]\\d\\d:\\d\\d) WARN  CuckooServer:"
                + " listening on 127\\.0\\.0\\.1:6379\n"),
        line);
  }

  @Test
  void format_thrown_stackTraceFollowsTheLine() {
    LogRecord record = new LogRecord(Level.SEVERE, "saving failed");
    record.setThrown(new IOException("No space left on device"));
    String text = new ServerLogging.LineFormatter().format(record);
    String[] lines = text.split("\n");
    assertTrue(lines[0].endsWith(" ERROR : saving failed"), lines[0]);
    assertEquals("java.io.IOException: No space left on device", lines[1]);
    assertTrue(lines[2].trim().startsWith("at "), text);
  }

  @Test
  void levelName_julLevels_systemLoggerNames() {
    assertEquals("ERROR", ServerLogging.LineFormatter.levelName(Level.SEVERE));
    assertEquals("WARN", ServerLogging.LineFormatter.levelName(Level.WARNING));
    assertEquals("INFO", ServerLogging.LineFormatter.levelName(Level.INFO));
    assertEquals("INFO", ServerLogging.LineFormatter.levelName(Level.CONFIG));
    assertEquals("DEBUG", ServerLogging.LineFormatter.levelName(Level.FINE));
    assertEquals("TRACE", ServerLogging.LineFormatter.levelName(Level.FINEST));
  }

  @Test
  void install_logFile_appendsAndStartsANewFileAfterARename() throws IOException {
    Logger root = Logger.getLogger("");
    Handler[] before = root.getHandlers();
    Path log = dir.resolve("server.log");
    try {
      ServerLogging.install(log);
      Logger logger = Logger.getLogger("dev.cuckoo.server.ServerLoggingTest");
      logger.info("first");
      Files.move(log, dir.resolve("server.log.1"));
      logger.info("second");
      logger.fine("not at the default level");
      List<String> rotated = Files.readAllLines(dir.resolve("server.log.1"));
      List<String> current = Files.readAllLines(log, StandardCharsets.UTF_8);
      assertEquals(1, rotated.size(), rotated.toString());
      assertTrue(rotated.get(0).endsWith(" INFO  ServerLoggingTest: first"), rotated.get(0));
      assertEquals(1, current.size(), current.toString());
      assertTrue(current.get(0).endsWith(" INFO  ServerLoggingTest: second"), current.get(0));
    } finally {
      for (Handler handler : root.getHandlers()) {
        root.removeHandler(handler);
      }
      for (Handler handler : before) {
        root.addHandler(handler);
      }
    }
  }

  @Test
  void install_unwritableLogFile_throwsBeforeChangingAnything() {
    Logger root = Logger.getLogger("");
    Handler[] before = root.getHandlers();
    assertThrows(
        IOException.class, () -> ServerLogging.install(dir.resolve("missing").resolve("x.log")));
    assertEquals(List.of(before), List.of(root.getHandlers()));
  }
}
