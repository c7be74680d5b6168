package dev.cuckoo.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Known answers recorded by {@code cuckoo-server/bench/compare-replies.py --record}: groups of
 * commands, each with a server's normalised reply, and the means to replay them against another
 * server and normalise its replies the same way. The file format, the command-line quoting and the
 * normalisers are the script's (its docstring describes them); this class is their Java twin, so a
 * test compares exactly what the script compares.
 */
final class RecordedReplies {
  /** A word of a command line: its bytes, and whether it was quoted. */
  record Word(byte[] bytes, boolean quoted) {}

  /** One command of a group, with the reply recorded for it. */
  static final class Command {
    final String line;
    final String connection;
    final List<Word> words;
    final List<String> norms;
    final String saveAs;
    final int replies;
    String expected;

    Command(String line) {
      this.line = line;
      List<Word> all = words(line);
      String conn = "a";
      if (!all.isEmpty()) {
        Word first = all.get(0);
        String text = ascii(first.bytes());
        if (!first.quoted() && text.matches("[a-z]:")) {
          conn = text.substring(0, 1);
          all = all.subList(1, all.size());
        }
      }
      String save = null;
      int size = all.size();
      if (size >= 2
          && !all.get(size - 2).quoted()
          && ascii(all.get(size - 2).bytes()).equals("->")) {
        save = ascii(all.get(size - 1).bytes());
        all = all.subList(0, size - 2);
      }
      List<String> normList = new ArrayList<>();
      for (int k = 0; k < all.size(); k++) {
        Word word = all.get(k);
        if (!word.quoted() && ascii(word.bytes()).equals("|")) {
          for (Word norm : all.subList(k + 1, all.size())) {
            normList.add(ascii(norm.bytes()));
          }
          all = all.subList(0, k);
          break;
        }
      }
      int count = 1;
      for (String norm : normList) {
        if (norm.startsWith("n=")) {
          count = Integer.parseInt(norm.substring(2));
        }
      }
      this.connection = conn;
      this.words = List.copyOf(all);
      this.norms = List.copyOf(normList);
      this.saveAs = save;
      this.replies = count;
    }
  }

  /** A group: a title and its commands, run on fresh connections after FLUSHALL. */
  record Group(String title, List<Command> commands) {}

  /** A string normaliser of the file: a pattern and its replacement. */
  record Norm(Pattern pattern, String replacement) {}

  final Map<String, Norm> norms = new LinkedHashMap<>();
  final List<Group> groups = new ArrayList<>();

  /** Reads a known-answers file from the class path, next to this class. */
  static RecordedReplies load(String resource) throws IOException {
    RecordedReplies file = new RecordedReplies();
    try (InputStream in = RecordedReplies.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("no resource " + resource);
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      for (String raw : text.split("\n", -1)) {
        String line = raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw;
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        if (line.startsWith("%norm ")) {
          String[] parts = line.split(" ", 4);
          file.norms.put(
              parts[1],
              new Norm(
                  Pattern.compile(parts[2], Pattern.UNIX_LINES), parts.length > 3 ? parts[3] : ""));
        } else if (line.startsWith("=== ")) {
          file.groups.add(new Group(line.substring(4), new ArrayList<>()));
        } else if (line.startsWith("> ")) {
          file.groups.get(file.groups.size() - 1).commands().add(new Command(line.substring(2)));
        } else if (line.startsWith("< ")) {
          List<Command> commands = file.groups.get(file.groups.size() - 1).commands();
          commands.get(commands.size() - 1).expected = line.substring(2);
        } else {
          throw new IOException("unexpected line in " + resource + ": " + line);
        }
      }
    }
    return file;
  }

  /**
   * Runs every group against the server on {@code port} and returns the normalised replies, one
   * list per group, in the file's order.
   */
  List<List<String>> run(int port) throws IOException {
    List<List<String>> results = new ArrayList<>();
    for (Group group : groups) {
      Map<String, Connection> connections = new HashMap<>();
      Map<String, byte[]> saved = new HashMap<>();
      List<String> texts = new ArrayList<>();
      try {
        Connection first = connection(connections, "a", port);
        first.send(List.of("FLUSHALL".getBytes(StandardCharsets.US_ASCII)));
        Node flushed = first.read();
        if (flushed.type() != '+') {
          throw new IOException("FLUSHALL before " + group.title() + ": " + text(flushed));
        }
        for (Command command : group.commands()) {
          texts.add(runOne(command, connections, saved, port));
        }
      } finally {
        for (Connection connection : connections.values()) {
          connection.close();
        }
      }
      results.add(texts);
    }
    return results;
  }

