package dev.cuckoo.spark;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHasher;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.Scheme;
import dev.cuckoo.ShardedCuckooFilter;
import java.io.Serializable;

/**
 * What filter an aggregation builds: the scheme, the kind of column, the size and the rate. It
 * decides how a column value becomes the 64-bit hash the core's hasher would compute for the same
 * item, so that a filter built in Spark answers the same in a plain JVM, the CLI and the server.
 */
final class FilterSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Largest serialized filter: it must fit in one Spark {@code BINARY} value (a Java array). */
  static final long MAX_FILTER_BYTES = Integer.MAX_VALUE - 1024;

  final Scheme scheme;
  final ColumnKind kind;
  final long expectedItems;
  final double falsePositiveRate;

  /** Buffer up to this many 8-byte hashes before a partial aggregate becomes a filter. */
  final long hashLimit;

  FilterSpec(
      Scheme scheme,
      ColumnKind kind,
      long expectedItems,
      double falsePositiveRate,
      long hashLimit) {
    this.scheme = scheme;
    this.kind = kind;
    this.expectedItems = expectedItems;
    this.falsePositiveRate = falsePositiveRate;
    this.hashLimit = hashLimit;
  }

  /**
   * Returns the largest {@code expectedItems} whose filter surely fits in {@link
   * #MAX_FILTER_BYTES}: a bound, not the exact sizing (which the core owns). A STANDARD filter with
   * bucket size 4 has fingerprints of at most {@code ceil(log2(8 / fpp + 1))} bits and a table
   * filled to at least 84% (the core sizes large tables for 94.5%).
   */
  static long maxExpectedItems(Scheme scheme, double falsePositiveRate) {
    if (scheme == Scheme.REDISBLOOM) {
      // bucket count = nextPowerOfTwo(capacity / 2): at most 2 slots of 8 bits per item
      return MAX_FILTER_BYTES / 2;
    }
    double bits = Math.ceil(Math.log(8.0 / falsePositiveRate + 1.0) / Math.log(2.0));
    return (long) Math.floor(MAX_FILTER_BYTES * 8.0 * 0.84 / Math.max(4, bits));
  }

  /**
   * Returns the core hasher whose hashes {@link #hash} computes, typed for {@code Object}: the
   * filters of the aggregation are only used through their hash-level methods.
   */
  @SuppressWarnings("unchecked")
  ItemHasher<Object> hasher() {
    return (ItemHasher<Object>) typedHasher();
  }

  private ItemHasher<?> typedHasher() {
    if (scheme == Scheme.REDISBLOOM) {
      // RedisBloom hashes what the client sends: integers arrive as their decimal text
      return kind == ColumnKind.BINARY ? ItemHashers.redisBytes() : ItemHashers.redisUtf8();
    }
    switch (kind) {
      case STRING:
        return ItemHashers.utf8();
      case INTEGRAL:
        return ItemHashers.longs();
      default:
        return ItemHashers.bytes();
    }
  }

  /** Returns a new, empty filter of this specification. */
  CuckooFilter<Object> newFilter() {
    CuckooFilter.Builder<Object> builder =
        CuckooFilter.builder(hasher()).expectedItems(expectedItems).scheme(scheme);
    if (scheme == Scheme.STANDARD_FAST) {
      builder.falsePositiveRate(falsePositiveRate);
    }
    return builder.build();
  }

  /**
   * Returns the builder of a sharded filter of this specification with 2^shardBits shards, typed
   * for {@code hasher} (which must be {@link #hasher()} or have its id).
   */
  <T> ShardedCuckooFilter.Builder<T> shardedBuilder(int shardBits, ItemHasher<? super T> hasher) {
    return ShardedCuckooFilter.<T>builder(hasher)
        .expectedItems(expectedItems)
        .falsePositiveRate(falsePositiveRate)
        .shardBits(shardBits);
  }

  /**
   * Returns the hash of a non-null column value of this spec's kind ({@link String}, any integral
   * {@link Number}, or {@code byte[]}), equal to {@code hasher().hash(item)}.
   */
  long hash(Object value) {
    return hash(scheme, value);
  }

  /** Returns the hash of {@code value} as {@code scheme}'s hasher for the value's type does. */
  static long hash(Scheme scheme, Object value) {
    boolean redis = scheme == Scheme.REDISBLOOM;
    if (value instanceof byte[]) {
      return (redis ? ItemHashers.redisBytes() : ItemHashers.bytes()).hash((byte[]) value);
    }
    if (value instanceof Number) {
      long number = ((Number) value).longValue();
      return redis
          ? ItemHashers.redisUtf8().hash(Long.toString(number))
          : ItemHashers.hashLong(number);
    }
    return (redis ? ItemHashers.redisUtf8() : ItemHashers.utf8()).hash((CharSequence) value);
  }

  /** Returns the SQL name of the aggregate that builds filters of this scheme. */
  String functionName() {
    return scheme == Scheme.REDISBLOOM
        ? CuckooFunctions.REDISBLOOM_AGG
        : CuckooFunctions.FILTER_AGG;
  }

  @Override
  public String toString() {
    return scheme == Scheme.REDISBLOOM
        ? "REDISBLOOM filter, capacity " + expectedItems
        : "filter for " + expectedItems + " items at fpp " + falsePositiveRate;
  }
}
