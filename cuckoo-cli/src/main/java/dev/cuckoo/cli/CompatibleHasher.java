package dev.cuckoo.cli;

import dev.cuckoo.ItemHasher;
import dev.cuckoo.ItemHashers;

/**
 * Hashes byte items for a filter written with one of the built-in text or byte hashers. The
 * built-ins hash text as its UTF-8 bytes ({@code utf8().hash(s) ==
 * bytes().hash(s.getBytes(UTF_8))}, and likewise {@code redisUtf8} and {@code redisBytes}), so the
 * command line, which reads items as bytes, answers exactly as the hasher the filter was built
 * with. It reports that hasher's id, so the filter format's hasher check passes and a rewritten
 * file keeps its id.
 */
final class CompatibleHasher implements ItemHasher<byte[]> {
  private final int id;
  private final String name;
  private final ItemHasher<byte[]> delegate;

  private CompatibleHasher(int id, String name, ItemHasher<byte[]> delegate) {
    this.id = id;
    this.name = name;
    this.delegate = delegate;
  }

  /**
   * Returns the hasher for byte items equivalent to the built-in hasher with id {@code id}.
   *
   * @param id a hasher id read from a filter file
   * @param file the file, for the error message
   * @return the hasher
   * @throws CliException if the command line cannot query items of that hasher
   */
  static CompatibleHasher forId(int id, String file) {
    // text and byte buffers hash as their bytes (UTF-8 for text), so byte items answer alike
    if (id == ItemHashers.utf8().id()) {
      return new CompatibleHasher(id, "utf8 (XXH3-64)", ItemHashers.bytes());
    }
    if (id == ItemHashers.bytes().id()) {
      return new CompatibleHasher(id, "bytes (XXH3-64)", ItemHashers.bytes());
    }
    if (id == ItemHashers.byteBuffers().id()) {
      return new CompatibleHasher(id, "byteBuffers (XXH3-64)", ItemHashers.bytes());
    }
    if (id == ItemHashers.redisUtf8().id()) {
      return new CompatibleHasher(id, "redisUtf8 (MurmurHash64A)", ItemHashers.redisBytes());
    }
    if (id == ItemHashers.redisBytes().id()) {
      return new CompatibleHasher(id, "redisBytes (MurmurHash64A)", ItemHashers.redisBytes());
    }
    if (id == ItemHashers.longs().id()) {
      throw new CliException(
          file
              + " holds long keys (ItemHashers.longs()); the command line handles text and"
              + " byte items only");
    }
    if (id == 0) {
      throw new CliException(
          file
              + " was built with a custom ItemHasher; the command line can only hash items"
              + " with the built-in hashers");
    }
    throw new CliException(file + " names an unknown hasher id " + id);
  }

  @Override
  public long hash(byte[] item) {
    return delegate.hash(item);
  }

  @Override
  public int id() {
    return id;
  }

  /**
   * Returns a short description of the hash function.
   *
   * @return e.g. {@code "bytes (XXH3-64)"}
   */
  String describe() {
    return name;
  }

  @Override
  public String toString() {
    return name;
  }
}
