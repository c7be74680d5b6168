package dev.cuckoo.spark;

import dev.cuckoo.Scheme;
import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.execution.aggregate.ScalaAggregator$;
import org.apache.spark.sql.expressions.UserDefinedAggregator;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.internal.SQLConf;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

/**
 * Builds the Spark expression of one call of {@code cuckoo_filter_agg} or {@code
 * cuckoo_redisbloom_agg}: the function registry calls it with the call's resolved arguments.
 *
 * <p>A typed {@link org.apache.spark.sql.expressions.Aggregator} has one input type, but the SQL
 * function takes strings, integers and binaries and constant parameters; so this builder looks at
 * the column's type and the constants and wraps a {@link FilterAggregator} of the matching kind
 * with {@code functions.udaf}, exactly as {@code spark.udf().register(name, udaf)} does for a
 * single input type (its {@code ScalaAggregator}; integral columns are widened to {@code bigint} by
 * Spark's implicit casts).
 */
final class AggregateBuilder extends AbstractFunction1<Seq<Expression>, Expression>
    implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final Scheme scheme;

  AggregateBuilder(String name, Scheme scheme) {
    this.name = name;
    this.scheme = scheme;
  }

  @Override
  public Expression apply(Seq<Expression> arguments) {
    List<Expression> args = CollectionConverters.asJava(arguments);
    boolean standard = scheme == Scheme.STANDARD_FAST;
    String usage = standard ? name + "(col, expectedItems [, fpp])" : name + "(col, capacity)";
    if (args.size() < 2 || args.size() > (standard ? 3 : 2)) {
      throw new IllegalArgumentException(
          name + ": " + args.size() + " arguments (expected: " + usage + ")");
    }
    ColumnKind kind = ColumnKind.of(args.get(0).dataType(), name);
    String sizeName = standard ? "expectedItems" : "capacity";
    double fpp =
        args.size() == 3
            ? Arguments.fpp(name, Arguments.doubleConstant(name, "fpp", args.get(2)))
            : CuckooFunctions.DEFAULT_FPP;
    long expectedItems =
        Arguments.expectedItems(
            name, sizeName, Arguments.longConstant(name, sizeName, args.get(1)), scheme, fpp);
    HashBuffering buffering =
        HashBuffering.parse(SQLConf.get().getConfString(HashBuffering.CONF, "auto"));
    FilterSpec spec =
        new FilterSpec(scheme, kind, expectedItems, fpp, buffering.hashLimit(expectedItems));
    return aggregate(new FilterAggregator<>(spec), args.get(0));
  }

  private <IN> Expression aggregate(FilterAggregator<IN> aggregator, Expression column) {
    @SuppressWarnings("unchecked")
    UserDefinedAggregator<IN, PartialFilter, byte[]> udaf =
        (UserDefinedAggregator<IN, PartialFilter, byte[]>)
            functions.udaf(aggregator, aggregator.inputEncoder());
    Seq<Expression> children = CollectionConverters.asScala(List.of(column)).toSeq();
    return ScalaAggregator$.MODULE$.apply(udaf.withName(name), children);
  }
}
