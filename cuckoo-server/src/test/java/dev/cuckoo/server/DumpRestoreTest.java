package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import dev.cuckoo.server.rdb.RecordedDumps;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DUMP and RESTORE on the wire against the known answers recorded from Redis 8 with RedisBloom: the
 * same commands give byte-identical payloads, a recorded payload restores to the recorded CF.INFO
 * and CF.SCANDUMP, and Redis's replies for missing keys, BUSYKEY, TTLs and bad payloads.
 */
@org.junit.jupiter.api.extension.ExtendWith(LeakCheck.class)
class DumpRestoreTest {
  private static final Simple OK = new Simple("OK");
  private static final Err CHECKSUM = new Err("ERR DUMP payload version or checksum are wrong");
  private static CuckooServer server;
  private RespClient client;

  @TempDir Path dir;

  @BeforeAll
  static void startServer() throws IOException {
    server = TestServers.start();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @BeforeEach
  void connect() throws IOException {
    client = new RespClient(server.port());
    assertEquals(OK, client.call("FLUSHALL"));
  }

  @AfterEach
  void disconnect() throws IOException {
    client.close();
  }

  private Object call(Object... args) throws IOException {
    return client.call(args);
  }

  /** Runs a recorded command; SCANDUMP-LOADCHUNK src dst copies src into dst chunk by chunk. */
  private static void run(RespClient client, List<String> command) throws IOException {
    if (command.get(0).equals("SCANDUMP-LOADCHUNK")) {
      long iterator = 0;
      while (true) {
        List<?> chunk = (List<?>) client.call("CF.SCANDUMP", command.get(1), iterator);
        iterator = (Long) chunk.get(0);
        if (iterator == 0) {
          return;
        }
        assertEquals(OK, client.call("CF.LOADCHUNK", command.get(2), iterator, chunk.get(1)));
      }
    }
    Object reply = client.call(command.toArray());
    assertTrue(!(reply instanceof Err), command + " -> " + reply);
  }

  private List<String> info(String key) throws IOException {
    List<String> texts = new ArrayList<>();
    for (Object item : (List<?>) call("CF.INFO", key)) {
      texts.add(
          item instanceof byte[] bytes
              ? RespClient.text(bytes)
              : item instanceof Simple simple ? simple.text() : String.valueOf(item));
    }
    return texts;
  }

  private List<RecordedDumps.Chunk> scanDump(String key) throws IOException {
    List<RecordedDumps.Chunk> chunks = new ArrayList<>();
    long iterator = 0;
    while (true) {
      List<?> reply = (List<?>) call("CF.SCANDUMP", key, iterator);
      iterator = (Long) reply.get(0);
      if (iterator == 0) {
        return chunks;
      }
      chunks.add(new RecordedDumps.Chunk(iterator, (byte[]) reply.get(1)));
    }
  }

  @Test
  void dump_everyRecordedCase_byteIdenticalToRedis() throws IOException {
    List<String> different = new ArrayList<>();
    int identical = 0;
    for (RecordedDumps.Case c : RecordedDumps.all()) {
      assertEquals(OK, call("FLUSHALL"));
      for (List<String> command : c.commands()) {
        run(client, command);
      }
      byte[] dump = (byte[]) call("DUMP", c.key());
      if (Arrays.equals(c.dump(), dump)) {
        identical++;
      } else {
        different.add(c.name() + ": " + HexFormat.of().formatHex(dump));
      }
    }
    System.out.println("DUMP byte-identical to Redis + RedisBloom: " + identical + " of 27");
    assertEquals(List.of(), different);
    assertEquals(27, identical);
  }

  @Test
  void restore_everyRecordedPayload_givesRecordedInfoScanDumpAndDump() throws IOException {
    for (RecordedDumps.Case c : RecordedDumps.all()) {
      assertEquals(OK, call("RESTORE", "r", 0, c.dump(), "REPLACE"), c.name());
      assertEquals(c.info(), info("r"), c.name());
      assertEquals(c.scanDump(), scanDump("r"), c.name());
      assertArrayEquals(c.dump(), (byte[]) call("DUMP", "r"), c.name());
      assertEquals(-1L, call("PTTL", "r"), c.name());
    }
  }

  @Test
  void dump_missingKey_isNil() throws IOException {
    assertNull(call("DUMP", "nothing"));
  }

  @Test
  void restore_ontoExistingKey_busyBeforeTtlAndPayload_replaceReplaces() throws IOException {
    byte[] payload = RecordedDumps.named("add_200").dump();
    assertEquals(1L, call("CF.ADD", "k", "x"));
    Err busy = new Err("BUSYKEY Target key name already exists.");
    assertEquals(busy, call("RESTORE", "k", 0, payload));
    assertEquals(busy, call("RESTORE", "k", -1, "garbage"));
    assertEquals(OK, call("RESTORE", "k", 0, payload, "REPLACE"));
    assertEquals("200", info("k").get(7));
  }

  @Test
  void restore_badArguments_redisErrorsAndNoKey() throws IOException {
    byte[] payload = RecordedDumps.named("add_200").dump();
    assertEquals(new Err("ERR Invalid TTL value, must be >= 0"), call("RESTORE", "k", -1, payload));
    assertEquals(
        new Err("ERR value is not an integer or out of range"), call("RESTORE", "k", "x", payload));
    assertEquals(CHECKSUM, call("RESTORE", "k", 0, "garbage"));
    byte[] truncated = Arrays.copyOf(payload, payload.length - 1);
    assertEquals(CHECKSUM, call("RESTORE", "k", 0, truncated));
    byte[] flipped = payload.clone();
    flipped[366] ^= 1;
    assertEquals(CHECKSUM, call("RESTORE", "k", 0, flipped));
    assertEquals(new Err("ERR syntax error"), call("RESTORE", "k", 0, payload, "NOPE"));
    assertEquals(
        new Err("ERR Invalid FREQ value, must be >= 0 and <= 255"),
        call("RESTORE", "k", 0, payload, "FREQ", 256));
    assertEquals(
        new Err("ERR Invalid IDLETIME value, must be >= 0"),
        call("RESTORE", "k", 0, payload, "IDLETIME", -1));
    assertEquals(
        new Err("ERR syntax error"), call("RESTORE", "k", 0, payload, "IDLETIME", 1, "FREQ", 1));
    assertEquals(
        new Err("ERR wrong number of arguments for 'restore' command"), call("RESTORE", "k", 0));
    assertEquals(0L, call("EXISTS", "k"));
  }

  @Test
  void restore_crcValidBadContent_badDataFormat() throws IOException {
    byte[] payload = RecordedDumps.named("add_200").dump();
    byte[] body = Arrays.copyOf(payload, payload.length - 10);
    body[11] = 0; // numFilters 0
    assertEquals(new Err("ERR Bad data format"), call("RESTORE", "k", 0, sealed(body)));
    assertEquals(0L, call("EXISTS", "k"));
  }

  private static byte[] sealed(byte[] body) {
    java.nio.ByteBuffer payload =
        java.nio.ByteBuffer.allocate(body.length + 10).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    payload.put(body).putShort((short) 12);
    payload.putLong(dev.cuckoo.server.rdb.Crc64.of(payload.array(), 0, body.length + 2));
    return payload.array();
  }

  @Test
  void restore_ttlOptions_asRedis() throws IOException {
    byte[] payload = RecordedDumps.named("add_200").dump();
    assertEquals(OK, call("RESTORE", "rel", 5000, payload));
    long pttl = (Long) call("PTTL", "rel");
    assertTrue(pttl > 0 && pttl <= 5000, "PTTL " + pttl);
    long at = System.currentTimeMillis() + 60_000;
    assertEquals(OK, call("RESTORE", "abs", at, payload, "ABSTTL"));
    assertEquals(at, call("PEXPIRETIME", "abs"));
    // an absolute TTL in the past: OK, and no key
    assertEquals(OK, call("RESTORE", "past", 1000, payload, "ABSTTL"));
    assertEquals(0L, call("EXISTS", "past"));
    // with REPLACE, the key it replaced is gone too
    assertEquals(OK, call("RESTORE", "abs", 1000, payload, "ABSTTL", "REPLACE"));
    assertEquals(0L, call("EXISTS", "abs"));
    assertEquals(OK, call("RESTORE", "idle", 0, payload, "IDLETIME", 1000, "REPLACE"));
    long idle = (Long) call("OBJECT", "IDLETIME", "idle");
    assertTrue(idle >= 1000 && idle < 1010, "idle " + idle);
    assertEquals(OK, call("RESTORE", "freq", 0, payload, "FREQ", 5));
    assertEquals(1L, call("EXISTS", "freq"));
  }

  @Test
  void commandInfo_dumpAndRestore_asRedis8() throws IOException {
    List<?> info = (List<?>) call("COMMAND", "INFO", "dump", "restore");
    List<?> dump = (List<?>) info.get(0);
    assertEquals("dump", RespClient.text(dump.get(0)));
    assertEquals(2L, dump.get(1));
    List<?> restore = (List<?>) info.get(1);
    assertEquals("restore", RespClient.text(restore.get(0)));
    assertEquals(-4L, restore.get(1));
    List<String> flags = ((List<?>) restore.get(2)).stream().map(f -> ((Simple) f).text()).toList();
    assertEquals(List.of("write", "denyoom"), flags);
    List<String> categories =
        ((List<?>) restore.get(6)).stream().map(f -> ((Simple) f).text()).toList();
    assertEquals(List.of("@keyspace", "@write", "@slow", "@dangerous"), categories);
  }

  @Test
  void restore_persistentServer_restartFindsRestoredKeys() throws Exception {
    byte[] payload = RecordedDumps.named("grown_cap100_exp2_500").dump();
    ServerConfig.Builder config =
        ServerConfig.builder().port(TestServers.freePort()).threads(2).dir(dir).appendOnly(true);
    long expireAt;
    try (CuckooServer first = CuckooServer.start(config.build());
        RespClient c = new RespClient(first.port())) {
      assertEquals(OK, c.call("RESTORE", "k", 0, payload));
      assertEquals(OK, c.call("RESTORE", "t", 600_000, payload));
      expireAt = (Long) c.call("PEXPIRETIME", "t");
      assertEquals(1L, c.call("CF.ADD", "k", "after-restore"));
    }
    try (CuckooServer second = CuckooServer.start(config.build());
        RespClient c = new RespClient(second.port())) {
      assertEquals(1L, c.call("CF.EXISTS", "k", "after-restore"));
      assertEquals(1L, c.call("CF.EXISTS", "k", "item:7"));
      assertArrayEquals(payload, (byte[]) c.call("DUMP", "t"));
      assertEquals(expireAt, c.call("PEXPIRETIME", "t"));
    }
  }

  @Test
  void restore_onMaster_replicaHoldsTheSameKey() throws Exception {
    byte[] payload = RecordedDumps.named("add_200_del_50").dump();
    try (CuckooServer master = TestServers.start();
        CuckooServer replica =
            CuckooServer.start(
                TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + master.port()).build());
        RespClient m = new RespClient(master.port());
        RespClient r = new RespClient(replica.port())) {
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      assertEquals(OK, m.call("RESTORE", "k", 600_000, payload));
      long expireAt = (Long) m.call("PEXPIRETIME", "k");
      ReplicaState.awaitInSync(master.port(), replica.port(), 10_000);
      assertArrayEquals(payload, (byte[]) r.call("DUMP", "k"));
      assertEquals(expireAt, r.call("PEXPIRETIME", "k"));
      assertInstanceOf(Err.class, r.call("RESTORE", "x", 0, payload));
    }
  }
}
