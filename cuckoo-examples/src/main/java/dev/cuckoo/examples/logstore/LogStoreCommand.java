package dev.cuckoo.examples.logstore;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The command line of the example: {@code import FILE STORE} stores a file as 1 KiB sectors keyed
 * by SHA-1, {@code export STORE OUT} writes it back byte for byte.
 */
@Command(
    name = "cuckoo-examples",
    mixinStandardHelpOptions = true,
    description = "Stores a file as content-addressed 1 KiB sectors in a log store, and back.",
    subcommands = {LogStoreCommand.Import.class, LogStoreCommand.Export.class})
public final class LogStoreCommand implements Callable<Integer> {
  /** Exit code of a failed command (I/O error, damaged store). */
  public static final int EXIT_FAILURE = 1;

  @Spec private CommandSpec spec;

  /** Creates the command; picocli fills in its fields. */
  public LogStoreCommand() {}

  /**
   * Runs the command line and exits with its exit code.
   *
   * @param args {@code import FILE STORE} or {@code export STORE OUT}
   */
  public static void main(String[] args) {
    System.exit(new CommandLine(new LogStoreCommand()).execute(args));
  }

  /**
   * Prints the usage: a subcommand is required.
   *
   * @return the usage-error exit code
   */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return CommandLine.ExitCode.USAGE;
  }

  /** {@code import FILE STORE}: stores FILE in STORE. */
  @Command(name = "import", description = "Stores FILE in STORE as SHA-1-keyed 1 KiB sectors.")
  static final class Import implements Callable<Integer> {
    @Spec private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "the file to store")
    private Path file;

    @Parameters(index = "1", paramLabel = "STORE", description = "the store (created if absent)")
    private Path store;

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      try {
        if (!Files.isRegularFile(file)) {
          err.println("import: no such file: " + file);
          return EXIT_FAILURE;
        }
        if (Files.exists(store) && Files.isSameFile(file, store)) {
          err.println("import: FILE and STORE are the same file: " + file);
          return EXIT_FAILURE;
        }
        try (LogStore logStore = LogStore.open(store)) {
          report(SectorArchive.importFile(file, logStore), logStore);
        }
        return CommandLine.ExitCode.OK;
      } catch (IOException e) {
        err.println("import: " + e.getMessage());
        return EXIT_FAILURE;
      }
    }

    private void report(SectorArchive.ImportSummary summary, LogStore logStore) {
      PrintWriter out = spec.commandLine().getOut();
      out.printf(
          Locale.ROOT,
          "imported %s: %d bytes, %d sectors (%d new, %d already stored)%n",
          file,
          summary.fileBytes(),
          summary.sectors(),
          summary.newSectors(),
          summary.sectors() - summary.newSectors());
      out.printf(
          Locale.ROOT,
          "record reads during import: %d; store: %d keys, log %d bytes, index %d bytes,"
              + " %d-bit fingerprints, expected absent-key read rate %.6f%n",
          summary.recordReads(),
          logStore.size(),
          logStore.logSizeInBytes(),
          logStore.indexSizeInBytes(),
          logStore.fingerprintBits(),
          logStore.expectedFalsePositiveRate());
      out.flush();
    }
  }

  /** {@code export STORE OUT}: writes the file stored in STORE to OUT. */
  @Command(name = "export", description = "Writes the file stored in STORE to OUT.")
  static final class Export implements Callable<Integer> {
    @Spec private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "STORE", description = "the store")
    private Path store;

    @Parameters(index = "1", paramLabel = "OUT", description = "the file to write")
    private Path out;

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      try {
        if (!Files.isRegularFile(store)) {
          err.println("export: no store at " + store);
          return EXIT_FAILURE;
        }
        if (Files.exists(out) && Files.isSameFile(store, out)) {
          err.println("export: STORE and OUT are the same file: " + out);
          return EXIT_FAILURE;
        }
        try (LogStore logStore = LogStore.open(store)) {
          long bytes = SectorArchive.exportFile(logStore, out);
          PrintWriter stdout = spec.commandLine().getOut();
          stdout.printf(Locale.ROOT, "exported %d bytes to %s%n", bytes, out);
          stdout.flush();
        }
        return CommandLine.ExitCode.OK;
      } catch (IOException e) {
        err.println("export: " + e.getMessage());
        return EXIT_FAILURE;
      }
    }
  }
}
