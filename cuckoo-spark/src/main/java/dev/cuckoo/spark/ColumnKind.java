package dev.cuckoo.spark;

import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;

/** The kinds of column a filter can be built from, each hashed as the core's matching hasher. */
enum ColumnKind {
  /** {@code string}: hashed as UTF-8 text, like {@code ItemHashers.utf8()}. */
  STRING,
  /** {@code tinyint}, {@code smallint}, {@code int}, {@code bigint}: widened to {@code long}. */
  INTEGRAL,
  /** {@code binary}: hashed as the bytes, like {@code ItemHashers.bytes()}. */
  BINARY;

  /** The column types accepted, for error messages. */
  static final String SUPPORTED = "string, tinyint, smallint, int, bigint or binary";

  /**
   * Returns the kind of a column of {@code type}.
   *
   * @throws IllegalArgumentException naming the function and the type if it is not supported
   */
  static ColumnKind of(DataType type, String function) {
    if (type instanceof StringType) {
      return STRING;
    }
    if (type instanceof ByteType
        || type instanceof ShortType
        || type instanceof IntegerType
        || type instanceof LongType) {
      return INTEGRAL;
    }
    if (type instanceof BinaryType) {
      return BINARY;
    }
    throw new IllegalArgumentException(
        function + ": a column of type " + type.simpleString() + " (expected: " + SUPPORTED + ")");
  }
}
