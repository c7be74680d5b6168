package dev.cuckoo.examples.logstore;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class LogStoreCommandTest {
  private static final long SEED = 60_000L;

  @TempDir Path dir;

  @Test
  void importThenExport_sixtyThousandLineText_isByteIdentical() throws IOException {
    Path input = dir.resolve("input.txt");
    Files.write(input, generatedText(60_000, new Random(SEED)));
    Path store = dir.resolve("store.log");
    Path output = dir.resolve("output.txt");

    Result imported = run("import", input.toString(), store.toString());
    assertEquals(0, imported.exitCode, imported.err);
    System.out.print(imported.out);
    long sectors = (Files.size(input) + 1023) / 1024;
    assertTrue(imported.out.contains(" " + sectors + " sectors"), imported.out);

    Result exported = run("export", store.toString(), output.toString());
    assertEquals(0, exported.exitCode, exported.err);
    assertArrayEquals(Files.readAllBytes(input), Files.readAllBytes(output), "seed " + SEED);
  }

  @Test
  void importThenExport_repeatedAndShortSectors_isByteIdentical() throws IOException {
    byte[] repeated = new byte[1024 * 5 + 7];
    for (int i = 0; i < repeated.length; i++) {
      repeated[i] = (byte) (i < 3 * 1024 ? 'a' : i);
    }
    for (byte[] content : new byte[][] {new byte[0], new byte[1], repeated}) {
      Path input = dir.resolve("input.bin");
      Files.write(input, content);
      Path store = dir.resolve("store.log");
      Path output = dir.resolve("output.bin");
      assertEquals(0, run("import", input.toString(), store.toString()).exitCode);
      assertEquals(0, run("export", store.toString(), output.toString()).exitCode);
      assertArrayEquals(content, Files.readAllBytes(output), content.length + " bytes");
    }
    try (LogStore store = LogStore.open(dir.resolve("store.log"))) {
      // Sectors 0-2 are all 'a', sectors 3 and 4 both count 0..255 four times, sector 5 has 7
      // bytes: 3 distinct, plus the 1-byte file's sector, the manifest and one manifest chunk.
      assertEquals(3 + 1 + 2, store.size());
    }
  }

  @Test
  void export_sectorChangedInStore_failsWithoutWritingWrongData() throws Exception {
    Path input = dir.resolve("input.txt");
    Files.write(input, generatedText(100, new Random(SEED)));
    Path store = dir.resolve("store.log");
    assertEquals(0, run("import", input.toString(), store.toString()).exitCode);
    byte[] firstSector = java.util.Arrays.copyOf(Files.readAllBytes(input), 1024);
    byte[] key = java.security.MessageDigest.getInstance("SHA-1").digest(firstSector);
    try (LogStore logStore = LogStore.open(store)) {
      logStore.put(key, new byte[1024]);
    }
    Result exported = run("export", store.toString(), dir.resolve("out").toString());
    assertEquals(LogStoreCommand.EXIT_FAILURE, exported.exitCode);
    assertTrue(exported.err.contains("does not match its SHA-1"), exported.err);
  }

  @Test
  void commands_badPaths_failWithMessageAndTouchNothing() throws IOException {
    Path text = dir.resolve("notes.txt");
    Files.write(text, "not a store\n".getBytes(UTF_8));

    Result missing = run("import", dir.resolve("nope").toString(), dir.resolve("s").toString());
    assertEquals(LogStoreCommand.EXIT_FAILURE, missing.exitCode);
    assertTrue(missing.err.contains("no such file"), missing.err);

    Result notStore = run("export", text.toString(), dir.resolve("out").toString());
    assertEquals(LogStoreCommand.EXIT_FAILURE, notStore.exitCode);
    assertTrue(notStore.err.contains("not a log store file"), notStore.err);

    Result swapped = run("import", text.toString(), text.toString());
    assertEquals(LogStoreCommand.EXIT_FAILURE, swapped.exitCode);
    assertArrayEquals("not a store\n".getBytes(UTF_8), Files.readAllBytes(text));

    Result empty = run("export", dir.resolve("new.log").toString(), dir.resolve("o").toString());
    assertEquals(LogStoreCommand.EXIT_FAILURE, empty.exitCode);

    Path emptyStore = dir.resolve("empty.log");
    LogStore.open(emptyStore).close();
    Result noFile = run("export", emptyStore.toString(), dir.resolve("o").toString());
    assertEquals(LogStoreCommand.EXIT_FAILURE, noFile.exitCode);
    assertTrue(noFile.err.contains("holds no imported file"), noFile.err);

    assertEquals(CommandLine.ExitCode.USAGE, run().exitCode);
    assertEquals(CommandLine.ExitCode.USAGE, run("import", "only-one-arg").exitCode);
  }

  /** Lines of random words, with repeats, as a text file of {@code lines} lines. */
  static byte[] generatedText(int lines, Random random) {
    String[] words = {"cuckoo", "filter", "bucket", "fingerprint", "kick", "log", "sector", "é"};
    StringBuilder text = new StringBuilder();
    for (int line = 0; line < lines; line++) {
      text.append(line).append(':');
      int count = random.nextInt(8);
      for (int i = 0; i < count; i++) {
        text.append(' ').append(words[random.nextInt(words.length)]);
      }
      text.append('\n');
    }
    return text.toString().getBytes(UTF_8);
  }

  private static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine command = new CommandLine(new LogStoreCommand());
    command.setOut(new PrintWriter(out));
    command.setErr(new PrintWriter(err));
    int exitCode = command.execute(args);
    return new Result(exitCode, out.toString(), err.toString());
  }

  private static final class Result {
    final int exitCode;
    final String out;
    final String err;

    Result(int exitCode, String out, String err) {
      this.exitCode = exitCode;
      this.out = out;
      this.err = err;
    }
  }
}
