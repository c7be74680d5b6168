package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Many clients on the same keys at once: every command stays atomic. */
@ExtendWith(LeakCheck.class)
class ConcurrencyTest {
  @Test
  void parallelWritersAndReaders_sameKey_noLostWritesNoFalseNegatives() throws Exception {
    int writers = 4;
    int perWriter = 3000;
    try (CuckooServer server = TestServers.start();
        RespClient setup = new RespClient(server.port())) {
      setup.call("CF.RESERVE", "shared", "64", "EXPANSION", "2");
      setup.call("CONFIG", "SET", "cf-max-expansions", "1000");
      ExecutorService pool = Executors.newFixedThreadPool(writers * 2);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          int writer = w;
          futures.add(
              pool.submit(
                  () -> {
                    try (RespClient client = new RespClient(server.port());
                        RespClient reader = new RespClient(server.port())) {
                      for (int i = 0; i < perWriter; i++) {
                        String item = "w" + writer + ":" + i;
                        assertEquals(1L, client.call("CF.ADD", "shared", item));
                        assertEquals(1L, reader.call("CF.EXISTS", "shared", item), item);
                        if (i % 10 == 0) {
                          client.call("CF.ADD", "other" + (i % 7), item);
                        }
                      }
                    }
                    return null;
                  }));
        }
        for (Future<?> future : futures) {
          future.get(120, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      assertEquals((long) writers * perWriter, ((List<?>) setup.call("CF.INFO", "shared")).get(7));
      for (int w = 0; w < writers; w++) {
        for (int i = 0; i < perWriter; i++) {
          assertEquals(1L, setup.call("CF.EXISTS", "shared", "w" + w + ":" + i));
        }
      }
      setup.call("CONFIG", "SET", "cf-max-expansions", "32");
    }
  }
}
