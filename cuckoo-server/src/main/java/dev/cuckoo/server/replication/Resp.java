package dev.cuckoo.server.replication;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

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
    Output out = new Output(32);
    out.command(args);
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

  /**
   * A growable byte array that commands are encoded into as RESP arrays of bulk strings, without
   * allocating per command. Not thread-safe.
   */
  static final class Output {
    private byte[] bytes;
    private int length;

    /** Creates an empty output of {@code capacity} bytes to begin with. */
    Output(int capacity) {
      bytes = new byte[capacity];
    }

    /** Returns the array the bytes are in (valid up to {@link #length}, until the next write). */
    byte[] array() {
      return bytes;
    }

    /** Returns the number of bytes written. */
    int length() {
      return length;
    }

    /** Drops the bytes after the first {@code keep}. */
    void truncate(int keep) {
      length = keep;
    }

    /** Returns a copy of the bytes written. */
    byte[] toByteArray() {
      return Arrays.copyOf(bytes, length);
    }

    /** Appends {@code length} bytes of {@code from} beginning at {@code start}. */
    void append(byte[] from, int start, int length) {
      ensure(length);
      System.arraycopy(from, start, bytes, this.length, length);
      this.length += length;
    }

    /** Appends a command as a RESP array of bulk strings. */
    void command(byte[][] args) {
      int size = 16;
      for (byte[] arg : args) {
        size += arg.length + 16;
      }
      ensure(size);
      header('*', args.length);
      for (byte[] arg : args) {
        header('$', arg.length);
        System.arraycopy(arg, 0, bytes, length, arg.length);
        length += arg.length;
        bytes[length++] = '\r';
        bytes[length++] = '\n';
      }
    }

    private void ensure(int more) {
      if (length + more > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(length + more, 2 * bytes.length));
      }
    }

    /** Writes a type byte, a non-negative number in decimal and CRLF (room was ensured). */
    private void header(char type, int n) {
      byte[][] cached = type == '*' ? ARRAY_HEADERS : BULK_HEADERS;
      if (n < cached.length) {
        byte[] header = cached[n];
        System.arraycopy(header, 0, bytes, length, header.length);
        length += header.length;
        return;
      }
      bytes[length++] = (byte) type;
      byte[] digits = Integer.toString(n).getBytes(StandardCharsets.US_ASCII);
      System.arraycopy(digits, 0, bytes, length, digits.length);
      length += digits.length;
      bytes[length++] = '\r';
      bytes[length++] = '\n';
    }
  }

  // "*n\r\n" and "$n\r\n" for the usual sizes, encoded once
  private static final byte[][] ARRAY_HEADERS = headers('*', 64);
  private static final byte[][] BULK_HEADERS = headers('$', 1024);

  private static byte[][] headers(char type, int count) {
    byte[][] headers = new byte[count][];
    for (int n = 0; n < count; n++) {
      headers[n] = (type + Integer.toString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }
    return headers;
  }

  /**
   * Reads what the master sends, counting the bytes: replies as lines, the transfer as raw bytes
   * and the stream as commands parsed in place from one buffer (a command's own bytes stay readable
   * after it, so they are passed on without being encoded again).
   */
  static final class Reader {
    private static final int INITIAL_BUFFER = 1 << 16;

    private final InputStream in;
    private byte[] buffer = new byte[INITIAL_BUFFER];
    private int position;
    private int limit;
    private long consumed;
    private int commandStart;
    private int commandLength;

    // counts the bytes read from the socket (INFO's total_net_repl_input_bytes)
    private final java.util.function.LongConsumer received;

    Reader(InputStream in) {
      this(in, bytes -> {});
    }

    Reader(InputStream in, java.util.function.LongConsumer received) {
      this.in = in;
      this.received = received;
    }

    /**
     * Returns true if bytes already read from the connection wait in the buffer (no system call:
     * what one read brought in is applied and then logged with one write, as Redis writes its log
     * once per event-loop turn).
     */
    boolean hasBuffered() {
      return position < limit;
    }

    /** Returns the bytes read so far. */
    long consumed() {
      return consumed;
    }

    /** Returns the buffer holding the last command's bytes (until the next read). */
    byte[] commandBuffer() {
      return buffer;
    }

    /** Returns where the last command's bytes begin in {@link #commandBuffer}. */
    int commandStart() {
      return commandStart;
    }

    /** Returns the length of the last command's bytes, as the master sent them. */
    int commandLength() {
      return commandLength;
    }

    /**
     * Makes at least {@code wanted} bytes readable from {@code position}, moving what is unread to
     * the front of the buffer (growing it if it is too small).
     */
    private void fill(int wanted) throws IOException {
      if (limit - position >= wanted) {
        return;
      }
      if (position + wanted > buffer.length) {
        byte[] target =
            wanted > buffer.length ? new byte[Math.max(wanted, 2 * buffer.length)] : buffer;
        System.arraycopy(buffer, position, target, 0, limit - position);
        limit -= position;
        position = 0;
        buffer = target;
      }
      while (limit - position < wanted) {
        int n = in.read(buffer, limit, buffer.length - limit);
        if (n < 0) {
          throw new EOFException("the master closed the connection");
        }
        received.accept(n);
        limit += n;
      }
    }

    private int read() throws IOException {
      fill(1);
      consumed++;
      return buffer[position++] & 0xff;
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

    /**
     * Reads at least one and at most {@code length} bytes into {@code into} at {@code offset} (what
     * is buffered first), blocking only if nothing is; returns -1 at the end of the stream.
     */
    int readSome(byte[] into, int offset, int length) throws IOException {
      int n;
      if (position < limit) {
        n = Math.min(length, limit - position);
        System.arraycopy(buffer, position, into, offset, n);
        position += n;
        if (position == limit) {
          position = 0;
          limit = 0;
        }
      } else {
        n = in.read(into, offset, length);
        if (n < 0) {
          return -1;
        }
        received.accept(n);
      }
      consumed += n;
      return n;
    }

    /**
     * Puts {@code bytes} back in front of what is still to be read (bytes a reader of the
     * connection took past the end of its part, such as an RDB reader's block).
     */
    void unread(byte[] bytes) {
      if (bytes.length == 0) {
        return;
      }
      byte[] target = new byte[Math.max(buffer.length, bytes.length + limit - position)];
      System.arraycopy(bytes, 0, target, 0, bytes.length);
      System.arraycopy(buffer, position, target, bytes.length, limit - position);
      limit = bytes.length + limit - position;
      position = 0;
      buffer = target;
      consumed -= bytes.length;
    }

    /** Reads exactly {@code length} bytes into {@code into}. */
    void readFully(byte[] into, int length) throws IOException {
      int at = 0;
      while (at < length) {
        int n = readSome(into, at, length - at);
        if (n < 0) {
          throw new EOFException("the master closed the connection");
        }
        at += n;
      }
    }

    /**
     * Reads one command of the stream (a RESP array of bulk strings); its bytes are then at {@link
     * #commandStart} in {@link #commandBuffer}.
     */
    byte[][] command() throws IOException {
      if (position == limit) {
        position = 0;
        limit = 0;
      } else if (buffer.length > INITIAL_BUFFER && limit - position <= INITIAL_BUFFER) {
        // a large command grew the buffer: go back to the usual size once it is read
        byte[] smaller = new byte[INITIAL_BUFFER];
        System.arraycopy(buffer, position, smaller, 0, limit - position);
        limit -= position;
        position = 0;
        buffer = smaller;
      }
      int scan = 0; // bytes of the command parsed so far, from position
      if (peek(scan) != '*') {
        throw new IOException(
            "protocol error: expected a command, got '" + clip(peekLine(scan)) + "'");
      }
      long count = number(scan + 1);
      scan = next;
      if (count < 1 || count > MAX_ARGS) {
        throw new IOException("protocol error: a command of " + count + " arguments");
      }
      int[] starts = new int[(int) count];
      int[] lengths = new int[(int) count];
      for (int i = 0; i < count; i++) {
        if (peek(scan) != '$') {
          throw new IOException(
              "protocol error: expected a bulk string, got '" + clip(peekLine(scan)) + "'");
        }
        long length = number(scan + 1);
        scan = next;
        if (length < 0 || length > MAX_BULK || length > Integer.MAX_VALUE - 2 - scan) {
          throw new IOException("protocol error: a bulk string of " + length + " bytes");
        }
        fill(scan + (int) length + 2);
        starts[i] = scan;
        lengths[i] = (int) length;
        scan += (int) length;
        if (buffer[position + scan] != '\r' || buffer[position + scan + 1] != '\n') {
          throw new IOException("protocol error: a bulk string not ended by CRLF");
        }
        scan += 2;
      }
      byte[][] args = new byte[(int) count][];
      for (int i = 0; i < count; i++) {
        args[i] =
            Arrays.copyOfRange(buffer, position + starts[i], position + starts[i] + lengths[i]);
      }
      commandStart = position;
      commandLength = scan;
      position += scan;
      consumed += scan;
      return args;
    }

    // where the last number() stopped: the byte after its line's LF, from position
    private int next;

    /** Returns the byte {@code at} bytes after position, reading more if needed. */
    private int peek(int at) throws IOException {
      fill(at + 1);
      return buffer[position + at] & 0xff;
    }

    /** Parses a decimal number from {@code at} to the end of its line (CRLF); sets next. */
    private long number(int at) throws IOException {
      long value = 0;
      boolean negative = false;
      int digits = 0;
      int scan = at;
      if (peek(scan) == '-') {
        negative = true;
        scan++;
      }
      for (int b = peek(scan); b != '\r'; b = peek(scan)) {
        if (b < '0' || b > '9' || ++digits > 18) {
          throw new IOException("protocol error: '" + clip(peekLine(at - 1)) + "'");
        }
        value = value * 10 + (b - '0');
        scan++;
      }
      if (digits == 0 || peek(scan + 1) != '\n') {
        throw new IOException("protocol error: '" + clip(peekLine(at - 1)) + "'");
      }
      next = scan + 2;
      return negative ? -value : value;
    }

    /** Returns the text from {@code at} to the end of the line or of what is buffered. */
    private String peekLine(int at) {
      int end = position + at;
      while (end < limit
          && buffer[end] != '\r'
          && buffer[end] != '\n'
          && end - position - at < 64) {
        end++;
      }
      return new String(buffer, position + at, end - position - at, StandardCharsets.ISO_8859_1);
    }
  }

  /** Returns at most 64 characters of a line, for messages. */
  static String clip(String line) {
    return line.length() <= 64 ? line : line.substring(0, 64) + "...";
  }
}
