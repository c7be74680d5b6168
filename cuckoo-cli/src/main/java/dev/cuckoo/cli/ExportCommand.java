package dev.cuckoo.cli;

import dev.cuckoo.FilterFile;
import dev.cuckoo.RedisCuckooFilter;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code cuckoo export}: writes a REDISBLOOM filter file in the form Redis loads. */
@Command(
    name = "export",
    mixinStandardHelpOptions = true,
    description = {
      "Export a REDISBLOOM filter (built with --scheme redisbloom, with or without --scalable,"
          + " or imported) for Redis 8 or cuckoo-server. A chain file sends all its"
          + " sub-filters, exactly as CF.SCANDUMP of the same filter in Redis would.",
      "redisbloom: a RESP stream of CF.LOADCHUNK commands (the SCANDUMP header, then the data"
          + " chunks) that 'redis-cli --pipe' sends: an offline bulk load.",
      "scandump: the raw chunks, each as an 8-byte little-endian iterator, a 4-byte"
          + " little-endian length and the bytes, in the order CF.SCANDUMP returns them."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  cuckoo export --format redisbloom --key seen words.cuckoo | redis-cli --pipe",
      "  cuckoo export --format redisbloom --key seen --replace words.cuckoo -o load.resp",
      "  cuckoo export --format scandump words.cuckoo --output words.dump",
      "  cuckoo export --key seen --cluster 127.0.0.1:7000 --replace words.cuckoo",
      "",
      "Exit codes: 0 written, 2 usage or input error (e.g. a STANDARD filter)."
    })
