package dev.cuckoo.cli;

import dev.cuckoo.Scheme;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/** The commands' view of a filter of byte items: a single {@code CuckooFilter} or a chain. */
interface CliFilter {
  /** What an add did. */
  enum AddOutcome {
    /** A new fingerprint was stored. */
    ADDED,
    /** The item might already be present, and duplicates are skipped: nothing was stored. */
    PRESENT,
    /** There was no room: the filter is unchanged. */
    FULL
  }

  /**
   * Adds an item.
   *
   * @param item the item's bytes
   * @param skipDuplicates if true, an item that might already be present is not stored again
   * @return what happened
   */
  AddOutcome add(byte[] item, boolean skipDuplicates);

  /**
   * Returns false if {@code item} is definitely absent.
   *
   * @param item the item's bytes
   * @return true if it might be present
   */
  boolean mightContain(byte[] item);

  /**
   * Returns the number of stored items.
   *
   * @return items
   */
  long size();

  /**
   * Returns the number of items the filter is rated for.
   *
   * @return capacity
   */
  long capacity();

  /**
   * Returns the fraction of slots in use.
   *
   * @return load factor
   */
  double loadFactor();

  /**
   * Returns the false-positive rate expected at the current load.
   *
   * @return expected rate
   */
  double expectedFalsePositiveRate();

  /**
   * Returns how {@link #expectedFalsePositiveRate()} is worded in a summary line.
   *
   * @return e.g. {@code "expected false-positive rate"}
   */
  default String rateLabel() {
    return "expected false-positive rate";
  }

  /**
   * Returns table bits per stored item (heap size × 8 / items), or 0 when empty.
   *
   * @return bits per item
   */
  double bitsPerStoredItem();

  /**
   * Returns the scheme.
   *
   * @return the scheme
   */
  Scheme scheme();

  /**
   * Returns the parameters and state for {@code cuckoo info}.
   *
   * @return the properties, in display order
   */
  List<Property> describe();

  /**
   * Writes the filter as RedisBloom's SCANDUMP stream: the header, then the data chunks.
   *
   * @param sink receives the chunks
   * @param expansion the expansion to record for a single filter (a chain records its own)
   * @throws IOException if the sink fails
   * @throws CliException if the filter is not a {@code REDISBLOOM} filter or does not fit
   *     RedisBloom's limits
   */
  void scanDump(DumpSink sink, int expansion) throws IOException;

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

  /**
   * Returns the properties every filter ends its {@link #describe()} with.
   *
   * @param maxKicks the max kicks
   * @param sizeInBytes the heap size
   * @return the max kicks and size properties
   */
  static List<Property> maxKicksAndSize(int maxKicks, long sizeInBytes) {
    return List.of(
        Property.of("maxKicks", "max kicks", maxKicks),
        new Property("sizeInBytes", "size in memory", sizeInBytes, Text.bytes(sizeInBytes)));
  }

  /**
   * Writes the filter in the library's binary format.
   *
   * @param out the stream
   * @throws IOException if writing fails
   */
  void writeTo(OutputStream out) throws IOException;
}
