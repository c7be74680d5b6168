package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.params.ClientKillParams;
import redis.clients.jedis.util.KeyValue;

/**
 * Jedis 8's CLIENT LIST / INFO / KILL, COMMAND GETKEYS / GETKEYSANDFLAGS and WAITAOF against the
 * server, with the protocol left to Jedis, forced to RESP2 and forced to RESP3.
 */
@ExtendWith(LeakCheck.class)
class JedisClientCommandsTest {
  private static Jedis connect(CuckooServer server, String protocol) {
    DefaultJedisClientConfig.Builder config =
        DefaultJedisClientConfig.builder().timeoutMillis(10_000).clientName("jedis-" + protocol);
    if (!protocol.equals("auto")) {
      config.protocol(RedisProtocol.valueOf(protocol));
    }
    return new Jedis(new HostAndPort("127.0.0.1", server.port()), config.build());
  }

  @ParameterizedTest
  @MethodSource("dev.cuckoo.server.JedisCuckooTest#protocols")
  void clientListInfoKill_throughJedis(String protocol) throws IOException {
    try (CuckooServer server = TestServers.start();
        Jedis jedis = connect(server, protocol);
        Jedis other = connect(server, protocol)) {
      long otherId = other.clientId();
      long ownId = jedis.clientId();
      String info = jedis.clientInfo();
      assertTrue(info.startsWith("id=" + ownId + " "), info);
      assertTrue(info.contains(" name=jedis-" + protocol + " "), info);
      assertTrue(info.contains(" cmd=client|info "), info);
      String list = jedis.clientList(ClientType.NORMAL);
      assertTrue(list.contains("id=" + otherId + " "), list);
      assertTrue(list.contains("id=" + ownId + " "), list);
      assertEquals(1, jedis.clientList(otherId).split("\n").length);
      assertEquals(
          1L, jedis.clientKill(ClientKillParams.clientKillParams().id(Long.toString(otherId))));
      assertTrue(!jedis.clientList().contains("id=" + otherId + " "));
      // the close runs on the victim's event loop: a request already read may still be answered
      assertThrows(
          JedisConnectionException.class,
          () -> {
            other.ping();
            other.ping();
          });
      assertEquals(List.of("a", "b"), jedis.commandGetKeys("DEL", "a", "b"));
      assertEquals(List.of("k"), jedis.commandGetKeys("CF.ADD", "k", "item"));
      List<KeyValue<String, List<String>>> flags =
          jedis.commandGetKeysAndFlags("CF.EXISTS", "k", "item");
      assertEquals("k", flags.get(0).getKey());
      assertEquals(List.of("RO"), flags.get(0).getValue());
    }
  }

  @Test
  void waitAof_throughJedis_pairOfLocalAndReplicaFsyncs(@TempDir Path dir) throws IOException {
    try (CuckooServer server =
            CuckooServer.start(
                ServerConfig.builder().port(TestServers.freePort()).threads(2).dir(dir).build());
        Jedis jedis = connect(server, "auto")) {
      jedis.sendCommand(
          () -> "CF.ADD".getBytes(java.nio.charset.StandardCharsets.US_ASCII), "k", "v");
      assertEquals(KeyValue.of(1L, 0L), jedis.waitAOF(1, 0, 5000));
    }
  }
}
