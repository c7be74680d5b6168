package dev.cuckoo.cli;

import dev.cuckoo.FilterFormatException;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.RedisCuckooFilter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * Assembles a filter file from a RedisBloom SCANDUMP: {@link RedisCuckooFilter#loadDumpHeader}
 * allocates the links (after checking the header as {@code CF.LOADCHUNK} does, and the heap),
 * {@link RedisCuckooFilter#loadDumpChunk} fills them; a filter that grew into several sub-filters
 * is written in the chain format, one that never grew as a single {@code REDISBLOOM} filter ({@link
 * RedisCuckooFilter#writeSingleTo}) hashing lines as {@code redisUtf8}.
 */
final class ChainImage implements DumpAssembly {
  private final RedisCuckooFilter<byte[]> chain;
  private long loadedBytes;

  private ChainImage(RedisCuckooFilter<byte[]> chain) {
    this.chain = chain;
  }

  /**
   * Starts a chain from the 38-byte SCANDUMP header.
   *
   * @param header the header
   * @param key the key, for messages
   * @return the assembly, its links allocated and empty
   * @throws CliException if the header is invalid or its links do not fit in this JVM
   */
  static ChainImage fromHeader(byte[] header, String key) {
    try {
      return new ChainImage(RedisCuckooFilter.loadDumpHeader(header));
    } catch (FilterFormatException e) {
      throw new CliException("key '" + key + "': invalid dump header: " + e.getMessage(), e);
    }
  }

  @Override
  public void load(long iterator, byte[] data, String key) {
    try {
      chain.loadDumpChunk(iterator, data);
    } catch (FilterFormatException e) {
      throw new CliException(
          "key '" + key + "': a chunk of " + data.length + " bytes: " + e.getMessage(), e);
    }
    loadedBytes += data.length;
  }

  @Override
  public byte[] finish(String key) {
    // a RedisBloom chain's capacity is its slot count: one byte per slot
    if (loadedBytes != chain.capacity()) {
      throw new CliException(
          "key '"
              + key
              + "': the dump holds "
              + loadedBytes
              + " of "
              + chain.capacity()
              + " bytes");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      if (chain.linkCount() == 1) {
        chain.writeSingleTo(out, CompatibleHasher.forId(ItemHashers.redisUtf8().id(), key));
      } else {
        chain.writeTo(out);
      }
    } catch (FilterFormatException e) {
      throw new CliException("key '" + key + "': the dump is inconsistent: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory failed", e);
    }
    return out.toByteArray();
  }

  @Override
  public long links() {
    return chain.linkCount();
  }
}