final class ExportCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;
  @ParentCommand private CuckooCli cli;

  @Parameters(
      paramLabel = "FILE",
      description = "The filter file (REDISBLOOM scheme, single or chain).")
  private Path file;

  @Option(
      names = "--format",
      defaultValue = "redisbloom",
      paramLabel = "FORMAT",
      description = "redisbloom (RESP CF.LOADCHUNK commands) or scandump (raw chunks).")
  private Format format;

  @Option(
      names = "--key",
      paramLabel = "NAME",
      description = "The Redis key to load into (required for --format redisbloom).")
  private String key;

  @Option(
      names = {"--output", "-o"},
      defaultValue = "-",
      paramLabel = "FILE|-",
      description = "Where to write; '-' (the default) is standard output.")
  private String output;

  @Option(
      names = "--expansion",
      defaultValue = "1",
      paramLabel = "N",
      description =
          "EXPANSION recorded for the key: how Redis grows the filter once it is full"
              + " (0 = never, 'Filter is full'); default ${DEFAULT-VALUE}, as CF.RESERVE."
              + " Single filters only: a chain file keeps its own expansion.")
  private int expansion;

  @Option(
      names = "--replace",
      description = "Start the RESP stream with DEL NAME, replacing an existing key.")
  private boolean replace;

  @Option(
      names = "--cluster",
      paramLabel = "HOST:PORT",
      description =
          "Load the filter into a Redis Cluster (cuckoo-server or Redis 8 with RedisBloom) that"
              + " this node belongs to: the chunks go to the master of the key's slot, following"
              + " MOVED and ASK; prints what each node took. Needs --key; --output is not used.")
  private String cluster;

  @Option(
      names = "--password",
      paramLabel = "PASSWORD",
      description = "With --cluster: send AUTH PASSWORD to each node first (requirepass).")
  private String password;

  @Option(
      names = "--timeout-ms",
      defaultValue = "30000",
      paramLabel = "MILLIS",
      description = "With --cluster: connect and read timeout per node (default ${DEFAULT-VALUE}).")
  private int timeoutMillis;

  /** The values of {@code --format}. */
  enum Format {
    REDISBLOOM,
    SCANDUMP
  }

  @Override
  public Integer call() throws IOException {
    if (format == Format.REDISBLOOM && (key == null || key.isEmpty())) {
      throw new ParameterException(spec.commandLine(), "--key is required for --format redisbloom");
    }
    if (expansion < 0 || expansion > RedisCuckooFilter.MAX_EXPANSION) {
      throw new ParameterException(
          spec.commandLine(),
          "--expansion: "
              + expansion
              + " (expected: 0 to "
              + RedisCuckooFilter.MAX_EXPANSION
              + ", as CF.RESERVE)");
    }
    if (replace && format != Format.REDISBLOOM) {
      throw new ParameterException(spec.commandLine(), "--replace needs --format redisbloom");
    }
    if (cluster != null) {
      return loadIntoCluster();
    }
    FilterFile<byte[]> filter = FilterFiles.readFile(file);
    long[] counts = new long[2];
    if ("-".equals(output)) {
      OutputStream out = new BufferedOutputStream(cli.stdout(), 1 << 16);
      write(filter, out, counts);
      out.flush();
    } else {
      Path path = Paths.get(output);
      long bytes = AtomicFile.write(path, out -> write(filter, out, counts));
      PrintWriter text = spec.commandLine().getOut();
      text.printf(
          "wrote %s: %s (the header and %s data chunks, %s of data, %s in all)%n",
          path,
          format == Format.REDISBLOOM
              ? Text.count(counts[0]) + " CF.LOADCHUNK commands for key '" + key + "'"
              : Text.count(counts[0]) + " SCANDUMP chunks",
          Text.count(counts[0] - 1),
          Text.bytes(counts[1]),
          Text.bytes(bytes));
      if (format == Format.REDISBLOOM) {
        text.printf("load it with: redis-cli --pipe < %s%n", path);
      }
      text.flush();
    }
    return ExitCode.OK;
  }

  /**
   * Writes the dump; {@code counts} receives the chunks written (the header included) and the bytes
   * of the data chunks.
   */
  private void write(FilterFile<byte[]> filter, OutputStream out, long[] counts)
      throws IOException {
    if (format == Format.REDISBLOOM) {
      RespWriter resp = new RespWriter(out);
      byte[] command = RespWriter.text("CF.LOADCHUNK");
      byte[] name = RespWriter.text(key);
      if (replace) {
        resp.command(RespWriter.text("DEL"), name);
      }
      RedisExport.scanDump(
          filter,
          (iterator, data) -> {
            resp.command(command, name, RespWriter.text(Long.toString(iterator)), data);
            count(counts, iterator, data);
          },
          expansion);
    } else {
      DataOutputStream raw = new DataOutputStream(out);
      ByteBuffer frame = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
      RedisExport.scanDump(
          filter,
          (iterator, data) -> {
            frame.clear();
            frame.putLong(iterator).putInt(data.length);
            raw.write(frame.array());
            raw.write(data);
            count(counts, iterator, data);
          },
          expansion);
      raw.flush();
    }
  }

  /** {@code --cluster}: sends DEL (with --replace) and the CF.LOADCHUNKs to the key's master. */
  private int loadIntoCluster() throws IOException {
    if (key == null || key.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--key is required with --cluster");
    }
    if (format != Format.REDISBLOOM) {
      throw new ParameterException(spec.commandLine(), "--cluster needs --format redisbloom");
    }
    if (!"-".equals(output)) {
      throw new ParameterException(
          spec.commandLine(), "--output and --cluster exclude each other (--cluster loads)");
    }
    if (timeoutMillis < 1) {
      throw new ParameterException(
          spec.commandLine(), "--timeout-ms: " + timeoutMillis + " (expected: at least 1)");
    }
    HostPort address = HostPort.parse(spec, "--cluster", cluster);
    ClusterLoad.Node seed = new ClusterLoad.Node(address.host(), address.port());
    FilterFile<byte[]> filter = FilterFiles.readFile(file);
    byte[] name = RespWriter.text(key);
    byte[] command = RespWriter.text("CF.LOADCHUNK");
    long[] counts = new long[2];
    PrintWriter text = spec.commandLine().getOut();
    try (ClusterLoad load = new ClusterLoad(seed, password, timeoutMillis)) {
      if (replace) {
        load.send(name, RespWriter.text("DEL"), name);
      }
      RedisExport.scanDump(
          filter,
          (iterator, data) -> {
            load.send(name, command, name, RespWriter.text(Long.toString(iterator)), data);
            count(counts, iterator, data);
          },
          expansion);
      text.printf(
          "loaded key '%s' (hash slot %d): the header and %s data chunks, %s of data%n",
          key,
          dev.cuckoo.server.cluster.HashSlots.slot(name),
          Text.count(counts[0] - 1),
          Text.bytes(counts[1]));
      for (Map.Entry<ClusterLoad.Node, ClusterLoad.Tally> entry : load.tallies().entrySet()) {
        text.printf(
            "  %s: %s commands, %s%n",
            entry.getKey(),
            Text.count(entry.getValue().commands),
            Text.bytes(entry.getValue().bytes));
      }
      long[] redirects = load.redirects();
      text.printf(
          "  redirections followed: %d MOVED, %d ASK; masters in the slot map: %d%n",
          redirects[0], redirects[1], load.masters().size());
    }
    text.flush();
    return ExitCode.OK;
  }

  /** Counts a chunk, and its bytes unless it is the header (iterator 1). */
  private static void count(long[] counts, long iterator, byte[] data) {
    counts[0]++;
    if (iterator != 1) {
      counts[1] += data.length;
    }
  }
}
