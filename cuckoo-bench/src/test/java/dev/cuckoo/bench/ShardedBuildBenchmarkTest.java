package dev.cuckoo.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Runs each method of {@link ShardedBuildBenchmark} once on a small size and checks it. */
class ShardedBuildBenchmarkTest {
  private static ShardedBuildBenchmark.Build build(int threads) {
    ShardedBuildBenchmark.Build build = new ShardedBuildBenchmark.Build();
    build.items = 50_000;
    build.shardBits = 3;
    build.threads = threads;
    build.hashes();
    build.emptyFilters();
    return build;
  }

  @Test
  void sharded_oneAndTwoThreads_addEveryHash() {
    for (int threads : new int[] {1, 2}) {
      ShardedBuildBenchmark.Build build = build(threads);
      assertEquals(0, new ShardedBuildBenchmark().sharded(build));
      assertEquals(50_000, build.sharded.size());
      for (long hash : build.hashes) {
        assertTrue(build.sharded.mightContainHash(hash));
      }
    }
  }

  @Test
  void plain_addsEveryHash() {
    ShardedBuildBenchmark.Build build = build(1);
    assertEquals(0, new ShardedBuildBenchmark().plain(build));
    assertEquals(50_000, build.plain.size());
  }
}
