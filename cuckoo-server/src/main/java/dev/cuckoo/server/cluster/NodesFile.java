package dev.cuckoo.server.cluster;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster configuration file ({@code nodes.conf}) in Redis's format: one CLUSTER NODES line per
 * node, then {@code vars currentEpoch N lastVoteEpoch N}. Written atomically (a temporary file,
 * fsync, rename, fsync of the directory; the fsyncs left out for the changes Redis does not force);
 * read strictly: a line that does not parse, or a file that does not end with the vars line Redis
 * writes last, is an error that names the line, never a partial slot map.
 */
public final class NodesFile {
  private NodesFile() {}

  /**
   * One node's line.
   *
   * @param lineNumber its line in the file, from 1
   * @param name the node id
   * @param ip its address ("" if unknown)
   * @param port its client port
   * @param cport its bus port
   * @param hostname its hostname ("" if none)
   * @param flags its flags
   * @param master its master's id, or null
   * @param pingSent whether a ping was pending
   * @param pongReceived whether a pong had been received
   * @param configEpoch its configEpoch
   * @param slots its slot ranges, {start, end} each
   * @param migrating slots migrating to a node (myself's line only)
   * @param importing slots imported from a node (myself's line only)
   */
  public record NodeLine(
      int lineNumber,
      String name,
      String ip,
      int port,
      int cport,
      String hostname,
      int flags,
      String master,
      boolean pingSent,
      boolean pongReceived,
      long configEpoch,
      List<int[]> slots,
      Map<Integer, String> migrating,
      Map<Integer, String> importing) {}

  /**
   * A whole file.
   *
   * @param file where it was read from
   * @param nodes the node lines in file order
   * @param currentEpoch the vars line's currentEpoch (0 without one)
   * @param lastVoteEpoch the vars line's lastVoteEpoch (0 without one)
   */
  public record Content(Path file, List<NodeLine> nodes, long currentEpoch, long lastVoteEpoch) {}

  /**
   * Reads {@code file}; returns null if it does not exist or is empty (a first start).
   *
   * @throws CorruptNodesFile naming the line that does not parse
   */
  public static Content read(Path file) throws IOException {
    if (!Files.exists(file) || Files.size(file) == 0) {
      return null;
    }
    return parse(file, Files.readString(file, StandardCharsets.UTF_8));
  }