  private String runOne(
      Command command, Map<String, Connection> connections, Map<String, byte[]> saved, int port)
      throws IOException {
    List<byte[]> args = new ArrayList<>();
    for (Word word : command.words) {
      byte[] bytes = word.bytes();
      if (!word.quoted() && bytes.length > 1 && bytes[0] == '$') {
        args.add(saved.getOrDefault(ascii(bytes).substring(1), new byte[0]));
      } else {
        args.add(bytes);
      }
    }
    List<Node> replies = new ArrayList<>();
    try {
      Connection connection = connection(connections, command.connection, port);
      connection.send(args);
      for (int k = 0; k < command.replies; k++) {
        replies.add(connection.read());
      }
    } catch (IOException e) {
      Connection broken = connections.remove(command.connection);
      if (broken != null) {
        broken.close();
      }
      return "<no reply>";
    }
    if (command.saveAs != null) {
      Node reply = replies.get(0);
      if (reply.children() != null) {
        for (int k = 0; k < reply.children().size(); k++) {
          byte[] text = reply.children().get(k).text();
          saved.put(command.saveAs + "." + k, text == null ? new byte[0] : text);
        }
      } else if (reply.text() != null) {
        saved.put(command.saveAs, reply.text());
      }
    }
    StringBuilder out = new StringBuilder();
    for (Node reply : replies) {
      out.append(escape(encode(normalise(reply, command.norms))));
    }
    return out.toString();
  }

