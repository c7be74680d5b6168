package dev.cuckoo.server.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * The reply stream of one connection: RESP2 or RESP3 values appended to one buffer, written to the
 * socket when the current batch of requests has been executed.
 *
 * <p>RESP3-only types degrade as Redis degrades them for RESP2 clients: booleans become integers
 * 1/0, maps become flat arrays of key-value pairs, and null is the null bulk string.
 *
 * <p>A stream made by {@link #discarding} keeps nothing, as Redis keeps no reply for its master
 * client: each value is written over one scratch buffer and dropped; only an error the replies
 * begin with is kept ({@link #takeErrorReply}), for the caller to report.
 */
public final class Reply {
  private static final byte[] CRLF = {'\r', '\n'};
  private static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ONE = ":1\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ZERO = ":0\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TRUE = "#t\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FALSE = "#f\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL_BULK = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL3 = "_\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL_ARRAY = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);

  private final ByteBufAllocator allocator;
  // set for a stream that keeps nothing: every value overwrites it (no allocation per reply)
  private final ByteBuf scratch;
  // of a discarding stream since takeErrorReply: whether anything was appended, the leading error
  private boolean appended;
  private String errorReply;
  private ByteBuf buffer;
  private int protocol = 2;
  // CLIENT REPLY: replies off until ON; the next command's reply skipped; this command's skipped
  private boolean off;
  private boolean skipNext;
  private boolean skipping;
  private long errors;
  private ErrorStats errorStats;

  /** Creates an empty reply stream that allocates from the given allocator. */
  public Reply(ByteBufAllocator allocator) {
    this.allocator = allocator;
    this.scratch = null;
  }

  private Reply() {
    this.allocator = null;
    this.scratch = Unpooled.buffer(256);
  }

  /**
   * Creates a reply stream that keeps no reply ({@link #take} always returns null) but an error the
   * replies begin with ({@link #takeErrorReply}), for commands whose answers nobody reads: the
   * replica applying its master's stream, the replay of the log.
   */
  public static Reply discarding() {
    return new Reply();
  }

  /**
   * Returns the error a {@link #discarding} stream's replies since the last call began with (what a
   * client would read as an error reply: without the dash and line end), or null if they began
   * otherwise or there were none; starts the next replies.
   */
  public String takeErrorReply() {
    String taken = errorReply;
    errorReply = null;
    appended = false;
    return taken;
  }

  /**
   * CLIENT REPLY ON|OFF|SKIP, as Redis's flags {@code CLIENT_REPLY_OFF} and {@code
   * CLIENT_REPLY_SKIP_NEXT}: OFF silences every reply until ON; SKIP (ignored while OFF) silences
   * the reply to the next command; ON ends both. The connection drops what a silenced command
   * appended ({@link #silenced}); errors are counted all the same.
   *
   * @param mode "on", "off" or "skip" (lower case)
   */
  public void clientReply(String mode) {
    switch (mode) {
      case "on" -> {
        off = false;
        skipping = false;
      }
      case "off" -> off = true;
      case "skip" -> skipNext = !off;
      default -> throw new IllegalArgumentException("mode: " + mode + " (allowed: on, off, skip)");
    }
  }

  /**
   * Starts the next command: its reply is skipped if CLIENT REPLY SKIP preceded it (Redis's {@code
   * resetClient} turns SKIP_NEXT into SKIP after each command).
   */
  public void commandStarts() {
    skipping = skipNext;
    skipNext = false;
  }

  /**
   * Returns true if the reply of the command running (or just run) goes to nobody: replies are off,
   * or the command follows CLIENT REPLY SKIP.
   */
  public boolean silenced() {
    return off || skipping;
  }

  /**
   * Drops the buffered replies from byte {@code start} on (what a silenced command appended).
   *
   * @param start a length {@link #pendingBytes} returned earlier, 0..pendingBytes()
   */
  public void dropFrom(int start) {
    if (start < 0 || start > pendingBytes()) {
      throw new IllegalArgumentException(
          "start: " + start + " (allowed: 0.." + pendingBytes() + ")");
    }
    if (buffer != null) {
      buffer.writerIndex(buffer.readerIndex() + start);
    }
  }

  /** Returns the protocol version of this connection (2 or 3). */
  public int protocol() {
    return protocol;
  }

  /** Sets the protocol version (after HELLO). */
  public void protocol(int version) {
    this.protocol = version;
  }

  private ByteBuf out() {
    if (scratch != null) {
      appended = true;
      return scratch.clear();
    }
    if (buffer == null) {
      buffer = allocator.ioBuffer(256);
    }
    return buffer;
  }

  /** Removes and returns the buffered replies, or null if there are none. */
  public ByteBuf take() {
    ByteBuf taken = buffer;
    buffer = null;
    return taken;
  }

  /** Releases any buffered replies (connection closed). */
  public void discard() {
    if (buffer != null) {
      buffer.release();
      buffer = null;
    }
  }

  /** Appends bytes {@code from..to} of an earlier taken reply buffer unchanged. */
  public void raw(ByteBuf replies, int from, int to) {
    out().writeBytes(replies, replies.readerIndex() + from, to - from);
  }

  /**
   * Counts every error appended from now on in {@code stats} too (a client's connection; not the
   * replies of recovery or of a replica's link to its master, which no client sees).
   */
  public void countErrorsIn(ErrorStats stats) {
    this.errorStats = stats;
  }

  /** Returns the number of errors appended since the stream was created (commandstats). */
  public long errors() {
    return errors;
  }

  /** Returns the number of buffered bytes. */
  public int pendingBytes() {
    return buffer == null ? 0 : buffer.readableBytes();
  }

  /** Writes the decimal digits of {@code value} and CRLF, without a String in between. */
  private static void writeNumber(ByteBuf out, long value) {
    if (value == Long.MIN_VALUE) {
      out.writeCharSequence(Long.toString(value), StandardCharsets.US_ASCII);
      out.writeBytes(CRLF);
      return;
    }
    long magnitude = value;
    if (magnitude < 0) {
      out.writeByte('-');
      magnitude = -magnitude;
    }
    long scale = 1;
    while (scale <= magnitude / 10) {
      scale *= 10;
    }
    for (; scale > 0; scale /= 10) {
      out.writeByte((int) ('0' + magnitude / scale % 10));
    }
    out.writeBytes(CRLF);
  }

  /** Appends {@code +OK}. */
  public void ok() {
    out().writeBytes(OK);
  }

  /** Appends a simple string (no CR or LF allowed in the text). */
  public void simple(String text) {
    ByteBuf out = out();
    out.writeByte('+');
    out.writeCharSequence(text, StandardCharsets.UTF_8);
    out.writeBytes(CRLF);
  }

  /** Appends an error; the text goes out as given (no prefix is added), CR and LF become spaces. */
  public void error(String text) {
    errors++;
    if (errorStats != null) {
      errorStats.count(text);
    }
    String line = text.replace('\r', ' ').replace('\n', ' ');
    if (scratch != null && !appended) {
      errorReply = line;
    }
    ByteBuf out = out();
    out.writeByte('-');
    out.writeCharSequence(line, StandardCharsets.UTF_8);
    out.writeBytes(CRLF);
  }

  /** Appends an integer. */
  public void integer(long value) {
    if (value == 1) {
      out().writeBytes(ONE);
    } else if (value == 0) {
      out().writeBytes(ZERO);
    } else {
      ByteBuf out = out();
      out.writeByte(':');
      writeNumber(out, value);
    }
  }

  /** Appends a boolean: {@code #t/#f} in RESP3, {@code :1/:0} in RESP2. */
  public void bool(boolean value) {
    if (protocol == 3) {
      out().writeBytes(value ? TRUE : FALSE);
    } else {
      out().writeBytes(value ? ONE : ZERO);
    }
  }

  /**
   * Appends a double: {@code ,value} in RESP3, a bulk string in RESP2, written as Redis writes it
   * (a whole number without a fraction, otherwise the shortest text that reads back the same;
   * {@code inf}, {@code -inf}, {@code nan}).
   */
  public void doubleValue(double value) {
    String text;
    if (Double.isNaN(value)) {
      text = "nan";
    } else if (Double.isInfinite(value)) {
      text = value > 0 ? "inf" : "-inf";
    } else if (value == Math.rint(value) && Math.abs(value) < 0x1p53) {
      text = Long.toString((long) value);
    } else {
      text = Double.toString(value).replace('E', 'e');
    }
    resp3LineOrBulk(',', text);
  }

  /** Appends {@code text} as a RESP3 line of type {@code type}, or as a bulk string in RESP2. */
  private void resp3LineOrBulk(char type, String text) {
    if (protocol != 3) {
      bulk(text);
      return;
    }
    ByteBuf out = out();
    out.writeByte(type);
    out.writeCharSequence(text, StandardCharsets.US_ASCII);
    out.writeBytes(CRLF);
  }

  /** Appends a bulk string. */
  public void bulk(byte[] value) {
    ByteBuf out = out();
    out.writeByte('$');
    writeNumber(out, value.length);
    out.writeBytes(value);
    out.writeBytes(CRLF);
  }

  /** Appends a bulk string holding the UTF-8 bytes of the text. */
  public void bulk(String value) {
    bulk(value.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Appends a verbatim string of format {@code txt} ({@code =len txt:...} in RESP3), a bulk string
   * in RESP2.
   */
  public void verbatimText(String value) {
    if (protocol != 3) {
      bulk(value);
      return;
    }
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    ByteBuf out = out();
    out.writeByte('=');
    writeNumber(out, bytes.length + 4L);
    out.writeCharSequence("txt:", StandardCharsets.US_ASCII);
    out.writeBytes(bytes);
    out.writeBytes(CRLF);
  }

  /** Appends null: {@code _} in RESP3, the null bulk string in RESP2. */
  public void nullValue() {
    out().writeBytes(protocol == 3 ? NULL3 : NULL_BULK);
  }

  /** Appends a null array: {@code _} in RESP3, {@code *-1} in RESP2 (a failed EXEC). */
  public void nullArray() {
    out().writeBytes(protocol == 3 ? NULL3 : NULL_ARRAY);
  }

  /** Appends an array header for {@code count} elements. */
  public void array(int count) {
    ByteBuf out = out();
    out.writeByte('*');
    writeNumber(out, count);
  }

  /**
   * Appends a push header for {@code count} elements (pub/sub confirmations and messages): {@code
   * >count} in RESP3, an array header in RESP2.
   */
  public void push(int count) {
    ByteBuf out = out();
    out.writeByte(protocol == 3 ? '>' : '*');
    writeNumber(out, count);
  }

  /** Appends a map header: {@code %count} in RESP3, an array of 2*count in RESP2. */
  public void map(int count) {
    ByteBuf out = out();
    if (protocol == 3) {
      out.writeByte('%');
      writeNumber(out, count);
    } else {
      out.writeByte('*');
      writeNumber(out, 2L * count);
    }
  }

  /** Appends a set header: {@code ~count} in RESP3, an array in RESP2. */
  public void set(int count) {
    ByteBuf out = out();
    out.writeByte(protocol == 3 ? '~' : '*');
    writeNumber(out, count);
  }

  /**
   * Appends a big number: {@code (digits} in RESP3, a bulk string in RESP2.
   *
   * @param digits the number's decimal digits, with a sign if negative
   */
  public void bigNumber(String digits) {
    resp3LineOrBulk('(', digits);
  }

  /**
   * Appends an attribute header for {@code count} pairs ({@code |count}, RESP3 only: the caller
   * writes none in RESP2), which a reply then follows.
   */
  public void attribute(int count) {
    ByteBuf out = out();
    out.writeByte('|');
    writeNumber(out, count);
  }
}
