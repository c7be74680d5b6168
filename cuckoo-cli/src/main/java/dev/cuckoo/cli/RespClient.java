package dev.cuckoo.cli;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking RESP2 client: sends commands as arrays of bulk strings and reads one reply,
 * enough for {@code import} (CF.SCANDUMP) and the tests. Replies are {@link Long} (integer), {@code
 * byte[]} (bulk string), {@link String} (simple string), {@link List} (array) or null; an error
 * reply raises {@link ErrorReply}.
 */
final class RespClient implements AutoCloseable {
  /** Longest bulk string accepted: RedisBloom's 16 MiB chunks with room to spare. */
  static final int MAX_BULK_BYTES = 64 << 20;

  private static final int MAX_ARRAY_LENGTH = 1 << 20;
  private static final int MAX_LINE_BYTES = 64 << 10;

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final RespWriter writer;

  /** An error reply from the server. */
  static final class ErrorReply extends IOException {
    private static final long serialVersionUID = 1L;

    ErrorReply(String message) {
      super(message);
    }
  }

  /**
   * Connects.
   *
   * @param host the server's host
   * @param port its port
   * @param timeoutMillis connect and read timeout
   * @throws IOException if the connection fails
   */
  RespClient(String host, int port, int timeoutMillis) throws IOException {
    socket = new Socket();
    try {
      socket.connect(new InetSocketAddress(host, port), timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      socket.setTcpNoDelay(true);
      in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
      out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    writer = new RespWriter(out);
  }

  /**
   * Sends a command and returns its reply.
   *
   * @param arguments the command and its arguments
   * @return the reply
   * @throws ErrorReply if the server answers with an error
   * @throws IOException if the connection fails or the reply is malformed
   */
  Object call(byte[]... arguments) throws IOException {
    send(arguments);
    return read();
  }

  /**
   * Sends a command and returns its reply, the arguments given as text.
   *
   * @param arguments the command and its arguments
   * @return the reply
   * @throws IOException as {@link #call(byte[]...)}
   */
  Object call(String... arguments) throws IOException {
    byte[][] bytes = new byte[arguments.length][];
    for (int i = 0; i < arguments.length; i++) {
      bytes[i] = RespWriter.text(arguments[i]);
    }
    return call(bytes);
  }

  /**
   * Sends a command without waiting for the reply (pipelining).
   *
   * @param arguments the command and its arguments
   * @throws IOException if the connection fails
   */
  void send(byte[]... arguments) throws IOException {
    writer.command(arguments);
    out.flush();
  }

  /**
   * Sends raw bytes, e.g. a RESP stream written by {@code export}.
   *
   * @param bytes the bytes
   * @throws IOException if the connection fails
   */
  void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /**
   * Reads one reply.
   *
   * @return the reply
   * @throws ErrorReply if it is an error
   * @throws IOException if the connection fails or the reply is malformed
   */
  Object read() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new IOException("the server closed the connection");
    }
    String line = line();
    switch (type) {
      case '+':
        return line;
      case '-':
        throw new ErrorReply(line);
      case ':':
        return parseLong(line);
      case '$':
        return bulk(parseLong(line));
      case '*':
        long count = parseLong(line);
        if (count < 0) {
          return null;
        }
        if (count > MAX_ARRAY_LENGTH) {
          throw new IOException("reply array of " + count + " elements is too long");
        }
        List<Object> items = new ArrayList<>((int) count);
        for (long i = 0; i < count; i++) {
          items.add(read());
        }
        return items;
      default:
        throw new IOException("not a RESP2 reply: type byte 0x" + Integer.toHexString(type));
    }
  }

  private byte[] bulk(long length) throws IOException {
    if (length < 0) {
      return null;
    }
    if (length > MAX_BULK_BYTES) {
      throw new IOException("bulk reply of " + length + " bytes is too long");
    }
    byte[] data = in.readNBytes((int) length);
    if (data.length != length || in.read() != '\r' || in.read() != '\n') {
      throw new IOException("truncated bulk reply");
    }
    return data;
  }

  private String line() throws IOException {
    StringBuilder line = new StringBuilder();
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new IOException("the server closed the connection in a reply");
      }
      if (c == '\r') {
        if (in.read() != '\n') {
          throw new IOException("reply line without CRLF");
        }
        return line.toString();
      }
      if (line.length() >= MAX_LINE_BYTES) {
        throw new IOException("reply line too long");
      }
      line.append((char) c);
    }
  }

  private static long parseLong(String text) throws IOException {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IOException("not an integer in a reply: " + text, e);
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /**
   * Returns a reply as text, for messages.
   *
   * @param reply a reply
   * @return its text
   */
  static String describe(Object reply) {
    if (reply instanceof byte[]) {
      return new String((byte[]) reply, StandardCharsets.UTF_8);
    }
    return String.valueOf(reply);
  }
}
