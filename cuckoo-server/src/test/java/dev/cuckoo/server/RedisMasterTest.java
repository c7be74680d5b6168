package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A cuckoo-server as a replica of Debian's redis-server 7.0 (no module there: its keys are all of
 * types this server does not hold): Redis's handshake, the RDB transfer on disk and diskless, the
 * stream with its foreign writes skipped and counted, WAIT answered through REPLCONF ACK, a link
 * dropped by the master and continued with +CONTINUE; with replica-ignore-foreign-types no, the
 * first foreign key or write stops the replication.
 */
class RedisMasterTest {
  private static String info(int port, String field) throws IOException {
    return ReplicaState.info(port, field);
  }

  private static void fill(RespClient master) throws IOException {
    Object[] mset = new Object[401];
    mset[0] = "MSET";
    for (int i = 0; i < 200; i++) {
      mset[1 + 2 * i] = "s" + i;
      mset[2 + 2 * i] = "value" + i;
    }
    master.call(mset);
    master.call("SET", "big", "a".repeat(2000)); // LZF-compressed in the RDB
    master.call("SET", "number", "12345"); // an integer-encoded string
    master.call("EXPIRE", "s3", "1000");
    master.call("RPUSH", "list", "a", "b", "c");
    master.call("HSET", "hash", "f", "v", "g", "w");
    master.call("SADD", "set", "m", "n");
    master.call("SADD", "intset", "1", "2", "3");
    master.call("ZADD", "zset", "1", "m", "2.5", "n");
    master.call("XADD", "stream", "*", "f", "v");
    master.call("XGROUP", "CREATE", "stream", "group", "0");
    master.call("XREADGROUP", "GROUP", "group", "consumer", "COUNT", "1", "STREAMS", "stream", ">");
    master.call("SELECT", "3");
    master.call("SET", "indb3", "x");
    master.call("SELECT", "0");
  }

  @ParameterizedTest
  @ValueSource(strings = {"no", "yes"})
  void replicaOf_redisMaster_loadsTheTransferAndFollowsTheStream(String diskless) throws Exception {
    try (RedisProcess redis =
            RedisProcess.start(
                "--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0");
        RespClient master = new RespClient(redis.port);
        CuckooServer replica = TestServers.start();
        RespClient client = new RespClient(replica.port())) {
      fill(master);
      assertEquals(
          "OK", ((RespClient.Simple) client.call("REPLICAOF", "127.0.0.1", redis.port)).text());
      ReplicaState.awaitInSync(redis.port, replica.port(), 10_000);
      assertEquals("redis", info(replica.port(), "master_type"));
      assertEquals("209", info(replica.port(), "master_foreign_keys"));
      assertEquals(
          "hash=1,list=1,set=2,stream=1,string=203,zset=1",
          info(replica.port(), "master_foreign_keys_by_type"));
      assertEquals(0L, client.call("DBSIZE"));
      String target = diskless.equals("yes") ? "target: replicas sockets" : "target: disk";
      assertTrue(redis.log().contains("Starting BGSAVE for SYNC with " + target), redis.log());

      // the stream: foreign writes skipped and counted, the others applied
      master.call("SET", "a", "1");
      master.call("DEL", "s1");
      master.call("EXPIRE", "s2", "100");
      master.call("MULTI");
      master.call("SET", "b", "2");
      master.call("INCR", "c");
      master.call("LPUSH", "list", "x");
      master.call("EXEC");
      master.call("FLUSHDB");
      master.call("SET", "w", "1");
      // WAIT: Redis asks its replicas REPLCONF GETACK, and counts the ACKs
      assertEquals(1L, master.call("WAIT", "1", "5000"));
      ReplicaState.awaitInSync(redis.port, replica.port(), 10_000);
      assertEquals("5", info(replica.port(), "master_foreign_writes"));
      assertEquals("list=1,string=4", info(replica.port(), "master_foreign_writes_by_type"));
      assertEquals("up", info(replica.port(), "master_link_status"));

      // the master drops the link: the replica continues where it stopped
      master.call("CLIENT", "KILL", "TYPE", "replica");
      master.call("SET", "after", "1");
      assertTrue(
          ReplicaState.await(
              () -> "1".equals(ReplicaState.stat(redis.port, "sync_partial_ok")), 10_000),
          redis.log());
      ReplicaState.awaitInSync(redis.port, replica.port(), 10_000);
      assertEquals("1", ReplicaState.stat(redis.port, "sync_full"));
      assertEquals("6", info(replica.port(), "master_foreign_writes"));
    }
  }

  @Test
  void replicaOf_foreignKeyRefused_stopsTheReplication() throws Exception {
    try (RedisProcess redis = RedisProcess.start("--repl-diskless-sync", "no");
        RespClient master = new RespClient(redis.port);
        CuckooServer replica =
            CuckooServer.start(
                TestServers.memoryOnly().set("replica-ignore-foreign-types", "no").build());
        RespClient client = new RespClient(replica.port())) {
      master.call("SET", "plain", "x");
      client.call("REPLICAOF", "127.0.0.1", redis.port);
      assertTrue(
          ReplicaState.await(() -> "1".equals(ReplicaState.stat(redis.port, "sync_full")), 10_000));
      Thread.sleep(2500); // a link that retried would have synced again by now (once a second)
      assertEquals("1", ReplicaState.stat(redis.port, "sync_full"));
      assertEquals("down", info(replica.port(), "master_link_status"));
    }
  }

  @Test
  void replicaOf_foreignWriteRefused_stopsTheReplication() throws Exception {
    try (RedisProcess redis = RedisProcess.start("--repl-diskless-sync", "no");
        RespClient master = new RespClient(redis.port);
        CuckooServer replica =
            CuckooServer.start(
                TestServers.memoryOnly().set("replica-ignore-foreign-types", "no").build());
        RespClient client = new RespClient(replica.port())) {
      client.call("REPLICAOF", "127.0.0.1", redis.port);
      ReplicaState.awaitInSync(redis.port, replica.port(), 10_000);
      master.call("SET", "plain", "x");
      assertTrue(
          ReplicaState.await(
              () -> "down".equals(info(replica.port(), "master_link_status")), 10_000));
      Thread.sleep(2500);
      assertEquals("0", ReplicaState.stat(redis.port, "sync_partial_ok"));
      assertEquals("down", info(replica.port(), "master_link_status"));
    }
  }
}
