package dev.cuckoo.spark;

import java.util.Map;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import scala.Function1;
import scala.Tuple3;
import scala.collection.immutable.Seq;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * Spark session extensions that register the SQL functions of {@link CuckooFunctions} in every
 * session, with no code: start Spark with {@code --conf
 * spark.sql.extensions=dev.cuckoo.spark.CuckooSparkExtensions} (and this module's jars), e.g. from
 * PySpark or the {@code spark-sql} shell. The functions are then built-in functions of the session,
 * not temporary ones.
 */
public final class CuckooSparkExtensions
    extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  /** Creates the extensions; Spark calls this through {@code spark.sql.extensions}. */
  public CuckooSparkExtensions() {}

  /**
   * Injects {@value CuckooFunctions#FILTER_AGG}, {@value CuckooFunctions#REDISBLOOM_AGG} and
   * {@value CuckooFunctions#MIGHT_CONTAIN} into {@code extensions}.
   *
   * @param extensions the session's extensions
   * @return nothing
   */
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    for (Map.Entry<String, Function1<Seq<Expression>, Expression>> function :
        CuckooFunctions.builders().entrySet()) {
      extensions.injectFunction(
          new Tuple3<>(
              FunctionIdentifier.apply(function.getKey()),
              new ExpressionInfo(CuckooFunctions.class.getName(), function.getKey()),
              function.getValue()));
    }
    return BoxedUnit.UNIT;
  }
}
