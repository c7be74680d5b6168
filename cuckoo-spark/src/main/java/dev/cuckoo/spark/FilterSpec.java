package dev.cuckoo.spark;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHasher;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.MembershipFilter;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.Scheme;
import dev.cuckoo.ShardedCuckooFilter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.function.LongPredicate;
import java.util.function.LongUnaryOperator;

/**
 * What filter an aggregation builds: the scheme, the kind of column, the size and the rate. It
 * decides how a column value becomes the 64-bit hash the core's hasher would compute for the same
 * item, so that a filter built in Spark answers the same in a plain JVM, the CLI and the server,
 * and which core class holds the filter: a {@link CuckooFilter}, or for {@link Scheme#REDISBLOOM} a
 * {@link RedisCuckooFilter} that never grows ({@code CF.RESERVE key capacity EXPANSION 0}), written
 * in the single-filter form.
 */
final class FilterSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Largest serialized filter: it must fit in one Spark {@code BINARY} value (a Java array). */
  static final long MAX_FILTER_BYTES = Integer.MAX_VALUE - 1024;

  /** The bucket size of a RedisBloom filter, {@code CF.RESERVE}'s default. */
  static final int REDIS_BUCKET_SIZE = RedisCuckooFilter.DEFAULT_BUCKET_SIZE;

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
   * ({@link CuckooFilter.Builder#serializedSizeInBytes()}, {@link
   * RedisCuckooFilter#singleSerializedSizeInBytes}).
   */
  static long maxExpectedItems(Scheme scheme, double falsePositiveRate) {
    return largestFitting(n -> serializedSize(scheme, n, falsePositiveRate), MAX_FILTER_BYTES);
  }

  /** Returns the bytes of the serialized filter of {@code scheme} for {@code expectedItems}. */
  static long serializedSize(Scheme scheme, long expectedItems, double falsePositiveRate) {
    return scheme == Scheme.REDISBLOOM
        ? RedisCuckooFilter.singleSerializedSizeInBytes(expectedItems, REDIS_BUCKET_SIZE)
        : builder(ItemHashers.bytes(), scheme, expectedItems, falsePositiveRate)
            .serializedSizeInBytes();
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
   * Returns the core builder of a filter of {@code scheme} ({@link Scheme#STANDARD_FAST} or {@link
   * Scheme#STANDARD}) for {@code expectedItems} items at {@code falsePositiveRate}.
   */
  static <T> CuckooFilter.Builder<T> builder(
      ItemHasher<? super T> hasher, Scheme scheme, long expectedItems, double falsePositiveRate) {
    return CuckooFilter.<T>builder(hasher)
        .expectedItems(expectedItems)
        .scheme(scheme)
        .falsePositiveRate(falsePositiveRate);
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

  /**
   * Returns a new, empty filter of this specification: for {@link Scheme#REDISBLOOM}, {@code
   * CF.RESERVE key expectedItems} of a filter that never grows (bucket size 2, 20 max iterations,
   * expansion 0), whose rate follows from its 8-bit fingerprints.
   */
  MembershipFilter<Object> newFilter() {
    if (scheme == Scheme.REDISBLOOM) {
      return RedisCuckooFilter.reserve(
          hasher(), expectedItems, REDIS_BUCKET_SIZE, RedisCuckooFilter.DEFAULT_MAX_ITERATIONS, 0);
    }
    return builder(hasher(), scheme, expectedItems, falsePositiveRate).build();
  }

  /**
   * Adds every fingerprint of {@code from} to {@code into}, two filters of this specification, all
   * or nothing ({@link CuckooFilter#addAll}, {@link RedisCuckooFilter#addAll}).
   *
   * @return true if every fingerprint fit; false if not, {@code into} unchanged
   */
  @SuppressWarnings("unchecked")
  static boolean addAll(MembershipFilter<Object> into, MembershipFilter<Object> from) {
    if (into instanceof RedisCuckooFilter) {
      return ((RedisCuckooFilter<Object>) into).addAll((RedisCuckooFilter<Object>) from);
    }
    return ((CuckooFilter<Object>) into).addAll((CuckooFilter<Object>) from);
  }

  /** Returns the number of slots of a filter of this specification. */
  static long slots(MembershipFilter<?> filter) {
    if (filter instanceof CuckooFilter<?> single) {
      return single.bucketCount() * single.bucketSize();
    }
    // a RedisBloom filter's capacity is its slot count
    return filter.capacity();
  }

  /** Returns the length of what {@link #writeTo} writes for {@code filter}. */
  long serializedSizeInBytes(MembershipFilter<?> filter) {
    return scheme == Scheme.REDISBLOOM
        ? RedisCuckooFilter.singleSerializedSizeInBytes(filter.capacity(), filter.bucketSize())
        : filter.serializedSizeInBytes();
  }

  /**
   * Writes a filter of this specification in the core's format: a single filter either way (a
   * {@link RedisCuckooFilter} of one link in the single-filter form, hasher {@link #hasher()}).
   */
  void writeTo(MembershipFilter<?> filter, OutputStream out) throws IOException {
    if (filter instanceof RedisCuckooFilter<?> redis) {
      redis.writeSingleTo(out, hasher());
    } else {
      filter.writeTo(out);
    }
  }

  /** Reads a filter of this specification that {@link #writeTo} wrote. */
  MembershipFilter<Object> read(byte[] bytes) throws IOException {
    ByteArrayInputStream in = new ByteArrayInputStream(bytes);
    return scheme == Scheme.REDISBLOOM
        ? RedisCuckooFilter.readFrom(in, hasher())
        : CuckooFilter.readFrom(in, hasher());
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
