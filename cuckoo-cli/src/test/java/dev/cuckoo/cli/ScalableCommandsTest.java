package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.AddOutcome;
import dev.cuckoo.FilterFormatException;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.ScalableCuckooFilter;
import dev.cuckoo.Scheme;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** build --scalable, and info, query and export on chain files. */
class ScalableCommandsTest {
  @TempDir Path dir;

  private static <T> ScalableCuckooFilter<T> readChain(
      Path path, dev.cuckoo.ItemHasher<? super T> hasher) throws IOException {
    try (InputStream in = Files.newInputStream(path)) {
      return ScalableCuckooFilter.readFrom(in, hasher);
    }
  }

  private static <T> RedisCuckooFilter<T> readRedisChain(
      Path path, dev.cuckoo.ItemHasher<? super T> hasher) throws IOException {
    try (InputStream in = Files.newInputStream(path)) {
      return RedisCuckooFilter.readFrom(in, hasher);
    }
  }

  @Test
  void buildScalable_standardFarBeyondExpected_growsAndKeepsTheRate() throws IOException {
    List<String> words = BuildCommandTest.words(20_000, "s");
    Path path =
        TestFilters.build(dir, "s", words, "--scalable", "--expected", "1000", "--fpp", "0.001");
    ScalableCuckooFilter<CharSequence> chain = readChain(path, ItemHashers.utf8());
    assertEquals(Scheme.STANDARD, chain.scheme());
    // 1000 + 2000 + ... + 16000 = 31000 >= 20000 > 15000: five links
    assertEquals(5, chain.linkCount());
    assertTrue(chain.size() >= 19_900 && chain.size() <= 20_000, "size " + chain.size());
    for (String word : words) {
      assertTrue(chain.mightContain(word), word);
    }
    // the chain's rate is at most 0.001: at most 20 of 20,000 absent items expected; 50 is more
    // than 6 standard deviations above that
    int falsePositives = 0;
    for (String absent : BuildCommandTest.words(20_000, "absent")) {
      falsePositives += chain.mightContain(absent) ? 1 : 0;
    }
    assertTrue(falsePositives <= 50, "false positives " + falsePositives);
  }

  @Test
  void buildScalable_redisbloom_sameBytesAsTheLibraryChain() throws IOException {
    List<String> words = BuildCommandTest.words(3000, "r");
    Path path =
        TestFilters.build(
            dir,
            "r",
            words,
            "--scheme",
            "redisbloom",
            "--scalable",
            "--expected",
            "500",
            "--expansion",
            "2");
    RedisCuckooFilter<byte[]> reference = RedisCuckooFilter.reserve(500, 2, 20, 2);
    for (String word : words) {
      assertEquals(AddOutcome.ADDED, reference.tryAdd(word.getBytes(StandardCharsets.UTF_8)));
    }
    assertTrue(reference.linkCount() >= 3, "links " + reference.linkCount());
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    reference.writeTo(expected);
    assertArrayEquals(expected.toByteArray(), Files.readAllBytes(path));
    // as --help says: the file records redisBytes, and the library reads it with that hasher
    assertEquals(reference.size(), readRedisChain(path, ItemHashers.redisBytes()).size());
    assertThrows(FilterFormatException.class, () -> readRedisChain(path, ItemHashers.redisUtf8()));
  }

  @Test
  void build_duplicates_redisbloomKeepsByDefaultStandardSkips() throws IOException {
    List<String> lines = List.of("a", "a", "b", "a");
    String[][] cases = {
      {"2", "--scheme", "standard"},
      {"4", "--scheme", "standard", "--keep-duplicates"},
      {"4", "--scheme", "redisbloom"},
      {"2", "--scheme", "redisbloom", "--skip-duplicates"},
      {"4", "--scheme", "redisbloom", "--scalable"},
      {"2", "--scheme", "standard", "--scalable"},
    };
    for (String[] c : cases) {
      // room for three copies of "a" in its two buckets besides "b"
      List<String> options = new ArrayList<>(Arrays.asList(c).subList(1, c.length));
      options.addAll(List.of("--expected", "100"));
      Path path = TestFilters.build(dir, "d", lines, options.toArray(new String[0]));
      CliRun info = CliRun.run("info", "--json", path.toString());
      assertEquals(0, info.exitCode, info.toString());
      assertTrue(info.out.contains("\"items\": " + c[0] + ","), options + ": " + info.out);
    }
  }

