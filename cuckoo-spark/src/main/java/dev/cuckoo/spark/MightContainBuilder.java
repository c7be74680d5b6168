package dev.cuckoo.spark;

import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.classic.UserDefinedFunctionUtils;
import org.apache.spark.sql.expressions.SparkUserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * Builds the Spark expression of one call of {@code cuckoo_might_contain(filter, value)}: the
 * {@link MightContainFunction} UDF, with a {@code string} value cast to {@code binary} (its UTF-8
 * bytes) so that Spark does not decode every value into a Java {@code String} that the hasher would
 * encode again; the core hashes text as its UTF-8 bytes, so the answer is the same.
 */
final class MightContainBuilder extends AbstractFunction1<Seq<Expression>, Expression>
    implements Serializable {
  private static final long serialVersionUID = 1L;

  private final SparkUserDefinedFunction udf;

  MightContainBuilder(SparkUserDefinedFunction udf) {
    this.udf = udf;
  }

  @Override
  public Expression apply(Seq<Expression> arguments) {
    List<Expression> args = CollectionConverters.asJava(arguments);
    if (args.size() != 2) {
      throw new IllegalArgumentException(
          CuckooFunctions.MIGHT_CONTAIN
              + ": "
              + args.size()
              + " arguments (expected: "
              + CuckooFunctions.MIGHT_CONTAIN
              + "(filter, col))");
    }
    Expression value = args.get(1);
    ColumnKind kind = ColumnKind.of(value.dataType(), CuckooFunctions.MIGHT_CONTAIN);
    if (kind == ColumnKind.STRING) {
      value = new Cast(value, DataTypes.BinaryType, Option.empty());
    }
    return UserDefinedFunctionUtils.toScalaUDF(
        udf, CollectionConverters.asScala(List.of(args.get(0), value)).toSeq());
  }
}
