package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.ItemHashers;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.Scheme;
import dev.cuckoo.server.CuckooServer;
import dev.cuckoo.server.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** import from an in-process cuckoo-server on a loopback port. */
class ImportCommandTest {
  @TempDir Path dir;
  private CuckooServer server;
  private RespClient client;
  private String from;

  /** A server that keeps nothing: no log, no save points, its own data directory. */
  static ServerConfig.Builder memoryOnly(Path dir) {
    return ServerConfig.builder()
        .port(TestFiles.freePort())
        .appendOnly(false)
        .savePoints(dev.cuckoo.server.persist.SavePoints.NONE)
        .dir(dir.resolve("server-data"));
  }

  @BeforeEach
  void start() throws IOException {
    server = CuckooServer.start(memoryOnly(dir).build());
    client = new RespClient("127.0.0.1", server.port(), 10_000);
    from = "127.0.0.1:" + server.port();
  }

  @AfterEach
  void stop() throws IOException {
    client.close();
    server.close();
  }

  @Test
  void import_keyBuiltWithCommands_fileAnswersLikeTheServer() throws IOException {
    assertEquals(
        "OK", client.call("CF.RESERVE", "k", "4096", "BUCKETSIZE", "4", "MAXITERATIONS", "50"));
    for (int i = 0; i < 1000; i++) {
      client.call("CF.ADD", "k", "item" + i);
    }
    client.call("CF.DEL", "k", "item0");
    Path output = dir.resolve("k.cuckoo");
    CliRun run = CliRun.run("import", "--key", "k", "--from", from, "--output", output.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains("999 items"), run.out);
    RedisCuckooFilter<CharSequence> filter =
        TestFilters.readSingleRedis(output, ItemHashers.redisUtf8());
    assertEquals(Scheme.REDISBLOOM, filter.scheme());
    assertEquals(4, filter.bucketSize());
    assertEquals(1024, filter.baseBucketCount());
    assertEquals(50, filter.maxKicks());
    assertEquals(999, filter.size());
    for (int i = 0; i < 3000; i++) {
      String item = "item" + i;
      assertEquals(client.call("CF.EXISTS", "k", item), filter.mightContain(item) ? 1L : 0L, item);
    }
  }

