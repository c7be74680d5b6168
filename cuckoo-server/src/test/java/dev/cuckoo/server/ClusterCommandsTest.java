package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CLUSTER over TCP on one node: Redis's replies and errors, and nodes.conf across a restart. */
class ClusterCommandsTest {
  @TempDir Path dir;

  private static Object error(String text) {
    return new RespClient.Err(text);
  }

  @Test
  void clusterModeOff_everySubcommand_answersDisabled() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      for (String sub : List.of("INFO", "NODES", "MYID", "SLOTS", "SHARDS", "HELP")) {
        assertEquals(
            error("ERR This instance has cluster support disabled"), client.call("CLUSTER", sub));
      }
      assertEquals(
          error("ERR This instance has cluster support disabled"),
          client.call("CLUSTER", "KEYSLOT", "foo"));
      assertTrue(RespClient.text(client.call("INFO", "cluster")).contains("cluster_enabled:0"));
    }
  }

  private CuckooServer clusterNode() throws Exception {
    return CuckooServer.start(
        TestServers.memoryOnly()
            .dir(dir)
            .clusterEnabled(true)
            .clusterPort(SentinelCluster.freePort())
            .build());
  }

  @Test
  void announcedAddress_setAtRunTime_showsInNodesAndSlots() throws Exception {
    try (CuckooServer server = clusterNode();
        RespClient client = new RespClient(server.port())) {
      assertEquals(new RespClient.Simple("OK"), client.call("CLUSTER", "ADDSLOTS", "0"));
      assertEquals(
          new RespClient.Simple("OK"),
          client.call(
              "CONFIG",
              "SET",
              "cluster-announce-ip",
              "10.9.8.7",
              "cluster-announce-port",
              "7777",
              "cluster-announce-bus-port",
              "17777",
              "cluster-announce-hostname",
              "node-a.example"));
      String nodes = RespClient.text(client.call("CLUSTER", "NODES"));
      assertTrue(nodes.contains(" 10.9.8.7:7777@17777,node-a.example myself,master "), nodes);
      List<?> range = (List<?>) ((List<?>) client.call("CLUSTER", "SLOTS")).get(0);
      List<?> master = (List<?>) range.get(2);
      assertEquals("10.9.8.7", RespClient.text(master.get(0)));
      assertEquals(7777L, master.get(1));
      assertEquals(
          new RespClient.Simple("OK"), client.call("CONFIG", "SET", "cluster-announce-port", "0"));
      assertTrue(
          RespClient.text(client.call("CLUSTER", "NODES"))
              .contains(" 10.9.8.7:" + server.port() + "@17777,node-a.example myself,master "));
    }
  }

  @Test
  void oneNode_slotsAndErrors_asRedis() throws Exception {
    String id;
    try (CuckooServer server =
            CuckooServer.start(
                TestServers.memoryOnly()
                    .dir(dir)
                    .clusterEnabled(true)
                    .clusterPort(SentinelCluster.freePort())
                    .build());
        RespClient client = new RespClient(server.port())) {
      assertTrue(RespClient.text(client.call("INFO", "cluster")).contains("cluster_enabled:1"));
      id = RespClient.text(client.call("CLUSTER", "MYID"));
      assertEquals(40, id.length());
      assertEquals(12182L, client.call("CLUSTER", "KEYSLOT", "foo"));
      assertEquals(
          client.call("CLUSTER", "KEYSLOT", "{user1000}.following"),
          client.call("CLUSTER", "KEYSLOT", "{user1000}.followers"));
      assertEquals(new RespClient.Simple("OK"), client.call("CLUSTER", "ADDSLOTS", "0", "1", "2"));
      assertEquals(error("ERR Slot 1 is already busy"), client.call("CLUSTER", "ADDSLOTS", "1"));
      assertEquals(
          error("ERR Invalid or out of range slot"), client.call("CLUSTER", "ADDSLOTS", "16384"));
      assertEquals(
          error("ERR Slot 5 specified multiple times"),
          client.call("CLUSTER", "ADDSLOTS", "5", "5"));
      assertEquals(
          error("ERR start slot number 9 is greater than end slot number 8"),
          client.call("CLUSTER", "ADDSLOTSRANGE", "9", "8"));
      assertEquals(
          new RespClient.Simple("OK"), client.call("CLUSTER", "ADDSLOTSRANGE", "100", "199"));
      assertEquals(
          error("ERR Slot 3 is already unassigned"), client.call("CLUSTER", "DELSLOTS", "3"));
      assertEquals(new RespClient.Simple("OK"), client.call("CLUSTER", "DELSLOTS", "2"));
      String nodes = RespClient.text(client.call("CLUSTER", "NODES"));
      assertTrue(
          nodes.matches(id + " :\\d+@\\d+ myself,master - 0 0 0 connected 0-1 100-199\n"), nodes);
      List<?> slots = (List<?>) client.call("CLUSTER", "SLOTS");
      assertEquals(2, slots.size());
      assertEquals(List.of(0L, 1L), ((List<?>) slots.get(0)).subList(0, 2));
      assertEquals(new RespClient.Simple("BUMPED 1"), client.call("CLUSTER", "BUMPEPOCH"));
      assertEquals(new RespClient.Simple("STILL 1"), client.call("CLUSTER", "BUMPEPOCH"));
      assertEquals(
          error("ERR Node config epoch is already non-zero"),
          client.call("CLUSTER", "SET-CONFIG-EPOCH", "5"));
      assertEquals(
          error("ERR I tried hard but I can't forget myself..."),
          client.call("CLUSTER", "FORGET", id));
      assertEquals(
          error("ERR Unknown node nobody"),
          client.call("CLUSTER", "COUNT-FAILURE-REPORTS", "nobody"));
      assertEquals(
          error("ERR Invalid node address specified: not-an-ip:7000"),
          client.call("CLUSTER", "MEET", "not-an-ip", "7000"));
      assertEquals(
          error("ERR Invalid TCP base port specified: x"),
          client.call("CLUSTER", "MEET", "127.0.0.1", "x"));
      assertEquals(
          error("ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP"),
          client.call("CLUSTER", "SETSLOT", "0", "BOGUS", "x"));
      assertEquals(
          error("ERR I'm already the owner of hash slot 0"),
          client.call("CLUSTER", "SETSLOT", "0", "IMPORTING", id));
      assertEquals(
          new RespClient.Simple("OK"), client.call("CLUSTER", "SETSLOT", "0", "MIGRATING", id));
      assertTrue(RespClient.text(client.call("CLUSTER", "NODES")).contains(" [0->-" + id + "]\n"));
      assertEquals(new RespClient.Simple("OK"), client.call("CLUSTER", "SETSLOT", "0", "STABLE"));
      // the slot check: no node serves foo's slot; foo119's slot (171) is this node's, served once
      // the cluster is ok without full coverage
      assertEquals(
          error("CLUSTERDOWN Hash slot not served"), client.call("CF.RESERVE", "foo", "100"));
      assertEquals(
          error("CLUSTERDOWN The cluster is down"), client.call("CF.RESERVE", "foo119", "100"));
      assertEquals(
          new RespClient.Simple("OK"),
          client.call("CONFIG", "SET", "cluster-require-full-coverage", "no"));
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (!RespClient.text(client.call("CLUSTER", "INFO")).contains("cluster_state:ok")
          && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertEquals(new RespClient.Simple("OK"), client.call("CF.RESERVE", "foo119", "100"));
      assertEquals(1L, client.call("CLUSTER", "COUNTKEYSINSLOT", "171"));
      assertEquals(
          List.of("foo119"),
          ((List<?>) client.call("CLUSTER", "GETKEYSINSLOT", "171", "10"))
              .stream().map(RespClient::text).toList());
      assertEquals(
          new RespClient.Simple("OK"),
          client.call("CONFIG", "SET", "cluster-require-full-coverage", "yes"));
      assertEquals(
          error("ERR DB must be empty to perform CLUSTER FLUSHSLOTS."),
          client.call("CLUSTER", "FLUSHSLOTS"));
      String info = RespClient.text(client.call("CLUSTER", "INFO"));
      assertTrue(info.startsWith("cluster_state:fail\r\ncluster_slots_assigned:102\r\n"), info);
      assertTrue(info.contains("cluster_current_epoch:1\r\ncluster_my_epoch:1\r\n"), info);
    }
    // the node comes back with its id, slots and epochs from nodes.conf
    String conf = Files.readString(dir.resolve("nodes.conf"));
    assertTrue(conf.endsWith("vars currentEpoch 1 lastVoteEpoch 0\n"), conf);
    try (CuckooServer server = clusterNode();
        RespClient client = new RespClient(server.port())) {
      assertEquals(id, RespClient.text(client.call("CLUSTER", "MYID")));
      assertTrue(
          RespClient.text(client.call("CLUSTER", "NODES"))
              .contains(" myself,master - 0 0 1 connected 0-1 100-199\n"));
    }
  }

  @Test
  void corruptNodesConf_serverRefusesToStart_namingTheLine() throws Exception {
    Files.writeString(
        dir.resolve("nodes.conf"), "abc 127.0.0.1:1@2 myself,master - 0 0 0 connected\n");
    java.io.IOException error =
        org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, this::clusterNode);
    assertTrue(error.getMessage().contains("nodes.conf line 1: node id 'abc'"), error.getMessage());
  }
}
