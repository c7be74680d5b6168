package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.CuckooServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** import-rdb on the dump.rdb recorded from Redis 8 with RedisBloom. */
class ImportRdbCommandTest {
  @TempDir Path dir;

  private Path recorded() throws IOException {
    Path file = dir.resolve("dump.rdb");
    try (InputStream in = getClass().getResourceAsStream("/redisbloom-dumps/dump-v12.rdb")) {
      Files.write(file, in.readAllBytes());
    }
    return file;
  }

  @Test
  void importRdb_withoutServer_listsTheFiltersAndCountsTheRest() throws IOException {
    CliRun run = CliRun.run("import-rdb", recorded().toString());
    assertEquals(0, run.exitCode, run.toString());
    String[] lines = run.out.split("\n");
    assertEquals(5, lines.length, run.out);
    assertTrue(lines[0].startsWith("db 0  small  50 items, 1 sub-filters"), lines[0]);
    assertTrue(lines[1].startsWith("db 0  grown  599 items, 3 sub-filters"), lines[1]);
    assertTrue(lines[2].endsWith(", expires at 4102444800000 ms"), lines[2]);
    assertTrue(lines[3].startsWith("db 1  indb1  1 items"), lines[3]);
    assertTrue(
        lines[4].contains(
            "RDB version 12, 1,346 bytes, 4 cuckoo filters; skipped 1 keys of other types"
                + " (string=1)"),
        lines[4]);
  }

  @Test
  void importRdb_toServer_restoresRedisOwnBytesInTheirDatabases() throws IOException {
    Path file = recorded();
    byte[] rdb = Files.readAllBytes(file);
    try (CuckooServer server = CuckooServer.start(ImportCommandTest.memoryOnly(dir).build());
        RespClient client = new RespClient("127.0.0.1", server.port(), 10_000)) {
      String to = "127.0.0.1:" + server.port();
      CliRun run = CliRun.run("import-rdb", file.toString(), "--to", to);
      assertEquals(0, run.exitCode, run.toString());
      assertTrue(run.out.contains("4 cuckoo filters, 4 restored to " + to), run.out);
      for (String key : new String[] {"small", "grown", "withttl"}) {
        byte[] dump = (byte[]) client.call("DUMP", key);
        // the value as Redis wrote it in the RDB (after its type byte and key)
        byte[] value = Arrays.copyOfRange(dump, 1, dump.length - 10);
        assertTrue(indexOf(rdb, value) > 0, key);
      }
      assertEquals(4102444800000L, client.call("PEXPIRETIME", "withttl"));
      assertEquals(-1L, client.call("PEXPIRETIME", "small"));
      assertEquals(0L, client.call("EXISTS", "plainstring"));
      client.call("SELECT", "1");
      assertEquals(1L, client.call("EXISTS", "indb1"));

      CliRun again = CliRun.run("import-rdb", file.toString(), "--to", to);
      assertEquals(2, again.exitCode, again.toString());
      assertTrue(
          again.err.contains(
              "refused key 'small' of database 0: BUSYKEY Target key name already exists."
                  + " (--replace replaces it)"),
          again.err);
      assertEquals(0, CliRun.run("import-rdb", file.toString(), "--to", to, "--replace").exitCode);
    }
  }

  @Test
  void importRdb_corruptFile_namesTheProblem() throws IOException {
    Path file = recorded();
    byte[] rdb = Files.readAllBytes(file);
    rdb[rdb.length - 1] ^= 1;
    Files.write(file, rdb);
    CliRun run = CliRun.run("import-rdb", file.toString());
    assertEquals(2, run.exitCode, run.toString());
    assertTrue(run.err.contains("is not a readable RDB file: RDB CRC64 at offset 1338"), run.err);
    CliRun missing = CliRun.run("import-rdb", dir.resolve("none.rdb").toString());
    assertEquals(2, missing.exitCode);
    assertTrue(missing.err.contains("no such file"), missing.err);
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
