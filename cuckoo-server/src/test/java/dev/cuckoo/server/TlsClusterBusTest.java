package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Two cluster nodes with {@code tls-cluster yes} meet and gossip over TLS links on their bus ports,
 * each announcing its TLS port as its client port.
 */
class TlsClusterBusTest {
  @Test
  void tlsCluster_twoNodesMeet_overTlsBus() throws Exception {
    TestCertificates certificates = TestCertificates.get();
    int busA = SentinelCluster.freePort();
    int busB = SentinelCluster.freePort();
    try (CuckooServer a = CuckooServer.start(node(certificates, busA));
        CuckooServer b = CuckooServer.start(node(certificates, busB));
        RespClient clientA = new RespClient(a.port());
        RespClient clientB = new RespClient(b.port())) {
      assertEquals(
          new RespClient.Simple("OK"),
          clientA.call("CLUSTER", "MEET", "127.0.0.1", b.tlsPort(), busB));
      String idB = RespClient.text(clientB.call("CLUSTER", "MYID"));
      assertTrue(
          ReplicaState.await(
              () ->
                  RespClient.text(clientA.call("CLUSTER", "INFO")).contains("cluster_known_nodes:2")
                      && RespClient.text(clientB.call("CLUSTER", "INFO"))
                          .contains("cluster_known_nodes:2")
                      && RespClient.text(clientA.call("CLUSTER", "NODES"))
                          .contains(idB + " 127.0.0.1:" + b.tlsPort() + "@" + busB + " master "),
              20_000),
          "the nodes did not meet over TLS: A sees\n"
              + RespClient.text(clientA.call("CLUSTER", "NODES"))
              + "B sees\n"
              + RespClient.text(clientB.call("CLUSTER", "NODES")));
    }
  }

  private static ServerConfig node(TestCertificates certificates, int busPort) throws Exception {
    return certificates
        .withTls(TestServers.memoryOnly(), TestServers.freePort())
        .clusterEnabled(true)
        .clusterPort(busPort)
        .set("tls-cluster", "yes")
        .build();
  }
}
