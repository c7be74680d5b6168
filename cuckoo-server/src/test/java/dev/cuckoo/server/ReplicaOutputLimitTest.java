package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Simple;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A replica whose unsent stream passes {@code client-output-buffer-limit replica} is dropped, as
 * Redis's checkClientOutputBufferLimits does (the log line, INFO's
 * client_output_buffer_limit_disconnections), and comes back with a full resync.
 */
class ReplicaOutputLimitTest {
  // held, so that the handler the test adds stays on the logger the replica's class gets later
  private static final java.util.logging.Logger PEER_LOG =
      java.util.logging.Logger.getLogger("dev.cuckoo.server.replication.Peer");

  @Test
  void replicaFallingBehind_pastItsLimit_isDroppedAndResyncs() throws Exception {
    List<String> log = ReplicationSyncTest.capture(PEER_LOG.getName());
    try (CuckooServer master = TestServers.start();
        RespClient client = new RespClient(master.port());
        LinkProxy proxy = new LinkProxy(master.port())) {
      assertEquals(
          new Simple("OK"),
          client.call("CONFIG", "SET", "client-output-buffer-limit", "replica 2mb 0 0"));
      try (CuckooServer replica =
          CuckooServer.start(
              TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + proxy.port()).build())) {
        ReplicaState.awaitInSync(master.port(), replica.port(), 20_000);
        assertEquals("1", ReplicaState.stat(master.port(), "sync_full"));
        // the replica's link now passes 1 kB a second: the stream piles up on the master
        proxy.throttle(1_000);
        byte[] item = new byte[64 * 1024];
        Arrays.fill(item, (byte) 'i');
        int written = 0;
        long largestOmem = 0;
        while (written < 1024
            && ReplicaState.stat(master.port(), "client_output_buffer_limit_disconnections")
                .equals("0")) {
          for (int i = 0; i < 4; i++, written++) {
            client.call("CF.ADD", "k" + written, item);
          }
          String line = RespClient.text(client.call("CLIENT", "LIST", "TYPE", "replica"));
          int at = line.indexOf(" omem=");
          if (at >= 0) {
            long omem = Long.parseLong(line.substring(at + 6, line.indexOf(' ', at + 6)));
            largestOmem = Math.max(largestOmem, omem);
          }
        }
        assertTrue(largestOmem > 0, "the replica's omem showed its unsent stream");
        assertEquals(
            "1",
            ReplicaState.stat(master.port(), "client_output_buffer_limit_disconnections"),
            "dropped after " + written + " writes of 64 KiB");
        assertTrue(
            log.stream()
                .anyMatch(
                    text ->
                        text.startsWith("Client replica ")
                            && text.endsWith(
                                " scheduled to be closed ASAP for overcoming of output buffer"
                                    + " limits.")),
            log.toString());
        proxy.throttle(Long.MAX_VALUE);
        ReplicaState.awaitInSync(master.port(), replica.port(), 20_000);
        assertEquals(
            "2",
            ReplicaState.stat(master.port(), "sync_full"),
            "past the backlog, the replica came back with a full copy");
      }
    }
  }
}
