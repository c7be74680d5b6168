package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.CuckooServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Figures for docs/server-benchmark.md: MIGRATE of many small filters in KEYS batches between two
 * cuckoo-servers, against the command line's way of moving the same filters (for each key {@code
 * cuckoo import} from the source into a file, {@code cuckoo export --format redisbloom} of that
 * file, its CF.LOADCHUNK stream sent to the target as {@code redis-cli --pipe} would), in the same
 * run; and, for scale, Debian's redis-server 7.0 MIGRATE of as many small string keys between two
 * redis-servers (not the same data). The command line runs in this JVM (no start-up per key).
 *
 * <p>Run: {@code mvn -B -ntp -pl cuckoo-cli -am test -Dtest=MigrateVersusCliBench
 * -Dsurefire.failIfNoSpecifiedTests=false -Dtest.excludedTags=none -Dmigrate.keys=100000
 * -Dmigrate.cliKeys=100000 -Dmigrate.batch=100}.
 */
@Tag("slow")
class MigrateVersusCliBench {
  private static final int KEYS = Integer.getInteger("migrate.keys", 100_000);
  private static final int CLI_KEYS = Integer.getInteger("migrate.cliKeys", KEYS);
  private static final int BATCH = Integer.getInteger("migrate.batch", 100);

  @TempDir Path dir;

  /** A connection that pipelines commands whose replies are one line each. */
  private static final class Pipe implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    Pipe(int port) throws IOException {
      socket = new Socket(InetAddress.getLoopbackAddress(), port);
      socket.setTcpNoDelay(true);
      out = socket.getOutputStream();
      in = socket.getInputStream();
    }

    static byte[] command(String... args) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      bytes.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      for (String arg : args) {
        byte[] value = arg.getBytes(StandardCharsets.UTF_8);
        bytes.writeBytes(("$" + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        bytes.writeBytes(value);
        bytes.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
      }
      return bytes.toByteArray();
    }

    /** Sends bytes holding {@code replies} commands and returns their reply lines. */
    List<String> send(byte[] commands, int replies) throws IOException {
      out.write(commands);
      out.flush();
      List<String> lines = new ArrayList<>(replies);
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      while (lines.size() < replies) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("closed after " + lines.size() + " replies");
        }
        if (b == '\n') {
          lines.add(line.toString(StandardCharsets.UTF_8).trim());
          line.reset();
        } else {
          line.write(b);
        }
      }
      return lines;
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  /** Sends the commands in pipelined chunks of 1000; fails on an error reply. */
  private static void pipeline(int port, List<byte[]> commands) throws IOException {
    try (Pipe pipe = new Pipe(port)) {
      for (int start = 0; start < commands.size(); start += 1000) {
        ByteArrayOutputStream chunk = new ByteArrayOutputStream();
        int end = Math.min(commands.size(), start + 1000);
        for (byte[] command : commands.subList(start, end)) {
          chunk.writeBytes(command);
        }
        for (String reply : pipe.send(chunk.toByteArray(), end - start)) {
          assertTrue(!reply.startsWith("-"), reply);
        }
      }
    }
  }

  /** Returns the number of commands (arrays of bulk strings) in a RESP stream. */
  private static int commandCount(byte[] stream) {
    int commands = 0;
    int at = 0;
    while (at < stream.length) {
      int[] header = header(stream, at);
      at = header[1];
      for (int arg = 0; arg < header[0]; arg++) {
        int[] bulk = header(stream, at);
        at = bulk[1] + bulk[0] + 2;
      }
      commands++;
    }
    return commands;
  }

  /** Reads "*n" or "$n" and its CRLF at {@code at}: returns n and where what follows begins. */
  private static int[] header(byte[] stream, int at) {
    int end = at + 1;
    int value = 0;
    while (stream[end] != '\r') {
      value = value * 10 + (stream[end++] - '0');
    }
    return new int[] {value, end + 2};
  }

  private static String key(int i) {
    return "f:" + i;
  }

  /** Fills the source with small filters: capacity 100, two items each. */
  private static void fillFilters(int port, int keys) throws IOException {
    List<byte[]> commands = new ArrayList<>();
    for (int i = 0; i < keys; i++) {
      commands.add(Pipe.command("CF.RESERVE", key(i), "100", "BUCKETSIZE", "2"));
      commands.add(Pipe.command("CF.ADD", key(i), "a" + i));
      commands.add(Pipe.command("CF.ADD", key(i), "b" + i));
    }
    pipeline(port, commands);
  }

