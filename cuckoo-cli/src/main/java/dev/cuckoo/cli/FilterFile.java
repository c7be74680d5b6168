package dev.cuckoo.cli;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.FilterFormatException;
import dev.cuckoo.ScalableCuckooFilter;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads and writes filter files (the library's binary formats, docs/FORMAT.md), turning every
 * problem into a {@link CliException} that names the file.
 *
 * <p>The magic bytes say whether the file holds a single {@code CuckooFilter} or a chained {@code
 * ScalableCuckooFilter}, and the header says which built-in hasher it was written with (the hasher
 * id at offset {@value #OFFSET_HASHER_ID}, or {@value #OFFSET_CHAIN_HASHER_ID} in a chain); the
 * filter is then read with the {@link CompatibleHasher} for that id, so a filter built by the
 * library from strings answers the command line's queries.
 */
final class FilterFile {
  /** The magic bytes of a single filter, read as a little-endian long. */
  static final long MAGIC = 0x0A4F4F4B43554389L;

  /** Offset of the hasher id (u32, little-endian) in the header. */
  static final int OFFSET_HASHER_ID = 16;

  /** The magic bytes of a chained filter (0x89, "CKCHAIN"), read as a little-endian long. */
  static final long CHAIN_MAGIC = 0x4E494148434B4389L;

  /** Offset of the hasher id (i32, little-endian) in a chain header. */
  static final int OFFSET_CHAIN_HASHER_ID = 12;

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
    if (length == PEEK_BYTES && header.getLong(0) == CHAIN_MAGIC) {
      return readChain(path, header.getInt(OFFSET_CHAIN_HASHER_ID));
    }
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

  private static CliFilter readChain(Path path, int hasherId) {
    CompatibleHasher hasher = CompatibleHasher.forId(hasherId, path.toString());
    try (InputStream in = new BufferedInputStream(Files.newInputStream(path), 1 << 16)) {
      ScalableCuckooFilter<byte[]> chain = ScalableCuckooFilter.readFrom(in, hasher);
      if (in.read() != -1) {
        throw new CliException(path + " is corrupt: bytes follow the chained filter's CRC");
      }
      return new ChainFilter(chain, hasher.describe());
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
