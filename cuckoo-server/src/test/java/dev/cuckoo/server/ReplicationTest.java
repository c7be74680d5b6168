package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A master and replicas in this JVM: the stream, READONLY, WAIT, NOREPLICAS, INFO and ROLE. */
class ReplicationTest {
  @TempDir Path dir;

  private static CuckooServer replicaOf(CuckooServer master, ServerConfig.Builder builder)
      throws IOException {
    return CuckooServer.start(builder.set("replicaof", "127.0.0.1 " + master.port()).build());
  }

  /*
   * replication.c slaveTryPartialResynchronization: without a cached master the replica asks
   * "PSYNC ? -1", which its master does not count as a failed partial resynchronization; a master
   * made a replica at run time caches itself (replicationCacheMasterUsingMyself) and offers its own
   * id, which a master that never knew it counts in sync_partial_err.
   */
  @Test
  void psync_replicaFromStartOrMasterTurnedReplica_offersNoHistoryOrItsOwn() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer fromStart = replicaOf(master, TestServers.memoryOnly())) {
      ReplicaState.awaitInSync(master.port(), fromStart.port(), 10_000);
      assertEquals("1", ReplicaState.stat(master.port(), "sync_full"));
      assertEquals("0", ReplicaState.stat(master.port(), "sync_partial_err"));
      try (CuckooServer wasMaster = TestServers.start();
          RespClient client = new RespClient(wasMaster.port())) {
        client.call("REPLICAOF", "127.0.0.1", master.port());
        ReplicaState.awaitInSync(master.port(), wasMaster.port(), 10_000);
        assertEquals("2", ReplicaState.stat(master.port(), "sync_full"));
        assertEquals("1", ReplicaState.stat(master.port(), "sync_partial_err"));
      }
    }
  }

  @Test
  void publish_onMaster_subscribersOfEachReplicaReceiveIt() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer replica = replicaOf(master, TestServers.memoryOnly());
        CuckooServer other = replicaOf(master, TestServers.memoryOnly())) {
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      ReplicaState.awaitInSync(master.port(), other.port(), 10_000);
      try (RespClient subscriber = new RespClient(replica.port());
          RespClient pattern = new RespClient(other.port());
          RespClient publisher = new RespClient(master.port())) {
        subscriber.send("SUBSCRIBE", "news");
        subscriber.read();
        pattern.send("PSUBSCRIBE", "n*");
        pattern.read();
        publisher.call("CF.ADD", "before", "x");
        // the master has no subscriber of its own: Redis counts only local receivers too
        assertEquals(0L, publisher.call("PUBLISH", "news", "hello"));
        publisher.call("CF.ADD", "after", "y");
        assertEquals(
            List.of("message", "news", "hello"),
            texts(subscriber.readWithin(java.time.Duration.ofSeconds(5))));
        assertEquals(
            List.of("pmessage", "n*", "news", "hello"),
            texts(pattern.readWithin(java.time.Duration.ofSeconds(5))));
        // the message is part of the stream: offsets still agree, the writes around it arrived
        ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
        ReplicaState.awaitInSync(master.port(), other.port(), 10_000);
        assertEquals(ReplicaState.of(master.port(), 1), ReplicaState.of(replica.port(), 1));
      }
    }
  }

  private static List<String> texts(Object frame) {
    return ((List<?>) frame).stream().map(RespClient::text).toList();
  }

  @Test
  void replTimeout_silentMaster_replicaDropsTheLinkAndContinues() throws Exception {
    // the master pings once an hour: only repl-timeout can notice the silence
    try (CuckooServer master =
            CuckooServer.start(
                TestServers.memoryOnly().set("repl-ping-replica-period", "3600").build());
        CuckooServer replica =
            replicaOf(master, TestServers.memoryOnly().set("repl-timeout", "1"))) {
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      try (RespClient client = new RespClient(master.port())) {
        client.call("CF.ADD", "k", "x");
        ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
        long deadline = System.currentTimeMillis() + 15_000;
        String partial = "0";
        while (partial.equals("0") && System.currentTimeMillis() < deadline) {
          Thread.sleep(200);
          partial = ReplicaState.stat(master.port(), "sync_partial_ok");
        }
        assertEquals("1", partial, "the replica reconnected with a partial resync");
        assertEquals("1", ReplicaState.stat(master.port(), "sync_full"), "no second full copy");
        client.call("CF.ADD", "k", "y");
        ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      }
    }
  }

  @Test
  void replTimeout_masterSilentDuringHandshake_replicaDropsTheConnectionAndRetries()
      throws Exception {
    // a "master" that accepts and never answers PING: the socket has no read timeout of its own,
    // so only the once-a-second repl-timeout check can end the first connection
    try (java.net.ServerSocket silent = new java.net.ServerSocket(0)) {
      silent.setSoTimeout(15_000);
      try (CuckooServer replica =
          CuckooServer.start(
              TestServers.memoryOnly()
                  .set("repl-timeout", "1")
                  .set("replicaof", "127.0.0.1 " + silent.getLocalPort())
                  .build())) {
        try (java.net.Socket first = silent.accept()) {
          first.setSoTimeout(15_000);
          java.io.InputStream in = first.getInputStream();
          byte[] ping = RespClient.encode("PING");
          assertEquals(
              new String(ping, java.nio.charset.StandardCharsets.US_ASCII),
              new String(in.readNBytes(ping.length), java.nio.charset.StandardCharsets.US_ASCII));
          assertEquals(-1, in.read(), "the replica closed the silent connection");
        }
        try (java.net.Socket second = silent.accept();
            RespClient client = new RespClient(replica.port())) {
          assertTrue(second.isConnected(), "the replica connected again");
          assertEquals("down", client.infoField("master_link_status"));
        }
      }
    }
  }

  @Test
  void stream_everyKindOfWrite_replicaHoldsTheSameFilters() throws Exception {
    // the master keeps no files: the stream must not depend on the log
    try (CuckooServer master = TestServers.start();
        CuckooServer replica =
            replicaOf(master, TestServers.memoryOnly().appendOnly(true).dir(dir))) {
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      try (RespClient client = new RespClient(master.port())) {
        client.call("CF.RESERVE", "r", 1000, "BUCKETSIZE", 4);
        for (int i = 0; i < 200; i++) {
          client.call("CF.ADD", "a", "item" + i);
        }
        client.call("CF.INSERT", "ins", "CAPACITY", 500, "ITEMS", "x", "y", "z");
        client.call("CF.ADDNX", "a", "item1");
        client.call("CF.DEL", "a", "item2");
        client.call("CF.ADD", "gone", "1");
        client.call("DEL", "gone");
        client.call("CF.ADD", "exp", "1");
        client.call("EXPIRE", "exp", 1000);
        client.call("CF.ADD", "persisted", "1");
        client.call("EXPIRE", "persisted", 1000);
        client.call("PERSIST", "persisted");
        client.call("CF.ADD", "short", "1");
        client.call("PEXPIRE", "short", 30);
        client.call("MULTI");
        client.call("CF.ADD", "tx1", "a");
        client.call("SELECT", 2);
        client.call("CF.ADD", "tx2", "b");
        client.call("EXEC");
        client.call("SELECT", 3);
        client.call("CF.ADD", "three", "c");
        client.call("CF.ADD", "moved", "m");
        client.call("MOVE", "moved", 4);
        client.call("CF.ADD", "old", "o");
        client.call("RENAME", "old", "new");
        client.call("SELECT", 5);
        client.call("CF.ADD", "five", "f");
        client.call("SWAPDB", 5, 6);
        client.call("SELECT", 7);
        client.call("CF.ADD", "flushed", "f");
        client.call("FLUSHDB");
        Thread.sleep(300); // "short" expires: the master deletes it and streams the DEL
      }
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      Map<String, String> expected = ReplicaState.of(master.port(), 16);
      assertEquals(expected, ReplicaState.of(replica.port(), 16));
      assertTrue(expected.containsKey("4/moved"), expected.keySet().toString());
      assertTrue(expected.containsKey("6/five"), expected.keySet().toString());
      assertFalse(expected.containsKey("0/short"), expected.keySet().toString());
      try (RespClient client = new RespClient(master.port())) {
        client.call("FLUSHALL");
      }
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      assertEquals(Map.of(), ReplicaState.of(replica.port(), 16));
    }
  }

  @Test
  void write_onReadOnlyReplica_refusedWithRedisText() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer replica = replicaOf(master, TestServers.memoryOnly());
        RespClient client = new RespClient(replica.port())) {
      assertEquals(
          new RespClient.Err("READONLY You can't write against a read only replica."),
          client.call("CF.ADD", "k", "v"));
      assertEquals(0L, client.call("CF.EXISTS", "k", "v"));
      client.call("MULTI");
      assertEquals(
          new RespClient.Err("READONLY You can't write against a read only replica."),
          client.call("DEL", "k"));
    }
  }

  @Test
  void wait_countsReplicasThatAcknowledged() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer replica = replicaOf(master, TestServers.memoryOnly());
        RespClient client = new RespClient(master.port())) {
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      client.call("CF.ADD", "k", "v");
      assertEquals(1L, client.call("WAIT", 1, 5000));
      long start = System.nanoTime();
      client.call("CF.ADD", "k", "w");
      assertEquals(1L, client.call("WAIT", 2, 300));
      assertTrue(System.nanoTime() - start >= 250_000_000L, "WAIT 2 waited for its timeout");
      assertEquals(new RespClient.Err("ERR timeout is negative"), client.call("WAIT", 1, -1));
      try (RespClient onReplica = new RespClient(replica.port())) {
        Object refused = onReplica.call("WAIT", 1, 0);
        assertInstanceOf(RespClient.Err.class, refused);
        assertTrue(refused.toString().contains("WAIT cannot be used with replica instances"));
      }
    }
  }

  @Test
  void minReplicasToWrite_withoutGoodReplica_refusesWithNoreplicas() throws Exception {
    try (CuckooServer master =
            CuckooServer.start(TestServers.memoryOnly().minReplicas(1, 10).build());
        RespClient client = new RespClient(master.port())) {
      assertEquals(
          new RespClient.Err("NOREPLICAS Not enough good replicas to write."),
          client.call("CF.ADD", "k", "v"));
      assertEquals(0L, client.call("EXISTS", "k"));
      try (CuckooServer replica = replicaOf(master, TestServers.memoryOnly())) {
        ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
        assertEquals(1L, client.call("CF.ADD", "k", "v"));
        assertEquals("1", ReplicaState.info(master.port(), "min_slaves_good_slaves"));
      }
    }
  }

  @Test
  void infoAndRole_onBothSides_printRedisFields() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer replica = replicaOf(master, TestServers.memoryOnly())) {
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      try (RespClient client = new RespClient(master.port())) {
        client.call("CF.ADD", "k", "v");
        assertEquals(1L, client.call("WAIT", 1, 5000));
        // WAIT's REPLCONF GETACK goes out after it answered: wait until the replica has it too
        ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
        Thread.sleep(1100); // and its once-a-second ACK reported it
        String info = RespClient.text(client.call("INFO", "replication"));
        String offset = ReplicaState.info(master.port(), "master_repl_offset");
        assertTrue(
            info.matches(
                "(?s)# Replication\r\nrole:master\r\nconnected_slaves:1\r\n"
                    + "slave0:ip=127\\.0\\.0\\.1,port="
                    + replica.port()
                    + ",state=online,offset="
                    + offset
                    + ",lag=\\d+\r\nmaster_failover_state:no-failover\r\n"
                    + "master_replid:[0-9a-f]{40}\r\nmaster_replid2:0{40}\r\n"
                    + "master_repl_offset:"
                    + offset
                    + "\r\nsecond_repl_offset:-1\r\nrepl_backlog_active:1\r\n"
                    + "repl_backlog_size:1048576\r\nrepl_backlog_first_byte_offset:1\r\n"
                    + "repl_backlog_histlen:"
                    + offset
                    + "\r\n"),
            info);
        List<?> role = (List<?>) client.call("ROLE");
        assertEquals("master", RespClient.text(role.get(0)));
        assertEquals(Long.parseLong(offset), role.get(1));
        List<?> replicas = (List<?>) role.get(2);
        List<?> first = (List<?>) replicas.get(0);
        assertEquals(
            List.of("127.0.0.1", Integer.toString(replica.port()), offset),
            first.stream().map(RespClient::text).toList());
      }
      try (RespClient client = new RespClient(replica.port())) {
        String info = RespClient.text(client.call("INFO", "replication"));
        assertTrue(
            info.matches(
                "(?s)# Replication\r\nrole:slave\r\nmaster_host:127\\.0\\.0\\.1\r\n"
                    + "master_port:"
                    + master.port()
                    + "\r\nmaster_link_status:up\r\nmaster_last_io_seconds_ago:\\d+\r\n"
                    + "master_sync_in_progress:0\r\nslave_read_repl_offset:\\d+\r\n"
                    + "slave_repl_offset:\\d+\r\nslave_priority:100\r\nslave_read_only:1\r\n"
                    + "replica_announced:1\r\nconnected_slaves:0\r\n"
                    + "master_failover_state:no-failover\r\nmaster_replid:[0-9a-f]{40}\r\n.*"),
            info);
        List<?> role = (List<?>) client.call("ROLE");
        assertEquals("slave", RespClient.text(role.get(0)));
        assertEquals("127.0.0.1", RespClient.text(role.get(1)));
        assertEquals((long) master.port(), role.get(2));
        assertEquals("connected", RespClient.text(role.get(3)));
        assertEquals(
            Long.parseLong(ReplicaState.info(master.port(), "master_repl_offset")), role.get(4));
      }
    }
  }

  @Test
  void serveStaleDataNo_linkDown_refusesWithMasterdown() throws Exception {
    int closedPort;
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
      closedPort = probe.getLocalPort();
    }
    try (CuckooServer replica =
            CuckooServer.start(
                TestServers.memoryOnly()
                    .replicaServeStaleData(false)
                    .set("replicaof", "127.0.0.1 " + closedPort)
                    .build());
        RespClient client = new RespClient(replica.port())) {
      assertEquals(
          new RespClient.Err(
              "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."),
          client.call("CF.EXISTS", "k", "v"));
      assertInstanceOf(byte[].class, client.call("INFO", "replication"));
      // PING is not flagged stale in Redis either: Sentinel reads this reply as "alive"
      assertInstanceOf(RespClient.Err.class, client.call("PING"));
    }
  }

  @Test
  void expiredKey_onReplica_absentForReadsButDeletedOnlyByMaster() throws Exception {
    CuckooServer master = TestServers.start();
    try (CuckooServer replica = replicaOf(master, TestServers.memoryOnly())) {
      try (RespClient client = new RespClient(master.port())) {
        client.call("CF.ADD", "k", "v");
        client.call("PEXPIRE", "k", 400);
      }
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      master.close(); // the master's deletion never comes
      Thread.sleep(1000);
      try (RespClient client = new RespClient(replica.port())) {
        assertEquals(0L, client.call("CF.EXISTS", "k", "v"));
        assertEquals(0L, client.call("EXISTS", "k"));
        // still stored: a replica does not expire keys itself (DBSIZE counts it, as in Redis)
        assertEquals(1L, client.call("DBSIZE"));
      }
    } finally {
      master.close();
    }
  }

  @Test
  void masterauth_wrongThenRight_logsRedisTextThenSyncs() throws Exception {
    List<String> logged = ReplicationSyncTest.capture("dev.cuckoo.server.replication.MasterLink");
    try (CuckooServer master =
            CuckooServer.start(TestServers.memoryOnly().requirePass("secret").build());
        CuckooServer replica =
            replicaOf(master, TestServers.memoryOnly().masterAuth(null, "wrong"))) {
      assertTrue(
          ReplicaState.await(
              () ->
                  logged.stream().anyMatch(m -> m.contains("Unable to AUTH to MASTER: -WRONGPASS")),
              5000),
          logged.toString());
      try (RespClient client = new RespClient(replica.port())) {
        client.call("CONFIG", "SET", "masterauth", "secret");
      }
      try (RespClient client = new RespClient(master.port())) {
        client.call("AUTH", "secret");
        client.call("CF.ADD", "k", "v");
      }
      assertTrue(
          ReplicaState.await(
              () -> "up".equals(ReplicaState.info(replica.port(), "master_link_status")), 10_000));
      try (RespClient client = new RespClient(replica.port())) {
        assertEquals(1L, client.call("CF.EXISTS", "k", "v"));
      }
    }
  }

  @Test
  void replicaofInsideMulti_runsAtExec_asSentinelSendsIt() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.call("MULTI");
      assertEquals(
          new RespClient.Simple("QUEUED"), client.call("REPLICAOF", "127.0.0.1", master.port()));
      assertEquals(List.of(new RespClient.Simple("OK")), client.call("EXEC"));
      ReplicaState.awaitInSync(master.port(), server.port(), 10_000);
      assertEquals(
          new RespClient.Simple("OK Already connected to specified master"),
          client.call("REPLICAOF", "127.0.0.1", master.port()));
      assertEquals(
          new RespClient.Err("ERR Invalid master port"),
          client.call("REPLICAOF", "127.0.0.1", "70000"));
    }
  }

  @Test
  void sync_oldProtocol_sendsTheCopyWithoutFullresyncLine() throws Exception {
    try (CuckooServer master = TestServers.start();
        java.net.Socket socket = new java.net.Socket("127.0.0.1", master.port())) {
      try (RespClient writer = new RespClient(master.port())) {
        writer.call("CF.ADD", "k", "v");
      }
      socket.setSoTimeout(10_000);
      java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
      socket.getOutputStream().write(RespClient.encode("SYNC"));
      // no +FULLRESYNC: the copy comes first ($length, no CRLF after it), in the snapshot format
      String header = line(in);
      assertTrue(header.startsWith("$"), header);
      byte[] copy = new byte[Integer.parseInt(header.substring(1))];
      in.readFully(copy);
      assertEquals("CKOOSNP4", new String(copy, 0, 8, java.nio.charset.StandardCharsets.US_ASCII));
      try (RespClient writer = new RespClient(master.port())) {
        writer.call("CF.ADD", "k", "w");
      }
      // then the stream: the database first, then the write
      String expected =
          new String(RespClient.encode("SELECT", "0"), java.nio.charset.StandardCharsets.UTF_8)
              + new String(
                  RespClient.encode("CF.ADD", "k", "w"), java.nio.charset.StandardCharsets.UTF_8);
      byte[] stream = new byte[expected.length()];
      in.readFully(stream);
      assertEquals(expected, new String(stream, java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  @Test
  void publishInsideMulti_streamedInItsPlaceInsideTheExecBlock() throws Exception {
    try (CuckooServer master = TestServers.start();
        java.net.Socket socket = new java.net.Socket("127.0.0.1", master.port())) {
      try (RespClient writer = new RespClient(master.port())) {
        // an existing key: each write below is then one CF.ADD in the stream
        writer.call("CF.ADD", "k", "v");
      }
      socket.setSoTimeout(10_000);
      java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
      socket.getOutputStream().write(RespClient.encode("SYNC"));
      byte[] copy = new byte[Integer.parseInt(line(in).substring(1))];
      in.readFully(copy);
      try (RespClient writer = new RespClient(master.port())) {
        writer.call("MULTI");
        writer.call("CF.ADD", "k", "a");
        writer.call("PUBLISH", "news", "between");
        writer.call("CF.ADD", "k", "b");
        assertEquals(3, ((List<?>) writer.call("EXEC")).size());
        // a transaction that publishes only: one command, sent alone as Redis sends it
        writer.call("MULTI");
        writer.call("PUBLISH", "news", "alone");
        writer.call("EXEC");
        writer.call("CF.ADD", "k", "c");
      }
      String expected =
          resp("SELECT", "0")
              + resp("MULTI")
              + resp("CF.ADD", "k", "a")
              + resp("PUBLISH", "news", "between")
              + resp("CF.ADD", "k", "b")
              + resp("EXEC")
              + resp("PUBLISH", "news", "alone")
              + resp("CF.ADD", "k", "c");
      byte[] stream = new byte[expected.length()];
      in.readFully(stream);
      assertEquals(expected, new String(stream, java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  @Test
  void publishInsideMulti_replicaPublishesItAndAppliesTheWrites() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer replica = replicaOf(master, TestServers.memoryOnly())) {
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      try (RespClient subscriber = new RespClient(replica.port());
          RespClient writer = new RespClient(master.port())) {
        subscriber.send("SUBSCRIBE", "news");
        subscriber.read();
        writer.call("MULTI");
        writer.call("CF.ADD", "k", "a");
        writer.call("PUBLISH", "news", "inside");
        writer.call("CF.ADD", "j", "b");
        writer.call("EXEC");
        assertEquals(
            List.of("message", "news", "inside"),
            texts(subscriber.readWithin(java.time.Duration.ofSeconds(5))));
        ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
        assertEquals(ReplicaState.of(master.port(), 1), ReplicaState.of(replica.port(), 1));
      }
    }
  }

  private static String resp(String... args) {
    return new String(RespClient.encode((Object[]) args), java.nio.charset.StandardCharsets.UTF_8);
  }

  private static String line(java.io.DataInputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      line.append((char) b);
    }
    return line.toString().trim();
  }

  @Test
  void configRewrite_afterReplicaofAndPromotion_writesTheCurrentMaster() throws Exception {
    java.nio.file.Path file = dir.resolve("cuckoo.conf");
    java.nio.file.Files.writeString(
        file,
        "port "
            + TestServers.freePort()
            + "\nappendonly no\ndir "
            + dir.resolve("data").toAbsolutePath()
            + "\n");
    try (CuckooServer master = TestServers.start();
        CuckooServer server = CuckooServer.start(ServerConfig.parse(file.toString()));
        RespClient client = new RespClient(server.port())) {
      client.call("REPLICAOF", "127.0.0.1", master.port());
      client.call("CONFIG", "SET", "replica-priority", "5");
      assertEquals(new RespClient.Simple("OK"), client.call("CONFIG", "REWRITE"));
      String written = java.nio.file.Files.readString(file);
      assertTrue(written.contains("replicaof \"127.0.0.1 " + master.port() + "\""), written);
      assertTrue(written.contains("replica-priority 5"), written);
      assertEquals("127.0.0.1 " + master.port(), ServerConfig.parse(file.toString()).replicaOf());
      client.call("REPLICAOF", "NO", "ONE");
      assertEquals(new RespClient.Simple("OK"), client.call("CONFIG", "REWRITE"));
      assertEquals(null, ServerConfig.parse(file.toString()).replicaOf());
    }
  }
}