  /** Parses a file's text (see {@link #read}). */
  static Content parse(Path file, String text) throws CorruptNodesFile {
    List<NodeLine> nodes = new ArrayList<>();
    long currentEpoch = 0;
    long lastVoteEpoch = 0;
    int varsLine = 0;
    int lastLine = 0;
    String[] lines = text.split("\n", -1);
    if (!text.endsWith("\n")) {
      throw new CorruptNodesFile(
          file, lines.length, "the last line is cut (no newline at the end)");
    }
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      int number = i + 1;
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split(" +");
      lastLine = number;
      if (f[0].equalsIgnoreCase("vars")) {
        varsLine = number;
        if (f.length % 2 == 0) {
          throw new CorruptNodesFile(file, number, "vars without a value for each name");
        }
        for (int j = 1; j < f.length; j += 2) {
          if (f[j].equalsIgnoreCase("currentEpoch")) {
            currentEpoch = epoch(file, number, f[j + 1]);
          } else if (f[j].equalsIgnoreCase("lastVoteEpoch")) {
            lastVoteEpoch = epoch(file, number, f[j + 1]);
          }
        }
        continue;
      }
      nodes.add(parseNode(file, number, f));
    }
    // Redis writes the vars line last: without it at the end, the file lost its last lines
    if (varsLine == 0 || varsLine != lastLine) {
      throw new CorruptNodesFile(
          file, lastLine, "the 'vars currentEpoch N lastVoteEpoch N' line is not the last line");
    }
    return new Content(file, nodes, currentEpoch, lastVoteEpoch);
  }

  private static NodeLine parseNode(Path file, int number, String[] f) throws CorruptNodesFile {
    if (f.length < 8) {
      throw new CorruptNodesFile(file, number, f.length + " fields (expected: at least 8)");
    }
    String name = nodeId(file, number, f[0], "node id");
    String address = f[1];
    String hostname = "";
    int comma = address.indexOf(',');
    if (comma >= 0) {
      hostname = address.substring(comma + 1);
      address = address.substring(0, comma);
    }
    int colon = address.lastIndexOf(':');
    if (colon < 0) {
      throw new CorruptNodesFile(file, number, "address '" + f[1] + "' has no ':port'");
    }
    String ip = address.substring(0, colon);
    String ports = address.substring(colon + 1);
    int at = ports.indexOf('@');
    int port = port(file, number, at < 0 ? ports : ports.substring(0, at));
    int cport = at < 0 ? port + 10000 : port(file, number, ports.substring(at + 1));
    int flags = 0;
    for (String flag : f[2].split(",")) {
      int bit = ClusterNode.flagBit(flag);
      if (bit < 0) {
        throw new CorruptNodesFile(file, number, "unknown flag '" + flag + "'");
      }
      flags |= bit;
    }
    String master = f[3].startsWith("-") ? null : nodeId(file, number, f[3], "master id");
    boolean pingSent = !f[4].equals("0");
    boolean pongReceived = !f[5].equals("0");
    long configEpoch = epoch(file, number, f[6]);
    if (!f[7].equals("connected") && !f[7].equals("disconnected")) {
      throw new CorruptNodesFile(file, number, "link state '" + f[7] + "'");
    }
    List<int[]> slots = new ArrayList<>();
    Map<Integer, String> migrating = new LinkedHashMap<>();
    Map<Integer, String> importing = new LinkedHashMap<>();
    for (int j = 8; j < f.length; j++) {
      String s = f[j];
      if (s.startsWith("[")) {
        if (!s.endsWith("]") || s.length() < 6) {
          throw new CorruptNodesFile(file, number, "slot state '" + s + "'");
        }
        int dash = s.indexOf('-');
        if (dash < 0 || dash + 2 >= s.length()) {
          throw new CorruptNodesFile(file, number, "slot state '" + s + "'");
        }
        int slot = slot(file, number, s.substring(1, dash));
        char direction = s.charAt(dash + 1);
        String other =
            nodeId(file, number, s.substring(dash + 3, s.length() - 1), "node id in " + s);
        if (direction == '>') {
          migrating.put(slot, other);
        } else if (direction == '<') {
          importing.put(slot, other);
        } else {
          throw new CorruptNodesFile(file, number, "slot state '" + s + "'");
        }
        continue;
      }
      int dash = s.indexOf('-');
      int start = slot(file, number, dash < 0 ? s : s.substring(0, dash));
      int end = dash < 0 ? start : slot(file, number, s.substring(dash + 1));
      if (end < start) {
        throw new CorruptNodesFile(file, number, "slot range '" + s + "' ends before it starts");
      }
      slots.add(new int[] {start, end});
    }
    return new NodeLine(
        number,
        name,
        ip,
        port,
        cport,
        hostname,
        flags,
        master,
        pingSent,
        pongReceived,
        configEpoch,
        slots,
        migrating,
        importing);
  }

  private static String nodeId(Path file, int number, String id, String what)
      throws CorruptNodesFile {
    if (!ClusterState.validName(id)) {
      throw new CorruptNodesFile(file, number, what + " '" + id + "' (expected: 40 characters)");
    }
    return id;
  }

  private static int port(Path file, int number, String text) throws CorruptNodesFile {
    long value = number(file, number, text, "port");
    if (value < 0 || value > 65535) {
      throw new CorruptNodesFile(file, number, "port " + text + " (expected: 0..65535)");
    }
    return (int) value;
  }

  private static int slot(Path file, int number, String text) throws CorruptNodesFile {
    long value = number(file, number, text, "slot");
    if (value < 0 || value >= HashSlots.SLOTS) {
      throw new CorruptNodesFile(file, number, "slot " + text + " (expected: 0..16383)");
    }
    return (int) value;
  }

  private static long epoch(Path file, int number, String text) throws CorruptNodesFile {
    try {
      return Long.parseUnsignedLong(text);
    } catch (NumberFormatException e) {
      throw new CorruptNodesFile(file, number, "epoch '" + text + "' is not a number");
    }
  }

  private static long number(Path file, int number, String text, String what)
      throws CorruptNodesFile {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new CorruptNodesFile(file, number, what + " '" + text + "' is not a number");
    }
  }

  /**
   * Replaces {@code file} with {@code content} atomically: writes a temporary file beside it,
   * forces it to disk, renames it over the file and forces the directory.
   */
  public static void write(Path file, String content) throws IOException {
    write(file, content, true);
  }

  /**
   * Replaces {@code file} with {@code content} atomically, as {@link #write(Path, String)}; forces
   * the file and the directory to disk only if {@code fsync} (Redis writes most changes, a slot
   * assigned by CLUSTER SETSLOT among them, without forcing them; epochs and votes are forced).
   */
  public static void write(Path file, String content, boolean fsync) throws IOException {
    Staged staged = stage(file, content, fsync);
    staged.replace();
    staged.afterReplace();
  }

  /**
   * Returns the saver of a cluster state whose configuration is {@code file}: each save staged in a
   * temporary file of its own (see {@link #stage}), then renamed over the file.
   */
  public static ClusterState.Saver saver(Path file) {
    return new ClusterState.Saver() {
      @Override
      public void save(String content, boolean fsync) throws IOException {
        write(file, content, fsync);
      }

      @Override
      public ClusterState.StagedSave stage(String content, boolean fsync) throws IOException {
        return NodesFile.stage(file, content, fsync);
      }
    };
  }

  // numbers the temporary files of one process, so that writes can be staged side by side
  private static final java.util.concurrent.atomic.AtomicLong TEMPS =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * Writes {@code content} to a new temporary file beside {@code file} (forced to disk if {@code
   * fsync}) and returns it, to replace the file later: the slow part of a write, which several
   * threads may do at once; the renames are theirs to order.
   *
   * @throws IOException if the temporary file cannot be written (none is left behind)
   */
  public static Staged stage(Path file, String content, boolean fsync) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Path temp =
        dir.resolve(
            file.getFileName()
                + ".tmp-"
                + ProcessHandle.current().pid()
                + "-"
                + TEMPS.incrementAndGet());
    try (FileChannel channel =
        FileChannel.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer bytes = ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8));
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      if (fsync) {
        channel.force(true);
      }
    } catch (IOException e) {
      // a full disk or an I/O error: the old nodes.conf stands, and no temp is left beside it
      Files.deleteIfExists(temp);
      throw e;
    }
    return new Staged(file, dir, temp, fsync);
  }

  /** A configuration written to a temporary file beside nodes.conf, not yet in its place. */
  public static final class Staged implements ClusterState.StagedSave {
    private final Path file;
    private final Path dir;
    private final Path temp;
    private final boolean fsync;

    private Staged(Path file, Path dir, Path temp, boolean fsync) {
      this.file = file;
      this.dir = dir;
      this.temp = temp;
      this.fsync = fsync;
    }

    /**
     * Renames the temporary file over nodes.conf (atomically where the file system can).
     *
     * @throws IOException if the file cannot be replaced (the temporary file is removed)
     */
    @Override
    public void replace() throws IOException {
      try {
        try {
          Files.move(
              temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
        }
      } catch (IOException e) {
        // the file could not be replaced (e.g. a directory stands in its place): no temp is left
        Files.deleteIfExists(temp);
        throw e;
      }
    }

    /** Forces the directory to disk after {@link #replace}, if the write was to be forced. */
    @Override
    public void afterReplace() {
      if (!fsync) {
        return;
      }
      try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
        directory.force(true);
      } catch (IOException e) {
        // some file systems cannot open a directory for fsync; the rename is still atomic
      }
    }

    /** Removes the temporary file: a newer configuration took its place first. */
    @Override
    public void discard() throws IOException {
      Files.deleteIfExists(temp);
    }
  }
}
