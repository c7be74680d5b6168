package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica in a child process killed with SIGKILL: after a restart it continues its master's
 * stream from the offset its files hold (+CONTINUE, no full copy); killed during a full transfer,
 * it comes back with its previous data, never half a keyspace.
 */
class ReplicaRestartTest {
  @TempDir Path dir;

  @Test
  void replicaKilled_restarts_continuesFromItsOffsetWithoutFullCopy() throws Exception {
    Path data = Files.createDirectories(dir.resolve("replica"));
    try (CuckooServer master = TestServers.start()) {
      String[] options = {"--dir", data.toString(), "--replicaof", "127.0.0.1 " + master.port()};
      try (ChildServer replica = ChildServer.start("256m", dir.resolve("first.out"), options)) {
        ReplicaState.fill(master.port(), "a", 10, 30);
        try (RespClient client = new RespClient(master.port())) {
          client.call("SELECT", 3);
          client.call("CF.ADD", "in3", "x");
          // a message inside a transaction is in the stream but not in the logs: the offset the
          // replica continues from must count it (its log marks where the stream stands)
          client.call("MULTI");
          client.call("CF.ADD", "in3", "m");
          client.call("PUBLISH", "news", "inside");
          client.call("CF.ADD", "a1", "m");
          client.call("EXEC");
        }
        ReplicaState.awaitInSync(master.port(), replica.port(), 20_000);
        replica.kill();
      }
      // written while the replica is down: it must get exactly these from the backlog
      ReplicaState.fill(master.port(), "b", 5, 10);
      try (RespClient client = new RespClient(master.port())) {
        client.call("SELECT", 3);
        client.call("CF.ADD", "in3", "y");
      }
      try (ChildServer replica = ChildServer.start("256m", dir.resolve("second.out"), options)) {
        ReplicaState.awaitInSync(master.port(), replica.port(), 20_000);
        assertEquals(ReplicaState.of(master.port(), 4), ReplicaState.of(replica.port(), 4));
        assertEquals("1", ReplicaState.stat(master.port(), "sync_full"), replica.output());
        assertEquals("1", ReplicaState.stat(master.port(), "sync_partial_ok"), replica.output());
      }
    }
  }

  @Test
  void replicaKilledDuringFullTransfer_restartsWithItsPreviousData() throws Exception {
    Path data = Files.createDirectories(dir.resolve("replica"));
    try (CuckooServer master = TestServers.start();
        LinkProxy proxy = new LinkProxy(master.port())) {
      try (RespClient client = new RespClient(master.port())) {
        for (int k = 0; k < 40; k++) {
          client.call("CF.RESERVE", "big" + k, 20_000);
          // half full of fingerprints: the transfer, compressed, stays near 400 kB (empty tables
          // would cross in a few kilobytes, too fast to be caught under way)
          for (int batch = 0; batch < 10; batch++) {
            Object[] insert = new Object[3 + 1000];
            insert[0] = "CF.INSERT";
            insert[1] = "big" + k;
            insert[2] = "ITEMS";
            for (int i = 0; i < 1000; i++) {
              insert[3 + i] = "big" + k + ":" + batch + ":" + i;
            }
            client.call(insert);
          }
        }
      }
      proxy.throttle(200_000);
      Map<String, String> previous;
      String[] options = {"--dir", data.toString()};
      try (ChildServer replica = ChildServer.start("256m", dir.resolve("first.out"), options)) {
        ReplicaState.fill(replica.port(), "mine", 5, 20);
        previous = ReplicaState.of(replica.port(), 1);
        try (RespClient client = new RespClient(replica.port())) {
          client.call("REPLICAOF", "127.0.0.1", proxy.port());
        }
        long deadline = System.currentTimeMillis() + 20_000;
        String read = null;
        while (System.currentTimeMillis() < deadline) {
          read = ReplicaState.info(replica.port(), "master_sync_read_bytes");
          if (read != null && Long.parseLong(read) > 100_000) {
            break;
          }
          Thread.sleep(20);
        }
        assertTrue(read != null && Long.parseLong(read) > 100_000, "transfer under way: " + read);
        replica.kill();
      }
      try (ChildServer replica = ChildServer.start("256m", dir.resolve("second.out"), options)) {
        assertEquals(previous, ReplicaState.of(replica.port(), 1), replica.output());
      }
    }
  }
}
