package dev.cuckoo.spark;

import dev.cuckoo.AddOutcome;
import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHasher;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.Scheme;
import dev.cuckoo.ShardedCuckooFilter;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import scala.Tuple2;

/**
 * The partitioned build of a {@link ShardedCuckooFilter}: every value becomes its 8-byte hash,
 * Spark shuffles the hashes by shard (the top bits of the hash), each task builds the shards it
 * receives, and the driver assembles the shards — in memory, or streamed to a file one shard at a
 * time, so the driver never holds more than one shard.
 */
final class ShardedBuild {
  /** Largest serialized shard: half of what one BINARY value can hold. */
  private static final long MAX_SHARD_BYTES = 1L << 30;

  private static final String HASH = "h";
  private static final String SHARD = "s";
  private static final UserDefinedFunction HASH_UDF =
      functions.udf(new HashFunction(), DataTypes.LongType).withName("cuckoo_hash");

  private final FilterSpec spec;
  private final int shardBits;
  private final Dataset<Tuple2<Integer, byte[]>> shards;

  ShardedBuild(Dataset<?> data, Column column, long expectedItems, double fpp, int shardBits) {
    String name = "buildShardedFilter";
    Arguments.fpp(name, fpp);
    ColumnKind kind = ColumnKind.of(data.select(column).schema().fields()[0].dataType(), name);
    if (shardBits < 0 || shardBits > ShardedCuckooFilter.MAX_SHARD_BITS) {
      throw new IllegalArgumentException(
          name
              + ": shardBits: "
              + shardBits
              + " (expected: 0 <= shardBits <= "
              + ShardedCuckooFilter.MAX_SHARD_BITS
              + ")");
    }
    // each shard travels as one BINARY value, of at most MAX_SHARD_BYTES
    long max =
        FilterSpec.largestFitting(
            n ->
                FilterSpec.shardedBuilder(ItemHashers.bytes(), n, fpp, shardBits)
                    .shardBuilder()
                    .serializedSizeInBytes(),
            MAX_SHARD_BYTES);
    Arguments.range(
        name,
        "expectedItems",
        expectedItems,
        max,
        " with shardBits " + shardBits + " at fpp " + fpp + ", a shard being at most 1 GiB");
    this.spec = new FilterSpec(Scheme.STANDARD_FAST, kind, expectedItems, fpp, 0);
    this.shardBits = shardBits;
    this.shards = shards(data, column);
  }

  /** The builder every shard comes from, typed for {@code hasher}. */
  <T> ShardedCuckooFilter.Builder<T> builder(ItemHasher<? super T> hasher) {
    return spec.shardedBuilder(shardBits, hasher);
  }

  private Dataset<Tuple2<Integer, byte[]>> shards(Dataset<?> data, Column column) {
    // strings as their UTF-8 bytes: the same hash as the text, without a Java String per value
    Column hash = HASH_UDF.apply(spec.kind == ColumnKind.STRING ? column.cast("binary") : column);
    Column shard =
        shardBits == 0
            ? functions.lit(0)
            : functions.shiftrightunsigned(functions.col(HASH), 64 - shardBits).cast("int");
    return data.select(hash.as(HASH))
        .where(functions.col(HASH).isNotNull())
        .withColumn(SHARD, shard)
        .repartition(1 << shardBits, functions.col(SHARD))
        .mapPartitions(
            new ShardTask(spec, shardBits), Encoders.tuple(Encoders.INT(), Encoders.BINARY()));
  }

  /**
   * Collects every shard to the driver and returns the filter.
   *
   * @throws IllegalArgumentException if {@code hasher} is not the hasher of the column's type
   */
  <T> ShardedCuckooFilter<T> collect(ItemHasher<? super T> hasher) {
    if (hasher.id() != spec.hasher().id()) {
      throw new IllegalArgumentException(
          "hasher: "
              + hasher
              + " (expected: "
              + spec.hasher()
              + ", the hasher of the column's type)");
    }
    ShardedCuckooFilter.Builder<T> builder = builder(hasher);
    List<CuckooFilter<T>> filters = new ArrayList<>(1 << shardBits);
    for (int i = 0; i < 1 << shardBits; i++) {
      filters.add(null);
    }
    for (Iterator<Tuple2<Integer, byte[]>> it = shards.toLocalIterator(); it.hasNext(); ) {
      Tuple2<Integer, byte[]> shard = it.next();
      filters.set(shard._1(), CuckooFunctions.readFilter(shard._2(), hasher));
    }
    for (int i = 0; i < filters.size(); i++) {
      if (filters.get(i) == null) {
        filters.set(i, builder.buildShard());
      }
    }
    return ShardedCuckooFilter.of(builder, filters);
  }

  /** Writes the sharded file to {@code out}, holding one shard at a time. */
  void writeTo(OutputStream out) throws IOException {
    ShardedCuckooFilter.Builder<Object> builder = builder(spec.hasher());
    ShardedCuckooFilter.writeHeader(out, builder);
    int next = 0;
    Iterator<Tuple2<Integer, byte[]>> it = shards.orderBy(shards.col("_1")).toLocalIterator();
    while (it.hasNext()) {
      Tuple2<Integer, byte[]> shard = it.next();
      for (; next < shard._1(); next++) {
        builder.buildShard().writeTo(out);
      }
      out.write(shard._2());
      next++;
    }
    for (; next < 1 << shardBits; next++) {
      builder.buildShard().writeTo(out);
    }
  }

  /** Hashes a column value as the core does; null for null. */
  private static final class HashFunction implements UDF1<Object, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long call(Object value) {
      return value == null ? null : FilterSpec.hash(Scheme.STANDARD_FAST, value);
    }
  }

  /** Builds the shards of one partition from its (hash, shard) rows. */
  private static final class ShardTask
      implements MapPartitionsFunction<Row, Tuple2<Integer, byte[]>> {
    private static final long serialVersionUID = 1L;
    private final FilterSpec spec;
    private final int shardBits;

    ShardTask(FilterSpec spec, int shardBits) {
      this.spec = spec;
      this.shardBits = shardBits;
    }

    @Override
    public Iterator<Tuple2<Integer, byte[]>> call(Iterator<Row> rows) {
      ShardedCuckooFilter.Builder<Object> builder = spec.shardedBuilder(shardBits, spec.hasher());
      Map<Integer, CuckooFilter<Object>> shards = new TreeMap<>();
      while (rows.hasNext()) {
        Row row = rows.next();
        long hash = row.getLong(0);
        CuckooFilter<Object> shard =
            shards.computeIfAbsent(row.getInt(1), s -> builder.buildShard());
        if (shard.addIfAbsentWithOutcomeHash(hash) == AddOutcome.FULL) {
          throw new IllegalStateException(
              "buildShardedFilter: shard "
                  + row.getInt(1)
                  + " of the "
                  + spec
                  + " is full: "
                  + shard.size()
                  + " fingerprints stored, capacity "
                  + shard.capacity()
                  + " (expected: expectedItems at least the number of distinct non-null values)");
        }
      }
      List<Tuple2<Integer, byte[]>> out = new ArrayList<>(shards.size());
      for (Map.Entry<Integer, CuckooFilter<Object>> shard : shards.entrySet()) {
        out.add(new Tuple2<>(shard.getKey(), PartialFilter.serialize(shard.getValue())));
      }
      return out.iterator();
    }
  }
}
