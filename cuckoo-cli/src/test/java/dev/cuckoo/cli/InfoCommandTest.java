package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.FilterFile;
import dev.cuckoo.ItemHashers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InfoCommandTest {
  @TempDir Path dir;

  private Path libraryFilter() throws IOException {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(10_000)
            .falsePositiveRate(0.01)
            .seed(5)
            .build();
    for (int i = 0; i < 7_000; i++) {
      filter.add("item" + i);
    }
    Path path = dir.resolve("f.cuckoo");
    filter.writeTo(path);
    return path;
  }

  @Test
  void info_text_showsParametersOfTheFile() throws IOException {
    Path path = libraryFilter();
    CuckooFilter<CharSequence> filter = CuckooFilter.readFrom(path, ItemHashers.utf8());
    CliRun run = CliRun.run("info", path.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains("scheme:"), run.out);
    assertTrue(run.out.matches("(?s).*\nitems: +7,000\n.*"), run.out);
    assertTrue(
        run.out.matches("(?s).*\nfingerprint bits: +" + filter.fingerprintBits() + "\n.*"),
        run.out);
    assertTrue(run.out.matches("(?s).*\nhasher: +utf8 \\(XXH3-64\\)\n.*"), run.out);
    assertTrue(run.out.matches("(?s).*\nseed: +5\n.*"), run.out);
    assertTrue(run.out.contains(Text.percent(filter.loadFactor())), run.out);
  }

  @Test
  void info_json_valuesMatchTheLibrary() throws IOException {
    Path path = libraryFilter();
    CuckooFilter<CharSequence> filter = CuckooFilter.readFrom(path, ItemHashers.utf8());
    CliRun run = CliRun.run("info", path.toString(), "--json");
    assertEquals(0, run.exitCode, run.toString());
    String json = run.out;
    assertTrue(json.startsWith("{\n") && json.endsWith("}\n"), json);
    assertEquals(7000, (long) number(json, "items"));
    assertEquals(filter.capacity(), (long) number(json, "capacity"));
    assertEquals(filter.bucketCount(), (long) number(json, "buckets"));
    assertEquals(Files.size(path), (long) number(json, "fileBytes"));
    assertEquals(filter.loadFactor(), number(json, "load"), 1e-12);
    assertEquals(
        filter.expectedFalsePositiveRate(), number(json, "expectedFalsePositiveRate"), 1e-15);
    assertTrue(json.contains("\"scheme\": \"STANDARD_FAST\""), json);
  }

  @Test
  void info_singleRedisBloomFile_typeIsTheClassItLoadsAs() throws IOException {
    List<String> items = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      items.add("r" + i);
    }
    Path path = TestFilters.build(dir, "single-redis", items, "--scheme", "redisbloom");
    FilterFile<byte[]> file = FilterFiles.readFile(path);
    assertFalse(file.isChain(), "a single-filter file");
    String loadsAs = file.filter().getClass().getSimpleName();
    assertEquals("RedisCuckooFilter", loadsAs);
    CliRun text = CliRun.run("info", path.toString());
    assertEquals(0, text.exitCode, text.toString());
    assertTrue(text.out.matches("(?s)(.*\n)?type: +" + loadsAs + "\n.*"), text.out);
    CliRun json = CliRun.run("info", path.toString(), "--json");
    assertEquals(0, json.exitCode, json.toString());
    assertTrue(json.out.contains("\"type\": \"" + loadsAs + "\""), json.out);
    assertTrue(json.out.contains("\"scheme\": \"REDISBLOOM\""), json.out);
    // and a library file's single filter is what it loads as, too
    CliRun library = CliRun.run("info", libraryFilter().toString());
    assertTrue(library.out.matches("(?s)(.*\n)?type: +CuckooFilter\n.*"), library.out);
  }

  private static double number(String json, String key) {
    Matcher matcher = Pattern.compile("\"" + key + "\": ([-0-9.E]+)[,\n]").matcher(json);
    assertTrue(matcher.find(), key + " in " + json);
    return Double.parseDouble(matcher.group(1));
  }

  @Test
  void info_missingOrCorrupt_exit2() throws IOException {
    CliRun missing = CliRun.run("info", dir.resolve("nope").toString());
    assertEquals(ExitCode.ERROR, missing.exitCode);
    assertTrue(missing.err.contains("no such file"), missing.err);
    Path text = dir.resolve("t.txt");
    Files.writeString(text, "0123456789012345678901234567890");
    CliRun notFilter = CliRun.run("info", text.toString(), "--json");
    assertEquals(ExitCode.ERROR, notFilter.exitCode);
    assertEquals("", notFilter.out);
    assertTrue(notFilter.err.contains("is not a cuckoo filter file"), notFilter.err);
    CliRun noFile = CliRun.run("info");
    assertEquals(ExitCode.ERROR, noFile.exitCode);
    assertTrue(noFile.err.contains("Missing required parameter"), noFile.err);
  }

  @Test
  void info_serverSnapshotOrLog_saysWhatItIsAndHowToReadIt() throws Exception {
    Path data = dir.resolve("data");
    try (dev.cuckoo.server.CuckooServer server =
            dev.cuckoo.server.CuckooServer.start(
                dev.cuckoo.server.ServerConfig.builder()
                    .port(TestFiles.freePort())
                    .dir(data)
                    .build());
        RespClient client = new RespClient("127.0.0.1", server.port(), 10_000)) {
      assertEquals("OK", client.call("CF.RESERVE", "seen", "1000"));
      assertEquals("OK", client.call("CF.RESERVE", "other", "1000"));
      assertEquals("OK", client.call("SAVE"));
    }
    CliRun snapshot = CliRun.run("info", data.resolve("dump.cuckoo").toString());
    assertEquals(ExitCode.ERROR, snapshot.exitCode, snapshot.toString());
    assertEquals(1, snapshot.errLines().length, snapshot.err);
    assertTrue(snapshot.err.contains("is a cuckoo-server snapshot (2 keys)"), snapshot.err);
    assertTrue(snapshot.err.contains("cuckoo import --key KEY"), snapshot.err);
    CliRun log = CliRun.run("info", data.resolve("appendonly.log").toString());
    assertEquals(ExitCode.ERROR, log.exitCode, log.toString());
    assertTrue(log.err.contains("is a cuckoo-server append-only log"), log.err);
  }
}
