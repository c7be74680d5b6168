package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisSentinelPool;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.util.SafeEncoder;

/**
 * Real clients' Sentinel support against cuckoo-servers and real redis-sentinel processes: Jedis
 * (JedisSentinelPool and RedisSentinelClient), Lettuce ({@code redis-sentinel://}) and redis-py
 * ({@code Sentinel.master_for}) find the master, write, and write again through the same client
 * object after the master was killed with SIGKILL and the sentinels promoted the replica.
 */
class SentinelClientsTest {
  private static final String MASTER = "mymaster";
  private static final String PYTHON = "/usr/bin/python3";
  private static final ProtocolCommand CF_ADD = () -> SafeEncoder.encode("CF.ADD");

  @TempDir Path dir;

  /**
   * Runs {@code action} until it returns without throwing, for up to 30 s: a client learns of the
   * new master on its own schedule (Jedis's pool from Sentinel's +switch-master message).
   */
  private static <T> T eventually(Callable<T> action) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        return action.call();
      } catch (Exception | AssertionError e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  private static boolean pythonRedis() {
    try {
      return new ProcessBuilder(PYTHON, "-c", "import redis.sentinel").start().waitFor() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  @SuppressWarnings("deprecation") // JedisSentinelPool: deprecated in Jedis 8, still widely used
  void clients_throughSentinel_findTheMasterAndFollowAFailover() throws Exception {
    boolean python = pythonRedis();
    // redis-py is part of what CI installs; elsewhere the Java clients run without it
    assumeTrue(python || System.getenv("CI") == null, "python3-redis missing under CI");
    try (ChildServer a = ChildServer.startNamed(dir, "a");
        ChildServer b = ChildServer.startNamed(dir, "b", "--replicaof", "127.0.0.1 " + a.port());
        SentinelCluster sentinels =
            SentinelCluster.start(3, MASTER, a.port(), 2, SentinelCluster.Timing.FAST)) {
      sentinels.awaitReplicasAndPeers(1, Duration.ofSeconds(40));
      Set<String> addresses = new java.util.LinkedHashSet<>();
      Set<HostAndPort> hostAndPorts = new java.util.LinkedHashSet<>();
      List<String> ports = new ArrayList<>();
      for (SentinelCluster.Sentinel sentinel : sentinels.sentinels()) {
        addresses.add("127.0.0.1:" + sentinel.port());
        hostAndPorts.add(new HostAndPort("127.0.0.1", sentinel.port()));
        ports.add(Integer.toString(sentinel.port()));
      }
      RedisURI.Builder uri =
          RedisURI.Builder.sentinel("127.0.0.1", sentinels.sentinels().get(0).port(), MASTER);
      for (SentinelCluster.Sentinel sentinel : sentinels.sentinels().subList(1, 3)) {
        uri.withSentinel("127.0.0.1", sentinel.port());
      }
      Process py = null;
      Path script = dir.resolve("redis_py_sentinel.py");
      try (InputStream in = getClass().getResourceAsStream("/redis_py_sentinel.py")) {
        Files.copy(in, script);
      }
      RedisClient lettuce = RedisClient.create(uri.build());
      try (JedisSentinelPool pool = new JedisSentinelPool(MASTER, addresses);
          RedisSentinelClient jedis =
              RedisSentinelClient.builder().masterName(MASTER).sentinels(hostAndPorts).build();
          StatefulRedisConnection<String, String> connection = lettuce.connect()) {
        String first = "127.0.0.1:" + a.port();
        assertEquals(first, pool.getCurrentHostMaster().toString());
        try (Jedis j = pool.getResource()) {
          assertEquals(1L, j.sendCommand(CF_ADD, "pool", "before"));
        }
        assertEquals(first, jedis.getCurrentMaster().toString());
        assertTrue(jedis.cfAdd("unified", "before"));
        assertTrue(connection.sync().cfAdd("lettuce", "before"));
        BufferedReader pyOut = null;
        if (python) {
          List<String> command = new ArrayList<>(List.of(PYTHON, script.toString()));
          command.addAll(ports);
          py = new ProcessBuilder(command).redirectErrorStream(true).start();
          pyOut =
              new BufferedReader(
                  new InputStreamReader(py.getInputStream(), StandardCharsets.UTF_8));
          assertEquals("before " + first, pyOut.readLine());
        }
        // the stream is in order: once the replica has this write, it has every one before it
        try (RespClient marker = new RespClient(a.port())) {
          assertEquals(1L, marker.call("CF.ADD", "marker", "x"));
          assertEquals(1L, marker.call("WAIT", 1, 10_000));
        }

        a.kill();
        String promoted = "127.0.0.1:" + b.port();
        sentinels.await(
            Duration.ofSeconds(30),
            "the sentinels name the replica as the master",
            () -> promoted.equals(sentinels.masterAddress(0)));

        assertEquals(
            1L,
            eventually(
                () -> {
                  assertEquals(promoted, pool.getCurrentHostMaster().toString());
                  try (Jedis j = pool.getResource()) {
                    return j.sendCommand(CF_ADD, "pool", "after");
                  }
                }));
        assertTrue(eventually(() -> jedis.cfAdd("unified", "after")));
        assertEquals(promoted, jedis.getCurrentMaster().toString());
        assertTrue(eventually(() -> connection.sync().cfAdd("lettuce", "after")));
        try (RespClient check = new RespClient(b.port())) {
          for (String key : List.of("pool", "unified", "lettuce")) {
            assertEquals(List.of(1L, 1L), check.call("CF.MEXISTS", key, "before", "after"), key);
          }
        }
        if (python) {
          String line = pyOut.readLine();
          if (!("after " + promoted).equals(line)) {
            StringBuilder rest = new StringBuilder(line).append('\n');
            for (String more = pyOut.readLine(); more != null; more = pyOut.readLine()) {
              rest.append(more).append('\n');
            }
            throw new AssertionError("redis-py: expected after " + promoted + ", got:\n" + rest);
          }
          assertTrue(py.waitFor(30, TimeUnit.SECONDS));
          assertEquals(0, py.exitValue());
        }
      } finally {
        lettuce.shutdown();
        if (py != null) {
          py.destroyForcibly();
        }
      }
    }
  }
}
