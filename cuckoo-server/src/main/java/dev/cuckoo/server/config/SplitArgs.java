package dev.cuckoo.server.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a config line into words as Redis's {@code sdssplitargs} does: words are separated by
 * white space; a word may be in double quotes (with the escapes {@code \n \r \t \b \a \\ \"} and
 * {@code \xHH}) or in single quotes (with {@code \'}), and a closing quote must be followed by
 * white space or the end of the line. Each character of the line is taken as one byte (give it
 * Latin-1 text); a {@code \xHH} escape yields the character of that byte.
 */
public final class SplitArgs {
  private SplitArgs() {}

  /**
   * Returns the words of a line.
   *
   * @throws IllegalArgumentException "unbalanced quotes" if a quote is not closed, or a closing
   *     quote is followed by something other than white space
   */
  public static List<String> split(String line) {
    List<String> words = new ArrayList<>();
    int length = line.length();
    int p = 0;
    while (true) {
      while (p < length && isSpace(line.charAt(p))) {
        p++;
      }
      if (p >= length) {
        return words;
      }
      StringBuilder word = new StringBuilder();
      boolean inDouble = false;
      boolean inSingle = false;
      boolean done = false;
      while (!done) {
        char c = p < length ? line.charAt(p) : 0;
        boolean end = p >= length;
        if (inDouble) {
          if (end) {
            throw unbalanced();
          } else if (c == '\\' && hexEscape(line, p)) {
            word.append((char) (hexValue(line.charAt(p + 2)) * 16 + hexValue(line.charAt(p + 3))));
            p += 3;
          } else if (c == '\\' && p + 1 < length) {
            p++;
            word.append(escaped(line.charAt(p)));
          } else if (c == '"') {
            closeQuote(line, p);
            done = true;
          } else {
            word.append(c);
          }
        } else if (inSingle) {
          if (end) {
            throw unbalanced();
          } else if (c == '\\' && p + 1 < length && line.charAt(p + 1) == '\'') {
            p++;
            word.append('\'');
          } else if (c == '\'') {
            closeQuote(line, p);
            done = true;
          } else {
            word.append(c);
          }
        } else if (end || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
          done = true;
        } else if (c == '"') {
          inDouble = true;
        } else if (c == '\'') {
          inSingle = true;
        } else {
          word.append(c);
        }
        if (!end) {
          p++;
        }
      }
      words.add(word.toString());
    }
  }

  /** A closing quote must be followed by white space or nothing. */
  private static void closeQuote(String line, int quote) {
    if (quote + 1 < line.length() && !isSpace(line.charAt(quote + 1))) {
      throw unbalanced();
    }
  }

  private static IllegalArgumentException unbalanced() {
    return new IllegalArgumentException("unbalanced quotes");
  }

  private static char escaped(char c) {
    return switch (c) {
      case 'n' -> '\n';
      case 'r' -> '\r';
      case 't' -> '\t';
      case 'b' -> '\b';
      case 'a' -> (char) 7;
      default -> c;
    };
  }

  /** C's isspace in the C locale. */
  private static boolean isSpace(char c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
  }

  /** Returns true if a {@code \xHH} escape starts at {@code p}. */
  private static boolean hexEscape(String line, int p) {
    return p + 3 < line.length()
        && line.charAt(p + 1) == 'x'
        && hexValue(line.charAt(p + 2)) >= 0
        && hexValue(line.charAt(p + 3)) >= 0;
  }

  /** Returns an ASCII hex digit's value, or -1. */
  private static int hexValue(char c) {
    return c < 128 ? Character.digit(c, 16) : -1;
  }
}
