package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Debian's redis-sentinel with {@code tls-replication yes} monitors two cuckoo-servers that listen
 * for TLS only and fails the master over to the replica: every link (the sentinel's to both
 * servers, the replica's to its master, the old master's to the new one) is TLS.
 */
class TlsSentinelTest {
  private static final String MASTER = "tlsmaster";

  @Test
  void sentinelOverTls_failover_replicaOfTlsOnlyMasterPromoted() throws Exception {
    TestCertificates certificates = TestCertificates.get();
    ServerConfig.Builder masterSettings = certificates.tlsOnly().set("tls-replication", "yes");
    try (CuckooServer master = CuckooServer.start(masterSettings.build());
        CuckooServer replica =
            CuckooServer.start(
                certificates
                    .tlsOnly()
                    .set("tls-replication", "yes")
                    .set("replicaof", "127.0.0.1 " + master.tlsPort())
                    .build());
        RespClient masterClient =
            new RespClient(certificates.connect(master.tlsPort(), "client"))) {
      assertEquals(1L, masterClient.call("CF.ADD", "before-failover", "x"));
      try (SentinelCluster sentinels =
          SentinelCluster.start(
              1,
              MASTER,
              master.tlsPort(),
              1,
              SentinelCluster.Timing.ONE_FAILOVER,
              List.of(
                  "tls-replication yes",
                  "tls-cert-file " + certificates.file("client.crt"),
                  "tls-key-file " + certificates.file("client.key"),
                  "tls-ca-cert-file " + certificates.file("ca.crt")))) {
        sentinels.awaitReplicasAndPeers(1, Duration.ofSeconds(30));
        // the sentinel promotes a replica once its own TLS link to it has brought an INFO
        sentinels.await(
            Duration.ofSeconds(30),
            "the failover accepted",
            () ->
                new RespClient.Simple("OK")
                    .equals(sentinels.call(0, "SENTINEL", "FAILOVER", MASTER)));
        sentinels.await(
            Duration.ofSeconds(30),
            "the replica promoted",
            () -> ("127.0.0.1:" + replica.tlsPort()).equals(sentinels.masterAddress(0)));
        try (RespClient promoted =
            new RespClient(certificates.connect(replica.tlsPort(), "client"))) {
          assertTrue(RespClient.text(promoted.call("INFO", "replication")).contains("role:master"));
          assertEquals(1L, promoted.call("CF.EXISTS", "before-failover", "x"));
          assertEquals(1L, promoted.call("CF.ADD", "after-failover", "y"));
        }
        // the old master follows the new one, over TLS too
        sentinels.await(
            Duration.ofSeconds(30),
            "the old master following the new one",
            () -> {
              // a new connection each time: Sentinel's reconfiguration closes the clients
              try (RespClient client =
                  new RespClient(certificates.connect(master.tlsPort(), "client"))) {
                return Long.valueOf(1).equals(client.call("CF.EXISTS", "after-failover", "y"));
              } catch (Exception e) {
                return false;
              }
            });
      }
    }
  }
}
