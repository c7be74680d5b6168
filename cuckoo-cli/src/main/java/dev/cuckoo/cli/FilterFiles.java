package dev.cuckoo.cli;

import dev.cuckoo.FilterFile;
import dev.cuckoo.FilterFormatException;
import dev.cuckoo.MembershipFilter;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Reads and writes filter files through the core ({@link FilterFile}, docs/FORMAT.md), turning
 * every problem into a {@link CliException} that names the file. The file's header names the
 * built-in hasher it was written with, and the filter is read with the {@link CompatibleHasher} for
 * that id, so a filter built by the library from strings answers the command line's queries.
 */
final class FilterFiles {
  private FilterFiles() {}

  /**
   * Reads the filter in {@code path}: a single filter or a chain.
   *
   * @param path a filter file
   * @return the filter, its items hashed by a {@link CompatibleHasher}
   * @throws CliException if the file is missing, unreadable, not a filter file, or corrupt
   */
  static MembershipFilter<byte[]> read(Path path) {
    try {
      return FilterFile.<byte[]>read(path, id -> CompatibleHasher.forId(id, path.toString()))
          .filter();
    } catch (FilterFormatException e) {
      if (e.field().equals("magic") && e.offset() == 0) {
        throw new CliException(path + " is not a cuckoo filter file (" + e.getMessage() + ")", e);
      }
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
  static long write(MembershipFilter<byte[]> filter, Path path) {
    return AtomicFile.write(path, filter::writeTo);
  }
}
