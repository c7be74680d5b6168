package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CuckooCliTest {
  @Test
  void version_printsProjectVersionAndJava() {
    CliRun run = CliRun.run("--version");
    assertEquals(0, run.exitCode, run.toString());
    assertTrue(run.out.matches("(?s)cuckoo \\d+\\.\\d+\\.\\d+.*\nJava 17.*"), run.out);
  }

  @Test
  void help_everyCommand_hasExamples() {
    CliRun top = CliRun.run("--help");
    assertEquals(0, top.exitCode, top.toString());
    for (String command : CuckooCli.commandLine(new CuckooCli()).getSubcommands().keySet()) {
      if (command.equals("help")) {
        continue;
      }
      CliRun run = CliRun.run(command, "--help");
      assertEquals(0, run.exitCode, command + ": " + run);
      assertTrue(run.out.contains("Examples:"), command + ": " + run.out);
      assertTrue(run.out.contains("cuckoo " + command), command + ": " + run.out);
      assertTrue(top.out.contains(command), "top-level help lists " + command);
    }
  }

  @Test
  void call_noCommand_printsUsageToStderrAndFails() {
    CliRun run = CliRun.run();
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertTrue(run.err.contains("Usage: cuckoo"), run.err);
    assertEquals("", run.out);
  }

  @Test
  void execute_unknownOption_oneLineOnStderrAndExit2() {
    CliRun run = CliRun.run("demo", "--bogus");
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertEquals(1, run.errLines().length, run.err);
    assertTrue(run.err.startsWith("cuckoo demo: Unknown option: '--bogus'"), run.err);
  }

  @Test
  void execute_misspelledRequiredOption_namedUnknownWithTheCloseName() {
    CliRun run = CliRun.run("build", "--inptu", "words.txt", "--output", "w.cuckoo");
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertEquals(1, run.errLines().length, run.err);
    assertTrue(
        run.err.startsWith("cuckoo build: Unknown option: '--inptu' (did you mean '--input'?)"),
        run.err);
    assertFalse(run.err.contains("Missing required"), run.err);
  }

  @Test
  void execute_unknownOptionWithValue_valueNotListedAsAnOption() {
    CliRun run = CliRun.run("demo", "--bogus", "1");
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertEquals(1, run.errLines().length, run.err);
    assertTrue(run.err.startsWith("cuckoo demo: Unknown option: '--bogus' (see"), run.err);
    assertFalse(run.err.contains("'1'"), run.err);
    CliRun known = CliRun.run("demo", "--items", "-5", "--bogus=2");
    assertTrue(known.err.startsWith("cuckoo demo: Unknown option: '--bogus' (see"), known.err);
  }

  @Test
  void execute_unknownCommand_exit2() {
    CliRun run = CliRun.run("frobnicate");
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertEquals(1, run.errLines().length, run.err);
  }

  @Test
  void execute_invalidNumber_namesOptionAndValue() {
    CliRun run = CliRun.run("demo", "--items", "lots");
    assertEquals(ExitCode.ERROR, run.exitCode);
    assertEquals(1, run.errLines().length, run.err);
    assertTrue(run.err.contains("--items") && run.err.contains("lots"), run.err);
  }

  @Test
  void execute_verbose_printsStackTrace() {
    CliRun quiet = CliRun.run("demo", "--items", "5");
    CliRun verbose = CliRun.run("demo", "--verbose", "--items", "5");
    assertEquals(ExitCode.ERROR, quiet.exitCode);
    assertEquals(ExitCode.ERROR, verbose.exitCode);
    assertFalse(quiet.err.contains("\tat "), quiet.err);
    assertTrue(verbose.err.contains("\tat "), verbose.err);
  }
}
