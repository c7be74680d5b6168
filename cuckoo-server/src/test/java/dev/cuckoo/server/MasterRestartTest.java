package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A master in a child process killed with SIGKILL while its replica is promoted: restarted from its
 * files, it keeps its replication id (as replid2) and offset, so made a replica of the promoted one
 * it continues with +CONTINUE when the promoted one holds all of its history; when it holds writes
 * the promoted one never got, the rules of PSYNC make it a full copy, as in Redis. A promoted
 * replica killed before any write keeps its new replication id (forced to disk at the promotion),
 * so its replicas continue with +CONTINUE after its restart.
 */
class MasterRestartTest {
  @TempDir Path dir;

  @Test
  void oldMasterKilled_restartedAsReplicaOfPromotedReplica_continuesWithoutFullCopy()
      throws Exception {
    try (CuckooServer promoted = TestServers.start()) {
      String oldId;
      try (ChildServer master = ChildServer.startNamed(dir, "master")) {
        follow(promoted.port(), master.port());
        ReplicaState.fill(master.port(), "a", 10, 30);
        writeInDatabase3(master.port(), "x");
        confirmByOneReplica(master.port());
        ReplicaState.awaitInSync(master.port(), promoted.port(), 20_000);
        oldId = ReplicaState.info(master.port(), "master_replid");
        master.kill();
      }
      try (RespClient client = new RespClient(promoted.port())) {
        client.call("REPLICAOF", "NO", "ONE");
      }
      // written after the promotion: the old master gets exactly these from the backlog
      ReplicaState.fill(promoted.port(), "b", 3, 10);
      writeInDatabase3(promoted.port(), "y");
      try (ChildServer master = ChildServer.startNamed(dir, "master")) {
        assertEquals(oldId, ReplicaState.info(master.port(), "master_replid2"), master.output());
        assertNotEquals(oldId, ReplicaState.info(master.port(), "master_replid"));
        follow(master.port(), promoted.port());
        ReplicaState.awaitInSync(promoted.port(), master.port(), 20_000);
        assertEquals("1", ReplicaState.stat(promoted.port(), "sync_partial_ok"), master.output());
        assertEquals("0", ReplicaState.stat(promoted.port(), "sync_full"), master.output());
        Map<String, String> expected = ReplicaState.of(promoted.port(), 4);
        assertEquals(expected, ReplicaState.of(master.port(), 4));
      }
    }
  }

  @Test
  void oldMasterAheadOfPromotedReplica_restartedAsItsReplica_copiesInFull() throws Exception {
    try (CuckooServer promoted = TestServers.start()) {
      try (ChildServer master = ChildServer.startNamed(dir, "master", "--appendfsync", "always")) {
        follow(promoted.port(), master.port());
        ReplicaState.fill(master.port(), "a", 5, 20);
        ReplicaState.awaitInSync(master.port(), promoted.port(), 20_000);
        try (RespClient client = new RespClient(promoted.port())) {
          client.call("REPLICAOF", "NO", "ONE");
        }
        // in the old master's files but never sent to the promoted one: its history goes further
        ReplicaState.fill(master.port(), "lost", 2, 10);
        master.kill();
      }
      try (ChildServer master = ChildServer.startNamed(dir, "master")) {
        follow(master.port(), promoted.port());
        ReplicaState.awaitInSync(promoted.port(), master.port(), 20_000);
        assertEquals("1", ReplicaState.stat(promoted.port(), "sync_full"), master.output());
        assertEquals("1", ReplicaState.stat(promoted.port(), "sync_partial_err"), master.output());
        assertEquals(ReplicaState.of(promoted.port(), 4), ReplicaState.of(master.port(), 4));
        assertEquals(null, ReplicaState.of(master.port(), 1).get("0/lost0"));
        assertNotEquals(null, ReplicaState.of(master.port(), 1).get("0/a0"));
      }
    }
  }

  @Test
  void promotedReplicaKilledBeforeAnyWrite_restarted_itsReplicaContinuesWithoutFullCopy()
      throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer replica = TestServers.start()) {
      String promotedId;
      try (ChildServer promoted = ChildServer.startNamed(dir, "promoted")) {
        follow(promoted.port(), master.port());
        follow(replica.port(), master.port());
        ReplicaState.fill(master.port(), "a", 10, 30);
        writeInDatabase3(master.port(), "x");
        ReplicaState.awaitInSync(master.port(), promoted.port(), 20_000);
        ReplicaState.awaitInSync(master.port(), replica.port(), 20_000);
        try (RespClient client = new RespClient(promoted.port())) {
          client.call("REPLICAOF", "NO", "ONE");
        }
        promotedId = ReplicaState.info(promoted.port(), "master_replid");
        follow(replica.port(), promoted.port());
        ReplicaState.awaitInSync(promoted.port(), replica.port(), 20_000);
        assertEquals("1", ReplicaState.stat(promoted.port(), "sync_partial_ok"), promoted.output());
        assertEquals(promotedId, ReplicaState.info(replica.port(), "master_replid"));
        // killed before any write under the new id: only the promotion itself says what it holds
        promoted.kill();
      }
      try (ChildServer promoted = ChildServer.startNamed(dir, "promoted")) {
        assertEquals(
            promotedId, ReplicaState.info(promoted.port(), "master_replid2"), promoted.output());
        follow(replica.port(), promoted.port());
        ReplicaState.awaitInSync(promoted.port(), replica.port(), 20_000);
        assertEquals("1", ReplicaState.stat(promoted.port(), "sync_partial_ok"), promoted.output());
        assertEquals("0", ReplicaState.stat(promoted.port(), "sync_full"), promoted.output());
        assertEquals(ReplicaState.of(master.port(), 4), ReplicaState.of(promoted.port(), 4));
        assertEquals(ReplicaState.of(promoted.port(), 4), ReplicaState.of(replica.port(), 4));
      }
    }
  }

  private static void follow(int replica, int master) throws Exception {
    try (RespClient client = new RespClient(replica)) {
      client.call("REPLICAOF", "127.0.0.1", master);
    }
  }

  /** A write in database 3 and a transaction across databases 3 and 0 (SELECTs in the stream). */
  private static void writeInDatabase3(int port, String item) throws Exception {
    try (RespClient client = new RespClient(port)) {
      client.call("SELECT", 3);
      client.call("CF.ADD", "in3", item);
      client.call("MULTI");
      client.call("CF.ADD", "in3", item + "-tx");
      client.call("SELECT", 0);
      client.call("CF.ADD", "tx0", item);
      client.call("EXEC");
    }
  }

  private static void confirmByOneReplica(int port) throws Exception {
    try (RespClient client = new RespClient(port)) {
      assertEquals(1L, client.call("WAIT", 1, 10_000));
    }
  }
}
