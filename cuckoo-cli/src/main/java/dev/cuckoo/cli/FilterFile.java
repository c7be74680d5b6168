package dev.cuckoo.cli;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.FilterFormatException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Reads and writes filter files (the library's binary format, docs/FORMAT.md), turning every
 * problem into a {@link CliException} that names the file.
 *
 * <p>The file's first bytes say which built-in hasher it was written with (the header's hasher id
 * at offset {@value #OFFSET_HASHER_ID}); the filter is then read with the {@link CompatibleHasher}
 * for that id, so a filter built by the library from strings answers the command line's queries.
 */
final class FilterFile {
  /** The magic bytes of a single filter, read as a little-endian long. */
  static final long MAGIC = 0x0A4F4F4B43554389L;

  /** Offset of the hasher id (u32, little-endian) in the header. */
  static final int OFFSET_HASHER_ID = 16;

  private static final int PEEK_BYTES = 20;
  private static final int BUFFER_BYTES = 1 << 16;

  private FilterFile() {}

  /**
   * Reads the filter in {@code path}.
   *
   * @param path a filter file
   * @return the filter
   * @throws CliException if the file is missing, unreadable, not a filter file, or corrupt
   */
  static CliFilter read(Path path) {
    byte[] head = new byte[PEEK_BYTES];
    int length;
    try (InputStream in = Files.newInputStream(path)) {
      length = in.readNBytes(head, 0, head.length);
    } catch (IOException e) {
      throw CliException.reading(path.toString(), e);
    }
    ByteBuffer header = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
    if (length < PEEK_BYTES || header.getLong(0) != MAGIC) {
      throw new CliException(
          path
              + " is not a cuckoo filter file"
              + (length < PEEK_BYTES ? " (only " + length + " bytes)" : " (wrong magic bytes)"));
    }
    CompatibleHasher hasher =
        CompatibleHasher.forId(header.getInt(OFFSET_HASHER_ID), path.toString());
    try {
      return new SingleFilter(CuckooFilter.readFrom(path, hasher), hasher.describe());
    } catch (FilterFormatException e) {
      throw new CliException(path + " is corrupt: " + e.getMessage(), e);
    } catch (IOException e) {
      throw CliException.reading(path.toString(), e);
    }
  }

  /**
   * Writes {@code filter} to {@code path} through a temporary file in the same directory that is
   * then renamed, so a failed write never leaves a half-written file behind.
   *
   * @param filter the filter
   * @param path the file to create or replace
   * @return the size of the file in bytes
   * @throws CliException if the file cannot be written
   */
  static long write(CliFilter filter, Path path) {
    Path absolute = path.toAbsolutePath();
    Path directory = absolute.getParent();
    Path temp = null;
    try {
      temp = Files.createTempFile(directory, "." + absolute.getFileName(), ".tmp");
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), BUFFER_BYTES)) {
        filter.writeTo(out);
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
