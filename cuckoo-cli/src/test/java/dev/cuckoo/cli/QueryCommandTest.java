package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHasher;
import dev.cuckoo.ItemHashers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueryCommandTest {
  @TempDir Path dir;
  private Path filter;
  private List<String> words;

  @BeforeEach
  void buildFilter() throws IOException {
    words = BuildCommandTest.words(2000, "q");
    Path input = dir.resolve("words.txt");
    Files.write(input, words, StandardCharsets.UTF_8);
    filter = dir.resolve("q.cuckoo");
    CliRun run = CliRun.run("build", "--input", input.toString(), "--output", filter.toString());
    assertEquals(0, run.exitCode, run.toString());
  }

  @Test
  void query_allPresent_exit0AndMaybeLines() {
    CliRun run = CliRun.run("query", "--filter", filter.toString(), "q1", "q7-ünïcödé", "q1999");
    assertEquals(ExitCode.OK, run.exitCode, run.toString());
    assertEquals("maybe\tq1\nmaybe\tq7-ünïcödé\nmaybe\tq1999\n", run.out);
  }

  @Test
  void query_someAbsent_exit1() {
    // at 13-bit fingerprints a given absent item is a false positive with probability ~0.1%
    CliRun run = CliRun.run("query", "--filter", filter.toString(), "q5", "absent-item-xyz");
    assertEquals(ExitCode.SOME_ABSENT, run.exitCode, run.toString());
    assertEquals("maybe\tq5\nno\tabsent-item-xyz\n", run.out);
  }

  @Test
  void query_hits_printsOnlyHits() {
    CliRun run =
        CliRun.run("query", "--filter", filter.toString(), "--hits", "nope-1", "q3", "nope-2");
    assertEquals(ExitCode.SOME_ABSENT, run.exitCode);
    assertEquals("q3\n", run.out);
  }

  @Test
  void query_inputFileAndStdin_everyPresentItemMaybe() throws IOException {
    Path candidates = dir.resolve("c.txt");
    Files.write(candidates, words, StandardCharsets.UTF_8);
    CliRun file =
        CliRun.run("query", "--filter", filter.toString(), "--input", candidates.toString());
    assertEquals(ExitCode.OK, file.exitCode, file.err);
    assertEquals(words.size(), file.out.split("\n").length);
    assertTrue(file.out.startsWith("maybe\tq0-ünïcödé\nmaybe\tq1\n"), file.out);
    CliRun stdin =
        CliRun.runWithInput(
            "q10\r\n\r\nnot-there-at-all\n",
            "query",
            "--filter",
            filter.toString(),
            "--input",
            "-");
    assertEquals(ExitCode.SOME_ABSENT, stdin.exitCode, stdin.toString());
    assertEquals("maybe\tq10\nno\tnot-there-at-all\n", stdin.out);
  }

  @Test
  void query_absentItems_falsePositivesWithinBinomialBound() {
    StringBuilder absent = new StringBuilder();
    int n = 20_000;
    for (int i = 0; i < n; i++) {
      absent.append("absent-").append(i).append('\n');
    }
    CliRun run =
        CliRun.runWithInput(
            absent.toString(), "query", "--filter", filter.toString(), "--input", "-", "--hits");
    assertEquals(ExitCode.SOME_ABSENT, run.exitCode);
    long hits = run.out.isEmpty() ? 0 : run.out.split("\n").length;
    // expected rate <= 2·4·load / (2^13 − 1) <= 0.00098; mean <= 19.6; P(X > 45) < 1e-6
    assertTrue(hits <= 45, "false positives " + hits);
  }

  @Test
  void query_hexFormat_decodesArguments() {
    String hex = "7131"; // "q1"
    CliRun run = CliRun.run("query", "--filter", filter.toString(), "--format", "hex", hex);
    assertEquals(ExitCode.OK, run.exitCode, run.toString());
    assertEquals("maybe\t7131\n", run.out);
    CliRun bad = CliRun.run("query", "--filter", filter.toString(), "--format", "hex", "zz");
    assertEquals(ExitCode.ERROR, bad.exitCode);
    assertTrue(bad.err.contains("argument 'zz' is not valid hex"), bad.err);
  }

  @Test
  void query_missingInputFile_exit2BeforePrintingAnything() {
    CliRun run =
        CliRun.run(
            "query", "--filter", filter.toString(), "q1", "--input", dir.resolve("x").toString());
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertEquals("", run.out);
    assertTrue(run.err.contains("no such file"), run.err);
  }

  @Test
  void query_noItems_usageError() {
    CliRun run = CliRun.run("query", "--filter", filter.toString());
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertTrue(run.err.contains("no items to look up"), run.err);
  }

  @Test
  void query_missingFilter_exit2() {
    CliRun run = CliRun.run("query", "--filter", dir.resolve("none.cuckoo").toString(), "a");
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertEquals(1, run.errLines().length);
    assertTrue(run.err.contains("no such file: "), run.err);
  }

  @Test
  void query_corruptFilters_exit2WithoutStackTrace() throws IOException {
    byte[] good = Files.readAllBytes(filter);
    byte[] flipped = good.clone();
    flipped[good.length / 2] ^= 0x10;
    Path[] files = {
      write("flipped.cuckoo", flipped),
      write("truncated.cuckoo", java.util.Arrays.copyOf(good, good.length - 9)),
      write("short.cuckoo", java.util.Arrays.copyOf(good, 10)),
      write("text.cuckoo", "hello world, not a filter\n".getBytes(StandardCharsets.UTF_8)),
      write("empty.cuckoo", new byte[0]),
      write("longer.cuckoo", java.util.Arrays.copyOf(good, good.length + 3)),
    };
    String[] expected = {
      "is corrupt",
      "is corrupt",
      "is not a cuckoo filter file",
      "is not a cuckoo filter file",
      "is not a cuckoo filter file",
      "is corrupt"
    };
    for (int i = 0; i < files.length; i++) {
      CliRun run = CliRun.run("query", "--filter", files[i].toString(), "q1");
      assertEquals(ExitCode.ERROR, run.exitCode, files[i] + "\n" + run);
      assertEquals(1, run.errLines().length, run.err);
      assertTrue(run.err.contains(expected[i]), expected[i] + " in " + run.err);
    }
  }

  private Path write(String name, byte[] bytes) throws IOException {
    Path path = dir.resolve(name);
    Files.write(path, bytes);
    return path;
  }

  @Test
  void query_filterBuiltByLibraryWithUtf8_answers() throws IOException {
    CuckooFilter<CharSequence> library =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(100).build();
    library.add("from-the-library");
    Path path = dir.resolve("lib.cuckoo");
    library.writeTo(path);
    CliRun run = CliRun.run("query", "--filter", path.toString(), "from-the-library");
    assertEquals(ExitCode.OK, run.exitCode, run.toString());
  }

  @Test
  void query_filterOfLongsOrCustomHasher_explainsWhy() throws IOException {
    CuckooFilter<Long> longs = CuckooFilter.builder(ItemHashers.longs()).expectedItems(10).build();
    Path longPath = dir.resolve("longs.cuckoo");
    longs.writeTo(longPath);
    CliRun run = CliRun.run("query", "--filter", longPath.toString(), "1");
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertTrue(run.err.contains("holds long keys"), run.err);

    ItemHasher<String> custom = s -> s.length();
    CuckooFilter<String> customFilter = CuckooFilter.builder(custom).expectedItems(10).build();
    Path customPath = dir.resolve("custom.cuckoo");
    customFilter.writeTo(customPath);
    run = CliRun.run("query", "--filter", customPath.toString(), "1");
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertTrue(run.err.contains("custom ItemHasher"), run.err);
  }
}
