package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import dev.cuckoo.server.config.Mutability;
import dev.cuckoo.server.config.Parameter;
import dev.cuckoo.server.config.Parameters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parameter table seen from a client: CONFIG GET * lists every parameter, each takes its own
 * value back through CONFIG SET (or is refused with Redis's immutable or protected text), CONFIG
 * REWRITE then writes a file, and a server started from that file lists the same values; with the
 * defaults, and with the TLS, cluster and ACL parameters set.
 */
@ExtendWith(LeakCheck.class)
class ConfigRoundTripTest {
  private static final Simple OK = new Simple("OK");

  private static Map<String, String> configGetAll(RespClient client) throws IOException {
    List<?> pairs = (List<?>) client.call("CONFIG", "GET", "*");
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < pairs.size(); i += 2) {
      values.put(RespClient.text(pairs.get(i)), RespClient.text(pairs.get(i + 1)));
    }
    return values;
  }

  private static Err refused(String name, String reason) {
    return new Err(
        "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + reason);
  }

  /**
   * Sets every parameter CONFIG GET * lists back to its value (or sees it refused with Redis's
   * immutable or protected text), checks that nothing changed and that CONFIG REWRITE succeeds, and
   * returns the values.
   */
  private static Map<String, String> everyValueSetBack(RespClient client) throws IOException {
    Map<String, String> before = configGetAll(client);
    Set<String> names = new HashSet<>();
    for (Parameter<?> parameter : Parameters.all()) {
      names.add(parameter.name());
      names.addAll(parameter.aliases());
    }
    assertEquals(names, before.keySet(), "CONFIG GET * lists every parameter and alias");
    int set = 0;
    for (Map.Entry<String, String> entry : before.entrySet()) {
      String name = entry.getKey();
      Parameter<?> parameter = Parameters.find(name);
      Object reply = client.call("CONFIG", "SET", name, entry.getValue());
      if (parameter.mutability() == Mutability.IMMUTABLE) {
        assertEquals(refused(name, "can't set immutable config"), reply, name);
      } else if (parameter.mutability() == Mutability.PROTECTED) {
        assertEquals(refused(name, "can't set protected config"), reply, name);
      } else {
        assertEquals(OK, reply, name + " " + entry.getValue());
        set++;
      }
    }
    assertTrue(set > 30, "parameters set back: " + set);
    assertEquals(before, configGetAll(client), "setting the values back changed nothing");
    assertEquals(OK, client.call("CONFIG", "REWRITE"));
    return before;
  }

  @Test
  void configGetAll_everyValueSetBack_rewriteSucceeds_restartListsTheSame(@TempDir Path dir)
      throws IOException {
    Path file = dir.resolve("cuckoo.conf");
    Map<String, String> before;
    try (CuckooServer server =
            TestServers.startFromConfigFile(file, "dir " + dir, "maxclients 2000000");
        RespClient client = new RespClient(server.port())) {
      before = everyValueSetBack(client);
    }
    try (CuckooServer server = CuckooServer.start(ServerConfig.parse(file.toString()));
        RespClient client = new RespClient(server.port())) {
      assertEquals(before, configGetAll(client));
    }
  }

  /*
   * The same round trip with the later families away from their defaults: TLS on clients,
   * replication and the bus, a cluster node, users in an aclfile.
   */
  @Test
  void configGetAll_tlsClusterAclSet_everyValueSetBack_restartListsTheSame(@TempDir Path dir)
      throws Exception {
    TestCertificates certificates = TestCertificates.get();
    Path acl = dir.resolve("users.acl");
    Files.writeString(
        acl, "user default on nopass ~* &* +@all\nuser alice on >secret ~cf:* +@read\n");
    Path file = dir.resolve("cuckoo.conf");
    Map<String, String> before;
    try (CuckooServer server =
            TestServers.startFromConfigFile(
                file,
                "dir " + dir,
                "tls-port " + TestServers.freePort(),
                "tls-cert-file " + certificates.file("server.crt"),
                "tls-key-file " + certificates.file("server.key"),
                "tls-ca-cert-file " + certificates.file("ca.crt"),
                "tls-auth-clients optional",
                "tls-protocols \"TLSv1.2 TLSv1.3\"",
                "tls-replication yes",
                "tls-cluster yes",
                "tls-session-cache-size 100",
                "cluster-enabled yes",
                "cluster-port " + TestServers.freePort(),
                "cluster-config-file nodes-roundtrip.conf",
                "cluster-node-timeout 3000",
                "cluster-require-full-coverage no",
                "cluster-allow-reads-when-down yes",
                "cluster-replica-validity-factor 5",
                "cluster-migration-barrier 2",
                "aclfile " + acl,
                "acllog-max-len 64");
        RespClient client = new RespClient(server.port())) {
      before = everyValueSetBack(client);
      assertEquals("yes", before.get("cluster-enabled"));
      assertEquals("optional", before.get("tls-auth-clients"));
      assertEquals(acl.toString(), before.get("aclfile"));
    }
    try (CuckooServer server = CuckooServer.start(ServerConfig.parse(file.toString()));
        RespClient client = new RespClient(server.port())) {
      assertEquals(before, configGetAll(client));
    }
  }

  /* CONFIG SET maxclients took 2000000 and CONFIG REWRITE then refused to write it. */
  @Test
  void configSetMaxclients_beyondAMillion_rewriteWritesIt(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("cuckoo.conf");
    try (CuckooServer server = TestServers.startFromConfigFile(file);
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("CONFIG", "SET", "maxclients", "2000000"));
      assertEquals(OK, client.call("CONFIG", "REWRITE"));
    }
    assertEquals(2_000_000, ServerConfig.parse(file.toString()).maxClients());
  }

  @Test
  void configGet_redisCommonNames_answered() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      Map<String, String> expected = new LinkedHashMap<>();
      expected.put("maxmemory-policy", "noeviction");
      expected.put("notify-keyspace-events", "");
      expected.put("hz", "10");
      expected.put("tcp-keepalive", "300");
      expected.put("loglevel", "notice");
      expected.put(
          "client-output-buffer-limit",
          "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
      expected.put("enable-debug-command", "no");
      expected.put("cluster-enabled", "no");
      expected.put("io-threads", "2");
      expected.put("slave-read-only", "yes");
      expected.put("replicaof", "");
      expected.put("latency-monitor-threshold", "0");
      expected.put("dbfilename", "dump.cuckoo");
      expected.put("appendfilename", "appendonly.log");
      expected.put("proto-max-bulk-len", "536870912");
      expected.put("max-bulk-length", "536870912");
      expected.put("save", "");
      for (Map.Entry<String, String> entry : expected.entrySet()) {
        assertEquals(
            List.of(entry.getKey(), entry.getValue()),
            ((List<?>) client.call("CONFIG", "GET", entry.getKey()))
                .stream().map(RespClient::text).toList(),
            entry.getKey());
      }
      Map<String, String> all = configGetAll(client);
      assertTrue(all.containsKey("slave-priority") && all.containsKey("replica-priority"));
      assertTrue(!all.containsKey("max-bulk-length"), "older names answer only when asked");
    }
  }

  /* config.c: IMMUTABLE_CONFIG, the enum error listing Redis's order, and maxmemory-policy. */
  @Test
  void configSet_redisRefusals_redisTexts() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(
          refused("daemonize", "can't set immutable config"),
          client.call("CONFIG", "SET", "daemonize", "yes"));
      assertEquals(
          refused("appendfsync", "argument(s) must be one of the following: everysec, always, no"),
          client.call("CONFIG", "SET", "appendfsync", "sometimes"));
      assertEquals(OK, client.call("CONFIG", "SET", "maxmemory-policy", "noeviction"));
      assertEquals(
          refused(
              "maxmemory-policy",
              "this server does not evict keys: a filter's items cannot be rebuilt once dropped;"
                  + " only noeviction is supported"),
          client.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"));
      assertEquals(
          refused(
              "maxmemory-policy",
              "argument(s) must be one of the following: volatile-lru, volatile-lfu,"
                  + " volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random,"
                  + " noeviction"),
          client.call("CONFIG", "SET", "maxmemory-policy", "lru"));
      assertEquals(
          refused("save", "Invalid save parameters"), client.call("CONFIG", "SET", "save", "3600"));
      assertEquals(OK, client.call("CONFIG", "SET", "slave-read-only", "no"));
      assertEquals(
          List.of("replica-read-only", "no"),
          ((List<?>) client.call("CONFIG", "GET", "replica-read-only"))
              .stream().map(RespClient::text).toList());
      assertEquals(OK, client.call("CONFIG", "SET", "max-bulk-length", "2mb"));
      assertEquals(
          List.of("proto-max-bulk-len", "2097152"),
          ((List<?>) client.call("CONFIG", "GET", "proto-max-bulk-len"))
              .stream().map(RespClient::text).toList());
    }
  }
}
