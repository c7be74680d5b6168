package dev.cuckoo.spark;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.FilterFormatException;
import dev.cuckoo.ItemHasher;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.Scheme;
import dev.cuckoo.ShardedCuckooFilter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.expressions.SparkUserDefinedFunction;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import scala.Function1;
import scala.collection.immutable.Seq;

/**
 * Cuckoo filters in Spark SQL and the Dataset API: an aggregate that builds a filter from a column
 * where the data is, and a function that tests values against it.
 *
 * <pre>{@code
 * CuckooFunctions.register(spark);
 * byte[] filter = spark.sql("SELECT cuckoo_filter_agg(v, 20000, 0.01) FROM strings")
 *     .first().getAs(0);
 * CuckooFilter<CharSequence> read = CuckooFunctions.readFilter(filter, ItemHashers.utf8());
 * spark.sql("SELECT count(*) FROM big WHERE cuckoo_might_contain("
 *     + "(SELECT cuckoo_filter_agg(DISTINCT v, 1000, 0.0001) FROM small), v)");
 * }</pre>
 *
 * <p>(From {@code FilterAggregateTest}.)
 *
 * <h2>Hashing</h2>
 *
 * <p>A column value is hashed exactly as the core hashes the same item, so the filter's bytes are
 * read by {@link CuckooFilter#readFrom(java.io.InputStream, ItemHasher)} with {@code
 * ItemHashers.utf8()} for {@code string} columns, {@code ItemHashers.longs()} for {@code tinyint},
 * {@code smallint}, {@code int} and {@code bigint} columns (widened to {@code long}) and {@code
 * ItemHashers.bytes()} for {@code binary} columns, and answer the same in a plain JVM, the CLI and
 * the server. Nulls are skipped. {@value #REDISBLOOM_AGG} builds filters of the RedisBloom scheme
 * instead (MurmurHash64A; integers hashed as their decimal text, as Redis receives them), which
 * {@link #readRedisBloomFilter} reads as a {@link RedisCuckooFilter} and {@code cuckoo export
 * --format redisbloom} loads into Redis 8 or cuckoo-server.
 *
 * <h2>Contract</h2>
 *
 * <ul>
 *   <li>Set semantics: a value that occurs many times is stored once per task that sees it; partial
 *       filters of different tasks are merged with {@link CuckooFilter#addAll}, all or nothing. A
 *       filter that cannot hold the values (more distinct values than {@code expectedItems}) fails
 *       the query with an error that gives the counts; it never returns a fuller filter than asked
 *       for.
 *   <li>{@value #MIGHT_CONTAIN} never answers false for a value that was aggregated (no false
 *       negatives), answers true for other values with probability at most about {@code fpp}, and
 *       answers null for a null value or filter.
 *   <li>Every function here is thread-safe.
 * </ul>
 */
public final class CuckooFunctions {
  /** The SQL name of the aggregate that builds a filter: {@code (col, expectedItems [, fpp])}. */
  public static final String FILTER_AGG = "cuckoo_filter_agg";

  /** The SQL name of the aggregate that builds a RedisBloom filter: {@code (col, capacity)}. */
  public static final String REDISBLOOM_AGG = "cuckoo_redisbloom_agg";

  /** The SQL name of the membership test: {@code (filter, col)}, a BOOLEAN. */
  public static final String MIGHT_CONTAIN = "cuckoo_might_contain";

  /** The false-positive rate when none is given: 1%. */
  public static final double DEFAULT_FPP = CuckooFilter.DEFAULT_FALSE_POSITIVE_RATE;

  private static final UserDefinedFunction MIGHT_CONTAIN_UDF =
      functions.udf(new MightContainFunction(), DataTypes.BooleanType).withName(MIGHT_CONTAIN);

  private CuckooFunctions() {}

  /**
   * Registers {@value #FILTER_AGG}, {@value #REDISBLOOM_AGG} and {@value #MIGHT_CONTAIN} as
   * temporary functions of {@code spark}; calling it again replaces them. ({@link
   * CuckooSparkExtensions} registers them in every session instead.)
   *
   * @param spark a classic (not Spark Connect) session
   * @throws IllegalArgumentException if {@code spark} is a Spark Connect session
   * @throws NullPointerException if {@code spark} is null
   */
  public static void register(SparkSession spark) {
    if (spark == null) {
      throw new NullPointerException("spark must not be null");
    }
    if (!(spark instanceof org.apache.spark.sql.classic.SparkSession)) {
      throw new IllegalArgumentException(
          "spark: a " + spark.getClass().getName() + " (expected: a classic SparkSession)");
    }
    FunctionRegistry registry =
        ((org.apache.spark.sql.classic.SparkSession) spark).sessionState().functionRegistry();
    for (Map.Entry<String, Function1<Seq<Expression>, Expression>> function :
        builders().entrySet()) {
      registry.createOrReplaceTempFunction(function.getKey(), function.getValue(), "scala_udf");
    }
  }

