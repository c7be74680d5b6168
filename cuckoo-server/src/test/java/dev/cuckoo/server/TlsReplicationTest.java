package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A replica with {@code tls-replication yes} follows a master that listens for TLS only: the full
 * copy (a snapshot sent in encrypted chunks) and the stream after it arrive, with the replica's
 * client certificate checked by the master.
 */
@ExtendWith(LeakCheck.class)
class TlsReplicationTest {
  @Test
  void replica_tlsReplication_getsDataOfTlsOnlyMaster() throws Exception {
    TestCertificates certificates = TestCertificates.get();
    try (CuckooServer master = CuckooServer.start(certificates.tlsOnly().build());
        RespClient masterClient =
            new RespClient(certificates.connect(master.tlsPort(), "client"))) {
      for (int k = 0; k < 3; k++) {
        masterClient.call("CF.RESERVE", "before" + k, 4096);
        for (int i = 0; i < 200; i++) {
          masterClient.call("CF.ADD", "before" + k, "item" + i);
        }
      }
      ServerConfig.Builder replicaSettings =
          TestServers.memoryOnly()
              .set("tls-replication", "yes")
              .set("tls-cert-file", certificates.file("server.crt"))
              .set("tls-key-file", certificates.file("server.key"))
              .set("tls-ca-cert-file", certificates.file("ca.crt"))
              .set("replicaof", "127.0.0.1 " + master.tlsPort());
      try (CuckooServer replica = CuckooServer.start(replicaSettings.build());
          RespClient replicaClient = new RespClient(replica.port())) {
        assertTrue(
            ReplicaState.await(
                () -> "up".equals(ReplicaState.info(replica.port(), "master_link_status")), 20_000),
            "the replica's link did not come up over TLS");
        assertEquals(1L, replicaClient.call("CF.EXISTS", "before2", "item199"));
        masterClient.call("CF.ADD", "after", "streamed");
        assertTrue(
            ReplicaState.await(
                () -> Long.valueOf(1).equals(replicaClient.call("CF.EXISTS", "after", "streamed")),
                10_000),
            "a write after the full copy did not reach the replica");
        String masterInfo = RespClient.text(masterClient.call("INFO", "replication"));
        assertTrue(
            masterInfo.contains("slave0:ip=127.0.0.1,port=" + replica.port() + ","), masterInfo);
      }
    }
  }
}