  /** Moves keys 0..keys-1 with MIGRATE ... KEYS in batches; returns the nanoseconds it took. */
  private static long migrate(int source, int target, int keys) throws IOException {
    long start = System.nanoTime();
    try (Pipe pipe = new Pipe(source)) {
      for (int first = 0; first < keys; first += BATCH) {
        List<String> args =
            new ArrayList<>(List.of("MIGRATE", "127.0.0.1", "" + target, "", "0", "10000", "KEYS"));
        for (int i = first; i < Math.min(keys, first + BATCH); i++) {
          args.add(key(i));
        }
        assertEquals(List.of("+OK"), pipe.send(Pipe.command(args.toArray(new String[0])), 1));
      }
    }
    return System.nanoTime() - start;
  }

  private static long dbsize(int port) throws IOException {
    try (Pipe pipe = new Pipe(port)) {
      return Long.parseLong(pipe.send(Pipe.command("DBSIZE"), 1).get(0).substring(1));
    }
  }

  @Test
  void migrate_againstTheCommandLine_andRedisForScale() throws Exception {
    try (CuckooServer source =
            CuckooServer.start(ImportCommandTest.memoryOnly(dir.resolve("s")).build());
        CuckooServer target =
            CuckooServer.start(ImportCommandTest.memoryOnly(dir.resolve("t")).build())) {
      fillFilters(source.port(), KEYS);
      long migrateNanos = migrate(source.port(), target.port(), KEYS);
      assertEquals(0, dbsize(source.port()));
      assertEquals(KEYS, dbsize(target.port()));
      // the command line moves the same filters back: import from one server, export to the other
      long cliStart = System.nanoTime();
      Path file = dir.resolve("k.cuckoo");
      Path resp = dir.resolve("k.resp");
      try (Pipe pipe = new Pipe(source.port())) {
        for (int i = 0; i < CLI_KEYS; i++) {
          CliRun in =
              CliRun.run(
                  "import",
                  "--key",
                  key(i),
                  "--from",
                  "127.0.0.1:" + target.port(),
                  "-o",
                  "" + file);
          assertEquals(0, in.exitCode, in.toString());
          CliRun out =
              CliRun.run(
                  "export", "--format", "redisbloom", "--key", key(i), "" + file, "-o", "" + resp);
          assertEquals(0, out.exitCode, out.toString());
          byte[] stream = Files.readAllBytes(resp);
          for (String reply : pipe.send(stream, commandCount(stream))) {
            assertEquals("+OK", reply);
          }
        }
      }
      long cliNanos = System.nanoTime() - cliStart;
      assertEquals(CLI_KEYS, dbsize(source.port()));
      double migrateMicros = migrateNanos / 1e3 / KEYS;
      double cliMicros = cliNanos / 1e3 / CLI_KEYS;
      System.out.printf(
          "cuckoo MIGRATE: %d small filters in KEYS batches of %d: %.2f s (%.1f us/key)%n",
          KEYS, BATCH, migrateNanos / 1e9, migrateMicros);
      System.out.printf(
          "cuckoo CLI import+export: %d of the filters: %.2f s (%.1f us/key); CLI/MIGRATE = %.1f%n",
          CLI_KEYS, cliNanos / 1e9, cliMicros, cliMicros / migrateMicros);
    }
    redisForScale();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private Process redis(int port, String name) throws IOException {
    Path home = Files.createDirectories(dir.resolve(name));
    return new ProcessBuilder(
            "redis-server",
            "--port",
            "" + port,
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            home.toString())
        .redirectErrorStream(true)
        .redirectOutput(home.resolve("log").toFile())
        .start();
  }

  private static void awaitPong(int port) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (Pipe pipe = new Pipe(port)) {
        if (pipe.send(Pipe.command("PING"), 1).get(0).equals("+PONG")) {
          return;
        }
      } catch (IOException notYet) {
        assertTrue(System.nanoTime() < deadline, "redis-server on " + port);
        Thread.sleep(20);
      }
    }
  }

  /** Redis to Redis: MIGRATE of as many small string keys, in the same batches. */
  private void redisForScale() throws Exception {
    if (!Files.isExecutable(Path.of("/usr/bin/redis-server"))) {
      System.out.println("redis-server not installed: no Redis figure");
      return;
    }
    int sourcePort = freePort();
    int targetPort = freePort();
    Process source = redis(sourcePort, "redis-source");
    Process target = redis(targetPort, "redis-target");
    try {
      awaitPong(sourcePort);
      awaitPong(targetPort);
      List<byte[]> commands = new ArrayList<>();
      for (int i = 0; i < KEYS; i++) {
        commands.add(Pipe.command("SET", key(i), "value-" + i));
      }
      pipeline(sourcePort, commands);
      long nanos = migrate(sourcePort, targetPort, KEYS);
      assertEquals(KEYS, dbsize(targetPort));
      System.out.printf(
          "redis-server 7.0 MIGRATE: %d small string keys in KEYS batches of %d: %.2f s (%.1f us/key)%n",
          KEYS, BATCH, nanos / 1e9, nanos / 1e3 / KEYS);
    } finally {
      source.destroyForcibly();
      target.destroyForcibly();
    }
  }
}
