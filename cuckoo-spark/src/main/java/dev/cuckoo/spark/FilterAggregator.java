package dev.cuckoo.spark;

import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.expressions.Aggregator;

/**
 * The typed Spark {@link Aggregator} behind {@code cuckoo_filter_agg}: hashes each non-null value
 * into a {@link PartialFilter}, merges the partial results of the tasks, and finishes with the
 * filter's bytes in the core's format.
 *
 * @param <IN> the Java type Spark gives the values as: {@code String}, {@code Long} or {@code
 *     byte[]}
 */
final class FilterAggregator<IN> extends Aggregator<IN, PartialFilter, byte[]> {
  private static final long serialVersionUID = 1L;

  private final FilterSpec spec;

  FilterAggregator(FilterSpec spec) {
    this.spec = spec;
  }

  /**
   * Returns the encoder of the values this aggregator takes, for {@code functions.udaf}. Strings
   * are taken as BINARY (Spark casts a string to its UTF-8 bytes): the core hashes text as its
   * UTF-8 bytes, {@code utf8().hash(s) == bytes().hash(s.getBytes(UTF_8))}, so the hash is the same
   * without decoding every value into a Java {@code String} and encoding it again.
   */
  @SuppressWarnings("unchecked")
  Encoder<IN> inputEncoder() {
    switch (spec.kind) {
      case STRING:
        return (Encoder<IN>) Encoders.BINARY();
      case INTEGRAL:
        return (Encoder<IN>) Encoders.LONG();
      default:
        return (Encoder<IN>) Encoders.BINARY();
    }
  }

  @Override
  public PartialFilter zero() {
    return new PartialFilter(spec);
  }

  @Override
  public PartialFilter reduce(PartialFilter buffer, IN value) {
    if (value != null) {
      buffer.add(spec.hash(value));
    }
    return buffer;
  }

  @Override
  public PartialFilter merge(PartialFilter left, PartialFilter right) {
    return left.merge(right);
  }

  @Override
  public byte[] finish(PartialFilter buffer) {
    return buffer.toBytes();
  }

  @Override
  public Encoder<PartialFilter> bufferEncoder() {
    return Encoders.javaSerialization(PartialFilter.class);
  }

  @Override
  public Encoder<byte[]> outputEncoder() {
    return Encoders.BINARY();
  }
}
