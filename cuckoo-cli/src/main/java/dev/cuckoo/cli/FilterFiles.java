package dev.cuckoo.cli;

import dev.cuckoo.FilterFile;
import dev.cuckoo.FilterFormatException;
import dev.cuckoo.ItemHasher;
import dev.cuckoo.MembershipFilter;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.persist.AppendLog;
import dev.cuckoo.server.persist.SnapshotFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

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
    return readFile(path).filter();
  }

  /**
   * Reads the file {@code path}, saying whether it holds a chain or a single filter (a single
   * {@code REDISBLOOM} filter is read as a {@link RedisCuckooFilter} of one link).
   *
   * @param path a filter file
   * @return the file, its filter's items hashed by a {@link CompatibleHasher}
   * @throws CliException if the file is missing, unreadable, not a filter file, or corrupt
   */
  static FilterFile<byte[]> readFile(Path path) {
    try {
      return FilterFile.<byte[]>read(path, id -> CompatibleHasher.forId(id, path.toString()));
    } catch (FilterFormatException e) {
      if (e.field().equals("magic") && e.offset() == 0) {
        String serverFile = serverFile(path);
        throw new CliException(
            path
                + (serverFile != null
                    ? serverFile
                    : " is not a cuckoo filter file (" + e.getMessage() + ")"),
            e);
      }
      throw new CliException(path + " is corrupt: " + e.getMessage(), e);
    } catch (IOException e) {
      throw CliException.reading(path.toString(), e);
    }
  }

  /**
   * Says what a cuckoo-server data file handed to a filter command is, and how to read it: the rest
   * of a sentence that begins with the file's name, or null if it is not one.
   */
  private static String serverFile(Path path) {
    String readOne =
        "; a server started with --dir on its directory loads it, and 'cuckoo import --key KEY"
            + " --server HOST:PORT --output FILE' writes one of its filters as a filter file";
    try {
      SnapshotFile.Summary snapshot = SnapshotFile.summary(path);
      if (snapshot != null) {
        return " is a cuckoo-server snapshot ("
            + snapshot.entries()
            + (snapshot.entries() == 1 ? " key" : " keys")
            + "), not a filter file"
            + readOne;
      }
      byte[] magic = new byte[AppendLog.MAGIC.length];
      try (InputStream in = Files.newInputStream(path)) {
        if (in.readNBytes(magic, 0, magic.length) == magic.length
            && Arrays.equals(magic, AppendLog.MAGIC)) {
          return " is a cuckoo-server append-only log, not a filter file" + readOne;
        }
      }
    } catch (FilterFormatException e) {
      return " is a damaged cuckoo-server snapshot (" + e.getMessage() + "), not a filter file";
    } catch (IOException e) {
      return null;
    }
    return null;
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

  /**
   * Writes a one-link {@code filter} to {@code path} atomically in the single-filter form (a {@code
   * REDISBLOOM} filter that never grows), recording {@code hasher}'s id.
   *
   * @param filter the filter, of one link
   * @param hasher the hasher whose id the file records
   * @param path the file to create or replace
   * @return the size of the file in bytes
   * @throws CliException if the file cannot be written
   */
  static long writeSingle(RedisCuckooFilter<byte[]> filter, ItemHasher<?> hasher, Path path) {
    return AtomicFile.write(path, out -> filter.writeSingleTo(out, hasher));
  }
}
