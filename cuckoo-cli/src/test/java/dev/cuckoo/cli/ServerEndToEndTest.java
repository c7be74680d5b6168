package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.ItemHashers;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.CuckooServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** export → cuckoo-server (in process, loopback) CF.LOADCHUNK → CF.EXISTS/CF.SCANDUMP agree. */
class ServerEndToEndTest {
  @TempDir Path dir;
  private CuckooServer server;
  private RespClient client;

  @BeforeEach
  void start() throws IOException {
    server = CuckooServer.start(ImportCommandTest.memoryOnly(dir).build());
    client = new RespClient("127.0.0.1", server.port(), 10_000);
  }

  @AfterEach
  void stop() throws IOException {
    client.close();
    server.close();
  }

  private Path buildRedisFilter(List<String> words) throws IOException {
    return TestFilters.build(dir, "words", words, "--scheme", "redisbloom", "--keep-duplicates");
  }

  private int load(byte[] resp) throws IOException {
    List<List<byte[]>> commands = ExportCommandTest.parseResp(resp);
    client.sendRaw(resp);
    for (int i = 0; i < commands.size(); i++) {
      Object reply = client.read();
      assertTrue(reply.equals("OK") || reply.equals(0L) || reply.equals(1L), "reply " + reply);
    }
    return commands.size();
  }

  @Test
  void export_loadedIntoServer_existsAnswersMatchTheFile() throws IOException {
    List<String> words = BuildCommandTest.words(20_000, "e2e-");
    Path filterPath = buildRedisFilter(words);
    RedisCuckooFilter<CharSequence> filter =
        TestFilters.readSingleRedis(filterPath, ItemHashers.redisUtf8());
    CliRun export = CliRun.run("export", "--key", "seen", filterPath.toString());
    assertEquals(0, export.exitCode, export.toString());
    load(export.binary);

    List<?> info = (List<?>) client.call("CF.INFO", "seen");
    assertEquals("Number of items inserted", info.get(6));
    assertEquals(filter.size(), info.get(7));
    assertEquals(filter.baseBucketCount(), info.get(3));

    // present items: all 1; absent items: exactly the filter's own answers (bit-exact layout)
    int absentCount = 20_000;
    for (String word : words) {
      client.send(RespWriter.text("CF.EXISTS"), RespWriter.text("seen"), RespWriter.text(word));
    }
    for (int i = 0; i < absentCount; i++) {
      client.send(
          RespWriter.text("CF.EXISTS"), RespWriter.text("seen"), RespWriter.text("absent-" + i));
    }
    for (String word : words) {
      assertEquals(1L, client.read(), word);
    }
    int falsePositives = 0;
    for (int i = 0; i < absentCount; i++) {
      boolean expected = filter.mightContain("absent-" + i);
      assertEquals(expected ? 1L : 0L, client.read(), "absent-" + i);
      falsePositives += expected ? 1 : 0;
    }
    assertTrue(falsePositives > 0, "a 8-bit filter has some false positives among 20,000");

    // the server's SCANDUMP of the loaded key is the export, chunk for chunk
    CliRun raw = CliRun.run("export", "--format", "scandump", filterPath.toString());
    List<ExportCommandTest.Chunk> chunks = ExportCommandTest.parseScandump(raw.binary);
    long iterator = 0;
    for (ExportCommandTest.Chunk chunk : chunks) {
      List<?> reply = (List<?>) client.call("CF.SCANDUMP", "seen", Long.toString(iterator));
      assertEquals(chunk.iterator, reply.get(0));
      assertArrayEquals(chunk.data, (byte[]) reply.get(1));
      iterator = chunk.iterator;
    }
    List<?> done = (List<?>) client.call("CF.SCANDUMP", "seen", Long.toString(iterator));
    assertEquals(0L, done.get(0));
  }

  @Test
  void export_replace_reloadsExistingKey() throws IOException {
    Path filterPath = buildRedisFilter(List.of("a", "b", "c"));
    byte[] plain = CliRun.run("export", "--key", "k", filterPath.toString()).binary;
    load(plain);
    client.send(
        RespWriter.text("CF.LOADCHUNK"),
        RespWriter.text("k"),
        RespWriter.text("1"),
        new byte[38]); // a RedisBloom dump header's length
    RespClient.ErrorReply exists = assertThrows(RespClient.ErrorReply.class, client::read);
    assertEquals("ERR item exists", exists.getMessage());
    byte[] replacing =
        CliRun.run("export", "--key", "k", "--replace", filterPath.toString()).binary;
    assertEquals(3, load(replacing));
    assertEquals(1L, client.call("CF.EXISTS", "k", "b"));
    assertEquals(3L, ((List<?>) client.call("CF.INFO", "k")).get(7));
  }
}
