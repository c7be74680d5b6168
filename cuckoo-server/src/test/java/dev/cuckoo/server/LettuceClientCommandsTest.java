package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Lettuce 7.7's CLIENT INFO / LIST / KILL against the server in RESP3 and RESP2. */
@ExtendWith(LeakCheck.class)
class LettuceClientCommandsTest {
  @ParameterizedTest
  @MethodSource("dev.cuckoo.server.LettuceCuckooTest#protocols")
  void clientInfoListKill_throughLettuce(ProtocolVersion version) throws IOException {
    RedisClient client = null;
    try (CuckooServer server = TestServers.start()) {
      client =
          RedisClient.create(
              RedisURI.builder()
                  .withHost("127.0.0.1")
                  .withPort(server.port())
                  .withTimeout(Duration.ofSeconds(10))
                  .build());
      client.setOptions(ClientOptions.builder().protocolVersion(version).build());
      clientInfoListKill(client, version);
    } finally {
      if (client != null) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  private static void clientInfoListKill(RedisClient client, ProtocolVersion version) {
    try (StatefulRedisConnection<String, String> connection = client.connect();
        StatefulRedisConnection<String, String> otherConnection = client.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      long ownId = redis.clientId();
      long otherId = otherConnection.sync().clientId();
      String info = redis.clientInfo();
      assertTrue(info.startsWith("id=" + ownId + " "), info);
      String resp = version == ProtocolVersion.RESP3 ? "3" : "2";
      assertTrue(info.contains(" resp=" + resp + " "), info);
      assertTrue(redis.clientList().contains("id=" + otherId + " "));
      assertEquals(1L, redis.clientKill(KillArgs.Builder.id(otherId)));
      assertFalse(redis.clientList().contains("id=" + otherId + " "));
      assertEquals(0L, redis.clientKill(KillArgs.Builder.typePubsub()));
    }
  }
}
