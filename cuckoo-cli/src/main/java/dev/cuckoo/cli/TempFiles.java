package dev.cuckoo.cli;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of {@link AtomicFile}'s temporary files, and the removal of those that a killed run
 * left behind.
 *
 * <p>The temporary file of target {@code dir/name} is {@code dir/.name.<pid>-<16 hex digits>.tmp}:
 * in the target's directory (so the rename is atomic), hidden, and naming the process that writes
 * it.
 */
final class TempFiles {
  /*
   * Stale files. A run killed between creating its temporary file and renaming it (kill -9, the
   * OOM killer, a power cut) cannot delete it, so each write first removes the stale temporary
   * files of its own target; files of other targets, and files that only look similar, are never
   * touched (the pattern is anchored and the target name is quoted).
   *
   * Two writers of one target may run at once (two shells, two threads of one JVM). Both finish
   * with a complete file and the later rename wins, but neither may delete the other's temporary
   * file, or the other's rename fails. So a file is stale only if both hold:
   *   1. the process named in it is not running on this machine, and
   *   2. it has not been modified for STALE_AFTER.
   * The process check alone is wrong on a directory shared over the network (the writer may run
   * on another machine). The age check alone is wrong for a writer that is stopped (Ctrl-Z) or
   * spends longer than STALE_AFTER in force() on a large file. With both, a live writer loses its
   * file only if it runs on another machine and has been idle for STALE_AFTER; its write then
   * fails with an error and the target keeps the last complete file. A reused pid only delays the
   * removal of a stale file until that process ends.
   */

  /** How long a temporary file must have been left unmodified before it may be stale. */
  static final Duration STALE_AFTER = Duration.ofMinutes(1);

  private static final String SUFFIX = ".tmp";

  private TempFiles() {}

  /**
   * Returns a new temporary file name for {@code target} (the file is not created).
   *
   * @param target an absolute file path with a parent directory
   * @return {@code .name.<pid>-<16 hex digits>.tmp} in the target's directory
   */
  static Path newName(Path target) {
    String random = String.format("%016x", ThreadLocalRandom.current().nextLong());
    long pid = ProcessHandle.current().pid();
    return target.resolveSibling("." + target.getFileName() + "." + pid + "-" + random + SUFFIX);
  }

  /**
   * Deletes the stale temporary files of {@code target}: regular files whose process is not running
   * and that have not been modified for {@link #STALE_AFTER}. Best effort: a file or directory that
   * cannot be read or deleted is left alone, as the write itself does not need it gone.
   *
   * @param target an absolute file path with a parent directory
   * @return the number of files deleted
   */
  static int removeStale(Path target) {
    Pattern pattern =
        Pattern.compile(
            Pattern.quote("." + target.getFileName() + ".")
                + "([0-9]{1,18})-[0-9a-f]{16}"
                + Pattern.quote(SUFFIX));
    long modifiedBeforeMillis = System.currentTimeMillis() - STALE_AFTER.toMillis();
    int deleted = 0;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(target.getParent())) {
      for (Path entry : entries) {
        Matcher name = pattern.matcher(entry.getFileName().toString());
        if (name.matches()
            && !isRunning(Long.parseLong(name.group(1)))
            && deleteIfModifiedBefore(entry, modifiedBeforeMillis)) {
          deleted++;
        }
      }
    } catch (IOException | DirectoryIteratorException | SecurityException e) {
      // best effort (see the Javadoc): if the directory cannot be written either, the write says so
    }
    return deleted;
  }

  private static boolean isRunning(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static boolean deleteIfModifiedBefore(Path file, long millis) {
    try {
      BasicFileAttributes attributes =
          Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return attributes.isRegularFile()
          && attributes.lastModifiedTime().toMillis() < millis
          && Files.deleteIfExists(file);
    } catch (IOException e) {
      return false; // best effort: gone already (another writer removed it), or not ours to delete
    }
  }
}