  @Test
  void infoAndQuery_chainFile_reportLinksAndAnswer() throws IOException {
    List<String> words = BuildCommandTest.words(5000, "q");
    Path path = TestFilters.build(dir, "q", words, "--scalable", "--expected", "1000");
    ScalableCuckooFilter<CharSequence> chain = readChain(path, ItemHashers.utf8());
    CliRun info = CliRun.run("info", path.toString());
    assertEquals(0, info.exitCode, info.toString());
    assertTrue(info.out.matches("(?s).*\ntype: +ScalableCuckooFilter\n.*"), info.out);
    assertTrue(info.out.matches("(?s).*\nlinks: +" + chain.linkCount() + "\n.*"), info.out);
    assertTrue(info.out.matches("(?s).*\nitems: +" + Text.count(chain.size()) + "\n.*"), info.out);
    assertTrue(info.out.contains(Text.percent(chain.falsePositiveRateAtCapacity())), info.out);
    CliRun json = CliRun.run("info", "--json", path.toString());
    assertTrue(json.out.contains("\"links\": " + chain.linkCount() + ","), json.out);
    assertTrue(json.out.contains("\"bitsPerItemAtCapacity\": " + chain.bitsPerItem()), json.out);

    CliRun hits = CliRun.run("query", "--filter", path.toString(), "q1", "q4999", "q2500");
    assertEquals(0, hits.exitCode, hits.toString());
    CliRun miss = CliRun.run("query", "--filter", path.toString(), "q1", "definitely-not-there");
    assertEquals(chain.mightContain("definitely-not-there") ? 0 : 1, miss.exitCode, miss.out);
    assertTrue(miss.out.contains("q1"), miss.out);
  }

  @Test
  void export_redisbloomChain_chunksOfTheLibraryScanDump() throws IOException {
    Path path =
        TestFilters.build(
            dir,
            "e",
            BuildCommandTest.words(2000, "e"),
            "--scheme",
            "redisbloom",
            "--scalable",
            "--expected",
            "300");
    RedisCuckooFilter<byte[]> chain = readRedisChain(path, ItemHashers.redisBytes());
    assertTrue(chain.linkCount() > 1, "links " + chain.linkCount());
    CliRun run = CliRun.run("export", "--format", "scandump", path.toString());
    assertEquals(0, run.exitCode, run.toString());
    List<ExportCommandTest.Chunk> chunks = ExportCommandTest.parseScandump(run.binary);
    long iterator = 0;
    for (ExportCommandTest.Chunk chunk : chunks) {
      dev.cuckoo.ScanDumpChunk expected = chain.scanDump(iterator);
      assertEquals(expected.iterator(), chunk.iterator);
      assertArrayEquals(expected.data(), chunk.data);
      iterator = chunk.iterator;
    }
    assertEquals(0, chain.scanDump(iterator).iterator(), "every chunk exported");
    assertEquals(1 + chain.linkCount(), chunks.size());
  }

  @Test
  void chainFile_corruptTruncatedOrTrailing_oneLineExit2() throws IOException {
    Path path =
        TestFilters.build(
            dir, "c", BuildCommandTest.words(3000, "c"), "--scalable", "--expected", "1000");
    byte[] good = Files.readAllBytes(path);
    byte[] flipped = good.clone();
    flipped[good.length / 2] ^= 0x10;
    byte[] badHeader = good.clone();
    badHeader[16] = 0x7f; // linkCount far beyond the links present
    byte[][] corrupt = {
      flipped,
      Arrays.copyOf(good, good.length - 9),
      Arrays.copyOf(good, good.length + 3),
      badHeader,
    };
    for (byte[] bytes : corrupt) {
      Path bad = dir.resolve("bad.cuckoo");
      Files.write(bad, bytes);
      for (String[] args :
          new String[][] {
            {"info", bad.toString()},
            {"query", "--filter", bad.toString(), "c1"},
            {"export", "--format", "scandump", bad.toString()},
          }) {
        CliRun run = CliRun.run(args);
        assertEquals(ExitCode.ERROR, run.exitCode, Arrays.toString(args) + run);
        assertEquals(1, run.errLines().length, run.err);
        assertTrue(run.err.contains(bad + " is corrupt"), run.err);
        assertFalse(run.err.contains("Exception"), run.err);
      }
    }
  }

