package dev.cuckoo.spark;

import dev.cuckoo.FilterFile;
import dev.cuckoo.FilterFormatException;
import dev.cuckoo.ItemHasher;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.MembershipFilter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.api.java.UDF2;

/**
 * The Spark UDF behind {@code cuckoo_might_contain(filter, value)}: reads the filter once and
 * answers {@code mightContain} for each value, null for a null value or filter.
 *
 * <p>The filter is read again only when its bytes change: a filter given as a literal or a scalar
 * subquery is the same array on every row (compared by identity); one that comes from a column is
 * compared by content. The filter is read with the hasher of the value's type ({@code utf8}, {@code
 * longs}, {@code bytes}, or their RedisBloom counterparts), so the core's hasher check rejects a
 * filter built from a column of another type.
 */
final class MightContainFunction implements UDF2<byte[], Object, Boolean> {
  private static final long serialVersionUID = 1L;

  /** The last filter read, with the bytes it was read from; replaced whole, so safe to share. */
  private transient volatile Loaded last;

  @Override
  public Boolean call(byte[] filterBytes, Object value) throws IOException {
    if (filterBytes == null || value == null) {
      return null;
    }
    Loaded loaded = last;
    if (loaded == null
        || (loaded.bytes != filterBytes && !Arrays.equals(loaded.bytes, filterBytes))) {
      loaded = new Loaded(filterBytes, read(filterBytes, value));
      last = loaded;
    }
    return loaded.filter.mightContainHash(FilterSpec.hash(loaded.filter.scheme(), value));
  }

  private static MembershipFilter<?> read(byte[] bytes, Object value) throws IOException {
    boolean binary = value instanceof byte[];
    if (!binary && !(value instanceof CharSequence) && !isIntegral(value)) {
      throw new IllegalArgumentException(
          CuckooFunctions.MIGHT_CONTAIN
              + ": a value of type "
              + value.getClass().getSimpleName()
              + " (expected: "
              + ColumnKind.SUPPORTED
              + ")");
    }
    // the hashers that hash this value as FilterSpec.hash does (text is hashed as its UTF-8
    // bytes, so a string given as bytes fits a utf8 filter); the filter's header names one
    List<ItemHasher<?>> candidates =
        binary
            ? List.of(
                ItemHashers.bytes(),
                ItemHashers.utf8(),
                ItemHashers.redisBytes(),
                ItemHashers.redisUtf8())
            : isIntegral(value)
                ? List.of(ItemHashers.longs(), ItemHashers.redisUtf8())
                : List.of(ItemHashers.utf8(), ItemHashers.redisUtf8());
    FilterFormatException first = null;
    for (ItemHasher<?> hasher : candidates) {
      try {
        return readAs(bytes, hasher);
      } catch (FilterFormatException e) {
        if (!"hasherId".equals(e.field())) {
          throw e;
        }
        first = first == null ? e : first;
      }
    }
    throw new IllegalArgumentException(
        CuckooFunctions.MIGHT_CONTAIN
            + ": the filter was built from another type of column than this "
            + (binary ? "string or binary" : value.getClass().getSimpleName())
            + " value ("
            + first.getMessage()
            + ")",
        first);
  }

  /**
   * Reads the filter of {@code bytes} with {@code hasher}: a {@code CuckooFilter}, or a {@code
   * RedisCuckooFilter} for the RedisBloom scheme.
   */
  private static <T> MembershipFilter<T> readAs(byte[] bytes, ItemHasher<T> hasher)
      throws IOException {
    return FilterFile.<T>read(new ByteArrayInputStream(bytes), id -> hasher).filter();
  }

  private static boolean isIntegral(Object value) {
    return value instanceof Long
        || value instanceof Integer
        || value instanceof Short
        || value instanceof Byte;
  }

  /** A filter and the bytes it was read from. */
  private static final class Loaded {
    final byte[] bytes;
    final MembershipFilter<?> filter;

    Loaded(byte[] bytes, MembershipFilter<?> filter) {
      this.bytes = bytes;
      this.filter = filter;
    }
  }
}
