package dev.cuckoo.cli;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.MembershipFilter;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.ScanDumpChunk;
import dev.cuckoo.Scheme;
import java.io.IOException;

/**
 * Writes a filter as RedisBloom's SCANDUMP stream (the header, then the data chunks), all bytes
 * coming from the core: a chain's own {@link RedisCuckooFilter#scanDump}, a single filter's through
 * {@link RedisCuckooFilter#of(CuckooFilter, int)} (which shares its table, so nothing is copied but
 * the chunks).
 */
final class RedisExport {
  private RedisExport() {}

  /**
   * Writes the dump of {@code filter} to {@code sink}. An empty filter, for which SCANDUMP sends
   * nothing, is written as its header alone, which {@code CF.LOADCHUNK} turns into an empty filter.
   *
   * @param filter a {@code REDISBLOOM} filter
   * @param sink receives the chunks
   * @param expansion the expansion to record for a single filter (a chain records its own)
   * @throws IOException if the sink fails
   * @throws CliException if the filter is not a {@code REDISBLOOM} filter or does not fit
   *     RedisBloom's limits
   */
  static void scanDump(MembershipFilter<byte[]> filter, DumpSink sink, int expansion)
      throws IOException {
    requireRedisBloom(filter.scheme());
    RedisCuckooFilter<byte[]> chain;
    if (filter instanceof RedisCuckooFilter) {
      chain = (RedisCuckooFilter<byte[]>) filter;
    } else {
      try {
        chain = RedisCuckooFilter.of((CuckooFilter<byte[]>) filter, expansion);
      } catch (IllegalArgumentException e) {
        throw new CliException("the filter cannot be loaded into Redis: " + e.getMessage(), e);
      }
    }
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
