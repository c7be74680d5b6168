package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * FUNCTION DUMP, RESTORE, LIST, FLUSH and STATS as Redis 7.0 answers them for an empty library
 * (recorded from Debian's redis-server 7.0.15), and the refusal of a payload holding functions.
 */
class FunctionCommandsTest {
  /** Redis 7.0.15's FUNCTION DUMP of an empty library: RDB version 10, then its CRC64. */
  static final byte[] EMPTY_LIBRARY = {
    0x0a, 0x00, 0x5d, (byte) 0x9b, 0x5c, 0x40, 0x0f, 0x7f, (byte) 0xa2, (byte) 0xda
  };

  private static CuckooServer server;

  @BeforeAll
  static void start() throws Exception {
    server = TestServers.start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** Returns a payload of {@code body}, version 10 and the right CRC64 (as Redis computes it). */
  private static byte[] payload(byte... body) {
    ByteBuffer buffer = ByteBuffer.allocate(body.length + 10).order(ByteOrder.LITTLE_ENDIAN);
    buffer.put(body).putShort((short) 10);
    buffer.putLong(dev.cuckoo.server.rdb.Crc64.of(buffer.array(), 0, body.length + 2));
    return buffer.array();
  }

  @Test
  void dumpAndRestore_emptyLibrary_roundTripsRedisBytes() throws Exception {
    try (RespClient client = new RespClient(server.port())) {
      assertArrayEquals(EMPTY_LIBRARY, (byte[]) client.call("FUNCTION", "DUMP"));
      assertArrayEquals(EMPTY_LIBRARY, payload());
      assertEquals(new RespClient.Simple("OK"), client.call("FUNCTION", "RESTORE", EMPTY_LIBRARY));
      for (String policy : List.of("FLUSH", "append", "Replace")) {
        assertEquals(
            new RespClient.Simple("OK"), client.call("FUNCTION", "RESTORE", EMPTY_LIBRARY, policy));
      }
      assertEquals(List.of(), client.call("FUNCTION", "LIST"));
      assertEquals(List.of(), client.call("FUNCTION", "LIST", "LIBRARYNAME", "x*", "WITHCODE"));
      assertEquals(new RespClient.Simple("OK"), client.call("FUNCTION", "FLUSH"));
      assertEquals(new RespClient.Simple("OK"), client.call("FUNCTION", "FLUSH", "ASYNC"));
      Map<Object, Object> stats = new LinkedHashMap<>();
      Object reply = client.call("FUNCTION", "STATS");
      List<?> flat = (List<?>) reply;
      for (int i = 0; i < flat.size(); i += 2) {
        stats.put(RespClient.text(flat.get(i)), flat.get(i + 1));
      }
      assertEquals(null, stats.get("running_script"));
      assertEquals(List.of(), stats.get("engines"));
    }
  }

  @Test
  void restore_badPayloads_refusedWithRedisTexts() throws Exception {
    try (RespClient client = new RespClient(server.port())) {
      byte[] flipped = EMPTY_LIBRARY.clone();
      flipped[9] ^= 1;
      assertEquals(
          new RespClient.Err("ERR DUMP payload version or checksum are wrong"),
          client.call("FUNCTION", "RESTORE", flipped));
      assertEquals(
          new RespClient.Err(
              "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."),
          client.call("FUNCTION", "RESTORE", EMPTY_LIBRARY, "bogus"));
      assertEquals(
          new RespClient.Err(
              "ERR unknown subcommand or wrong number of arguments for 'RESTORE'. Try FUNCTION"
                  + " HELP."),
          client.call("FUNCTION", "RESTORE", "a", "b", "c"));
      assertEquals(
          new RespClient.Err("ERR given type is not a function"),
          client.call("FUNCTION", "RESTORE", payload((byte) 0)));
      RespClient.Err holdsFunctions =
          (RespClient.Err) client.call("FUNCTION", "RESTORE", payload((byte) 245, (byte) 0x40));
      assertEquals(
          "ERR the payload holds functions, and this server runs no scripts: only a payload of an"
              + " empty library can be restored",
          holdsFunctions.text());
      assertEquals(
          new RespClient.Err("ERR Unknown argument bogus"),
          client.call("FUNCTION", "LIST", "bogus"));
      assertEquals(
          new RespClient.Err("ERR FUNCTION FLUSH only supports SYNC|ASYNC option"),
          client.call("FUNCTION", "FLUSH", "later"));
    }
  }
}
