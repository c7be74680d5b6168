package dev.cuckoo.cli;

import dev.cuckoo.FilterFile;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.ScanDumpChunk;
import dev.cuckoo.Scheme;
import java.io.IOException;

/**
 * Writes a filter file as RedisBloom's SCANDUMP stream (the header, then the data chunks), all
 * bytes coming from the core's {@link RedisCuckooFilter#scanDump}: a chain file's filter as it is,
 * a single file's one-link filter through {@link RedisCuckooFilter#withExpansion} with the
 * expansion asked for (which shares its slots when they are large, so nothing is copied but the
 * chunks).
 */
final class RedisExport {
  private RedisExport() {}

  /**
   * Writes the dump of the filter in {@code file} to {@code sink}. An empty filter, for which
   * SCANDUMP sends nothing, is written as its header alone, which {@code CF.LOADCHUNK} turns into
   * an empty filter.
   *
   * @param file a file of a {@code REDISBLOOM} filter, single or chained
   * @param sink receives the chunks
   * @param expansion the expansion to record for a single filter (a chain records its own)
   * @throws IOException if the sink fails
   * @throws CliException if the filter is not a {@code REDISBLOOM} filter
   */
  static void scanDump(FilterFile<byte[]> file, DumpSink sink, int expansion) throws IOException {
    requireRedisBloom(file.scheme());
    RedisCuckooFilter<byte[]> filter = (RedisCuckooFilter<byte[]>) file.filter();
    RedisCuckooFilter<byte[]> chain = file.isChain() ? filter : filter.withExpansion(expansion);
    if (chain.isEmpty()) {
      sink.chunk(1, chain.dumpHeader());
      return;
    }
    for (ScanDumpChunk chunk = chain.scanDump(0);
        chunk.iterator() != 0;
        chunk = chain.scanDump(chunk.iterator())) {
      sink.chunk(chunk.iterator(), chunk.data());
    }
  }

  /**
   * Throws unless a filter of {@code scheme} can be loaded into Redis.
   *
   * @param scheme the filter's scheme
   * @throws CliException if it is not {@code REDISBLOOM}
   */
  static void requireRedisBloom(Scheme scheme) {
    if (scheme != Scheme.REDISBLOOM) {
      throw new CliException(
          "only REDISBLOOM filters can be loaded into Redis, and this one is "
              + scheme
              + " (build it with --scheme redisbloom)");
    }
  }
}