  /** Returns the expression builder of each SQL function, by name. */
  static Map<String, Function1<Seq<Expression>, Expression>> builders() {
    Map<String, Function1<Seq<Expression>, Expression>> builders = new LinkedHashMap<>();
    builders.put(FILTER_AGG, new AggregateBuilder(FILTER_AGG, Scheme.STANDARD_FAST));
    builders.put(REDISBLOOM_AGG, new AggregateBuilder(REDISBLOOM_AGG, Scheme.REDISBLOOM));
    builders.put(
        MIGHT_CONTAIN, new MightContainBuilder((SparkUserDefinedFunction) MIGHT_CONTAIN_UDF));
    return builders;
  }

  /**
   * Returns the aggregate {@value #FILTER_AGG}{@code (column, expectedItems, fpp)}: a BINARY value,
   * one filter of every non-null value of {@code column} in the core's format. Registers the
   * functions in the active session if they are not registered yet.
   *
   * @param column a {@code string}, integral or {@code binary} column
   * @param expectedItems the number of distinct values the filter must hold; at least 1
   * @param fpp the target false-positive rate, in [1e-8, 1)
   * @return the aggregate column
   * @throws IllegalArgumentException if a parameter is out of range (the message names it, its
   *     value and the range)
   */
  public static Column cuckooFilterAgg(Column column, long expectedItems, double fpp) {
    Arguments.expectedItems(
        FILTER_AGG,
        "expectedItems",
        expectedItems,
        Scheme.STANDARD_FAST,
        Arguments.fpp(FILTER_AGG, fpp));
    registerInActiveSession();
    return functions.call_function(
        FILTER_AGG, column, functions.lit(expectedItems), functions.lit(fpp));
  }

  /**
   * Returns {@link #cuckooFilterAgg(Column, long, double)} with the default rate {@value
   * #DEFAULT_FPP}.
   *
   * @param column a {@code string}, integral or {@code binary} column
   * @param expectedItems the number of distinct values the filter must hold; at least 1
   * @return the aggregate column
   */
  public static Column cuckooFilterAgg(Column column, long expectedItems) {
    return cuckooFilterAgg(column, expectedItems, DEFAULT_FPP);
  }

  /**
   * Returns the aggregate {@value #REDISBLOOM_AGG}{@code (column, capacity)}: a filter of the
   * RedisBloom scheme, as {@code CF.RESERVE key capacity} creates it in Redis (bucket size 2, 20
   * max iterations) and {@code CF.ADDNX} fills it; {@code cuckoo export --format redisbloom} loads
   * it into Redis 8 or cuckoo-server. Integers are hashed as their decimal text, since that is what
   * a Redis client sends.
   *
   * @param column a {@code string}, integral or {@code binary} column
   * @param capacity RedisBloom's capacity, at least 1
   * @return the aggregate column
   * @throws IllegalArgumentException if {@code capacity} is out of range
   */
  public static Column redisBloomFilterAgg(Column column, long capacity) {
    Arguments.expectedItems(REDISBLOOM_AGG, "capacity", capacity, Scheme.REDISBLOOM, DEFAULT_FPP);
    registerInActiveSession();
    return functions.call_function(REDISBLOOM_AGG, column, functions.lit(capacity));
  }

  /**
   * Returns {@value #MIGHT_CONTAIN}{@code (filter, value)}: true if the filter might contain the
   * value, false if it definitely does not, null if either is null. Registers the functions in the
   * active session if they are not registered yet. Give the filter as a literal ({@code
   * functions.lit(bytes)}) or a scalar subquery, so that it is read once per task.
   *
   * @param filter a BINARY column holding a filter built from a column of the value's type
   * @param value a {@code string}, integral or {@code binary} column
   * @return the BOOLEAN column
   */
  public static Column mightContain(Column filter, Column value) {
    registerInActiveSession();
    return functions.call_function(MIGHT_CONTAIN, filter, value);
  }

  /**
   * Builds the filter of every non-null value of {@code column} in {@code data} and returns it,
   * read with {@code hasher}.
   *
   * @param data the rows
   * @param column a {@code string}, integral or {@code binary} column of {@code data}
   * @param expectedItems the number of distinct values the filter must hold; at least 1
   * @param fpp the target false-positive rate, in [1e-8, 1)
   * @param hasher {@code ItemHashers.utf8()}, {@code longs()} or {@code bytes()}, as the column's
   *     type requires
   * @param <T> the item type of the filter
   * @return the filter
   * @throws IllegalArgumentException if a parameter is out of range
   * @throws FilterFormatException if {@code hasher} is not the one for the column's type
   */
  public static <T> CuckooFilter<T> buildFilter(
      Dataset<?> data,
      Column column,
      long expectedItems,
      double fpp,
      ItemHasher<? super T> hasher) {
    Row row = data.agg(cuckooFilterAgg(column, expectedItems, fpp)).first();
    return readFilter(row.getAs(0), hasher);
  }

