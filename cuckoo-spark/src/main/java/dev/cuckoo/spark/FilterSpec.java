package dev.cuckoo.spark;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHasher;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.Scheme;
import dev.cuckoo.ShardedCuckooFilter;
import java.io.Serializable;
import java.util.function.LongPredicate;
import java.util.function.LongUnaryOperator;

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
   * Returns the largest {@code expectedItems} whose filter of {@code scheme} at {@code
   * falsePositiveRate} serializes to at most {@link #MAX_FILTER_BYTES}, as the core sizes it
   * ({@link CuckooFilter.Builder#serializedSizeInBytes()}).
   */
  static long maxExpectedItems(Scheme scheme, double falsePositiveRate) {
    return largestFitting(
        n -> builder(ItemHashers.bytes(), scheme, n, falsePositiveRate).serializedSizeInBytes(),
        MAX_FILTER_BYTES);
  }

  /**
   * Returns the largest {@code n} from 1 to {@link CuckooFilter#MAX_EXPECTED_ITEMS} whose {@code
   * serializedSize.applyAsLong(n)} is at most {@code maxBytes}; a size the core refuses (an {@link
   * IllegalArgumentException}) does not fit. A binary search: the core's sizes grow with the number
   * of items wherever they are near a bound of megabytes (only tables of a few thousand slots are
   * sized for a lower load, and so can shrink as items are added).
   */
  static long largestFitting(LongUnaryOperator serializedSize, long maxBytes) {
    LongPredicate fits =
        n -> {
          try {
            return serializedSize.applyAsLong(n) <= maxBytes;
          } catch (IllegalArgumentException e) {
            return false;
          }
        };
    long low = 1;
    long high = CuckooFilter.MAX_EXPECTED_ITEMS;
    if (fits.test(high)) {
      return high;
    }
    // fits(low) and !fits(high)
    while (high - low > 1) {
      long middle = low + (high - low) / 2;
      if (fits.test(middle)) {
        low = middle;
      } else {
        high = middle;
      }
    }
    return low;
  }

  /**
   * Returns the core builder of a filter of {@code scheme} for {@code expectedItems} items at
   * {@code falsePositiveRate} (ignored for {@link Scheme#REDISBLOOM}, whose rate follows from its
   * 8-bit fingerprints).
   */
  static <T> CuckooFilter.Builder<T> builder(
      ItemHasher<? super T> hasher, Scheme scheme, long expectedItems, double falsePositiveRate) {
    CuckooFilter.Builder<T> builder =
        CuckooFilter.<T>builder(hasher).expectedItems(expectedItems).scheme(scheme);
    if (scheme == Scheme.STANDARD_FAST) {
      builder.falsePositiveRate(falsePositiveRate);
    }
    return builder;
  }

  /**
   * Returns the builder of a sharded filter of {@code expectedItems} items at {@code
   * falsePositiveRate} with 2^shardBits shards.
   */
  static <T> ShardedCuckooFilter.Builder<T> shardedBuilder(
      ItemHasher<? super T> hasher, long expectedItems, double falsePositiveRate, int shardBits) {
    return ShardedCuckooFilter.<T>builder(hasher)
        .expectedItems(expectedItems)
        .falsePositiveRate(falsePositiveRate)
        .shardBits(shardBits);
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
    return builder(hasher(), scheme, expectedItems, falsePositiveRate).build();
  }

  /**
   * Returns the builder of a sharded filter of this specification with 2^shardBits shards, typed
   * for {@code hasher} (which must be {@link #hasher()} or have its id).
   */
  <T> ShardedCuckooFilter.Builder<T> shardedBuilder(int shardBits, ItemHasher<? super T> hasher) {
    return shardedBuilder(hasher, expectedItems, falsePositiveRate, shardBits);
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
