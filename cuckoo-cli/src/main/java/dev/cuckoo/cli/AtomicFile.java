package dev.cuckoo.cli;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * Writes a file through a temporary file in the same directory that is then renamed over it, so a
 * failed write never leaves a half-written file and never clobbers the old one. Every command that
 * writes a file ({@code build}, {@code export}, {@code import}) writes it here.
 *
 * <p>A new file gets the permissions that the process umask gives any newly created file (typically
 * {@code rw-r--r--}); a replaced file keeps the permissions of the file it replaces. The temporary
 * file is named and cleaned up by {@link TempFiles}.
 */
final class AtomicFile {
  /*
   * The steps, and what each one guards against:
   *   1. Delete the stale temporary files of this target (TempFiles: a killed run leaves its own).
   *   2. Create the temporary file with CREATE_NEW and no attributes, so it gets the same mode as
   *      Files.newOutputStream on a new path (0666 less the umask). Files.createTempFile would give
   *      0600, which then stuck to the target. If the target is a regular file, copy its
   *      permissions before writing a byte, so a 0600 file's contents are never readable by others.
   *      (Owner and group are not copied: the new file belongs to the writer.)
   *   3. Write, flush, and FileChannel.force(true): without it the rename can reach the disk before
   *      the data, and a crash leaves an empty or partial target on ext4, XFS and others.
   *   4. Rename over the target (rename(2): atomic; readers see the old file or the new one).
   *   5. Force the directory, which makes the rename itself durable. Only a file system that
   *      cannot open a directory (Windows) is excused; anywhere else a failure is reported.
   * A failure before step 4 deletes the temporary file and leaves the target as it was.
   */
  private static final int BUFFER_BYTES = 1 << 16;

  /** Writes the contents of a file. */
  @FunctionalInterface
  interface Contents {
    /**
     * Writes the contents to {@code out}, without closing it.
     *
     * @param out the (buffered) stream of the temporary file
     * @throws IOException if writing fails
     */
    void writeTo(OutputStream out) throws IOException;
  }

  private AtomicFile() {}

  /**
   * Creates or replaces {@code path} with what {@code contents} writes, durably: when this method
   * returns, the file and (except on Windows) its directory entry have been forced to the storage
   * device.
   *
   * @param path the file
   * @param contents writes the bytes; an exception it throws leaves {@code path} unchanged
   * @return the size of the file in bytes
   * @throws CliException if the file cannot be written (the message names it)
   */
  static long write(Path path, Contents contents) {
    Path target = path.toAbsolutePath();
    Path directory = target.getParent();
    if (directory == null) {
      throw new CliException("cannot write " + path + ": not a file name");
    }
    TempFiles.removeStale(target);
    Path temp = TempFiles.newName(target);
    long bytes;
    boolean renamed = false;
    try {
      bytes = writeTemp(temp, permissionsToKeep(target), contents);
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      renamed = true;
    } catch (NoSuchFileException e) {
      if (!Files.isDirectory(directory)) {
        throw new CliException("cannot write " + path + ": no such directory: " + directory, e);
      }
      throw new CliException("cannot write " + path + ": " + ErrorHandler.describe(e), e);
    } catch (AccessDeniedException e) {
      throw new CliException("cannot write " + path + ": permission denied", e);
    } catch (IOException e) {
      throw new CliException("cannot write " + path + ": " + ErrorHandler.describe(e), e);
    } finally {
      if (!renamed) {
        deleteQuietly(temp);
      }
    }
    try {
      forceDirectory(directory);
    } catch (IOException e) {
      throw new CliException(
          "wrote "
              + path
              + ", but forcing its directory to disk failed, so a crash may undo the write: "
              + ErrorHandler.describe(e),
          e);
    }
    return bytes;
  }

  /** Returns the permissions of {@code target} if it is a regular file on a POSIX file system. */
  private static Set<PosixFilePermission> permissionsToKeep(Path target) throws IOException {
    PosixFileAttributeView view = Files.getFileAttributeView(target, PosixFileAttributeView.class);
    if (view == null) {
      return null;
    }
    try {
      PosixFileAttributes attributes = view.readAttributes();
      return attributes.isRegularFile() ? attributes.permissions() : null;
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** Creates {@code temp}, writes it, forces it to disk and returns its size. */
  private static long writeTemp(Path temp, Set<PosixFilePermission> permissions, Contents contents)
      throws IOException {
    try (FileChannel channel =
        FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      if (permissions != null) {
        Files.setPosixFilePermissions(temp, permissions);
      }
      OutputStream out = new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER_BYTES);
      contents.writeTo(out);
      out.flush();
      channel.force(true);
      return channel.size();
    }
  }

  private static void forceDirectory(Path directory) throws IOException {
    FileChannel channel;
    try {
      channel = FileChannel.open(directory, StandardOpenOption.READ);
    } catch (IOException e) {
      if (directory.getFileSystem().supportedFileAttributeViews().contains("posix")) {
        throw e;
      }
      return; // Windows opens no directory as a file, so there is nothing to force
    }
    try (channel) {
      channel.force(true);
    }
  }

  private static void deleteQuietly(Path temp) {
    try {
      Files.deleteIfExists(temp);
    } catch (IOException e) {
      // the write already failed and that error is the one to report; once this process has
      // ended, a later write of the same target removes the file (TempFiles.removeStale)
    }
  }
}
