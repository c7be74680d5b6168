package dev.cuckoo.server.replication;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** The RESP the replication link speaks: commands encoded as arrays, replies read as lines. */
final class Resp {
  /** The longest line (reply, array or bulk header) a master may send. */
  private static final int MAX_LINE = 64 * 1024;

  /** The most arguments and the longest argument a stream command may have. */
  private static final int MAX_ARGS = 1 << 24;

  private static final long MAX_BULK = 1L << 32;

  private Resp() {}

  /** Encodes a command as a RESP array of bulk strings. */
  static byte[] command(byte[]... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(32);
    append(out, args);
    return out.toByteArray();
  }

  /** Encodes a command of text arguments. */
  static byte[] command(String... args) {
    byte[][] bytes = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      bytes[i] = args[i].getBytes(StandardCharsets.UTF_8);
    }
    return command(bytes);
  }

  /** Appends a command as a RESP array of bulk strings. */
  static void append(ByteArrayOutputStream out, byte[][] args) {
    header(out, '*', args.length);
    for (byte[] arg : args) {
      header(out, '$', arg.length);
      out.write(arg, 0, arg.length);
      out.write('\r');
      out.write('\n');
    }
  }

  private static void header(ByteArrayOutputStream out, char type, long n) {
    out.write(type);
    byte[] digits = Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    out.write(digits, 0, digits.length);
    out.write('\r');
    out.write('\n');
  }

  /** Reads bytes from the master, counting them. */
  static final class Reader {
    private final InputStream in;
    private long consumed;

    Reader(InputStream in) {
      this.in = in;
    }

    /** Returns the bytes that can be read without blocking. */
    int available() throws IOException {
      return in.available();
    }

    /** Returns the bytes read so far. */
    long consumed() {
      return consumed;
    }

    private int read() throws IOException {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("the master closed the connection");
      }
      consumed++;
      return b;
    }

    /** Reads one line without its CRLF (a lone LF ends it too). */
    String line() throws IOException {
      StringBuilder line = new StringBuilder();
      for (int b = read(); b != '\n'; b = read()) {
        if (line.length() > MAX_LINE) {
          throw new IOException("protocol error: a line longer than " + MAX_LINE + " bytes");
        }
        line.append((char) b);
      }
      int end = line.length();
      if (end > 0 && line.charAt(end - 1) == '\r') {
        line.setLength(end - 1);
      }
      return line.toString();
    }

    /** Reads a line, skipping the empty ones a master sends to keep a waiting link alive. */
    String nonEmptyLine() throws IOException {
      String line;
      do {
        line = line();
      } while (line.isEmpty());
      return line;
    }

    /** Reads exactly {@code length} bytes into {@code into}. */
    void readFully(byte[] into, int length) throws IOException {
      int at = 0;
      while (at < length) {
        int n = in.read(into, at, length - at);
        if (n < 0) {
          throw new EOFException("the master closed the connection");
        }
        at += n;
        consumed += n;
      }
    }

    /** Reads one command of the stream (a RESP array of bulk strings). */
    byte[][] command() throws IOException {
      String header = line();
      if (header.isEmpty() || header.charAt(0) != '*') {
        throw new IOException("protocol error: expected a command, got '" + clip(header) + "'");
      }
      long count = number(header);
      if (count < 1 || count > MAX_ARGS) {
        throw new IOException("protocol error: a command of " + count + " arguments");
      }
      byte[][] args = new byte[(int) count][];
      for (int i = 0; i < count; i++) {
        String bulk = line();
        if (bulk.isEmpty() || bulk.charAt(0) != '$') {
          throw new IOException("protocol error: expected a bulk string, got '" + clip(bulk) + "'");
        }
        long length = number(bulk);
        if (length < 0 || length > MAX_BULK || length > Integer.MAX_VALUE - 2) {
          throw new IOException("protocol error: a bulk string of " + length + " bytes");
        }
        byte[] arg = new byte[(int) length];
        readFully(arg, arg.length);
        if (read() != '\r' || read() != '\n') {
          throw new IOException("protocol error: a bulk string not ended by CRLF");
        }
        args[i] = arg;
      }
      return args;
    }

    private static long number(String header) throws IOException {
      try {
        return Long.parseLong(header.substring(1));
      } catch (NumberFormatException e) {
        throw new IOException("protocol error: '" + clip(header) + "'", e);
      }
    }
  }

  /** Returns at most 64 characters of a line, for messages. */
  static String clip(String line) {
    return line.length() <= 64 ? line : line.substring(0, 64) + "...";
  }
}
