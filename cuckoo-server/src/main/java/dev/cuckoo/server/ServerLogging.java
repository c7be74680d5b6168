package dev.cuckoo.server;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Where the server's log goes: one line per record, with time, level, logger and message, on
 * standard error or appended to a file ({@code --logfile}).
 *
 * <pre>
 * 2026-03-05T14:02:03.123+01:00 INFO  CuckooServer: listening on 127.0.0.1:6379 (epoll)
 * </pre>
 *
 * <p>The server logs through {@link System.Logger}, which the JDK backs with {@code
 * java.util.logging}; Netty logs there too. {@link #install} replaces that root logger's handlers,
 * unless the JVM was given a {@code java.util.logging} configuration of its own.
 */
public final class ServerLogging {
  /*
   * A log file is opened, appended to and closed for every record, as Redis does with its
   * logfile: after logrotate renames the file, the next line creates a new one, with no signal and
   * no copytruncate. The server logs a few lines per hour in normal operation (startup,
   * snapshots, errors), so the cost of an open per line does not matter.
   */

  private ServerLogging() {}

  /**
   * Sends the log to standard error ({@code logFile} null) or appends it to {@code logFile}, one
   * {@link LineFormatter line} per record. Does nothing if the system property {@code
   * java.util.logging.config.file} or {@code java.util.logging.config.class} is set.
   *
   * @param logFile the file to append to, or null for standard error
   * @throws IOException if {@code logFile} cannot be opened for appending
   */
  public static void install(Path logFile) throws IOException {
    if (System.getProperty("java.util.logging.config.file") != null
        || System.getProperty("java.util.logging.config.class") != null) {
      return;
    }
    Handler handler;
    if (logFile == null) {
      handler = new StandardErrorHandler();
    } else {
      Files.newOutputStream(logFile, StandardOpenOption.CREATE, StandardOpenOption.APPEND).close();
      handler = new AppendingFileHandler(logFile);
    }
    handler.setFormatter(new LineFormatter());
    Logger root = Logger.getLogger("");
    for (Handler old : root.getHandlers()) {
      root.removeHandler(old);
      old.close();
    }
    root.addHandler(handler);
  }

  /** Formats a record as one line: ISO-8601 local time with offset, level, logger, message. */
  static final class LineFormatter extends Formatter {
    private static final DateTimeFormatter TIME =
        DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");

    @Override
    public String format(LogRecord record) {
      StringBuilder line = new StringBuilder(128);
      TIME.formatTo(record.getInstant().atZone(ZoneId.systemDefault()), line);
      String level = levelName(record.getLevel());
      line.append(' ').append(level).append(" ".repeat(6 - level.length()));
      String logger = record.getLoggerName() == null ? "" : record.getLoggerName();
      line.append(logger.substring(logger.lastIndexOf('.') + 1)).append(": ");
      line.append(formatMessage(record)).append('\n');
      if (record.getThrown() != null) {
        StringWriter trace = new StringWriter();
        record.getThrown().printStackTrace(new PrintWriter(trace));
        line.append(trace);
      }
      return line.toString();
    }

    /** Returns System.Logger's name for a java.util.logging level (SEVERE is ERROR, FINE DEBUG). */
    static String levelName(Level level) {
      int value = level.intValue();
      if (value >= Level.SEVERE.intValue()) {
        return "ERROR";
      } else if (value >= Level.WARNING.intValue()) {
        return "WARN";
      } else if (value >= Level.CONFIG.intValue()) {
        return "INFO";
      } else if (value >= Level.FINE.intValue()) {
        return "DEBUG";
      }
      return "TRACE";
    }
  }

  /** Writes each record to the current {@link System#err} and flushes it. */
  private static final class StandardErrorHandler extends Handler {
    @Override
    public void publish(LogRecord record) {
      if (isLoggable(record)) {
        System.err.print(getFormatter().format(record));
        System.err.flush();
      }
    }

    @Override
    public void flush() {
      System.err.flush();
    }

    @Override
    public void close() {
      flush();
    }
  }

  /** Appends each record to a file, opening and closing it every time. */
  private static final class AppendingFileHandler extends Handler {
    private final Path file;

    AppendingFileHandler(Path file) {
      this.file = file;
    }

    @Override
    public synchronized void publish(LogRecord record) {
      if (!isLoggable(record)) {
        return;
      }
      String line = getFormatter().format(record);
      try {
        Files.write(
            file,
            line.getBytes(StandardCharsets.UTF_8),
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
      } catch (IOException e) {
        // the record must not vanish with the file: standard error still reaches the journal
        System.err.print(line);
        reportError("cannot append to the log file " + file, e, 0);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }
}
