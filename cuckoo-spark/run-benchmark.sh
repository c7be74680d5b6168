#!/bin/sh
# Runs the Spark benchmark (SparkFilterBenchmark, a main class among the test classes) from the
# repository root: compiles, writes the test classpath, starts one JVM with the options Spark needs
# on Java 17 (taken from the module's pom). Arguments: [items] [repetitions] [partitions] [bloom bit cap]
# Example: cuckoo-spark/run-benchmark.sh 10000000 5 4
set -e
cd "$(dirname "$0")/.."
mvn -B -q -o test-compile -pl cuckoo-core,cuckoo-spark
mvn -B -q -o -pl cuckoo-spark dependency:build-classpath \
  -Dmdep.outputFile=target/benchmark.classpath -Dmdep.includeScope=test
OPTS=$(sed -n 's#.*<spark.javaOptions>\(.*\)</spark.javaOptions>.*#\1#p' cuckoo-spark/pom.xml)
# the worktree's own core first, whatever cuckoo-core snapshot the local repository holds
CP=cuckoo-core/target/classes:cuckoo-spark/target/classes:cuckoo-spark/target/test-classes
exec java -Xmx6g $OPTS -cp "$CP:$(cat cuckoo-spark/target/benchmark.classpath)" \
  dev.cuckoo.spark.SparkFilterBenchmark "$@"
