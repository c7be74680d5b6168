package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real Redis Sentinels (Debian's redis-sentinel) monitoring a cuckoo-server: what Sentinel needs
 * from a master before any failover — INFO, PING, CLIENT SETNAME, and PUBLISH/SUBSCRIBE on {@code
 * __sentinel__:hello}, through which the sentinels find each other.
 */
class SentinelTest {
  private static final String MASTER = "mymaster";

  @Test
  void threeSentinels_monitoringOneServer_seeAnUpMasterAndDiscoverEachOther() throws Exception {
    try (CuckooServer server = TestServers.start();
        SentinelCluster sentinels =
            SentinelCluster.start(3, MASTER, server.port(), 2, SentinelCluster.Timing.FAST);
        RespClient admin = new RespClient(server.port())) {
      int count = sentinels.sentinels().size();
      sentinels.awaitDiscovery(Duration.ofSeconds(30));
      // longer than down-after-milliseconds: a master that stopped answering would be s_down now
      Thread.sleep(2 * SentinelCluster.Timing.FAST.downAfterMillis());
      String runId = admin.infoField("run_id");
      for (int i = 0; i < count; i++) {
        Map<String, String> master = sentinels.master(i);
        assertEquals("master", master.get("flags"), "sentinel " + i + ": " + master);
        assertEquals("master", master.get("role-reported"), master.toString());
        assertEquals(runId, master.get("runid"), master.toString());
        assertEquals("0", master.get("num-slaves"), master.toString());
        assertEquals("127.0.0.1:" + server.port(), sentinels.masterAddress(i));
        assertEquals(List.of(), sentinels.replicas(i));
        Set<Integer> peers = new TreeSet<>();
        for (Map<String, String> peer : sentinels.otherSentinels(i)) {
          assertEquals("sentinel", peer.get("flags"), peer.toString());
          peers.add(Integer.parseInt(peer.get("port")));
        }
        Set<Integer> expected = new TreeSet<>();
        for (int j = 0; j < count; j++) {
          if (j != i) {
            expected.add(sentinels.sentinels().get(j).port());
          }
        }
        assertEquals(expected, peers, "sentinel " + i + " peers");
      }
      // each sentinel holds a command link and a subscribed link to the master, named by it
      List<String> links = new ArrayList<>();
      for (String line : RespClient.text(admin.call("CLIENT", "LIST")).split("\n")) {
        if (line.contains(" name=sentinel-")) {
          String name = line.replaceAll(".* name=(\\S+) .*", "$1");
          links.add(name.substring(name.lastIndexOf('-') + 1));
          if (name.endsWith("-pubsub")) {
            assertTrue(line.contains(" flags=P ") && line.contains(" sub=1 "), line);
          }
        }
      }
      links.sort(null);
      assertEquals(List.of("cmd", "cmd", "cmd", "pubsub", "pubsub", "pubsub"), links);
      List<?> numsub = (List<?>) admin.call("PUBSUB", "NUMSUB", "__sentinel__:hello");
      assertEquals(3L, numsub.get(1));
    }
  }

  /**
   * The transaction Sentinel sends an instance it reconfigures (sentinel.c sentinelSendSlaveOf):
   * {@code MULTI, REPLICAOF …, CONFIG REWRITE, CLIENT KILL TYPE normal, CLIENT KILL TYPE pubsub,
   * EXEC}, here without REPLICAOF: the config file is rewritten, the other normal and pub/sub
   * clients are disconnected, the caller stays.
   */
  @Test
  void reconfigurationTransaction_rewritesAndDisconnectsTheOtherClients(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("cuckoo.conf");
    try (CuckooServer server = TestServers.startFromConfigFile(file);
        RespClient sentinel = new RespClient(server.port());
        RespClient normal = new RespClient(server.port());
        RespClient subscriber = new RespClient(server.port())) {
      assertEquals(new RespClient.Simple("PONG"), normal.call("PING"));
      subscriber.send("SUBSCRIBE", "__sentinel__:hello");
      subscriber.read();
      assertEquals(new RespClient.Simple("OK"), sentinel.call("MULTI"));
      for (Object[] command :
          List.of(
              new Object[] {"CONFIG", "REWRITE"},
              new Object[] {"CLIENT", "KILL", "TYPE", "normal"},
              new Object[] {"CLIENT", "KILL", "TYPE", "pubsub"})) {
        assertEquals(new RespClient.Simple("QUEUED"), sentinel.call(command));
      }
      assertEquals(List.of(new RespClient.Simple("OK"), 1L, 1L), sentinel.call("EXEC"));
      assertTrue(normal.closedByServer());
      assertTrue(subscriber.closedByServer());
      assertEquals(new RespClient.Simple("PONG"), sentinel.call("PING"));
      assertEquals("port " + server.port(), Files.readAllLines(file).get(0));
    }
  }

  /**
   * The harness's failover path without replicas yet: a master in a child JVM killed with SIGKILL
   * is seen down by every sentinel (s_down after down-after-milliseconds, o_down once the quorum
   * agrees), and the failover they start finds no replica to promote.
   */
  @Test
  void masterKilled_everySentinelSeesItObjectivelyDown(@TempDir Path dir) throws Exception {
    SentinelCluster.requireExecutable();
    try (ChildServer master =
            ChildServer.start(
                "128m",
                dir.resolve("master.out"),
                "--appendonly",
                "no",
                "--dir",
                dir.resolve("master").toString(),
                "--threads",
                "1");
        SentinelCluster sentinels =
            SentinelCluster.start(3, MASTER, master.port(), 2, SentinelCluster.Timing.FAST)) {
      int count = sentinels.sentinels().size();
      sentinels.awaitDiscovery(Duration.ofSeconds(30));
      long killedAt = System.nanoTime();
      master.kill();
      sentinels.await(
          Duration.ofSeconds(30),
          "every sentinel flags the master s_down and o_down",
          () -> {
            for (int i = 0; i < count; i++) {
              String flags = sentinels.master(i).get("flags");
              if (!flags.contains("s_down") || !flags.contains("o_down")) {
                return false;
              }
            }
            return true;
          });
      long downMillis = (System.nanoTime() - killedAt) / 1_000_000;
      assertTrue(
          downMillis >= SentinelCluster.Timing.FAST.downAfterMillis(),
          "not before down-after-milliseconds: " + downMillis);
      sentinels.await(
          Duration.ofSeconds(30),
          "a sentinel gives up the failover: no replica to promote",
          () -> {
            for (SentinelCluster.Sentinel sentinel : sentinels.sentinels()) {
              if (sentinel.log().contains("-failover-abort-no-good-slave")) {
                return true;
              }
            }
            return false;
          });
    }
  }

  /**
   * Clients that find the master through Sentinel: Jedis's {@code RedisSentinelClient} and a
   * Lettuce {@code redis-sentinel://} URI ask the sentinels for the master's address, then run CF
   * commands on this server.
   */
  @Test
  void sentinelClients_jedisAndLettuce_findTheServerAndRunCommands() throws Exception {
    try (CuckooServer server = TestServers.start();
        SentinelCluster sentinels =
            SentinelCluster.start(3, MASTER, server.port(), 2, SentinelCluster.Timing.FAST)) {
      sentinels.await(
          Duration.ofSeconds(30),
          "every sentinel has the master's run id",
          () -> {
            for (int i = 0; i < sentinels.sentinels().size(); i++) {
              if (sentinels.master(i).get("runid") == null
                  || sentinels.master(i).get("runid").isEmpty()) {
                return false;
              }
            }
            return true;
          });
      Set<redis.clients.jedis.HostAndPort> addresses = new java.util.LinkedHashSet<>();
      StringBuilder uri = new StringBuilder("redis-sentinel://");
      for (SentinelCluster.Sentinel sentinel : sentinels.sentinels()) {
        addresses.add(new redis.clients.jedis.HostAndPort("127.0.0.1", sentinel.port()));
        uri.append(addresses.size() > 1 ? "," : "").append("127.0.0.1:").append(sentinel.port());
      }
      try (redis.clients.jedis.RedisSentinelClient jedis =
          redis.clients.jedis.RedisSentinelClient.builder()
              .masterName(MASTER)
              .sentinels(addresses)
              .build()) {
        assertEquals(server.port(), jedis.getCurrentMaster().getPort());
        assertTrue(jedis.cfAdd("through-sentinel", "jedis"));
        assertTrue(jedis.cfExists("through-sentinel", "jedis"));
      }
      io.lettuce.core.RedisClient lettuce =
          io.lettuce.core.RedisClient.create(uri.append("#").append(MASTER).toString());
      try (io.lettuce.core.api.StatefulRedisConnection<String, String> connection =
          lettuce.connect()) {
        // the key Jedis added: this connection reached the same server
        assertEquals(1L, connection.sync().exists("through-sentinel"));
      } finally {
        lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  @Test
  void passwordProtectedServer_sentinelsWithAuthPass_monitorIt() throws Exception {
    ServerConfig config = TestServers.memoryOnly().requirePass("s3cret pass").build();
    try (CuckooServer server = CuckooServer.start(config);
        SentinelCluster sentinels =
            SentinelCluster.start(
                3,
                MASTER,
                server.port(),
                2,
                SentinelCluster.Timing.FAST,
                List.of("sentinel auth-pass " + MASTER + " \"s3cret pass\""))) {
      sentinels.awaitDiscovery(Duration.ofSeconds(30));
      Thread.sleep(2 * SentinelCluster.Timing.FAST.downAfterMillis());
      for (int i = 0; i < sentinels.sentinels().size(); i++) {
        Map<String, String> master = sentinels.master(i);
        assertEquals("master", master.get("flags"), master.toString());
        assertEquals("master", master.get("role-reported"), master.toString());
      }
    }
  }
}