  /**
   * Builds a sharded filter of every non-null value of {@code column} where the data is: Spark
   * shuffles the values' 8-byte hashes by shard (the top {@code shardBits} bits of the hash), each
   * task builds whole shards, and the driver assembles them. For filters too large for one
   * aggregation buffer or one task; the driver holds the whole filter (see {@link
   * #writeShardedFilter} to hold one shard at a time).
   *
   * @param data the rows
   * @param column a {@code string}, integral or {@code binary} column of {@code data}
   * @param expectedItems the number of distinct values the filter must hold; at least 1
   * @param fpp the target false-positive rate, in [1e-8, 1)
   * @param shardBits 0 to 16: 2^shardBits shards, each built by one task
   * @param hasher {@code ItemHashers.utf8()}, {@code longs()} or {@code bytes()}, as the column's
   *     type requires
   * @param <T> the item type of the filter
   * @return the filter
   * @throws IllegalArgumentException if a parameter is out of range or {@code hasher} is not the
   *     one of the column's type
   */
  public static <T> ShardedCuckooFilter<T> buildShardedFilter(
      Dataset<?> data,
      Column column,
      long expectedItems,
      double fpp,
      int shardBits,
      ItemHasher<? super T> hasher) {
    return new ShardedBuild(data, column, expectedItems, fpp, shardBits).collect(hasher);
  }

  /**
   * Builds a sharded filter as {@link #buildShardedFilter} does and writes it to {@code out} in the
   * sharded format ({@code ShardedCuckooFilter.readFrom} reads it), receiving the shards one at a
   * time in order, so the driver never holds more than one.
   *
   * @param data the rows
   * @param column a {@code string}, integral or {@code binary} column of {@code data}
   * @param expectedItems the number of distinct values the filter must hold; at least 1
   * @param fpp the target false-positive rate, in [1e-8, 1)
   * @param shardBits 0 to 16: 2^shardBits shards, each built by one task
   * @param out where to write; not closed
   * @throws IllegalArgumentException if a parameter is out of range
   * @throws IOException if {@code out} fails
   */
  public static void writeShardedFilter(
      Dataset<?> data,
      Column column,
      long expectedItems,
      double fpp,
      int shardBits,
      OutputStream out)
      throws IOException {
    new ShardedBuild(data, column, expectedItems, fpp, shardBits).writeTo(out);
  }

  /**
   * Reads a filter that {@value #FILTER_AGG} returned.
   *
   * @param bytes the aggregate's value
   * @param hasher the hasher of the column's type (see the class comment)
   * @param <T> the item type of the filter
   * @return the filter
   * @throws FilterFormatException if the bytes are not a filter, are a filter of {@value
   *     #REDISBLOOM_AGG} (read it with {@link #readRedisBloomFilter}), or {@code hasher} is not the
   *     filter's
   * @throws NullPointerException if {@code bytes} is null
   */
  public static <T> CuckooFilter<T> readFilter(byte[] bytes, ItemHasher<? super T> hasher) {
    try {
      return CuckooFilter.readFrom(new ByteArrayInputStream(nonNull(bytes)), hasher);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads a filter that {@value #REDISBLOOM_AGG} returned: a {@link RedisCuckooFilter} of one link
   * that never grows, as {@code CF.RESERVE key capacity EXPANSION 0} and the same adds make it.
   *
   * @param bytes the aggregate's value
   * @param hasher {@code ItemHashers.redisUtf8()} for {@code string} and integral columns, {@code
   *     ItemHashers.redisBytes()} for {@code binary} columns
   * @param <T> the item type of the filter
   * @return the filter
   * @throws FilterFormatException if the bytes are not a RedisBloom filter or {@code hasher} is not
   *     the filter's
   * @throws NullPointerException if {@code bytes} is null
   */
  public static <T> RedisCuckooFilter<T> readRedisBloomFilter(
      byte[] bytes, ItemHasher<? super T> hasher) {
    try {
      return RedisCuckooFilter.readFrom(new ByteArrayInputStream(nonNull(bytes)), hasher);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] nonNull(byte[] bytes) {
    if (bytes == null) {
      throw new NullPointerException("bytes must not be null");
    }
    return bytes;
  }

  private static void registerInActiveSession() {
    SparkSession spark = SparkSession.active();
    if (!spark.catalog().functionExists(MIGHT_CONTAIN)) {
      register(spark);
    }
  }
}
