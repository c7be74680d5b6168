package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.FilterFormatException;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.Scheme;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BuildCommandTest {
  @TempDir Path dir;

  static List<String> words(int count, String prefix) {
    List<String> words = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      words.add(prefix + i + (i % 7 == 0 ? "-ünïcödé" : ""));
    }
    return words;
  }

  private Path file(String name, List<String> lines) throws IOException {
    Path path = dir.resolve(name);
    Files.write(path, lines, StandardCharsets.UTF_8);
    return path;
  }

  private String path(String name) {
    return dir.resolve(name).toString();
  }

  @Test
  void build_textFile_libraryReadsItWithUtf8Hasher() throws IOException {
    List<String> words = words(5000, "w");
    Path input = file("words.txt", words);
    CliRun run = CliRun.run("build", "--input", input.toString(), "--output", path("w.cuckoo"));
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.startsWith("wrote "), run.out);
    CuckooFilter<CharSequence> filter =
        CuckooFilter.readFrom(dir.resolve("w.cuckoo"), ItemHashers.utf8());
    for (String word : words) {
      assertTrue(filter.mightContain(word), word);
    }
    assertTrue(filter.size() <= 5000 && filter.size() >= 4950, "size " + filter.size());
    assertTrue(filter.capacity() >= 5000, "sized from the line count: " + filter.capacity());
    assertEquals(Scheme.STANDARD_FAST, filter.scheme()); // the library's default
    // --fpp 0.001 by default: 2·4·load / 2^f <= 0.001 needs f >= 13
    assertTrue(filter.fingerprintBits() >= 13, "bits " + filter.fingerprintBits());
  }

  @Test
  void build_stdinWithExpected_readsStandardInput() throws IOException {
    String text = String.join("\n", words(1000, "s")) + "\n";
    CliRun run =
        CliRun.runWithInput(
            text, "build", "--input", "-", "--expected", "2000", "--output", path("s.cuckoo"));
    assertEquals(0, run.exitCode, run.toString());
    CuckooFilter<CharSequence> filter =
        CuckooFilter.readFrom(dir.resolve("s.cuckoo"), ItemHashers.utf8());
    assertTrue(filter.capacity() >= 2000);
    assertTrue(filter.mightContain("s999") && filter.mightContain("s0-ünïcödé"));
  }

  @Test
  void build_stdinWithoutExpected_usageError() {
    CliRun run = CliRun.runWithInput("a\nb\n", "build", "--input", "-", "--output", path("x"));
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertTrue(run.err.contains("--expected is required"), run.err);
    assertFalse(Files.exists(dir.resolve("x")));
  }

  @Test
  void build_duplicates_storedOnceUnlessKept() throws IOException {
    List<String> lines = new ArrayList<>();
    for (int copy = 0; copy < 3; copy++) {
      lines.addAll(words(300, "d"));
    }
    Path input = file("dups.txt", lines);
    CliRun once = CliRun.run("build", "--input", input.toString(), "--output", path("1.cuckoo"));
    CliRun kept =
        CliRun.run(
            "build",
            "--input",
            input.toString(),
            "--output",
            path("3.cuckoo"),
            "--keep-duplicates",
            "--expected",
            "2000");
    assertEquals(0, once.exitCode, once.toString());
    assertEquals(0, kept.exitCode, kept.toString());
    long onceSize = CuckooFilter.readFrom(dir.resolve("1.cuckoo"), ItemHashers.utf8()).size();
    long keptSize = CuckooFilter.readFrom(dir.resolve("3.cuckoo"), ItemHashers.utf8()).size();
    assertTrue(onceSize <= 300 && onceSize >= 295, "once " + onceSize);
    assertEquals(900, keptSize);
    assertTrue(once.out.contains("from 900 lines"), once.out);
    // every line not stored was reported present (a copy, or a false positive), none as full
    assertTrue(
        once.out.contains("(" + (900 - onceSize) + " not stored: repeated, or false positives)"),
        once.out);
    assertTrue(once.out.contains("--keep-duplicates stores every line"), once.out);
    assertTrue(kept.out.contains("(0 not stored"), kept.out);
    assertFalse(kept.out.contains("--keep-duplicates stores"), kept.out);
  }

  @Test
  void build_distinctLinesSomeNotStored_namesFalsePositivesAndKeepDuplicates() throws IOException {
    // distinct lines only: whatever is not stored is a false positive of the filter being built
    Path input = file("distinct.txt", words(200_001, "u"));
    CliRun built = CliRun.run("build", "--input", input.toString(), "--output", path("d.cuckoo"));
    assertEquals(0, built.exitCode, built.toString());
    long size = CuckooFilter.readFrom(dir.resolve("d.cuckoo"), ItemHashers.utf8()).size();
    assertTrue(size < 200_001, "no false positive among 200,001 lines: " + size);
    assertTrue(
        built.out.contains("(" + Text.count(200_001 - size) + " not stored: repeated, or false"),
        built.out);
    assertTrue(built.out.contains("false positives of the filter being built"), built.out);
    assertTrue(built.out.contains("--keep-duplicates stores every line"), built.out);
  }

  @Test
  void build_hexAndBase64_sameHashesAsText() throws IOException {
    List<String> words = words(500, "h");
    List<String> hex = new ArrayList<>();
    List<String> base64 = new ArrayList<>();
    for (String word : words) {
      byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
      hex.add(HexFormat.of().withUpperCase().formatHex(bytes));
      base64.add(Base64.getEncoder().encodeToString(bytes));
    }
    Path text = file("t.txt", words);
    Path hexFile = file("h.txt", hex);
    Path base64File = file("b.txt", base64);
    assertEquals(
        0, CliRun.run("build", "--input", text.toString(), "--output", path("t")).exitCode);
    assertEquals(
        0,
        CliRun.run("build", "--input", hexFile.toString(), "--format", "hex", "--output", path("h"))
            .exitCode);
    assertEquals(
        0,
        CliRun.run(
                "build",
                "--input",
                base64File.toString(),
                "--format",
                "BASE64",
                "--output",
                path("b"))
            .exitCode);
    byte[] textPayload = Files.readAllBytes(dir.resolve("t"));
    byte[] hexPayload = Files.readAllBytes(dir.resolve("h"));
    byte[] base64Payload = Files.readAllBytes(dir.resolve("b"));
    // the same table; only the recorded hasher id (utf8 vs bytes) and the CRC differ
    assertEquals(textPayload.length, hexPayload.length);
    assertArrayEquals(hexPayload, base64Payload);
    int differing = 0;
    for (int i = 0; i < textPayload.length; i++) {
      differing += textPayload[i] != hexPayload[i] ? 1 : 0;
    }
    assertTrue(differing <= 5, "differing bytes " + differing);
    CuckooFilter<byte[]> bytes = CuckooFilter.readFrom(dir.resolve("h"), ItemHashers.bytes());
    assertTrue(bytes.mightContain("h1".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void build_invalidHexLine_namesLineAndWritesNothing() throws IOException {
    Path input = file("bad.hex", List.of("00ff", "", "abc", "12"));
    CliRun run =
        CliRun.run("build", "--input", input.toString(), "--format", "hex", "--output", path("o"));
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertEquals(1, run.errLines().length, run.err);
    assertTrue(run.err.contains("line 3: not valid hexadecimal"), run.err);
    assertFalse(Files.exists(dir.resolve("o")));
  }

  @Test
  void build_invalidBase64Line_exit2() throws IOException {
    Path input = file("bad.b64", List.of("aGVsbG8=", "not base64!"));
    CliRun run =
        CliRun.run(
            "build", "--input", input.toString(), "--format", "base64", "--output", path("o"));
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertTrue(run.err.contains("line 2: not valid Base64"), run.err);
  }

  @Test
  void build_fullFilter_saysHowManyDidNotFitAndKeepsOldFile() throws IOException {
    Path input = file("many.txt", words(20_000, "f"));
    Path output = dir.resolve("full.cuckoo");
    Files.writeString(output, "old contents");
    CliRun run =
        CliRun.run(
            "build",
            "--input",
            input.toString(),
            "--output",
            output.toString(),
            "--expected",
            "5000");
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertEquals(1, run.errLines().length, run.err);
    assertTrue(run.err.contains("the filter is full"), run.err);
    assertTrue(run.err.contains("of 20,000 items had no room"), run.err);
    assertTrue(
        run.err.contains(
            "use --scalable to let it grow, or --expected 22000 or more. Nothing was written."),
        run.err);
    assertEquals("old contents", Files.readString(output));
    try (var files = Files.list(dir)) {
      assertEquals(2, files.count(), "no temporary file left behind");
    }
    // the count is the items after the first failure, less none: at least 20,000 - capacity
    long notFit =
        Long.parseLong(run.err.replaceAll("(?s).*, and ([\\d,]+) of.*", "$1").replace(",", ""));
    assertTrue(notFit >= 20_000 - 5_300 && notFit <= 15_000, "did not fit " + notFit);
  }

  @Test
  void build_redisbloomScheme_writesRedisBloomFilter() throws IOException {
    Path input = file("r.txt", words(1000, "r"));
    CliRun run =
        CliRun.run(
            "build", "--input", input.toString(), "--scheme", "redisbloom", "--output", path("r"));
    assertEquals(0, run.exitCode, run.toString());
    RedisCuckooFilter<CharSequence> filter =
        TestFilters.readSingleRedis(dir.resolve("r"), ItemHashers.redisUtf8());
    assertEquals(Scheme.REDISBLOOM, filter.scheme());
    assertEquals(2, filter.bucketSize());
    assertEquals(8.0, filter.bitsPerItem());
    assertEquals(20, filter.maxKicks());
    assertEquals(
        1024, filter.baseBucketCount(), "nextPowerOfTwo(2 × 1000 / 2), as CF.RESERVE 2000");
    assertTrue(filter.mightContain("r999"));
    // the library reads the file as a RedisCuckooFilter, never as a CuckooFilter
    FilterFormatException e =
        assertThrows(
            FilterFormatException.class,
            () -> CuckooFilter.readFrom(dir.resolve("r"), ItemHashers.redisUtf8()));
    assertTrue(e.getMessage().contains("RedisCuckooFilter.readFrom"), e.getMessage());
    // reported as the single filter it is written as: no links, a single filter's properties
    assertFalse(run.out.contains("links"), run.out);
    assertTrue(run.out.contains("expected false-positive rate"), run.out);
    CliRun info = CliRun.run("info", path("r"));
    assertEquals(0, info.exitCode, info.toString());
    assertTrue(info.out.matches("(?s).*\ntype: +RedisCuckooFilter\n.*"), info.out);
    assertTrue(info.out.matches("(?s).*\nfingerprint bits: +8\n.*"), info.out);
    assertTrue(info.out.matches("(?s).*\nbuckets: +1,?024\n.*"), info.out);
    assertTrue(info.out.matches("(?s).*\nseed: +0\n.*"), info.out);
    assertFalse(info.out.contains("links"), info.out);
  }

  @Test
  void build_fingerprintBitsAndBucketSize_applied() throws IOException {
    Path input = file("p.txt", words(100, "p"));
    CliRun run =
        CliRun.run(
            "build",
            "--input",
            input.toString(),
            "--output",
            path("p"),
            "--fingerprint-bits",
            "16",
            "--bucket-size",
            "8",
            "--max-kicks",
            "100",
            "--seed",
            "99");
    assertEquals(0, run.exitCode, run.toString());
    CuckooFilter<CharSequence> filter = CuckooFilter.readFrom(dir.resolve("p"), ItemHashers.utf8());
    assertEquals(16, filter.fingerprintBits());
    assertEquals(8, filter.bucketSize());
    assertEquals(100, filter.maxKicks());
    assertEquals(99, filter.seed());
  }

  @Test
  void build_badOrConflictingOptions_oneLineExit2() throws IOException {
    Path input = file("i.txt", List.of("a", "b"));
    String[][] cases = {
      {"--fpp: 0.0 (expected: 0 < fpp < 1)", "--fpp", "0"},
      {"'abc' is not a double", "--fpp", "abc"},
      {"--fingerprint-bits: 40 (expected: 4 to 32)", "--fingerprint-bits", "40"},
      {"--bucket-size: 3 (expected: 2, 4 or 8)", "--bucket-size", "3"},
      {"--expected: 0 (expected: at least 1)", "--expected", "0"},
      {"--expected: -5 (expected: at least 1)", "--expected", "-5"},
      {"--max-kicks: -1 (expected: 0 to", "--max-kicks", "-1"},
      {"Invalid value for option '--scheme'", "--scheme", "bloom"},
      {"Invalid value for option '--format'", "--format", "csv"},
      {"mutually exclusive", "--fpp", "0.01", "--fingerprint-bits", "8"},
      {"--fpp does not apply to --scheme redisbloom", "--scheme", "redisbloom", "--fpp", "0.01"},
      {"--seed does not apply to --scheme redisbloom", "--scheme", "redisbloom", "--seed", "1"},
      {"(expected: 1 to 255 for redisbloom)", "--scheme", "redisbloom", "--bucket-size", "256"},
      {
        "--max-kicks: 0 (expected: 1 to 65535 for redisbloom)",
        "--scheme",
        "redisbloom",
        "--max-kicks",
        "0"
      },
    };
    for (String[] c : cases) {
      List<String> args =
          new ArrayList<>(List.of("build", "--input", input.toString(), "--output", path("o")));
      args.addAll(List.of(c).subList(1, c.length));
      CliRun run = CliRun.run(args.toArray(new String[0]));
      assertEquals(ExitCode.ERROR, run.exitCode, args + "\n" + run);
      assertEquals(1, run.errLines().length, run.err);
      assertTrue(run.err.contains(c[0]), c[0] + " in " + run.err);
      assertFalse(Files.exists(dir.resolve("o")));
    }
  }

  @Test
  void build_missingInputOrDirectory_exit2() {
    CliRun missing = CliRun.run("build", "--input", path("nope.txt"), "--output", path("o"));
    assertEquals(ExitCode.ERROR, missing.exitCode);
    assertTrue(missing.err.contains("no such file: "), missing.err);
    CliRun directory = CliRun.run("build", "--input", dir.toString(), "--output", path("o"));
    assertEquals(ExitCode.ERROR, directory.exitCode);
    assertTrue(directory.err.contains("is a directory"), directory.err);
    CliRun required = CliRun.run("build", "--output", path("o"));
    assertEquals(ExitCode.ERROR, required.exitCode);
    assertTrue(required.err.contains("Missing required option: '--input=FILE|-'"), required.err);
  }

  @Test
  void build_outputDirectoryMissing_exit2() throws IOException {
    String in = file("i.txt", List.of("a")).toString();
    CliRun run = CliRun.run("build", "--input", in, "--output", path("no/such/dir/o.cuckoo"));
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertEquals(1, run.errLines().length, run.err);
    assertTrue(run.err.contains("cannot write"), run.err);
  }

  @Test
  void build_expectedTooLargeForTheHeap_exit2WithAdvice() throws IOException {
    Path input = file("one.txt", List.of("a"));
    // 10^10 items need about 17 GB of table: far beyond the test JVM's heap
    CliRun run =
        CliRun.run(
            "build",
            "--input",
            input.toString(),
            "--output",
            path("o"),
            "--expected",
            "10000000000");
    assertEquals(ExitCode.ERROR, run.exitCode, run.toString());
    assertEquals(1, run.errLines().length, run.err);
    assertTrue(run.err.contains("needs more memory than this JVM's heap"), run.err);
    assertFalse(Files.exists(dir.resolve("o")));
  }

  @Test
  void build_emptyInput_writesEmptyFilter() throws IOException {
    Path input = file("empty.txt", List.of());
    CliRun run = CliRun.run("build", "--input", input.toString(), "--output", path("e"));
    assertEquals(0, run.exitCode, run.toString());
    assertEquals(0, CuckooFilter.readFrom(dir.resolve("e"), ItemHashers.utf8()).size());
  }

  @Test
  void build_newOutput_readableFilterWithPlainFilePermissions() throws IOException {
    TestFiles.assumePosix(dir);
    Path input = file("m.txt", words(1000, "m"));
    CliRun run = CliRun.run("build", "--input", input.toString(), "--output", path("m.cuckoo"));
    assertEquals(0, run.exitCode, run.toString());
    Path output = dir.resolve("m.cuckoo");
    assertTrue(CuckooFilter.readFrom(output, ItemHashers.utf8()).mightContain("m999"));
    assertEquals(TestFiles.plainPermissions(dir), Files.getPosixFilePermissions(output));
    assertEquals(Set.of("m.txt", "m.cuckoo"), TestFiles.names(dir));
  }

  @Test
  void build_existingOutput_replacedKeepingItsPermissions() throws IOException {
    TestFiles.assumePosix(dir);
    Path input = file("m.txt", words(1000, "m"));
    Path output = dir.resolve("m.cuckoo");
    Files.writeString(output, "old contents");
    Files.setPosixFilePermissions(output, PosixFilePermissions.fromString("rw-r-----"));
    CliRun run = CliRun.run("build", "--input", input.toString(), "--output", output.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(CuckooFilter.readFrom(output, ItemHashers.utf8()).mightContain("m999"));
    assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(output)));
  }

  @Test
  void build_staleTempFileOfKilledRun_removed() throws Exception {
    Path input = file("m.txt", words(1000, "m"));
    Path output = dir.resolve("m.cuckoo");
    Path stale =
        TestFiles.tempFile(
            output, TestFiles.endedPid(), "00c0ffee00c0ffee", TempFiles.STALE_AFTER.plusSeconds(5));
    CliRun run = CliRun.run("build", "--input", input.toString(), "--output", output.toString());
    assertEquals(0, run.exitCode, run.toString());
    assertFalse(Files.exists(stale));
    assertEquals(Set.of("m.txt", "m.cuckoo"), TestFiles.names(dir));
  }

  @Test
  void readFrom_libraryRejectsWrongHasher_soIdsMatter() throws IOException {
    Path input = file("x.txt", List.of("a"));
    CliRun.run("build", "--input", input.toString(), "--output", path("x"));
    try {
      CuckooFilter.readFrom(dir.resolve("x"), ItemHashers.longs());
      throw new AssertionError("read with the wrong hasher");
    } catch (FilterFormatException expected) {
      assertTrue(expected.getMessage().contains("hasher"), expected.getMessage());
    }
  }
}
