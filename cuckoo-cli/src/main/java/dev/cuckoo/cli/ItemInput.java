package dev.cuckoo.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The items of {@code --input FILE|-}: one per line, empty lines skipped, each decoded by an {@link
 * ItemFormat}.
 */
final class ItemInput implements AutoCloseable {
  private final String name;
  private final InputStream in;
  private final boolean closeStream;
  private final LineReader reader;
  private final ItemFormat format;
  private byte[] lastLine;

  private ItemInput(String name, InputStream in, boolean closeStream, ItemFormat format) {
    this.name = name;
    this.in = in;
    this.closeStream = closeStream;
    this.reader = new LineReader(in);
    this.format = format;
  }

  /**
   * Opens {@code input}: a file name, or {@code "-"} for {@code stdin}.
   *
   * @param input the argument of {@code --input}
   * @param stdin standard input
   * @param format how lines encode items
   * @return the input
   * @throws CliException if the file cannot be opened
   */
  static ItemInput open(String input, InputStream stdin, ItemFormat format) {
    if (isStdin(input)) {
      return new ItemInput("stdin", stdin, false, format);
    }
    Path path = Paths.get(input);
    if (Files.isDirectory(path)) {
      throw new CliException(input + " is a directory, not a file of items");
    }
    try {
      return new ItemInput(input, Files.newInputStream(path), true, format);
    } catch (IOException e) {
      throw CliException.reading(input, e);
    }
  }

  /**
   * Returns true if {@code input} means standard input.
   *
   * @param input the argument of {@code --input}
   * @return true for {@code "-"}
   */
  static boolean isStdin(String input) {
    return "-".equals(input);
  }

  /**
   * Counts the items (non-empty lines) of the file {@code input} without decoding them.
   *
   * @param input a file name
   * @return the number of non-empty lines
   * @throws CliException if the file cannot be read
   */
  static long countItems(String input) {
    try (ItemInput items = open(input, InputStream.nullInputStream(), ItemFormat.LINES)) {
      long count = 0;
      for (byte[] line = items.reader.next(); line != null; line = items.reader.next()) {
        if (line.length > 0) {
          count++;
        }
      }
      return count;
    } catch (IOException e) {
      throw CliException.reading(input, e);
    }
  }

  /**
   * Returns the next item, or null at the end.
   *
   * @return the item's bytes, or null
   * @throws CliException if the input cannot be read or a line is not valid in the format
   */
  byte[] next() {
    try {
      for (byte[] line = reader.next(); line != null; line = reader.next()) {
        if (line.length > 0) {
          lastLine = line;
          return format.decode(line, reader.lineNumber());
        }
      }
      return null;
    } catch (IOException e) {
      throw CliException.reading(name, e);
    } catch (CliException e) {
      throw new CliException(name + ": " + e.getMessage(), e);
    }
  }

  /**
   * Returns the line of the last item, undecoded (for printing query results).
   *
   * @return the line's bytes
   */
  byte[] lastLine() {
    return lastLine;
  }

  @Override
  public void close() {
    if (closeStream) {
      try {
        in.close();
      } catch (IOException ignored) {
        // nothing was written; a failed close of an input loses nothing
      }
    }
  }
}
