package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.command.InfoCommands;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** INFO over TCP: Redis's section headers, field names and section selection. */
@ExtendWith(LeakCheck.class)
class InfoCommandsTest {
  private static final List<String> DEFAULT_HEADERS =
      List.of(
          "# Server",
          "# Clients",
          "# Memory",
          "# Persistence",
          "# Stats",
          "# Replication",
          "# CPU",
          "# Modules",
          "# Errorstats",
          "# Cluster",
          "# Keyspace");
  private static final List<String> ALL_HEADERS =
      List.of(
          "# Server",
          "# Clients",
          "# Memory",
          "# Persistence",
          "# Stats",
          "# Replication",
          "# CPU",
          "# Modules",
          "# Commandstats",
          "# Errorstats",
          "# Latencystats",
          "# Cluster",
          "# Keyspace");

  private static List<String> headers(String info) {
    List<String> headers = new ArrayList<>();
    for (String line : info.split("\r\n")) {
      if (line.startsWith("#")) {
        headers.add(line);
      }
    }
    return headers;
  }

  private static Map<String, String> fields(String info) {
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : info.split("\r\n")) {
      int colon = line.indexOf(':');
      if (!line.startsWith("#") && colon > 0) {
        fields.put(line.substring(0, colon), line.substring(colon + 1));
      }
    }
    return fields;
  }

  private static String info(RespClient client, String... sections) throws IOException {
    Object[] args = new Object[sections.length + 1];
    args[0] = "INFO";
    System.arraycopy(sections, 0, args, 1, sections.length);
    return RespClient.text(client.call(args));
  }

  @Test
  void cpu_processAndCommandThreads_splitUserAndSystemTime() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      for (int i = 0; i < 20_000; i++) {
        client.send("CF.ADD", "k" + (i % 100), "item" + i);
      }
      for (int i = 0; i < 20_000; i++) {
        client.read();
      }
      Map<String, String> cpu = fields(info(client, "cpu"));
      double processSeconds =
          Double.parseDouble(cpu.get("used_cpu_user"))
              + Double.parseDouble(cpu.get("used_cpu_sys"));
      double threadSeconds =
          Double.parseDouble(cpu.get("used_cpu_user_main_thread"))
              + Double.parseDouble(cpu.get("used_cpu_sys_main_thread"));
      // the command threads did the 20,000 adds; the whole process (this test's JVM) did more
      assertTrue(threadSeconds > 0, cpu.toString());
      assertTrue(threadSeconds <= processSeconds + 0.05, cpu.toString());
      assertTrue(Double.parseDouble(cpu.get("used_cpu_sys")) > 0, cpu.toString());
    }
  }

  @Test
  void info_noArgument_hasRedisDefaultSectionsInOrder() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      String info = info(client);
      assertEquals(DEFAULT_HEADERS, headers(info));
      assertEquals(DEFAULT_HEADERS, headers(info(client, "default")));
      assertTrue(info.startsWith("# Server\r\n"), info);
      assertTrue(info.contains("\r\n\r\n# Clients\r\n"), info);
      assertTrue(info.endsWith("# Keyspace\r\n"), info);
    }
  }

  @Test
  void info_allOrEverything_addsCommandstatsAndLatencystats() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(ALL_HEADERS, headers(info(client, "all")));
      assertEquals(ALL_HEADERS, headers(info(client, "EVERYTHING")));
    }
  }

  @Test
  void info_sectionNames_selectThoseSectionsInRedisOrder() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(List.of("# Server", "# Clients"), headers(info(client, "clients", "Server")));
      assertEquals(List.of("# Cluster"), headers(info(client, "cluster")));
      assertEquals("", info(client, "nosuch"));
    }
  }

  @Test
  void info_fields_carryRedisNamesAndValues() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      Map<String, String> fields = fields(info(client, "everything"));
      for (String name :
          List.of(
              "redis_version",
              "redis_mode",
              "os",
              "arch_bits",
              "process_id",
              "run_id",
              "tcp_port",
              "server_time_usec",
              "uptime_in_seconds",
              "uptime_in_days",
              "hz",
              "executable",
              "config_file",
              "connected_clients",
              "blocked_clients",
              "maxclients",
              "used_memory",
              "used_memory_human",
              "used_memory_peak",
              "maxmemory",
              "maxmemory_human",
              "maxmemory_policy",
              "used_memory_filters",
              "max_heap",
              "loading",
              "aof_rewrite_in_progress",
              "total_connections_received",
              "total_commands_processed",
              "instantaneous_ops_per_sec",
              "keyspace_hits",
              "keyspace_misses",
              "role",
              "connected_slaves",
              "master_replid",
              "master_repl_offset",
              "cluster_enabled")) {
        assertTrue(fields.containsKey(name), name);
      }
      assertTrue(fields.get("run_id").matches("[0-9a-f]{40}"), fields.get("run_id"));
      assertEquals(fields.get("run_id"), fields(info(client, "server")).get("run_id"));
      assertTrue(fields.get("master_replid").matches("[0-9a-f]{40}"));
      assertEquals(Integer.toString(server.port()), fields.get("tcp_port"));
      assertEquals("0", fields.get("cluster_enabled"));
      assertEquals("master", fields.get("role"));
      assertEquals(
          InfoCommands.bytesToHuman(Long.parseLong(fields.get("maxmemory"))),
          fields.get("maxmemory_human"));
    }
  }

  @Test
  void info_keyspaceAfterAdds_listsDb0() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals("# Keyspace\r\n", info(client, "keyspace"));
      client.call("CF.ADD", "a", "x");
      client.call("CF.ADD", "b", "x");
      assertEquals(
          "# Keyspace\r\ndb0:keys=2,expires=0,avg_ttl=0,subexpiry=0\r\n", info(client, "keyspace"));
      Map<String, String> memory = fields(info(client, "memory"));
      assertTrue(Long.parseLong(memory.get("used_memory")) > 0);
      assertTrue(
          Long.parseLong(memory.get("used_memory_peak"))
              >= Long.parseLong(memory.get("used_memory")));
    }
  }

  @Test
  void info_resp3_isVerbatimText() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      client.call("HELLO", "3");
      String info = info(client, "cluster");
      assertEquals("txt:# Cluster\r\ncluster_enabled:0\r\n", info);
      assertFalse(info(client, "server").isEmpty());
    }
  }

  @Test
  void bytesToHuman_units_formatAsRedis() {
    assertEquals("0B", InfoCommands.bytesToHuman(0));
    assertEquals("1023B", InfoCommands.bytesToHuman(1023));
    assertEquals("894.81K", InfoCommands.bytesToHuman(916288));
    assertEquals("1.50M", InfoCommands.bytesToHuman(3 << 19));
    assertEquals("2.00G", InfoCommands.bytesToHuman(2L << 30));
  }

  @Test
  void infoMemoryAndStats_rssSystemMemoryAndExpiryCycle_reportedAsRedisNamesThem()
      throws Exception {
    long started = System.nanoTime();
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      Map<String, String> memory = fields(info(client, "memory"));
      if (java.nio.file.Files.exists(java.nio.file.Path.of("/proc/self/status"))) {
        long rss = Long.parseLong(memory.get("used_memory_rss"));
        // this JVM's resident memory: more than its heap in use, less than the machine
        assertTrue(rss > 16L << 20, memory.toString());
        assertTrue(rss < Long.parseLong(memory.get("total_system_memory")), memory.toString());
      }
      assertEquals("100.00%", memory.get("used_memory_peak_perc"));
      for (int i = 0; i < 50; i++) {
        assertEquals(1L, client.call("CF.ADD", "short" + i, "x"));
        assertEquals(1L, client.call("PEXPIRE", "short" + i, "1"));
      }
      long deadline = System.nanoTime() + 10_000_000_000L;
      Map<String, String> stats;
      do {
        Thread.sleep(50);
        stats = fields(info(client, "stats"));
      } while (!stats.get("expired_keys").equals("50") && System.nanoTime() < deadline);
      assertEquals("50", stats.get("expired_keys"), stats.toString());
      // every key the cycle looked at had expired: the running share moved up from 0
      assertTrue(Double.parseDouble(stats.get("expired_stale_perc")) > 0, stats.toString());
      // the cycles' time is part of the time the server has been up, never more, never negative
      long cycleMillis = Long.parseLong(stats.get("expire_cycle_cpu_milliseconds"));
      long upMillis = (System.nanoTime() - started) / 1_000_000;
      assertTrue(cycleMillis >= 0 && cycleMillis <= upMillis, cycleMillis + " of " + upMillis);
      assertEquals("0", stats.get("evicted_keys"));
    }
  }

  @Test
  void info_watchesReadsWritesClocksAndListener_reportedAsRedisNamesThem() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient watcher = new RespClient(server.port());
        RespClient client = new RespClient(server.port())) {
      Map<String, String> before = fields(info(client, "clients", "stats", "server", "memory"));
      assertEquals("0", before.get("watching_clients"), before.toString());
      assertEquals("0", before.get("total_watched_keys"));
      assertEquals("0", before.get("expired_subkeys"));
      assertEquals("0", before.get("mem_replication_backlog"));
      assertEquals("name=tcp,bind=127.0.0.1,port=" + server.port(), before.get("listener0"));
      long lruClock = (System.currentTimeMillis() / 1000) & ((1 << 24) - 1);
      assertTrue(
          Math.abs(Long.parseLong(before.get("lru_clock")) - lruClock) <= 2, before.toString());
      assertEquals(new RespClient.Simple("OK"), watcher.call("WATCH", "a", "b"));
      assertEquals(new RespClient.Simple("OK"), client.call("WATCH", "b", "c"));
      Map<String, String> watching = fields(info(client, "clients", "stats"));
      assertEquals("2", watching.get("watching_clients"), watching.toString());
      assertEquals("3", watching.get("total_watched_keys"));
      // this connection's own requests and replies since the first INFO: at least 3 of each
      long reads = Long.parseLong(watching.get("total_reads_processed"));
      long writes = Long.parseLong(watching.get("total_writes_processed"));
      assertTrue(
          reads - Long.parseLong(before.get("total_reads_processed")) >= 3, watching.toString());
      assertTrue(
          writes - Long.parseLong(before.get("total_writes_processed")) >= 2, watching.toString());
      assertEquals(new RespClient.Simple("OK"), watcher.call("UNWATCH"));
      assertEquals("1", fields(info(client, "clients")).get("watching_clients"));
      assertEquals(new RespClient.Simple("OK"), client.call("CONFIG", "RESETSTAT"));
      assertTrue(Long.parseLong(fields(info(client, "stats")).get("total_reads_processed")) <= 2);
    }
  }

  @Test
  void keyspaceHitsAndMisses_countReadLookupsOnly_clearedByResetstat() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(1L, client.call("CF.ADD", "present", "x"));
      assertEquals(1L, client.call("CF.ADD", "present", "y"));
      assertEquals(1L, client.call("CF.EXISTS", "present", "x"));
      assertEquals(0L, client.call("CF.EXISTS", "absent", "x"));
      assertEquals(1L, client.call("EXISTS", "present", "absent"));
      assertEquals(-1L, client.call("TTL", "present"));
      Map<String, String> stats = fields(info(client, "stats"));
      // writes (CF.ADD) do not count, as Redis's write lookups do not
      assertEquals("3", stats.get("keyspace_hits"), stats.toString());
      assertEquals("2", stats.get("keyspace_misses"), stats.toString());
      assertEquals(new RespClient.Simple("OK"), client.call("CONFIG", "RESETSTAT"));
      stats = fields(info(client, "stats"));
      assertEquals("0", stats.get("keyspace_hits"));
      assertEquals("0", stats.get("keyspace_misses"));
    }
  }

  @Test
  void networkBytes_countedPerConnectionAndInInfo() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port());
        RespClient other = new RespClient(server.port())) {
      long before = Long.parseLong(fields(info(other, "stats")).get("total_net_input_bytes"));
      assertEquals(new RespClient.Simple("PONG"), client.call("PING"));
      String self = RespClient.text(client.call("CLIENT", "INFO"));
      // read so far: PING (14 bytes) and this CLIENT INFO (26); written: +PONG (7)
      assertTrue(self.contains(" tot-net-in=40 tot-net-out=7 "), self);
      Map<String, String> stats = fields(info(other, "stats"));
      // the two requests above, and this INFO's own request (23 bytes)
      assertTrue(
          Long.parseLong(stats.get("total_net_input_bytes")) >= before + 40 + 23, stats.toString());
      assertTrue(Long.parseLong(stats.get("total_net_output_bytes")) > 7, stats.toString());
      assertEquals("0", stats.get("total_net_repl_input_bytes"));
      assertTrue(stats.get("instantaneous_input_kbps").matches("\\d+\\.\\d\\d"), stats.toString());
    }
  }

  @Test
  void replicationBytes_countedOnMasterAndReplica() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer replica =
            CuckooServer.start(
                TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + master.port()).build());
        RespClient client = new RespClient(master.port())) {
      assertEquals(1L, client.call("CF.ADD", "k", "x"));
      ReplicaState.awaitInSync(master.port(), replica.port(), 20_000);
      long sent = Long.parseLong(ReplicaState.stat(master.port(), "total_net_repl_output_bytes"));
      long received =
          Long.parseLong(ReplicaState.stat(replica.port(), "total_net_repl_input_bytes"));
      assertTrue(sent > 0 && received > 0, sent + " sent, " + received + " received");
    }
  }
}
