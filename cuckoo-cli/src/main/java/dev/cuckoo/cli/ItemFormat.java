package dev.cuckoo.cli;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;

/** How an input line encodes an item: as its own bytes, as hexadecimal, or as Base64. */
enum ItemFormat {
  /** The line's bytes (UTF-8 text) are the item. */
  LINES,
  /** The line is the item's bytes in hexadecimal (either case). */
  HEX,
  /** The line is the item's bytes in standard Base64 (with or without padding). */
  BASE64;

  /**
   * Returns the item a line encodes.
   *
   * @param line the line's bytes, without its terminator
   * @param lineNumber the line number, for the error message
   * @return the item's bytes
   * @throws CliException if the line is not valid in this format
   */
  byte[] decode(byte[] line, long lineNumber) {
    if (this == LINES) {
      return line;
    }
    String text = new String(line, StandardCharsets.ISO_8859_1).strip();
    try {
      return this == HEX ? HexFormat.of().parseHex(text) : Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new CliException(
          "line "
              + lineNumber
              + ": not valid "
              + (this == HEX ? "hexadecimal" : "Base64")
              + " ("
              + e.getMessage()
              + "): "
              + abbreviate(text),
          e);
    }
  }

  /**
   * Returns the item given as a command-line argument.
   *
   * @param argument the argument
   * @return the item's bytes
   * @throws CliException if it is not valid in this format
   */
  byte[] decodeArgument(String argument) {
    byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
    if (this == LINES) {
      return bytes;
    }
    try {
      return decode(bytes, 0);
    } catch (CliException e) {
      throw new CliException(
          "argument '"
              + abbreviate(argument)
              + "' is not valid "
              + name().toLowerCase(java.util.Locale.ROOT),
          e);
    }
  }

  private static String abbreviate(String text) {
    return text.length() <= 40 ? text : text.substring(0, 37) + "...";
  }
}
