package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.RespClient.Simple;
import dev.cuckoo.server.persist.Persistence;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** What a snapshot keeps: every slot of every filter, and snapshots of the previous version. */
@ExtendWith(LeakCheck.class)
class SnapshotContentTest {
  private static final Simple OK = new Simple("OK");

  @TempDir Path dir;

  private CuckooServer start() throws Exception {
    return CuckooServer.start(
        ServerConfig.builder().port(TestServers.freePort()).threads(2).dir(dir).build());
  }

  /** Returns the SCANDUMP chunks of a key as (iterator, bytes) pairs, the header first. */
  private static List<Object[]> chunks(RespClient client, String key) throws Exception {
    List<Object[]> chunks = new ArrayList<>();
    long iterator = 0;
    while (true) {
      List<?> chunk = (List<?>) client.call("CF.SCANDUMP", key, iterator);
      iterator = (Long) chunk.get(0);
      if (iterator == 0) {
        return chunks;
      }
      chunks.add(new Object[] {iterator, chunk.get(1)});
    }
  }

  /** Returns a key's complete SCANDUMP stream, iterators included, as one byte string. */
  private static byte[] dump(RespClient client, String key) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Object[] chunk : chunks(client, key)) {
      out.writeBytes(chunk[0].toString().getBytes(StandardCharsets.US_ASCII));
      out.writeBytes((byte[]) chunk[1]);
    }
    return out.toByteArray();
  }

  /** Loads {@code chunks} into {@code key} with the header's numItems set to 0. */
  private static void loadWithZeroItems(RespClient client, String key, List<Object[]> chunks)
      throws Exception {
    for (Object[] chunk : chunks) {
      byte[] data = ((byte[]) chunk[1]).clone();
      if ((Long) chunk[0] == 1) {
        ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 0);
      }
      assertEquals(OK, client.call("CF.LOADCHUNK", key, chunk[0], data));
    }
  }

  private static List<Object> existsAnswers(RespClient client, String key) throws Exception {
    List<Object> answers = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      answers.add(client.call("CF.EXISTS", key, "x" + i));
    }
    for (int i = 0; i < 300; i++) {
      answers.add(client.call("CF.EXISTS", key, "absent" + i));
    }
    return answers;
  }

  @Test
  void zeroItemsWithFingerprints_saveAndRestart_slotsKept() throws Exception {
    CuckooServer server = start();
    List<Object> answersBefore;
    byte[] dumpBefore;
    try (RespClient client = new RespClient(server.port())) {
      client.call("CF.RESERVE", "src", 1000);
      for (int i = 0; i < 50; i++) {
        client.call("CF.ADD", "src", "x" + i);
      }
      List<Object[]> chunks = chunks(client, "src");
      loadWithZeroItems(client, "z1", chunks);
      loadWithZeroItems(client, "z2", chunks);
      answersBefore = existsAnswers(client, "z2");
      for (int i = 0; i < 50; i++) {
        assertEquals(1L, answersBefore.get(i), "premise: fingerprints loaded under numItems 0");
      }
      assertEquals(List.of(0L), ((List<?>) client.call("CF.SCANDUMP", "z2", 0)).subList(0, 1));
      // one add makes numItems 1, so SCANDUMP shows the whole table of z1
      client.call("CF.ADD", "z1", "probe");
      dumpBefore = dump(client, "z1");
      assertEquals(OK, client.call("SAVE"));
      client.send("SHUTDOWN", "NOSAVE");
      server.awaitTermination();
    }
    try (CuckooServer restarted = start();
        RespClient client = new RespClient(restarted.port())) {
      assertEquals(answersBefore, existsAnswers(client, "z2"), "CF.EXISTS after restart");
      client.call("CF.ADD", "z2", "probe");
      assertArrayEquals(dumpBefore, dump(client, "z2"), "table bytes after restart");
      assertArrayEquals(dumpBefore, dump(client, "z1"));
    }
  }

  @Test
  void snapshotOfAnotherFormat_restart_refusedNamingTheFile() throws Exception {
    // version 1's header (magic, generation, key count, header crc): no release wrote it
    ByteBuffer file = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN);
    file.put("CKOOSNP1".getBytes(StandardCharsets.US_ASCII)).putLong(3).putLong(0);
    CRC32C crc = new CRC32C();
    crc.update(file.array(), 0, 24);
    file.putInt((int) crc.getValue());
    Files.write(dir.resolve(Persistence.SNAPSHOT), file.array());

    java.io.IOException e = assertThrows(java.io.IOException.class, this::start);

    assertTrue(e.getMessage().contains(Persistence.SNAPSHOT), e.getMessage());
    assertTrue(e.getMessage().contains("not a snapshot file"), e.getMessage());
  }
}
