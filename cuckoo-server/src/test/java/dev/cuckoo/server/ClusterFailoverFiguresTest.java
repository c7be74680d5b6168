package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The failover figures: six nodes made by {@code redis-cli --cluster create --cluster-replicas 1}
 * with {@code cluster-node-timeout 2000}, a master SIGKILLed, and the time from the kill until a
 * node flags it fail, until its replica is a master (its CLUSTER NODES says myself,master: it
 * serves the slots), and until every running node says cluster_state:ok. Five runs of cuckoo-server
 * nodes and five of Debian's redis-server nodes, alternating, in the same run; the medians, ranges
 * and ratios go to standard output and {@code target/cluster-failover-figures.txt}.
 *
 * <p>Run with {@code mvn -B -ntp -pl cuckoo-server -am test -Dtest=ClusterFailoverFiguresTest
 * -Dtest.excludedTags=none -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("slow")
class ClusterFailoverFiguresTest {
  private static final long NODE_TIMEOUT_MILLIS = 2000;
  private static final int RUNS = 5;
  private static final long POLL_MILLIS = 10;

  @TempDir Path dir;

  /** One run's times after the SIGKILL, in milliseconds. */
  private record Times(long fail, long elected, long allOk) {}

  @Test
  void failoverTimes_cuckooAndRedisNodes() throws Exception {
    ClusterNodes.tool("redis-cli");
    ClusterNodes.tool("redis-server");
    Map<ClusterNodes.Kind, List<Times>> times = new EnumMap<>(ClusterNodes.Kind.class);
    for (int run = 0; run < RUNS; run++) {
      for (ClusterNodes.Kind kind : ClusterNodes.Kind.values()) {
        Times measured = once(kind, dir.resolve(kind + "-" + run));
        System.out.println(kind + " run " + run + ": " + measured);
        times.computeIfAbsent(kind, k -> new ArrayList<>()).add(measured);
      }
    }
    StringBuilder report = new StringBuilder();
    report.append(
        String.format(
            "cluster failover, 6 nodes (3 masters + 3 replicas), cluster-node-timeout %d ms, %d runs"
                + " each; ms after SIGKILL of a master: median (min-max)%n",
            NODE_TIMEOUT_MILLIS, RUNS));
    for (ClusterNodes.Kind kind : ClusterNodes.Kind.values()) {
      List<Times> list = times.get(kind);
      report.append(
          String.format(
              "%-7s fail flag %s, new master %s, every node ok %s%n",
              kind.name().toLowerCase(java.util.Locale.ROOT),
              summary(list, Times::fail),
              summary(list, Times::elected),
              summary(list, Times::allOk)));
    }
    List<Times> cuckoo = times.get(ClusterNodes.Kind.CUCKOO);
    List<Times> redis = times.get(ClusterNodes.Kind.REDIS);
    report.append(
        String.format(
            "ratio cuckoo/redis of the medians: fail flag %.2f, new master %.2f, every node ok %.2f%n",
            ratio(cuckoo, redis, Times::fail),
            ratio(cuckoo, redis, Times::elected),
            ratio(cuckoo, redis, Times::allOk)));
    System.out.print(report);
    Files.writeString(
        Path.of("target", "cluster-failover-figures.txt"), report, StandardCharsets.UTF_8);
    for (Times t : cuckoo) {
      assertTrue(
          t.elected() <= 3 * NODE_TIMEOUT_MILLIS,
          "new master after " + t.elected() + " ms (expected: <= 3 node timeouts)");
    }
  }

  private static Times once(ClusterNodes.Kind kind, Path root) throws Exception {
    try (ClusterNodes cluster = ClusterNodes.start(kind, root, 6, NODE_TIMEOUT_MILLIS)) {
      cluster.create();
      await(cluster::allOk);
      ClusterNodes.Node victim = null;
      ClusterNodes.Node replica = null;
      String victimId = null;
      for (ClusterNodes.Node node : cluster.nodes()) {
        String[] me = ClusterNodes.myLine(node);
        if (me[2].equals("myself,slave")) {
          replica = node;
          victimId = me[3];
        }
      }
      for (ClusterNodes.Node node : cluster.nodes()) {
        if (ClusterNodes.myLine(node)[0].equals(victimId)) {
          victim = node;
        }
      }
      ClusterNodes.Node promoted = replica;
      await(
          () ->
              ClusterFailoverTest.quietly(
                  () ->
                      ClusterNodes.text(promoted, "INFO", "replication")
                          .contains("master_link_status:up")));
      // the replica holds a full copy and every node has settled
      Thread.sleep(NODE_TIMEOUT_MILLIS);
      long killed = System.nanoTime();
      cluster.kill(victim);
      long fail = -1;
      long elected = -1;
      long allOk = -1;
      long deadline = killed + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < deadline && (fail < 0 || elected < 0 || allOk < 0)) {
        long at = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        String failedId = victimId;
        if (fail < 0
            && ClusterFailoverTest.quietly(
                () ->
                    ClusterNodes.clusterNodes(promoted).get(failedId)[2].contains("fail")
                        && !ClusterNodes.clusterNodes(promoted)
                            .get(failedId)[2]
                            .contains("fail?"))) {
          fail = at;
        }
        if (elected < 0
            && ClusterFailoverTest.quietly(
                () -> ClusterNodes.myLine(promoted)[2].equals("myself,master"))) {
          elected = at;
        }
        if (elected >= 0 && allOk < 0 && cluster.allOk()) {
          allOk = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        }
        Thread.sleep(POLL_MILLIS);
      }
      assertTrue(allOk >= 0, kind + ": no failover within 60 s: " + cluster.log(promoted));
      return new Times(fail, elected, allOk);
    }
  }

  private static void await(java.util.function.BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "the cluster did not settle within 60 s");
      Thread.sleep(50);
    }
  }

  private static long median(List<Times> list, java.util.function.ToLongFunction<Times> field) {
    long[] values = list.stream().mapToLong(field).sorted().toArray();
    return values[values.length / 2];
  }

  private static String summary(List<Times> list, java.util.function.ToLongFunction<Times> field) {
    long[] values = list.stream().mapToLong(field).sorted().toArray();
    return median(list, field) + " (" + values[0] + "-" + values[values.length - 1] + ")";
  }

  private static double ratio(
      List<Times> cuckoo, List<Times> redis, java.util.function.ToLongFunction<Times> field) {
    return (double) median(cuckoo, field) / median(redis, field);
  }
}