  @Test
  void import_afterExport_sameFileByteForByte() throws IOException {
    Path original =
        TestFilters.build(
            dir, "orig", BuildCommandTest.words(5000, "rt"), "--scheme", "redisbloom");
    byte[] resp = CliRun.run("export", "--key", "rt", original.toString()).binary;
    client.sendRaw(resp);
    for (int i = 0; i < ExportCommandTest.parseResp(resp).size(); i++) {
      assertEquals("OK", client.read());
    }
    Path copy = dir.resolve("copy.cuckoo");
    CliRun run = CliRun.run("import", "--key", "rt", "--from", from, "-o", copy.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertArrayEquals(Files.readAllBytes(original), Files.readAllBytes(copy));
  }

  @Test
  void import_chainedKey_chainFileRoundTripsThroughExportAndLoadChunk() throws IOException {
    assertEquals("OK", client.call("CF.RESERVE", "grown", "100", "EXPANSION", "2"));
    for (int i = 0; i < 1500; i++) {
      client.call("CF.ADD", "grown", "item" + i);
    }
    client.call("CF.DEL", "grown", "item7");
    Object debug = client.call("CF.DEBUG", "grown");
    String debugText = new String((byte[]) debug, StandardCharsets.UTF_8);
    assertTrue(debugText.contains("filters:4"), debugText);
    Path output = dir.resolve("grown.cuckoo");
    CliRun run = CliRun.run("import", "--key", "grown", "--from", from, "-o", output.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains("4 sub-filters, 1,499 items"), run.out);
    RedisCuckooFilter<byte[]> chain;
    try (InputStream in = Files.newInputStream(output)) {
      chain = RedisCuckooFilter.readFrom(in, ItemHashers.redisBytes());
    }
    assertEquals(debugText, chain.redisDebug());
    CliRun info = CliRun.run("info", output.toString());
    assertTrue(info.out.matches("(?s).*\nlinks: +4\n.*"), info.out);
    assertTrue(info.out.matches("(?s).*\ntype: +RedisCuckooFilter\n.*"), info.out);

    byte[] resp = CliRun.run("export", "--key", "copy", output.toString()).binary;
    int commands = ExportCommandTest.parseResp(resp).size();
    assertEquals(5, commands, "the header and one chunk per sub-filter");
    client.sendRaw(resp);
    for (int i = 0; i < commands; i++) {
      assertEquals("OK", client.read());
    }
    assertArrayEquals((byte[]) debug, (byte[]) client.call("CF.DEBUG", "copy"));
    for (int i = 0; i < 4000; i++) {
      String item = "item" + i;
      Object original = client.call("CF.EXISTS", "grown", item);
      assertEquals(original, client.call("CF.EXISTS", "copy", item), item);
      assertEquals(original, chain.mightContain(item.getBytes(StandardCharsets.UTF_8)) ? 1L : 0L);
      if (i < 1500 && i != 7) {
        assertEquals(1L, original, item);
      }
    }
  }

  @Test
  void import_unusableKeys_oneLineExit2() throws IOException {
    client.call("CF.RESERVE", "empty", "100");
    String[][] cases = {
      {"missing", "answered: ERR not found (key 'missing')"},
      {"empty", "key 'empty' is empty"},
    };
    for (String[] c : cases) {
      Path output = dir.resolve(c[0] + ".cuckoo");
      CliRun run = CliRun.run("import", "--key", c[0], "--from", from, "-o", output.toString());
      assertEquals(ExitCode.ERROR, run.exitCode, run.toString());
      assertEquals(1, run.errLines().length, run.err);
      assertTrue(run.err.contains(c[1]), c[1] + " in " + run.err);
      assertFalse(Files.exists(output));
    }
  }

  @Test
  void import_badAddressOrNoServer_exit2() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    String out = dir.resolve("o.cuckoo").toString();
    String[][] cases = {
      {"127.0.0.1:" + closedPort, "cannot reach 127.0.0.1:" + closedPort},
      {"127.0.0.1", "--from: '127.0.0.1' (expected: HOST:PORT"},
      {"127.0.0.1:99999", "--from: '127.0.0.1:99999'"},
      {":6379", "--from: ':6379'"},
    };
    for (String[] c : cases) {
      CliRun run = CliRun.run("import", "--key", "k", "--from", c[0], "-o", out);
      assertEquals(ExitCode.ERROR, run.exitCode, run.toString());
      assertEquals(1, run.errLines().length, run.err);
      assertTrue(run.err.contains(c[1]), c[1] + " in " + run.err);
    }
    CliRun missing = CliRun.run("import", "--key", "k", "-o", out);
    assertEquals(ExitCode.ERROR, missing.exitCode);
    assertTrue(missing.err.contains("Missing required option: '--from=HOST:PORT'"), missing.err);
  }

  @Test
  void import_wrongPassword_reportsServerError() throws IOException {
    try (CuckooServer secured = CuckooServer.start(memoryOnly(dir).requirePass("s3cret").build())) {
      String address = "127.0.0.1:" + secured.port();
      String out = dir.resolve("p.cuckoo").toString();
      CliRun noAuth = CliRun.run("import", "--key", "k", "--from", address, "-o", out);
      assertEquals(ExitCode.ERROR, noAuth.exitCode, noAuth.toString());
      assertTrue(noAuth.err.contains("NOAUTH"), noAuth.err);
      CliRun wrong =
          CliRun.run("import", "--key", "k", "--from", address, "-o", out, "--password", "nope");
      assertEquals(ExitCode.ERROR, wrong.exitCode, wrong.toString());
      List<String> lines = List.of(wrong.errLines());
      assertEquals(1, lines.size(), wrong.err);
      CliRun right =
          CliRun.run("import", "--key", "k", "--from", address, "-o", out, "--password", "s3cret");
      assertTrue(right.err.contains("ERR not found"), right.err);
    }
  }
}
