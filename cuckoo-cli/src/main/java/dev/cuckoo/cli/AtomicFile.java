package dev.cuckoo.cli;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes a file through a temporary file in the same directory that is then renamed over it, so a
 * failed write never leaves a half-written file and never clobbers the old one.
 */
final class AtomicFile {
  private static final int BUFFER_BYTES = 1 << 16;

  /** Writes the contents of a file. */
  @FunctionalInterface
  interface Contents {
    /**
     * Writes the contents to {@code out}.
     *
     * @param out the (buffered) stream of the temporary file
     * @throws IOException if writing fails
     */
    void writeTo(OutputStream out) throws IOException;
  }

  private AtomicFile() {}

  /**
   * Creates or replaces {@code path} with what {@code contents} writes.
   *
   * @param path the file
   * @param contents writes the bytes
   * @return the size of the file in bytes
   * @throws CliException if the file cannot be written
   */
  static long write(Path path, Contents contents) {
    Path absolute = path.toAbsolutePath();
    Path directory = absolute.getParent();
    Path temp = null;
    try {
      temp = Files.createTempFile(directory, "." + absolute.getFileName(), ".tmp");
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), BUFFER_BYTES)) {
        contents.writeTo(out);
      }
      Files.move(
          temp, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      temp = null;
      return Files.size(absolute);
    } catch (NoSuchFileException e) {
      throw new CliException("cannot write " + path + ": no such directory: " + directory, e);
    } catch (AccessDeniedException e) {
      throw new CliException("cannot write " + path + ": permission denied", e);
    } catch (IOException e) {
      throw new CliException("cannot write " + path + ": " + ErrorHandler.describe(e), e);
    } finally {
      if (temp != null) {
        try {
          Files.deleteIfExists(temp);
        } catch (IOException ignored) {
          // the write already failed; that error is the one to report
        }
      }
    }
  }
}
