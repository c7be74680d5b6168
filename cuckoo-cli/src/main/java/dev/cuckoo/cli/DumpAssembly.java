package dev.cuckoo.cli;

/**
 * Assembles a filter file from a RedisBloom SCANDUMP stream: the header starts it, every data chunk
 * is loaded into it, and {@link #finish} checks it and returns the file's bytes.
 */
interface DumpAssembly {
  /**
   * Loads one data chunk.
   *
   * @param iterator the iterator SCANDUMP returned with the chunk: 1 + the offset of its end
   * @param data the chunk
   * @param key the key, for messages
   * @throws CliException if the chunk does not fit
   */
  void load(long iterator, byte[] data, String key);

  /**
   * Completes the filter and checks it.
   *
   * @param key the key, for messages
   * @return the bytes of the filter file
   * @throws CliException if chunks are missing or the data is inconsistent
   */
  byte[] finish(String key);

  /**
   * Returns the number of sub-filters.
   *
   * @return the link count
   */
  long links();

  /**
   * Starts the assembly for a dump header: the core checks the header as {@code CF.LOADCHUNK} does;
   * a one-link dump becomes a single-filter file, a chain of several links a chain file ({@link
   * ChainImage}).
   *
   * @param header the header, as CF.SCANDUMP returned it for iterator 0
   * @param key the key, for messages
   * @return the assembly, its payload still empty
   * @throws CliException if the header is malformed or too large for this JVM
   */
  static DumpAssembly fromHeader(byte[] header, String key) {
    return ChainImage.fromHeader(header, key);
  }
}
