package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.ItemHashers;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.Scheme;
import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import dev.cuckoo.server.command.Commands;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * maxmemory with many small keys: the server refuses new keys where the heap they really retain
 * (measured by walking the objects with JOL) reaches the limit, not at half or twice of it.
 */
class MaxMemorySmallKeysTest {
  private static final long MAX_MEMORY = 32_000_000;
  private static final int BATCH = 1000;

  @Test
  void reserve_smallKeysUpToMaxmemory_refusedWhereRetainedHeapReachesTheLimit() throws Exception {
    int accepted = 0;
    boolean refused = false;
    try (CuckooServer server =
            CuckooServer.start(TestServers.memoryOnly().maxMemory(MAX_MEMORY).build());
        RespClient client = new RespClient(server.port())) {
      for (int batch = 0; batch < 150 && !refused; batch++) {
        for (int i = 0; i < BATCH; i++) {
          client.send("CF.RESERVE", "user:" + (batch * BATCH + i), "100");
        }
        for (int i = 0; i < BATCH; i++) {
          Object reply = client.read();
          if (reply.equals(new Simple("OK"))) {
            assertTrue(!refused, "a key accepted after a refusal: " + (batch * BATCH + i));
            accepted++;
          } else {
            assertEquals(new Err(Commands.OOM), reply);
            refused = true;
          }
        }
      }
    }
    assertTrue(refused, "no refusal after " + accepted + " keys");
    assertTrue(accepted > 50_000, accepted + " keys accepted, expected about 10^5");
    // the same keys, built the same way, walked
    Keyspace keyspace = new Keyspace();
    long empty = retained(keyspace);
    for (int i = 0; i < accepted; i++) {
      keyspace.put(
          new Key(("user:" + i).getBytes(StandardCharsets.UTF_8)),
          RedisCuckooFilter.reserve(100, 2, 20, 1));
    }
    long measured = retained(keyspace) - empty;
    assertTrue(
        Math.abs(measured - MAX_MEMORY) <= MAX_MEMORY / 10,
        accepted
            + " keys accepted under maxmemory "
            + MAX_MEMORY
            + " retain "
            + measured
            + " bytes");
  }

  private static long retained(Object root) {
    return GraphLayout.parseInstance(root)
        .subtract(GraphLayout.parseInstance(ItemHashers.redisBytes(), Scheme.REDISBLOOM))
        .totalSize();
  }
}
