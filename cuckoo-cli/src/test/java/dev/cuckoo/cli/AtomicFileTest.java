package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AtomicFileTest {
  private static final byte[] OLD = "old contents".getBytes(StandardCharsets.US_ASCII);

  @TempDir Path dir;

  /** Writes {@code count} bytes of 'x' to {@code out}: past the 64 KiB buffer, onto the disk. */
  private static void writeBytes(OutputStream out, int count) throws IOException {
    byte[] chunk = new byte[4096];
    Arrays.fill(chunk, (byte) 'x');
    for (int written = 0; written < count; written += chunk.length) {
      out.write(chunk, 0, Math.min(chunk.length, count - written));
    }
  }

  @Test
  void write_newFile_contentsAndSize() throws IOException {
    Path target = dir.resolve("f.cuckoo");
    long bytes = AtomicFile.write(target, out -> writeBytes(out, 300_000));
    assertEquals(300_000, bytes);
    assertEquals(300_000, Files.size(target));
    assertEquals(Set.of("f.cuckoo"), TestFiles.names(dir), "no temporary file left behind");
  }

  @Test
  void write_newFile_permissionsOfAPlainlyCreatedFile() throws IOException {
    TestFiles.assumePosix(dir);
    Path target = dir.resolve("new.cuckoo");
    AtomicFile.write(target, out -> out.write(1));
    assertEquals(TestFiles.plainPermissions(dir), Files.getPosixFilePermissions(target));
  }

  @ParameterizedTest
  @ValueSource(strings = {"rw-r--r--", "rw-r-----", "rw-------", "rw-rw-r--", "r--r--r--"})
  void write_existingFile_keepsItsPermissions(String mode) throws IOException {
    TestFiles.assumePosix(dir);
    Path target = dir.resolve("old.cuckoo");
    Files.write(target, OLD);
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString(mode));
    AtomicFile.write(target, out -> out.write(new byte[] {1, 2, 3}));
    assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(target));
    assertEquals(mode, PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));
  }

  @Test
  void write_symbolicLink_replacedByFileWithTheLinkedFileMode() throws IOException {
    TestFiles.assumePosix(dir);
    Path linked = dir.resolve("linked.cuckoo");
    Files.write(linked, OLD);
    Files.setPosixFilePermissions(linked, PosixFilePermissions.fromString("rw-r-----"));
    Path link = Files.createSymbolicLink(dir.resolve("link.cuckoo"), linked.getFileName());
    AtomicFile.write(link, out -> out.write(7));
    assertFalse(Files.isSymbolicLink(link));
    assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(link)));
    assertArrayEquals(OLD, Files.readAllBytes(linked), "the linked file is not written through");
  }

  @Test
  void write_contentsThrowMidway_oldFileIntactAndNoTempFile() throws IOException {
    Path target = dir.resolve("f.cuckoo");
    Files.write(target, OLD);
    IllegalStateException failure = new IllegalStateException("the filter is full");
    IllegalStateException thrown =
        assertThrows(
            IllegalStateException.class,
            () ->
                AtomicFile.write(
                    target,
                    out -> {
                      writeBytes(out, 200_000);
                      throw failure;
                    }));
    assertSame(failure, thrown, "a runtime exception passes through unchanged");
    assertArrayEquals(OLD, Files.readAllBytes(target));
    assertEquals(Set.of("f.cuckoo"), TestFiles.names(dir));
  }

  @Test
  void write_contentsFailWithIOExceptionPartway_oldFileIntactTempRemovedFileNamed()
      throws IOException {
    Path target = dir.resolve("full-disk.cuckoo");
    Files.write(target, OLD);
    IOException enospc = new IOException("No space left on device");
    CliException thrown =
        assertThrows(
            CliException.class,
            () ->
                AtomicFile.write(
                    target,
                    out -> {
                      writeBytes(out, 1 << 20);
                      throw enospc;
                    }));
    assertEquals("cannot write " + target + ": No space left on device", thrown.getMessage());
    assertSame(enospc, thrown.getCause());
    assertArrayEquals(OLD, Files.readAllBytes(target));
    assertEquals(Set.of("full-disk.cuckoo"), TestFiles.names(dir));
  }

  @Test
  void write_newFileAndContentsFail_noFileAtAll() throws IOException {
    Path target = dir.resolve("never.cuckoo");
    CliException thrown =
        assertThrows(
            CliException.class,
            () ->
                AtomicFile.write(
                    target,
                    out -> {
                      writeBytes(out, 100_000);
                      throw new IOException("Input/output error");
                    }));
    assertInstanceOf(IOException.class, thrown.getCause());
    assertEquals(Set.of(), TestFiles.names(dir));
  }

  @Test
  void write_missingDirectory_messageNamesFileAndDirectory() {
    Path target = dir.resolve("no/such/f.cuckoo");
    CliException thrown =
        assertThrows(CliException.class, () -> AtomicFile.write(target, out -> {}));
    assertEquals(
        "cannot write " + target + ": no such directory: " + target.getParent(),
        thrown.getMessage());
  }

  @Test
  void write_whileWriting_tempFileNamedAfterTargetAndProcess() throws IOException {
    Path target = dir.resolve("f.cuckoo");
    Pattern tempName =
        Pattern.compile(
            Pattern.quote(".f.cuckoo." + ProcessHandle.current().pid() + "-")
                + "[0-9a-f]{16}\\.tmp");
    AtomicFile.write(
        target,
        out -> {
          Set<String> names = TestFiles.names(dir);
          assertEquals(1, names.size(), names.toString());
          String name = names.iterator().next();
          assertTrue(tempName.matcher(name).matches(), name);
        });
  }

  @Test
  void write_staleTempFileOfKilledRun_removed() throws Exception {
    Path target = dir.resolve("f.cuckoo");
    Files.write(target, OLD);
    long killed = TestFiles.endedPid();
    Path stale = TestFiles.tempFile(target, killed, "0123456789abcdef", Duration.ofMinutes(2));
    AtomicFile.write(target, out -> out.write(1));
    assertFalse(Files.exists(stale));
    assertEquals(Set.of("f.cuckoo"), TestFiles.names(dir));
  }

  @Test
  void write_tempFilesNotProvablyStale_kept() throws Exception {
    Path target = dir.resolve("f.cuckoo");
    long ended = TestFiles.endedPid();
    long running = ProcessHandle.current().pid();
    Duration old = Duration.ofMinutes(2);
    Path[] kept = {
      // a killed run's file, but modified within the minute: its writer may run on another host
      TestFiles.tempFile(target, ended, "0000000000000001", Duration.ZERO),
      // an old file of a running process: stopped, or slow in force()
      TestFiles.tempFile(target, running, "0000000000000002", old),
      // another target's stale file
      TestFiles.tempFile(dir.resolve("g.cuckoo"), ended, "0000000000000003", old),
      TestFiles.tempFile(dir.resolve("xf.cuckoo"), ended, "0000000000000004", old),
      TestFiles.tempFile(
          dir.resolve("f.cuckoo.1-0000000000000005.tmp"), ended, "0000000000000006", old),
    };
    // names near the pattern, all old, none of them ours
    String[] lookalikes = {
      ".f.cuckoo.tmp",
      ".f.cuckoo." + ended + "-00000000000000.tmp",
      ".f.cuckoo." + ended + "-0000000000000000.tmp.bak",
      ".f.cuckoo." + ended + "-000000000000000G.tmp",
      "f.cuckoo." + ended + "-0000000000000000.tmp",
      ".f.cuckoo.x" + ended + "-0000000000000000.tmp",
    };
    for (String name : lookalikes) {
      Path file = Files.write(dir.resolve(name), OLD);
      Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(old)));
    }
    Path staleDirectory =
        Files.createDirectory(dir.resolve(".f.cuckoo." + ended + "-0000000000000007.tmp"));
    Files.setLastModifiedTime(staleDirectory, FileTime.from(Instant.now().minus(old)));
    int files = TestFiles.names(dir).size();
    AtomicFile.write(target, out -> out.write(1));
    for (Path file : kept) {
      assertTrue(Files.exists(file), file.toString());
    }
    assertTrue(Files.isDirectory(staleDirectory), "only regular files are removed");
    assertEquals(files + 1, TestFiles.names(dir).size(), TestFiles.names(dir).toString());
  }

  @Test
  void write_secondWriterOfSameTargetMidway_neitherDisturbsTheOther() throws IOException {
    Path target = dir.resolve("f.cuckoo");
    Files.write(target, OLD);
    long first =
        AtomicFile.write(
            target,
            out -> {
              writeBytes(out, 100_000);
              out.flush();
              // make the first writer's file look idle: only its running process protects it
              try (var files = Files.list(dir)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                  Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(600)));
                }
              }
              assertEquals(1, AtomicFile.write(target, second -> second.write('2')));
              assertArrayEquals(new byte[] {'2'}, Files.readAllBytes(target));
              writeBytes(out, 100_000);
            });
    assertEquals(200_000, first);
    assertEquals(200_000, Files.size(target), "the later rename wins");
    assertEquals(Set.of("f.cuckoo"), TestFiles.names(dir));
  }
}
