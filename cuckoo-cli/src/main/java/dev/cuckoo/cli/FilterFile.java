package dev.cuckoo.cli;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.FilterFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

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
   * Writes {@code filter} to {@code path} atomically (see {@link AtomicFile}).
   *
   * @param filter the filter
   * @param path the file to create or replace
   * @return the size of the file in bytes
   * @throws CliException if the file cannot be written
   */
  static long write(CliFilter filter, Path path) {
    return AtomicFile.write(path, filter::writeTo);
  }
}