  @Test
  void export_standardChain_exit2() throws IOException {
    Path path = TestFilters.build(dir, "st", List.of("a", "b"), "--scalable");
    CliRun run = CliRun.run("export", "--key", "k", path.toString());
    assertEquals(ExitCode.ERROR, run.exitCode, run.toString());
    assertEquals(1, run.errLines().length, run.err);
    assertTrue(run.err.contains("only REDISBLOOM filters can be loaded"), run.err);
  }

  @Test
  void buildScalable_badOptions_oneLineExit2() throws IOException {
    Path input = dir.resolve("i.txt");
    Files.write(input, List.of("a", "b"));
    String[][] cases = {
      {"--fingerprint-bits does not apply to --scalable", "--scalable", "--fingerprint-bits", "8"},
      {"--growth-factor needs --scalable", "--growth-factor", "2"},
      {
        "--growth-factor needs --scalable",
        "--scalable",
        "--scheme",
        "redisbloom",
        "--growth-factor",
        "2"
      },
      {"--growth-factor: 1.0 (expected: 1.1 to 64)", "--scalable", "--growth-factor", "1"},
      {"--expansion needs --scalable and --scheme redisbloom", "--scalable", "--expansion", "2"},
      {
        "--expansion: 0 (expected: 1 to 32768",
        "--scalable",
        "--scheme",
        "redisbloom",
        "--expansion",
        "0"
      },
      {
        "--max-kicks: 0 (expected: 1 to 65535",
        "--scalable",
        "--scheme",
        "redisbloom",
        "--max-kicks",
        "0"
      },
      {"mutually exclusive", "--keep-duplicates", "--skip-duplicates"},
    };
    for (String[] c : cases) {
      List<String> args =
          new ArrayList<>(List.of("build", "--input", input.toString(), "-o", "o.cuckoo"));
      args.addAll(Arrays.asList(c).subList(1, c.length));
      CliRun run = CliRun.run(args.toArray(new String[0]));
      assertEquals(ExitCode.ERROR, run.exitCode, args + "\n" + run);
      assertEquals(1, run.errLines().length, run.err);
      assertTrue(run.err.contains(c[0]), c[0] + " in " + run.err);
    }
  }

  @Test
  void buildHelp_documentsScalableAndDuplicateDefaults() {
    CliRun run = CliRun.run("build", "--help");
    assertEquals(0, run.exitCode, run.toString());
    String help = run.out.replaceAll("\\s+", " ");
    assertTrue(help.contains("--scalable"), help);
    assertTrue(help.contains("With --scheme redisbloom every line is stored, as CF.ADD"), help);
    assertTrue(help.contains("(default for redisbloom)"), help);
    assertTrue(help.contains("(default for standard)"), help);
    assertTrue(help.contains("(default 1, as Redis)"), help);
  }

  @Test
  void buildScalable_standardInputWithoutExpected_startsAt1024() {
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 3000; i++) {
      lines.append("in").append(i).append('\n');
    }
    Path path = dir.resolve("stdin.cuckoo");
    CliRun run =
        CliRun.runWithInput(
            lines.toString(), "build", "--input", "-", "--scalable", "-o", path.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.contains(" links, "), run.out);
    CliRun info = CliRun.run("info", "--json", path.toString());
    // 1024 + 2048 >= 3000: two links
    assertTrue(info.out.contains("\"links\": 2,"), info.out);
  }
}
