package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MIGRATE between two cuckoo-servers, with Redis's replies (recorded from Debian's redis-server
 * 7.0): a key, a KEYS batch, COPY, REPLACE, BUSYKEY, AUTH and AUTH2, NOKEY, a target that is down,
 * a host that does not resolve, a target that never answers, another database; the moved filter's
 * CF.SCANDUMP and CF.INFO identical on the target; the source's delete logged and replicated.
 */
class MigrateTest {
  private static CuckooServer source;
  private static CuckooServer target;
  private static CuckooServer guarded;

  @BeforeAll
  static void start() throws IOException {
    source = TestServers.start();
    target = TestServers.start();
    guarded = CuckooServer.start(TestServers.memoryOnly().requirePass("s3cret").build());
  }

  @AfterAll
  static void stop() {
    source.close();
    target.close();
    guarded.close();
  }

  /** Returns a reply as text: a simple string as is, an error with its dash, a bulk decoded. */
  static String text(Object reply) {
    if (reply instanceof RespClient.Simple simple) {
      return simple.text();
    }
    if (reply instanceof RespClient.Err err) {
      return "-" + err.text();
    }
    if (reply instanceof Long number) {
      return Long.toString(number);
    }
    return RespClient.text(reply);
  }

  static String call(int port, Object... command) throws IOException {
    try (RespClient client = new RespClient(port)) {
      return text(client.call(command));
    }
  }

  /** Returns CF.SCANDUMP's chunks of a key, each as iterator:hex. */
  static List<String> scanDump(int port, String key) throws IOException {
    List<String> chunks = new ArrayList<>();
    try (RespClient client = new RespClient(port)) {
      long cursor = 0;
      do {
        List<?> reply = (List<?>) client.call("CF.SCANDUMP", key, cursor);
        cursor = (Long) reply.get(0);
        if (reply.get(1) != null) {
          chunks.add(cursor + ":" + HexFormat.of().formatHex((byte[]) reply.get(1)));
        }
      } while (cursor != 0);
    }
    return chunks;
  }

  /** Returns CF.INFO of a key as name=value pairs. */
  static List<String> info(int port, String key) throws IOException {
    List<String> fields = new ArrayList<>();
    try (RespClient client = new RespClient(port)) {
      List<?> reply = (List<?>) client.call("CF.INFO", key);
      for (int i = 0; i < reply.size(); i += 2) {
        fields.add(text(reply.get(i)) + "=" + reply.get(i + 1));
      }
    }
    return fields;
  }

  static void filter(int port, String key, int items) throws IOException {
    try (RespClient client = new RespClient(port)) {
      client.call("CF.RESERVE", key, 100, "BUCKETSIZE", 2, "EXPANSION", 1);
      for (int i = 0; i < items; i++) {
        client.call("CF.ADD", key, key + "-item-" + i);
      }
    }
  }

