package dev.cuckoo.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A minimal RESP2/RESP3 test client that keeps every reply's wire type: simple strings are {@link
 * Simple}, errors {@link Err}, integers Long, bulk strings byte[], arrays List, maps LinkedHashMap,
 * sets Set, booleans Boolean, null null.
 */
public final class RespClient implements Closeable {
  /** A simple-string reply. */
  public record Simple(String text) {}

  /**
   * A RESP3 attribute ({@code |}) and the reply that followed it.
   *
   * @param attributes the attribute's pairs
   * @param reply the reply after it
   */
  public record Attributed(Map<Object, Object> attributes, Object reply) {}

  /** A RESP3 push frame ('>'), its elements as read. */
  public record Push(List<Object> elements) {}

  /** An error reply (the whole line after '-'). */
  public record Err(String text) {}

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  public RespClient(int port) throws IOException {
    this(new Socket(InetAddress.getLoopbackAddress(), port));
  }

  /** A client over a connected socket (a TLS socket, for instance). */
  public RespClient(Socket connected) throws IOException {
    socket = connected;
    socket.setSoTimeout(30_000);
    socket.setTcpNoDelay(true);
    in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
    out = socket.getOutputStream();
  }

  /** Encodes a command as a RESP array of bulk strings. */
  public static byte[] encode(Object... args) {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    buffer.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (Object arg : args) {
      byte[] bytes =
          arg instanceof byte[]
              ? (byte[]) arg
              : String.valueOf(arg).getBytes(StandardCharsets.UTF_8);
      buffer.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      buffer.writeBytes(bytes);
      buffer.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    return buffer.toByteArray();
  }

  /** Sends a command and reads its reply. */
  public Object call(Object... args) throws IOException {
    send(args);
    return read();
  }

  /** Sends a command without reading. */
  void send(Object... args) throws IOException {
    out.write(encode(args));
    out.flush();
  }

  /** Sends raw bytes. */
  void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** Returns the value of an INFO field (INFO everything), failing if there is none. */
  String infoField(String field) throws IOException {
    for (String line : text(call("INFO", "everything")).split("\r\n")) {
      if (line.startsWith(field + ":")) {
        return line.substring(field.length() + 1);
      }
    }
    throw new AssertionError("no INFO field " + field);
  }

  /** Returns a bulk reply as text (null stays null). */
  public static String text(Object reply) {
    return reply == null ? null : new String((byte[]) reply, StandardCharsets.UTF_8);
  }

  private String line() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != '\r') {
      if (c < 0) {
        throw new EOFException("connection closed");
      }
      line.write(c);
    }
    if (in.read() != '\n') {
      throw new IOException("missing LF");
    }
    return line.toString(StandardCharsets.UTF_8);
  }

  /** Reads one reply. */
  Object read() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new EOFException("connection closed");
    }
    String line = line();
    switch (type) {
      case '+':
        return new Simple(line);
      case '-':
        return new Err(line);
      case ':':
        return Long.parseLong(line);
      case '#':
        return line.equals("t");
      case ',':
        return line.equals("inf")
            ? Double.POSITIVE_INFINITY
            : line.equals("-inf") ? Double.NEGATIVE_INFINITY : Double.parseDouble(line);
      case '_':
        return null;
      case '(':
        return new java.math.BigInteger(line);
      case '|':
        {
          Map<Object, Object> attributes = new LinkedHashMap<>();
          for (int i = Integer.parseInt(line); i > 0; i--) {
            Object key = read();
            attributes.put(key instanceof byte[] ? text(key) : key, read());
          }
          return new Attributed(attributes, read());
        }
      case '$':
      case '=':
        {
          int length = Integer.parseInt(line);
          if (length < 0) {
            return null;
          }
          byte[] data = in.readNBytes(length);
          line();
          return data;
        }
      case '*':
        {
          int count = Integer.parseInt(line);
          if (count < 0) {
            return null;
          }
          List<Object> list = new ArrayList<>();
          for (int i = 0; i < count; i++) {
            list.add(read());
          }
          return list;
        }
      case '>':
        {
          List<Object> elements = new ArrayList<>();
          for (int i = Integer.parseInt(line); i > 0; i--) {
            elements.add(read());
          }
          return new Push(elements);
        }
      case '~':
        {
          Set<Object> set = new LinkedHashSet<>();
          for (int i = Integer.parseInt(line); i > 0; i--) {
            set.add(read());
          }
          return set;
        }
      case '%':
        {
          Map<Object, Object> map = new LinkedHashMap<>();
          for (int i = Integer.parseInt(line); i > 0; i--) {
            Object key = read();
            map.put(key instanceof byte[] ? text(key) : key, read());
          }
          return map;
        }
      default:
        throw new IOException("unknown reply type " + (char) type + line);
    }
  }

  /** Reads one reply, waiting up to the given time. */
  Object readWithin(java.time.Duration timeout) throws IOException {
    int old = socket.getSoTimeout();
    socket.setSoTimeout((int) timeout.toMillis());
    try {
      return read();
    } finally {
      socket.setSoTimeout(old);
    }
  }

  /** Returns true if the server closed the connection (reads EOF within the timeout). */
  boolean closedByServer() throws IOException {
    try {
      return in.read() < 0;
    } catch (IOException e) {
      return true;
    }
  }

  /**
   * Returns true if the server closed the connection, after reading (and dropping) whatever it sent
   * before; false if it stays open for the read timeout.
   */
  boolean closedByServerAfterReadingAll() throws IOException {
    byte[] drain = new byte[1 << 16];
    try {
      while (in.read(drain) >= 0) {
        // dropped
      }
      return true;
    } catch (java.net.SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
