package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExportCommandTest {
  @TempDir Path dir;

  /** One chunk: the iterator and the bytes. */
  static final class Chunk {
    final long iterator;
    final byte[] data;

    Chunk(long iterator, byte[] data) {
      this.iterator = iterator;
      this.data = data;
    }
  }

  static List<Chunk> parseScandump(byte[] bytes) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    List<Chunk> chunks = new ArrayList<>();
    while (buffer.hasRemaining()) {
      long iterator = buffer.getLong();
      byte[] data = new byte[buffer.getInt()];
      buffer.get(data);
      chunks.add(new Chunk(iterator, data));
    }
    return chunks;
  }

  /** Parses a RESP stream of arrays of bulk strings, strictly. */
  static List<List<byte[]>> parseResp(byte[] bytes) {
    List<List<byte[]>> commands = new ArrayList<>();
    int[] at = {0};
    while (at[0] < bytes.length) {
      assertEquals('*', bytes[at[0]++]);
      int count = Integer.parseInt(line(bytes, at));
      List<byte[]> command = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        assertEquals('$', bytes[at[0]++]);
        int length = Integer.parseInt(line(bytes, at));
        command.add(java.util.Arrays.copyOfRange(bytes, at[0], at[0] + length));
        at[0] += length;
        assertEquals('\r', bytes[at[0]++]);
        assertEquals('\n', bytes[at[0]++]);
      }
      commands.add(command);
    }
    return commands;
  }

  private static String line(byte[] bytes, int[] at) {
    int start = at[0];
    while (bytes[at[0]] != '\r') {
      at[0]++;
    }
    String text = new String(bytes, start, at[0] - start, StandardCharsets.US_ASCII);
    at[0] += 2;
    return text;
  }

  private Path redisFilter(String name, List<String> items, String... options) throws IOException {
    List<String> all = new ArrayList<>(List.of("--scheme", "redisbloom"));
    all.addAll(List.of(options));
    return TestFilters.build(dir, name, items, all.toArray(new String[0]));
  }

  @Test
  void export_emptySingleFilter_writesTheHeaderAlone() throws IOException {
    // SCANDUMP sends nothing for an empty filter; the header alone loads as an empty filter
    Path filter = redisFilter("empty", List.of(), "--expected", "8");
    CliRun run = CliRun.run("export", "--format", "scandump", filter.toString());
    assertEquals(0, run.exitCode, run.toString());
    List<Chunk> chunks = parseScandump(run.binary);
    assertEquals(1, chunks.size());
    assertEquals(1, chunks.get(0).iterator);
    assertEquals(38, chunks.get(0).data.length);
  }

  @Test
  void export_scandump_matchesRedisBloomKnownAnswer() throws IOException {
    // docs/REDISBLOOM.md, dump format: CF.RESERVE cf 8; CF.ADD cf item1; SCANDUMP 0 -> header,
    // SCANDUMP 1 -> [9, data]
    Path filter = redisFilter("one", List.of("item1"), "--expected", "8");
    CliRun run = CliRun.run("export", "--format", "scandump", filter.toString());
    assertEquals(0, run.exitCode, run.toString());
    List<Chunk> chunks = parseScandump(run.binary);
    assertEquals(2, chunks.size());
    assertEquals(1, chunks.get(0).iterator);
    assertEquals(
        "0100000000000000"
            + "0400000000000000"
            + "0000000000000000"
            + "0100000000000000"
            + "0200"
            + "1400"
            + "0100",
        HexFormat.of().formatHex(chunks.get(0).data));
    assertEquals(9, chunks.get(1).iterator);
    assertEquals("0000000007000000", HexFormat.of().formatHex(chunks.get(1).data));
    assertEquals("", run.out, "binary output goes to the byte stream only");
  }

  @Test
  void export_redisbloom_respStreamOfLoadChunkCommands() throws IOException {
    Path filter = redisFilter("one", List.of("item1"), "--expected", "8");
    CliRun run =
        CliRun.run(
            "export",
            "--format",
            "redisbloom",
            "--key",
            "my key",
            "--replace",
            "--expansion",
            "0",
            filter.toString());
    assertEquals(0, run.exitCode, run.toString());
    List<List<byte[]>> commands = parseResp(run.binary);
    assertEquals(3, commands.size());
    assertEquals("DEL", new String(commands.get(0).get(0), StandardCharsets.UTF_8));
    assertEquals("my key", new String(commands.get(0).get(1), StandardCharsets.UTF_8));
    for (int i = 1; i < 3; i++) {
      assertEquals(4, commands.get(i).size());
      assertEquals("CF.LOADCHUNK", new String(commands.get(i).get(0), StandardCharsets.UTF_8));
      assertEquals("my key", new String(commands.get(i).get(1), StandardCharsets.UTF_8));
    }
    assertEquals("1", new String(commands.get(1).get(2), StandardCharsets.UTF_8));
    byte[] header = commands.get(1).get(3);
    assertEquals(38, header.length);
    assertEquals(0, ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getShort(36));
    assertEquals("9", new String(commands.get(2).get(2), StandardCharsets.UTF_8));
    assertArrayEquals(new byte[] {0, 0, 0, 0, 7, 0, 0, 0}, commands.get(2).get(3));
  }

  @Test
  void export_existingOutput_replacedKeepingItsPermissions() throws IOException {
    TestFiles.assumePosix(dir);
    Path filter = redisFilter("one", List.of("item1"), "--expected", "8");
    Path dump = dir.resolve("one.dump");
    Files.writeString(dump, "old contents");
    Files.setPosixFilePermissions(dump, PosixFilePermissions.fromString("rw-r-----"));
    CliRun run =
        CliRun.run(
            "export", "--format", "scandump", filter.toString(), "--output", dump.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertEquals(2, parseScandump(Files.readAllBytes(dump)).size());
    assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(dump)));
  }

  @Test
  void export_largeFilter_sixteenMebibyteChunksWithEndIterators() throws IOException {
    // 2^24 buckets × 2 slots = 32 MiB of data: two 16 MiB chunks, as SCANDUMP cuts them
    Path filter = redisFilter("big", List.of("a", "b", "c"), "--expected", "33554432");
    Path dump = dir.resolve("big.dump");
    CliRun run =
        CliRun.run(
            "export", "--format", "scandump", filter.toString(), "--output", dump.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains("the header and 2 data chunks"), run.out);
    List<Chunk> chunks = parseScandump(Files.readAllBytes(dump));
    assertEquals(3, chunks.size());
    assertEquals(1 + (16L << 20), chunks.get(1).iterator);
    assertEquals(1 + (32L << 20), chunks.get(2).iterator);
    long occupied = 0;
    for (int i = 1; i < 3; i++) {
      assertEquals(16 << 20, chunks.get(i).data.length);
      for (byte b : chunks.get(i).data) {
        occupied += b != 0 ? 1 : 0;
      }
    }
    assertEquals(3, occupied);
    ByteBuffer header = ByteBuffer.wrap(chunks.get(0).data).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(3, header.getLong(0));
    assertEquals(1L << 24, header.getLong(8));
  }

  @Test
  void export_toFileAndStdout_sameBytes() throws IOException {
    Path filter = redisFilter("w", BuildCommandTest.words(3000, "e"));
    Path resp = dir.resolve("w.resp");
    CliRun toFile = CliRun.run("export", "--key", "k", filter.toString(), "-o", resp.toString());
    CliRun toStdout = CliRun.run("export", "--key", "k", filter.toString());
    assertEquals(0, toFile.exitCode, toFile.toString());
    assertArrayEquals(Files.readAllBytes(resp), toStdout.binary);
    assertTrue(toFile.out.contains("redis-cli --pipe < " + resp), toFile.out);
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    List<List<byte[]>> commands = parseResp(toStdout.binary);
    for (int i = 1; i < commands.size(); i++) {
      data.write(commands.get(i).get(3));
    }
    // 3000 lines, sized for 6000: 2^12 buckets of 2 slots
    assertEquals(8192, data.size());
  }

  @Test
  void export_errors_oneLineExit2() throws IOException {
    Path standard = dir.resolve("s.cuckoo");
    Path input = dir.resolve("s.txt");
    Files.write(input, List.of("x"));
    assertEquals(
        0,
        CliRun.run("build", "--input", input.toString(), "--output", standard.toString()).exitCode);
    Path redis = redisFilter("r", List.of("x"));
    String[][] cases = {
      {"only REDISBLOOM filters", "--key", "k", standard.toString()},
      {"--key is required", redis.toString()},
      {
        "--expansion: 40000 (expected: 0 to 32768",
        "--key",
        "k",
        "--expansion",
        "40000",
        redis.toString()
      },
      {
        "--replace needs --format redisbloom", "--format", "scandump", "--replace", redis.toString()
      },
      {"no such file", "--key", "k", dir.resolve("none").toString()},
      {"is not a cuckoo filter file", "--key", "k", input.toString()},
      {"Invalid value for option '--format'", "--format", "xml", redis.toString()},
    };
    for (String[] c : cases) {
      List<String> args = new ArrayList<>(List.of("export"));
      args.addAll(List.of(c).subList(1, c.length));
      CliRun run = CliRun.run(args.toArray(new String[0]));
      assertEquals(ExitCode.ERROR, run.exitCode, args + "\n" + run);
      assertEquals(1, run.errLines().length, run.err);
      assertTrue(run.err.contains(c[0]), c[0] + " in " + run.err);
      assertEquals(0, run.binary.length, "nothing on stdout");
    }
    CliRun missingDir =
        CliRun.run("export", "--key", "k", redis.toString(), "-o", dir.resolve("x/y").toString());
    assertEquals(ExitCode.ERROR, missingDir.exitCode);
    assertFalse(Files.exists(dir.resolve("x")));
  }
}