  private static String migrate(Object... tail) throws IOException {
    Object[] command = new Object[tail.length + 1];
    command[0] = "MIGRATE";
    System.arraycopy(tail, 0, command, 1, tail.length);
    return call(source.port(), command);
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void migrate_oneKey_movedWithIdenticalScandumpAndInfo_deletedOnTheSource() throws IOException {
    filter(source.port(), "one", 300);
    List<String> dump = scanDump(source.port(), "one");
    List<String> info = info(source.port(), "one");
    assertEquals("OK", migrate("127.0.0.1", target.port(), "one", 0, 5000));
    assertEquals("0", call(source.port(), "EXISTS", "one"));
    assertEquals(dump, scanDump(target.port(), "one"));
    assertEquals(info, info(target.port(), "one"));
    assertTrue(info.size() >= 8 && dump.size() > 1, "a grown filter: " + info);
  }

  @Test
  void migrate_keysBatch_movesThePresentKeys_ttlKept() throws IOException {
    for (String key : List.of("b1", "b2", "b3")) {
      filter(source.port(), key, 20);
    }
    call(source.port(), "PEXPIRE", "b2", 600_000);
    List<String> dump = scanDump(source.port(), "b3");
    assertEquals(
        "OK", migrate("127.0.0.1", target.port(), "", 0, 5000, "KEYS", "b1", "absent", "b2", "b3"));
    assertEquals("0", call(source.port(), "EXISTS", "b1", "b2", "b3"));
    assertEquals("3", call(target.port(), "EXISTS", "b1", "b2", "b3"));
    long ttl = Long.parseLong(call(target.port(), "PTTL", "b2"));
    assertTrue(ttl > 500_000 && ttl <= 600_000, "TTL kept: " + ttl);
    assertEquals("-1", call(target.port(), "PTTL", "b1"));
    assertEquals(dump, scanDump(target.port(), "b3"));
  }

  @Test
  void migrate_copy_keepsTheSourceKey() throws IOException {
    filter(source.port(), "copied", 10);
    assertEquals("OK", migrate("127.0.0.1", target.port(), "copied", 0, 5000, "COPY"));
    assertEquals("1", call(source.port(), "EXISTS", "copied"));
    assertEquals(scanDump(source.port(), "copied"), scanDump(target.port(), "copied"));
  }

  @Test
  void migrate_keyOnTheTarget_busyKeyWithoutReplace_replacedWithReplace() throws IOException {
    filter(source.port(), "busy", 10);
    filter(target.port(), "busy", 3);
    assertEquals(
        "-ERR Target instance replied with error: BUSYKEY Target key name already exists.",
        migrate("127.0.0.1", target.port(), "busy", 0, 5000));
    assertEquals("1", call(source.port(), "EXISTS", "busy"), "the key stays on the source");
    List<String> dump = scanDump(source.port(), "busy");
    assertEquals("OK", migrate("127.0.0.1", target.port(), "busy", 0, 5000, "REPLACE"));
    assertEquals("0", call(source.port(), "EXISTS", "busy"));
    assertEquals(dump, scanDump(target.port(), "busy"));
  }

  @Test
  void migrate_keysBatchWithOneBusyKey_movesTheOthers_answersTheTargetsError() throws IOException {
    filter(source.port(), "half1", 5);
    filter(source.port(), "half2", 5);
    filter(target.port(), "half2", 1);
    assertEquals(
        "-ERR Target instance replied with error: BUSYKEY Target key name already exists.",
        migrate("127.0.0.1", target.port(), "", 0, 5000, "KEYS", "half1", "half2"));
    assertEquals("0", call(source.port(), "EXISTS", "half1"), "acknowledged: deleted");
    assertEquals("1", call(source.port(), "EXISTS", "half2"), "refused: kept");
  }

  @Test
  void migrate_targetWithPassword_authAndAuth2() throws IOException {
    filter(source.port(), "secret", 10);
    assertEquals(
        "-ERR Target instance replied with error: NOAUTH Authentication required.",
        migrate("127.0.0.1", guarded.port(), "secret", 0, 5000));
    assertEquals(
        "-ERR Target instance replied with error: WRONGPASS invalid username-password pair or"
            + " user is disabled.",
        migrate("127.0.0.1", guarded.port(), "secret", 0, 5000, "AUTH", "wrong"));
    assertEquals("1", call(source.port(), "EXISTS", "secret"));
    assertEquals(
        "OK", migrate("127.0.0.1", guarded.port(), "secret", 0, 5000, "COPY", "AUTH", "s3cret"));
    assertEquals(
        "OK",
        migrate(
            "127.0.0.1",
            guarded.port(),
            "secret",
            0,
            5000,
            "REPLACE",
            "AUTH2",
            "default",
            "s3cret"));
    assertEquals("0", call(source.port(), "EXISTS", "secret"));
    try (RespClient client = new RespClient(guarded.port())) {
      client.call("AUTH", "s3cret");
      assertEquals("1", text(client.call("EXISTS", "secret")));
    }
  }

  @Test
  void migrate_noKey_nokey() throws IOException {
    assertEquals("NOKEY", migrate("127.0.0.1", target.port(), "never-there", 0, 5000));
    assertEquals("NOKEY", migrate("127.0.0.1", target.port(), "", 0, 5000, "KEYS", "x", "y"));
  }

  @Test
  void migrate_badArguments_redisErrors() throws IOException {
    filter(source.port(), "args", 1);
    int port = target.port();
    assertEquals("-ERR syntax error", migrate("127.0.0.1", port, "args", 0, 5000, "AUTH"));
    assertEquals("-ERR syntax error", migrate("127.0.0.1", port, "args", 0, 5000, "AUTH2", "u"));
    assertEquals("-ERR syntax error", migrate("127.0.0.1", port, "args", 0, 5000, "FOO"));
    assertEquals(
        "-ERR When using MIGRATE KEYS option, the key argument must be set to the empty string",
        migrate("127.0.0.1", port, "args", 0, 5000, "KEYS", "a"));
    assertEquals(
        "-ERR value is not an integer or out of range",
        migrate("127.0.0.1", port, "args", "x", 5000));
    assertEquals(
        "-ERR value is not an integer or out of range", migrate("127.0.0.1", port, "args", 0, "x"));
    assertEquals(
        "-ERR wrong number of arguments for 'migrate' command",
        migrate("127.0.0.1", port, "args", 0));
    assertEquals(
        "-ERR Target instance replied with error: ERR DB index is out of range",
        migrate("127.0.0.1", port, "args", 99, 5000));
    assertEquals("1", call(source.port(), "EXISTS", "args"));
  }

  @Test
  void migrate_targetDown_ioErrorWriting_keyStays() throws IOException {
    filter(source.port(), "down", 1);
    assertEquals(
        "-IOERR error or timeout writing to target instance",
        migrate("127.0.0.1", closedPort(), "down", 0, 1000));
    assertEquals("1", call(source.port(), "EXISTS", "down"));
  }

  @Test
  void migrate_hostThatDoesNotResolve_ioErrorConnecting_keyStays() throws IOException {
    filter(source.port(), "nohost", 1);
    assertEquals(
        "-IOERR error or timeout connecting to the client",
        migrate("no-such-host.invalid", 6379, "nohost", 0, 1000));
    assertEquals("1", call(source.port(), "EXISTS", "nohost"));
  }

  @Test
  void migrate_silentTarget_ioErrorReading_keyStays_othersServedMeanwhile() throws Exception {
    filter(source.port(), "silent", 5);
    try (ServerSocket silent = new ServerSocket(0)) {
      List<Socket> accepted = new ArrayList<>();
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    accepted.add(silent.accept());
                  }
                } catch (IOException closed) {
                  // the test is over
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      try (RespClient migrating = new RespClient(source.port());
          RespClient writer = new RespClient(source.port());
          RespClient other = new RespClient(source.port())) {
        long start = System.nanoTime();
        migrating.send("MIGRATE", "127.0.0.1", silent.getLocalPort(), "silent", 0, 1500);
        Thread.sleep(200);
        // another connection's write of the held key waits for the MIGRATE; others go on
        CompletableFuture<Object> write =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return writer.call("CF.ADD", "silent", "during");
                  } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });
        assertEquals("PONG", text(other.call("PING")));
        assertEquals("1", text(other.call("EXISTS", "silent")), "reads go on");
        long served = System.nanoTime() - start;
        assertTrue(served < TimeUnit.MILLISECONDS.toNanos(1200), "served at " + served / 1e6);
        assertEquals("-IOERR error or timeout reading to target instance", text(migrating.read()));
        long failed = System.nanoTime() - start;
        assertTrue(failed >= TimeUnit.MILLISECONDS.toNanos(1400), "after the timeout: " + failed);
        assertEquals(1L, write.get(5, TimeUnit.SECONDS), "the write ran after the MIGRATE");
        assertEquals("1", text(other.call("CF.EXISTS", "silent", "during")));
      } finally {
        for (Socket socket : accepted) {
          socket.close();
        }
      }
    }
  }

  @Test
  void migrate_destinationDb_restoresThere_cachedConnectionCounted() throws IOException {
    filter(source.port(), "indb", 4);
    filter(source.port(), "indb0", 4);
    assertEquals("OK", migrate("127.0.0.1", target.port(), "indb", 3, 5000));
    assertEquals("OK", migrate("127.0.0.1", target.port(), "indb0", 0, 5000));
    try (RespClient client = new RespClient(target.port())) {
      assertEquals("0", text(client.call("EXISTS", "indb")));
      assertEquals("1", text(client.call("EXISTS", "indb0")));
      client.call("SELECT", 3);
      assertEquals("1", text(client.call("EXISTS", "indb")));
      assertEquals("0", text(client.call("EXISTS", "indb0")));
    }
    try (RespClient client = new RespClient(source.port())) {
      assertNotEquals("0", client.infoField("migrate_cached_sockets"));
    }
  }

  @Test
  void migrate_insideMulti_runsInTheTransaction() throws IOException {
    filter(source.port(), "inmulti", 3);
    try (RespClient client = new RespClient(source.port())) {
      client.call("MULTI");
      client.call("MIGRATE", "127.0.0.1", target.port(), "inmulti", 0, 5000);
      client.call("EXISTS", "inmulti");
      List<?> replies = (List<?>) client.call("EXEC");
      assertEquals("OK", text(replies.get(0)));
      assertEquals(0L, replies.get(1));
    }
    assertEquals("1", call(target.port(), "EXISTS", "inmulti"));
  }

  @Test
  void migrate_deleteIsReplicatedAndLogged() throws Exception {
    java.nio.file.Path dir = TestServers.freshDataDir();
    ServerConfig config = TestServers.memoryOnly().dir(dir).appendOnly(true).build();
    try (CuckooServer logged = CuckooServer.start(config);
        CuckooServer replica =
            CuckooServer.start(
                TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + logged.port()).build())) {
      filter(logged.port(), "replicated", 10);
      filter(logged.port(), "kept", 10);
      ReplicaState.awaitInSync(logged.port(), replica.port(), 10_000);
      assertEquals("1", call(replica.port(), "EXISTS", "replicated"));
      try (RespClient client = new RespClient(logged.port())) {
        assertEquals(
            "OK", text(client.call("MIGRATE", "127.0.0.1", target.port(), "replicated", 0, 5000)));
        assertEquals(1L, client.call("WAIT", 1, 5000), "the DEL reached the replica");
      }
      assertEquals("0", call(replica.port(), "EXISTS", "replicated"));
      assertEquals("1", call(replica.port(), "EXISTS", "kept"));
      assertEquals("1", call(target.port(), "EXISTS", "replicated"));
      try (RespClient client = new RespClient(logged.port())) {
        // no snapshot: the restart replays the log
        client.send("SHUTDOWN", "NOSAVE");
      }
      logged.awaitTermination();
    }
    try (CuckooServer restarted = CuckooServer.start(config)) {
      assertEquals("0", call(restarted.port(), "EXISTS", "replicated"), "the DEL was logged");
      assertEquals("1", call(restarted.port(), "EXISTS", "kept"));
    }
  }
}
