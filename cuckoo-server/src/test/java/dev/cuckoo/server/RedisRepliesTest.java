package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Replies around the CF.* commands that differed from Redis 8's, each pinned to what Redis's source
 * answers (the file and function are named where the behaviour is not obvious).
 */
class RedisRepliesTest {
  private static final Simple OK = new Simple("OK");
  private static final Simple QUEUED = new Simple("QUEUED");

  /*
   * Redis (server.c processCommand) checks arity before running anything and refuses through
   * rejectCommand, which for EXEC calls execCommandAbort (multi.c): the transaction is discarded
   * (if there is one) and the reply is "-EXECABORT Transaction discarded because of: <reason>",
   * outside MULTI too. NOAUTH is refused the same way.
   */
  @Test
  void readonlyReadwrite_withoutClusterMode_answerAsRedisDoes() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      Err disabled = new Err("ERR This instance has cluster support disabled");
      assertEquals(disabled, client.call("READONLY"));
      assertEquals(disabled, client.call("READWRITE"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'readonly' command"),
          client.call("READONLY", "x"));
    }
  }

  @Test
  void exec_wrongArity_answersExecAbortAndDiscardsTheTransaction() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      Err abort =
          new Err(
              "EXECABORT Transaction discarded because of: wrong number of arguments for 'exec'"
                  + " command");
      assertEquals(abort, client.call("EXEC", "x"), "outside MULTI");

      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("CF.ADD", "k", "a"));
      assertEquals(abort, client.call("EXEC", "x"), "inside MULTI");
      assertEquals(new Err("ERR EXEC without MULTI"), client.call("EXEC"), "MULTI was discarded");
      assertEquals(0L, client.call("EXISTS", "k"), "nothing queued ran");
      assertEquals(OK, client.call("MULTI"), "a new transaction can start");
      assertEquals(List.of(), client.call("EXEC"));
    }
  }

  @Test
  void exec_beforeAuth_answersExecAbortWithNoAuth() throws IOException {
    try (CuckooServer server =
            CuckooServer.start(TestServers.memoryOnly().requirePass("s3cret").build());
        RespClient client = new RespClient(server.port())) {
      assertEquals(
          new Err("EXECABORT Transaction discarded because of: NOAUTH Authentication required."),
          client.call("EXEC"));
      assertEquals(new Err("NOAUTH Authentication required."), client.call("MULTI"));
    }
  }

  private static List<Object> scan(RespClient client, Object... args) throws IOException {
    Object[] request = new Object[args.length + 1];
    request[0] = "SCAN";
    System.arraycopy(args, 0, request, 1, args.length);
    Object reply = client.call(request);
    if (reply instanceof Err) {
      return List.of(reply);
    }
    List<?> page = (List<?>) reply;
    List<Object> texts = new java.util.ArrayList<>();
    texts.add(RespClient.text(page.get(0)));
    for (Object key : (List<?>) page.get(1)) {
      texts.add(RespClient.text(key));
    }
    return texts;
  }

  @Test
  void scan_cursorsTypesAndNoValues_answerAsRedis() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(1L, client.call("CF.ADD", "k", "a"));
      assertEquals(List.of("0", "k"), scan(client, "0"));
      assertEquals(List.of("0", "k"), scan(client, "+0"));
      assertEquals(List.of("0", "k"), scan(client, "00"));
      assertEquals(List.of("0"), scan(client, "4294967297"), "a cursor past the key order");
      assertEquals(List.of("0"), scan(client, "18446744073709551615"));
      Err invalid = new Err("ERR invalid cursor");
      assertEquals(List.of(invalid), scan(client, "18446744073709551616"));
      assertEquals(List.of(invalid), scan(client, "-1"));

      assertEquals(List.of("0", "k"), scan(client, "0", "TYPE", "mbbloomCF"));
      assertEquals(List.of("0"), scan(client, "0", "TYPE", "string"));
      assertEquals(List.of("0"), scan(client, "0", "TYPE", "TopK-TYPE"));
      assertEquals(
          List.of(new Err("ERR unknown type name 'foo'")), scan(client, "0", "TYPE", "foo"));
      Err noValues = new Err("ERR NOVALUES option can only be used in HSCAN");
      assertEquals(List.of(noValues), scan(client, "0", "NOVALUES"));
      assertEquals(List.of(noValues), scan(client, "0", "COUNT", "5", "NOVALUES", "MATCH"));
      Err syntax = new Err("ERR syntax error");
      assertEquals(List.of(syntax), scan(client, "0", "COUNT"));
      assertEquals(List.of(syntax), scan(client, "0", "MATCH", "*", "TYPE"));
    }
  }

  /* db.c selectCommand, moveCommand, copyCommand: object.c getIntFromObjectOrReply. */
  @Test
  void databaseIndex_outsideAnInt_answersRedisRangeError() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      Err range =
          new Err("ERR value is out of range, value must between -2147483648 and 2147483647");
      assertEquals(1L, client.call("CF.ADD", "k", "a"));
      assertEquals(range, client.call("SELECT", "2147483648"));
      assertEquals(range, client.call("MOVE", "k", "-2147483649"));
      assertEquals(range, client.call("COPY", "k", "b", "DB", "2147483648"));
      Err notInteger = new Err("ERR value is not an integer or out of range");
      assertEquals(notInteger, client.call("SELECT", "9223372036854775808"));
      assertEquals(notInteger, client.call("MOVE", "k", "x"));
      Err outOfRange = new Err("ERR DB index is out of range");
      assertEquals(outOfRange, client.call("SELECT", "2147483647"));
      assertEquals(outOfRange, client.call("COPY", "k", "b", "DB", "-1"));
      assertEquals(OK, client.call("SELECT", "1"));
    }
  }

  /* expire.c ttlGenericCommand: (ttl + 500) / 1000 of a non-negative ttl, computed unsigned. */
  @Test
  void ttlFamily_expiryAtTheLargestTime_answersAsRedis() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(1L, client.call("CF.ADD", "k", "a"));
      assertEquals(1L, client.call("PEXPIREAT", "k", Long.MAX_VALUE));
      assertEquals(9223372036854776L, client.call("EXPIRETIME", "k"));
      assertEquals(Long.MAX_VALUE, client.call("PEXPIRETIME", "k"));
      long now = System.currentTimeMillis();
      long pttl = (Long) client.call("PTTL", "k");
      long ttl = (Long) client.call("TTL", "k");
      long after = System.currentTimeMillis();
      assertTrue(pttl <= Long.MAX_VALUE - now && pttl >= Long.MAX_VALUE - after, "PTTL " + pttl);
      assertTrue(
          ttl <= (Long.MAX_VALUE - now + 500) / 1000 && ttl >= (Long.MAX_VALUE - after) / 1000,
          "TTL " + ttl);
      assertEquals(
          new Err("ERR invalid expire time in 'expire' command"),
          client.call("EXPIRE", "k", Long.MAX_VALUE / 1000));
      assertEquals(1L, client.call("EXPIREAT", "k", Long.MAX_VALUE / 1000));
      assertEquals(9223372036854775L, client.call("EXPIRETIME", "k"));
    }
  }

  private static List<String> statusLines(Object reply) {
    List<String> lines = new java.util.ArrayList<>();
    for (Object line : (List<?>) reply) {
      lines.add(((Simple) line).text());
    }
    return lines;
  }

  /*
   * networking.c addReplyHelp frames each command's text (object.c, networking.c, config.c,
   * server.c): "<COMMAND> <subcommand> ...", the text, "HELP", "    Print this help.".
   */
  @Test
  void help_containerCommands_answerRedisHelpTextsAndQueueInMulti() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      List<String> object = statusLines(client.call("OBJECT", "HELP"));
      assertEquals(15, object.size(), object.toString());
      assertEquals(
          "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", object.get(0));
      assertEquals("ENCODING <key>", object.get(1));
      assertEquals("    <key>.", object.get(12));
      assertEquals(List.of("HELP", "    Print this help."), object.subList(13, 15));
      List<String> memory = statusLines(client.call("memory", "help"));
      assertEquals(14, memory.size());
      assertEquals(
          "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", memory.get(0));
      assertEquals("USAGE <key> [SAMPLES <count>]", memory.get(9));
      List<String> clientHelp = statusLines(client.call("CLIENT", "HELP"));
      assertEquals(58, clientHelp.size());
      assertEquals("CACHING (YES|NO)", clientHelp.get(1));
      assertEquals("    Will not touch LRU/LFU stats when this mode is on.", clientHelp.get(55));
      List<String> config = statusLines(client.call("CONFIG", "HELP"));
      assertEquals(11, config.size());
      assertEquals("SET <directive> <value>", config.get(3));
      assertEquals("    Rewrite the configuration file.", config.get(8));
      List<String> command = statusLines(client.call("COMMAND", "HELP"));
      assertEquals(21, command.size());
      assertEquals("(no subcommand)", command.get(1));
      assertEquals(
          "    Return the keys and the access flags from a full Redis command.", command.get(18));
      assertEquals(
          new Err("ERR wrong number of arguments for 'object|help' command"),
          client.call("OBJECT", "HELP", "x"));

      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("OBJECT", "HELP"));
      assertEquals(QUEUED, client.call("CONFIG", "HELP"));
      List<?> results = (List<?>) client.call("EXEC");
      assertEquals(object, statusLines(results.get(0)));
      assertEquals(config, statusLines(results.get(1)));
    }
  }

  /* latency.c latencyCommand with latency-monitor-threshold 0: no event is ever recorded. */
  @Test
  void latency_monitoringOff_answersAsRedisWithoutEvents() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(List.of(), client.call("LATENCY", "LATEST"));
      assertEquals(List.of(), client.call("LATENCY", "HISTORY", "command"));
      assertEquals(0L, client.call("LATENCY", "RESET"));
      assertEquals(0L, client.call("LATENCY", "RESET", "command", "fork"));
      assertEquals(
          new Err("ERR No samples available for event 'command'"),
          client.call("LATENCY", "GRAPH", "command"));
      assertTrue(
          RespClient.text(client.call("LATENCY", "DOCTOR"))
              .startsWith("I'm sorry, Dave, I can't do that. Latency monitoring is disabled"));
      List<String> help = statusLines(client.call("LATENCY", "HELP"));
      assertEquals(17, help.size());
      assertEquals("LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", help.get(0));
      assertEquals(
          "    If no commands are specified then all histograms are replied.", help.get(14));
      assertEquals(
          new Err("ERR wrong number of arguments for 'latency|history' command"),
          client.call("LATENCY", "HISTORY"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("LATENCY", "LATEST"));
      assertEquals(List.of(List.of()), client.call("EXEC"));
    }
  }

  private static Map<String, String> clientFields(Object line) {
    Map<String, String> fields = new java.util.HashMap<>();
    for (String field : RespClient.text(line).trim().split(" ")) {
      int equals = field.indexOf('=');
      fields.put(field.substring(0, equals), field.substring(equals + 1));
    }
    return fields;
  }

  /*
   * networking.c catClientInfoString prints flags 'x' and multi=mstate.count while CLIENT_MULTI is
   * set, which EXEC (multi.c execCommand) clears only after the queued commands ran.
   */
  @Test
  void clientInfo_insideExec_showsTheTransactionAsRedis() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("WATCH", "w"));
      assertEquals(OK, client.call("MULTI"));
      assertEquals(QUEUED, client.call("CLIENT", "INFO"));
      assertEquals(QUEUED, client.call("PING"));
      assertEquals(QUEUED, client.call("CLIENT", "LIST"));
      List<?> results = (List<?>) client.call("EXEC");
      Map<String, String> info = clientFields(results.get(0));
      assertEquals("x", info.get("flags"));
      assertEquals("3", info.get("multi"));
      assertEquals("0", info.get("watch"), "EXEC unwatches before running the commands");
      Map<String, String> listed = clientFields(results.get(2));
      assertEquals("x", listed.get("flags"));
      assertEquals("3", listed.get("multi"));
      Map<String, String> after = clientFields(client.call("CLIENT", "INFO"));
      assertEquals("N", after.get("flags"));
      assertEquals("-1", after.get("multi"));
    }
  }

  /*
   * server.c genRedisInfoString prints db->avg_ttl, which expire.c activeExpireCycle keeps as a
   * running average of the milliseconds left of the expiring keys it samples: 0 until the cycle
   * (every 100 ms) first looks at them, then their average, and 0 again once no key expires.
   */
  @Test
  void infoKeyspace_expiringKeys_averageTheirMillisecondsLeft() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      String[] lines;
      // a cycle that samples between the two PEXPIREs starts the average with a's time alone (as
      // Redis's would): then the keys are made again, at most three times
      int attempt = 0;
      do {
        assertEquals(OK, client.call("FLUSHALL"));
        for (String key : new String[] {"a", "b", "c"}) {
          assertEquals(1L, client.call("CF.ADD", key, "x"));
        }
        assertEquals(1L, client.call("PEXPIRE", "a", "100000"));
        assertEquals(1L, client.call("PEXPIRE", "b", "200000"));
        assertEquals(OK, client.call("SELECT", "1"));
        assertEquals(1L, client.call("CF.ADD", "d", "x"));
        long deadline = System.nanoTime() + 10_000_000_000L;
        do {
          Thread.sleep(20);
          lines = RespClient.text(client.call("INFO", "keyspace")).split("\r\n");
        } while (averageTtl(lines[1]) == 0 && System.nanoTime() < deadline);
        assertEquals(OK, client.call("SELECT", "0"));
      } while (averageTtl(lines[1]) <= 100_000 && ++attempt < 3);
      String db0 = lines[1];
      assertTrue(averageTtl(db0) > 140_000 && averageTtl(db0) <= 150_000, db0);
      assertTrue(db0.startsWith("db0:keys=3,expires=2,avg_ttl="), db0);
      assertEquals("db1:keys=1,expires=0,avg_ttl=0,subexpiry=0", lines[2]);
      assertEquals(1L, client.call("PERSIST", "a"));
      assertEquals(1L, client.call("PERSIST", "b"));
      assertEquals(
          "db0:keys=3,expires=0,avg_ttl=0,subexpiry=0",
          RespClient.text(client.call("INFO", "keyspace")).split("\r\n")[1]);
    }
  }

  private static long averageTtl(String dbLine) {
    return Long.parseLong(
        dbLine.substring(dbLine.indexOf("avg_ttl=") + 8, dbLine.indexOf(",subexpiry")));
  }

  private static String configValue(RespClient client, String name) throws IOException {
    List<?> pair = (List<?>) client.call("CONFIG", "GET", name);
    return RespClient.text(pair.get(1));
  }

  private static Err configFailed(String name, String reason) {
    return new Err(
        "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + reason);
  }

  /* config.c configSetCommand and the parameters' flags, types and bounds in its config table. */
  @Test
  void configSet_listedParameters_setAsRedisAndRefuseImmutableOnes() throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(OK, client.call("CONFIG", "SET", "timeout", "1", "appendfsync", "always"));
      assertEquals("1", configValue(client, "timeout"));
      assertEquals("always", configValue(client, "appendfsync"));
      try (RespClient idle = new RespClient(server.port())) {
        assertEquals(new Simple("PONG"), idle.call("PING"));
        assertTrue(idle.closedByServer(), "the new timeout closes a new idle connection");
      }
      assertEquals(OK, client.call("CONFIG", "SET", "timeout", "0"));
      assertEquals(
          OK,
          client.call(
              "CONFIG", "SET", "PROTO-MAX-BULK-LEN", "2mb", "protected-mode", "no", "save", ""));
      assertEquals("2097152", configValue(client, "proto-max-bulk-len"));
      assertEquals("no", configValue(client, "protected-mode"));
      assertEquals(
          OK,
          client.call(
              "CONFIG",
              "SET",
              "port",
              Integer.toString(server.port()),
              "bind",
              configValue(client, "bind"),
              "appendonly",
              "no"));

      // connections of earlier tests may still be closing: count from this one alone
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (!RespClient.text(client.call("INFO", "clients")).contains("connected_clients:1\r\n")) {
        assertTrue(System.nanoTime() < deadline, "other connections never closed");
        Thread.sleep(10);
      }
      assertEquals(OK, client.call("CONFIG", "SET", "maxclients", "2"));
      assertEquals("2", configValue(client, "maxclients"));
      try (RespClient second = new RespClient(server.port())) {
        // the third connects only once the second is served: both would otherwise race
        assertEquals(new Simple("PONG"), second.call("PING"));
        try (RespClient third = new RespClient(server.port())) {
          assertEquals(new Err("ERR max number of clients reached"), third.read());
        }
      }
      assertTrue(RespClient.text(client.call("INFO", "clients")).contains("maxclients:2\r\n"));
      assertEquals(OK, client.call("CONFIG", "SET", "maxclients", "10000"));

      assertEquals(
          configFailed("databases", "can't set immutable config"),
          client.call("CONFIG", "SET", "databases", "4"));
      assertEquals(
          configFailed("Dir", "can't set protected config"),
          client.call("CONFIG", "SET", "Dir", "/tmp"));
      assertEquals(
          configFailed("timeout", "duplicate parameter"),
          client.call("CONFIG", "SET", "timeout", "1", "timeout", "2"));
      assertEquals(
          new Err("ERR Unknown option or number of arguments for CONFIG SET - 'nope'"),
          client.call("CONFIG", "SET", "nope", "1", "databases", "4"));
      assertEquals(
          new Err("ERR syntax error"), client.call("CONFIG", "SET", "timeout", "1", "maxclients"));
      assertEquals(
          configFailed(
              "appendfsync", "argument(s) must be one of the following: everysec, always, no"),
          client.call("CONFIG", "SET", "appendfsync", "sometimes"));
      assertEquals(
          configFailed("maxclients", "argument must be between 1 and 4294967295 inclusive"),
          client.call("CONFIG", "SET", "maxclients", "0"));
      assertEquals(
          configFailed("timeout", "argument couldn't be parsed into an integer"),
          client.call("CONFIG", "SET", "timeout", "soon"));
      assertEquals(
          configFailed("protected-mode", "argument must be 'yes' or 'no'"),
          client.call("CONFIG", "SET", "protected-mode", "maybe"));
      assertEquals(
          configFailed("timeout", "argument must be between 0 and 2147483647 inclusive"),
          client.call("CONFIG", "SET", "maxclients", "5", "timeout", "-1"));
      assertEquals("10000", configValue(client, "maxclients"), "a failed SET applies nothing");
    }
  }

  @Test
  void configSetRequirePass_newConnectionsNeedIt_clearedFreesThem() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient admin = new RespClient(server.port())) {
      assertEquals(OK, admin.call("CONFIG", "SET", "requirepass", "s3cret"));
      assertEquals("s3cret", configValue(admin, "requirepass"));
      assertEquals(new Simple("PONG"), admin.call("PING"), "connected before: still in");
      try (RespClient late = new RespClient(server.port())) {
        assertEquals(new Err("NOAUTH Authentication required."), late.call("PING"));
        assertEquals(OK, admin.call("CONFIG", "SET", "requirepass", ""));
        assertEquals(new Simple("PONG"), late.call("PING"), "no password: no AUTH needed");
      }
      assertEquals(OK, admin.call("CONFIG", "SET", "requirepass", "s3cret"));
      try (RespClient late = new RespClient(server.port())) {
        assertEquals(OK, late.call("AUTH", "s3cret"));
        assertEquals(new Simple("PONG"), late.call("PING"));
      }
    }
  }

  private static void addKeys(RespClient client, String prefix, int count, long ttlMillis)
      throws IOException {
    for (int i = 0; i < count; i++) {
      client.send("CF.ADD", prefix + i, "x");
      client.send("PEXPIRE", prefix + i, ttlMillis);
    }
    for (int i = 0; i < count; i++) {
      assertEquals(1L, client.read());
      assertEquals(1L, client.read());
    }
  }

  /*
   * expire.c activeExpireCycle looks at 20 keys with an expiry per database and cycle (10 a
   * second), more only while over 10% of those had expired: a few expired keys among many stay
   * counted by DBSIZE (db.c dbsizeCommand: the dictionary's size) until the cycle reaches them.
   */
  @Test
  void dbsize_fewExpiredAmongManyExpiringKeys_countsThemUntilTheCycleReachesThem()
      throws Exception {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      addKeys(client, "live", 2000, 600_000);
      addKeys(client, "gone", 5, 1);
      Thread.sleep(250);
      long size = (Long) client.call("DBSIZE");
      assertTrue(size > 2000, "expired keys not reached yet still count: " + size);
      String keyspace = RespClient.text(client.call("INFO", "keyspace"));
      assertTrue(keyspace.contains("db0:keys=" + size + ",expires=" + size + ","), keyspace);

      assertEquals(OK, client.call("FLUSHALL"));
      addKeys(client, "live", 100, 600_000);
      addKeys(client, "gone", 5, 1);
      long deadline = System.currentTimeMillis() + 5_000;
      while (!Long.valueOf(100).equals(client.call("DBSIZE"))
          && System.currentTimeMillis() < deadline) {
        Thread.sleep(50);
      }
      assertEquals(100L, client.call("DBSIZE"), "cycles go on where the last one stopped");
    }
  }

  /*
   * db.c lookupKey -> expireIfNeeded: on a master, a read that meets an expired key deletes it and
   * propagates DEL (deleteExpiredKeyAndPropagate), so DBSIZE drops at once and INFO expired_keys
   * counts it; the replica gets the DEL through the stream.
   */
  @Test
  void read_ofExpiredKeysOnAMaster_deletesThemAndSendsDelToReplicas() throws Exception {
    try (CuckooServer master = TestServers.start();
        CuckooServer replica =
            CuckooServer.start(
                TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + master.port()).build());
        RespClient client = new RespClient(master.port())) {
      addKeys(client, "live", 2000, 600_000);
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      addKeys(client, "gone", 5, 1);
      Thread.sleep(50);
      long expiredBefore = Long.parseLong(client.infoField("expired_keys"));
      assertEquals(0L, client.call("EXISTS", "gone0", "gone1"));
      assertEquals(0L, client.call("CF.EXISTS", "gone2", "x"));
      assertEquals(-2L, client.call("TTL", "gone3"));
      assertEquals(List.of(0L), client.call("CF.MEXISTS", "gone4", "x"));
      assertEquals(2000L, client.call("DBSIZE"), "every expired key read was deleted");
      assertTrue(
          Long.parseLong(client.infoField("expired_keys")) >= expiredBefore + 5,
          "the deletions count as expired keys");
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      try (RespClient onReplica = new RespClient(replica.port())) {
        assertEquals(2000L, onReplica.call("DBSIZE"), "the replica got the DELs");
      }
    }
  }
}