  private static Connection connection(Map<String, Connection> connections, String name, int port) {
    return connections.computeIfAbsent(
        name,
        n -> {
          try {
            return new Connection(port);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  // ------------------------------------------------------------------------------- words

  /** Splits a command line as compare-replies.py does (blanks; "..." with escapes; '...'). */
  static List<Word> words(String text) {
    List<Word> words = new ArrayList<>();
    int i = 0;
    int n = text.length();
    while (i < n) {
      while (i < n && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
        i++;
      }
      if (i >= n) {
        break;
      }
      ByteArrayOutputStream word = new ByteArrayOutputStream();
      boolean quoted = false;
      while (i < n && text.charAt(i) != ' ' && text.charAt(i) != '\t') {
        char c = text.charAt(i);
        if (c == '"') {
          quoted = true;
          i++;
          while (i < n && text.charAt(i) != '"') {
            if (text.charAt(i) == '\\' && i + 1 < n) {
              char escaped = text.charAt(i + 1);
              if (escaped == 'x') {
                word.write(Integer.parseInt(text.substring(i + 2, i + 4), 16));
                i += 4;
                continue;
              }
              String plain =
                  switch (escaped) {
                    case 'r' -> "\r";
                    case 'n' -> "\n";
                    case 't' -> "\t";
                    default -> String.valueOf(escaped);
                  };
              word.writeBytes(plain.getBytes(StandardCharsets.UTF_8));
              i += 2;
            } else {
              word.writeBytes(String.valueOf(text.charAt(i)).getBytes(StandardCharsets.UTF_8));
              i++;
            }
          }
          if (i >= n) {
            throw new IllegalArgumentException("unclosed double quote: " + text);
          }
          i++;
        } else if (c == '\'') {
          quoted = true;
          int end = text.indexOf('\'', i + 1);
          if (end < 0) {
            throw new IllegalArgumentException("unclosed single quote: " + text);
          }
          word.writeBytes(text.substring(i + 1, end).getBytes(StandardCharsets.UTF_8));
          i = end + 1;
        } else {
          word.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
          i++;
        }
      }
      words.add(new Word(word.toByteArray(), quoted));
    }
    return words;
  }

  private static String ascii(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  // ------------------------------------------------------------------------------- RESP

  /**
   * A reply as read: its type byte, its text (simple, error, integer, double, big number, boolean,
   * bulk, verbatim; null for a null bulk or array) and its children (aggregates; for an attribute,
   * its pairs followed by the reply it annotates).
   */
  record Node(char type, byte[] text, List<Node> children) {
    Node withText(byte[] newText) {
      return new Node(type, newText, children);
    }

    Node withChildren(List<Node> newChildren) {
      return new Node(type, text, newChildren);
    }
  }

  private static final class Connection implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    Connection(int port) throws IOException {
      socket = new Socket(InetAddress.getLoopbackAddress(), port);
      socket.setSoTimeout(10_000);
      socket.setTcpNoDelay(true);
      in = new BufferedInputStream(socket.getInputStream());
      out = socket.getOutputStream();
    }

    void send(List<byte[]> args) throws IOException {
      ByteArrayOutputStream request = new ByteArrayOutputStream();
      request.writeBytes(("*" + args.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
      for (byte[] arg : args) {
        request.writeBytes(("$" + arg.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        request.writeBytes(arg);
        request.writeBytes(new byte[] {'\r', '\n'});
      }
      out.write(request.toByteArray());
      out.flush();
    }

    private byte[] line() throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int previous = -1;
      while (true) {
        int c = in.read();
        if (c < 0) {
          throw new EOFException("connection closed");
        }
        if (c == '\n' && previous == '\r') {
          byte[] bytes = line.toByteArray();
          return Arrays.copyOf(bytes, bytes.length - 1);
        }
        line.write(c);
        previous = c;
      }
    }

    Node read() throws IOException {
      byte[] line = line();
      if (line.length == 0) {
        throw new IOException("empty reply line");
      }
      char type = (char) line[0];
      String rest = ascii(Arrays.copyOfRange(line, 1, line.length));
      switch (type) {
        case '+', '-', ':', ',', '(', '#':
          return new Node(type, Arrays.copyOfRange(line, 1, line.length), null);
        case '_':
          return new Node(type, new byte[0], null);
        case '$', '=', '!':
          if (rest.equals("-1")) {
            return new Node(type, null, null);
          }
          byte[] body = in.readNBytes(Integer.parseInt(rest) + 2);
          return new Node(type, Arrays.copyOf(body, body.length - 2), null);
        case '*', '>', '~', '%', '|':
          if (rest.equals("-1")) {
            return new Node(type, null, null);
          }
          int count = Integer.parseInt(rest) * (type == '%' || type == '|' ? 2 : 1);
          List<Node> children = new ArrayList<>();
          for (int k = 0; k < count; k++) {
            children.add(read());
          }
          if (type == '|') {
            children.add(read());
          }
          return new Node(type, null, children);
        default:
          throw new IOException("bad reply line " + ascii(line));
      }
    }

    /**
     * Sends QUIT and waits until the server has closed the connection, so that the next group does
     * not see this connection in CLIENT LIST or CLIENT KILL.
     */
    @Override
    public void close() throws IOException {
      try {
        send(List.of("QUIT".getBytes(StandardCharsets.US_ASCII)));
        while (in.read() >= 0) {
          // the QUIT reply and anything still queued, until the server closes
        }
      } catch (IOException alreadyClosed) {
        // a connection the server closed (CLIENT KILL, QUIT) has nothing more to say
      } finally {
        socket.close();
      }
    }
  }

  /** Encodes a reply as its RESP bytes. */
  static byte[] encode(Node node) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    encode(node, out);
    return out.toByteArray();
  }

  private static void encode(Node node, ByteArrayOutputStream out) {
    char type = node.type();
    out.write(type);
    switch (type) {
      case '+', '-', ':', ',', '(', '#' -> out.writeBytes(node.text());
      case '_' -> {}
      case '$', '=', '!' -> {
        if (node.text() == null) {
          out.writeBytes("-1".getBytes(StandardCharsets.US_ASCII));
        } else {
          out.writeBytes(String.valueOf(node.text().length).getBytes(StandardCharsets.US_ASCII));
          out.writeBytes(new byte[] {'\r', '\n'});
          out.writeBytes(node.text());
        }
      }
      default -> {
        if (node.children() == null) {
          out.writeBytes("-1".getBytes(StandardCharsets.US_ASCII));
        } else {
          int size = node.children().size();
          int count = type == '%' ? size / 2 : type == '|' ? (size - 1) / 2 : size;
          out.writeBytes(String.valueOf(count).getBytes(StandardCharsets.US_ASCII));
          out.writeBytes(new byte[] {'\r', '\n'});
          for (Node child : node.children()) {
            encode(child, out);
          }
          return;
        }
      }
    }
    out.writeBytes(new byte[] {'\r', '\n'});
  }

  /** Writes bytes on one line: {@code \r}, {@code \n}, {@code \\} and {@code \xHH} escapes. */
  static String escape(byte[] data) {
    StringBuilder out = new StringBuilder(data.length);
    for (byte b : data) {
      int c = b & 0xff;
      if (c == '\\') {
        out.append("\\\\");
      } else if (c == '\r') {
        out.append("\\r");
      } else if (c == '\n') {
        out.append("\\n");
      } else if (c >= 0x20 && c < 0x7f) {
        out.append((char) c);
      } else {
        out.append(String.format("\\x%02x", c));
      }
    }
    return out.toString();
  }

  private static String text(Node node) {
    return escape(encode(node));
  }

  // ------------------------------------------------------------------------------- normalising

  private static boolean isString(char type) {
    return "+-$=,(!".indexOf(type) >= 0;
  }

  /** Applies the normalisers a command carries, in order, as compare-replies.py does. */
  Node normalise(Node node, List<String> names) {
    Node result = node;
    for (String name : names) {
      Norm norm = norms.get(name);
      if (norm != null) {
        result = mapStrings(result, norm);
      } else if (name.equals("int")) {
        result = zeroInts(result);
      } else if (name.equals("sort")) {
        result = sortElements(result);
      } else if (name.equals("sort1")) {
        if (result.children() != null && result.children().size() == 2) {
          result =
              result.withChildren(
                  List.of(result.children().get(0), sortElements(result.children().get(1))));
        }
      } else if (name.equals("pairs")) {
        result = sortPairs(result);
      } else if (name.equals("sortlines")) {
        result = mapStrings(result, RecordedReplies::sortLines);
      } else if (name.startsWith("val:")) {
        result = zeroValue(result, name.substring(4).getBytes(StandardCharsets.ISO_8859_1));
      } else if (!name.startsWith("n=")) {
        throw new IllegalArgumentException("unknown normaliser " + name);
      }
    }
    return result;
  }

  private static Node mapStrings(Node node, Norm norm) {
    return mapStrings(
        node,
        text -> {
          Matcher matcher = norm.pattern().matcher(text);
          return matcher.replaceAll(norm.replacement());
        });
  }

  /** Applies {@code change} to every string of a reply, its bytes read as ISO-8859-1 text. */
  private static Node mapStrings(Node node, java.util.function.UnaryOperator<String> change) {
    if (isString(node.type()) && node.text() != null) {
      return node.withText(change.apply(ascii(node.text())).getBytes(StandardCharsets.ISO_8859_1));
    }
    if (node.children() == null) {
      return node;
    }
    List<Node> children = new ArrayList<>();
    for (Node child : node.children()) {
      children.add(mapStrings(child, change));
    }
    return node.withChildren(children);
  }

  /** Sorts the CRLF-ended lines of a text; what follows the last CRLF stays last. */
  private static String sortLines(String text) {
    List<String> lines = new ArrayList<>(Arrays.asList(text.split("\r\n", -1)));
    String last = lines.remove(lines.size() - 1);
    lines.sort(Comparator.naturalOrder());
    lines.add(last);
    return String.join("\r\n", lines);
  }

  private static Node zeroInts(Node node) {
    if (node.type() == ':') {
      return node.withText(new byte[] {'0'});
    }
    if (node.children() == null) {
      return node;
    }
    List<Node> children = new ArrayList<>();
    for (Node child : node.children()) {
      children.add(zeroInts(child));
    }
    return node.withChildren(children);
  }

  private static final Comparator<Node> BY_BYTES =
      (left, right) -> Arrays.compareUnsigned(encode(left), encode(right));

  private static Node sortElements(Node node) {
    if (node.children() == null || node.type() == '|') {
      return node;
    }
    List<Node> children = new ArrayList<>(node.children());
    children.sort(BY_BYTES);
    return node.withChildren(children);
  }

  private static Node sortPairs(Node node) {
    if (node.children() == null || node.type() == '|') {
      return node;
    }
    List<List<Node>> pairs = new ArrayList<>();
    List<Node> children = node.children();
    for (int k = 0; k + 1 < children.size(); k += 2) {
      pairs.add(List.of(children.get(k), children.get(k + 1)));
    }
    pairs.sort((left, right) -> BY_BYTES.compare(left.get(0), right.get(0)));
    List<Node> sorted = new ArrayList<>();
    for (List<Node> pair : pairs) {
      sorted.addAll(pair);
    }
    return node.withChildren(sorted);
  }

  private static Node blank(Node node) {
    if (node.type() == ':') {
      return node.withText(new byte[] {'0'});
    }
    if (isString(node.type())) {
      return node.withText(new byte[0]);
    }
    return node;
  }

  private static Node zeroValue(Node node, byte[] key) {
    if (node.children() == null) {
      return node;
    }
    List<Node> children = new ArrayList<>();
    for (Node child : node.children()) {
      children.add(zeroValue(child, key));
    }
    boolean pairs = node.type() == '%' || (node.type() == '*' && children.size() % 2 == 0);
    if (pairs) {
      for (int k = 0; k + 1 < children.size(); k += 2) {
        Node name = children.get(k);
        if ((name.type() == '+' || name.type() == '$') && Arrays.equals(name.text(), key)) {
          children.set(k + 1, blank(children.get(k + 1)));
        }
      }
    }
    return node.withChildren(children);
  }
}
