package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.bloom.RedisBloomProtocol.CuckooFilterCommand;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.resps.AccessControlLogEntry;
import redis.clients.jedis.resps.AccessControlUser;

/**
 * Clients authenticating as ACL users ({@code AUTH user pass}, {@code HELLO 3 AUTH user pass}) and
 * reading ACL replies with their own parsers: Jedis over RESP2 and RESP3, Lettuce; and a replica
 * whose link authenticates with masteruser/masterauth as Redis's minimal replication user.
 */
@ExtendWith(LeakCheck.class)
class AclClientsTest {
  @Test
  void jedis_authAsUser_aclRepliesParse() throws IOException {
    try (CuckooServer server = TestServers.start();
        Jedis admin = new Jedis(new HostAndPort("127.0.0.1", server.port()))) {
      assertEquals(
          "OK",
          admin.aclSetUser(
              "alice", "on", ">p1", "~cf:*", "+@cuckoo", "+acl|whoami", "+client|setinfo"));
      AccessControlUser alice = admin.aclGetUser("alice");
      assertEquals(List.of("on", "sanitize-payload"), alice.getFlags());
      assertEquals("-@all +@cuckoo +acl|whoami +client|setinfo", alice.getCommands());
      assertEquals("~cf:*", alice.getKeys());
      for (RedisProtocol protocol : RedisProtocol.values()) {
        DefaultJedisClientConfig config =
            DefaultJedisClientConfig.builder()
                .user("alice")
                .password("p1")
                .protocol(protocol)
                .timeoutMillis(10_000)
                .build();
        try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", server.port()), config)) {
          assertEquals("alice", jedis.aclWhoAmI());
          // RedisBloom answers 1 in RESP2, true in RESP3
          assertEquals(
              protocol == RedisProtocol.RESP3 ? Boolean.TRUE : (Object) 1L,
              jedis.sendCommand(CuckooFilterCommand.ADD, "cf:" + protocol, "x"));
          assertThrows(
              JedisAccessControlException.class,
              () -> jedis.sendCommand(CuckooFilterCommand.ADD, "other", "x"));
        }
      }
      DefaultJedisClientConfig wrong =
          DefaultJedisClientConfig.builder().user("alice").password("nope").build();
      assertThrows(
          JedisAccessControlException.class,
          () -> {
            try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", server.port()), wrong)) {
              jedis.ping();
            }
          });
      List<AccessControlLogEntry> log = admin.aclLog();
      assertTrue(log.size() >= 2, log.toString());
      assertEquals("auth", log.get(0).getReason());
      assertEquals("key", log.get(1).getReason());
      assertEquals(2, log.get(1).getCount());
      assertEquals(
          "User alice has no permissions to run the 'flushall' command",
          admin.aclDryRun("alice", "FLUSHALL"));
    }
  }

  @Test
  void lettuce_helloAuthAsUser_runsAllowedCommands() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port())) {
      admin.call("ACL", "SETUSER", "alice", "on", ">p1", "~cf:*", "+@cuckoo", "+@connection");
      admin.call("ACL", "SETUSER", "alice", "+acl|whoami", "+client|setinfo");
      RedisClient client =
          RedisClient.create(
              RedisURI.builder()
                  .withHost("127.0.0.1")
                  .withPort(server.port())
                  .withAuthentication("alice", "p1".toCharArray())
                  .withTimeout(Duration.ofSeconds(10))
                  .build());
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        assertEquals("alice", connection.sync().aclWhoami());
        assertEquals("PONG", connection.sync().ping());
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  @Test
  void replica_masteruserWithMinimalReplicationUser_syncsTheStream() throws Exception {
    try (CuckooServer master =
            CuckooServer.start(
                TestServers.memoryOnly()
                    .requirePass("secret")
                    .set("user", "replicator on >rpass +psync +replconf +ping")
                    .build());
        CuckooServer replica =
            CuckooServer.start(
                TestServers.memoryOnly()
                    .masterAuth("replicator", "rpass")
                    .set("replicaof", "127.0.0.1 " + master.port())
                    .build())) {
      try (RespClient client = new RespClient(master.port())) {
        client.call("AUTH", "secret");
        client.call("CF.ADD", "k", "v");
        assertTrue(
            ReplicaState.await(
                () -> {
                  try (RespClient reader = new RespClient(replica.port())) {
                    return Long.valueOf(1).equals(reader.call("CF.EXISTS", "k", "v"));
                  }
                },
                10_000),
            "the write reached the replica");
        String clients = RespClient.text(client.call("CLIENT", "LIST", "TYPE", "replica"));
        assertTrue(clients.contains(" user=replicator "), clients);
        // the user may run nothing else
        List<?> log = (List<?>) client.call("ACL", "LOG");
        assertEquals(List.of(), log);
      }
    }
  }
}
