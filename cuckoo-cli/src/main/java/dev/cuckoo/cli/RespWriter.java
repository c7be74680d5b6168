package dev.cuckoo.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes Redis commands in RESP (arrays of bulk strings), the form {@code redis-cli --pipe} reads.
 */
final class RespWriter {
  private final OutputStream out;

  /**
   * Creates a writer.
   *
   * @param out the stream, written to directly (buffer it if needed)
   */
  RespWriter(OutputStream out) {
    this.out = out;
  }

  /**
   * Writes one command.
   *
   * @param arguments the command name and its arguments, as bytes
   * @throws IOException if writing fails
   */
  void command(byte[]... arguments) throws IOException {
    out.write(
        ('*' + Integer.toString(arguments.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (byte[] argument : arguments) {
      out.write(
          ('$' + Integer.toString(argument.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(argument);
      out.write('\r');
      out.write('\n');
    }
  }

  /**
   * Returns the bytes of a text argument.
   *
   * @param text the argument
   * @return its UTF-8 bytes
   */
  static byte[] text(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
