package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
    return CuckooServer.start(ServerConfig.builder().port(0).threads(2).dir(dir).build());
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
  void versionOneSnapshot_restart_loaded() throws Exception {
    byte[] key = "old".getBytes(StandardCharsets.US_ASCII);
    ByteArrayOutputStream blob = new ByteArrayOutputStream();
    byte[] dumpBefore;
    String debugBefore;
    try (CuckooServer server = CuckooServer.start(TestServers.memoryOnly().build());
        RespClient client = new RespClient(server.port())) {
      client.call("CF.RESERVE", "old", 500, "EXPANSION", 2);
      for (int i = 0; i < 700; i++) {
        client.call("CF.ADD", "old", "x" + i);
      }
      client.call("CF.DEL", "old", "x3");
      dumpBefore = dump(client, "old");
      debugBefore = RespClient.text(client.call("CF.DEBUG", "old"));
      ByteBuffer frame = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
      for (Object[] chunk : chunks(client, "old")) {
        byte[] data = (byte[]) chunk[1];
        if ((Long) chunk[0] != 1) {
          frame.clear();
          frame.putLong((Long) chunk[0]).putInt(data.length);
          blob.writeBytes(frame.array());
        }
        blob.writeBytes(data);
      }
      blob.writeBytes(new byte[8]);
    }
    // version 1: magic, generation, key count, header crc; key length, key, blob length, blob, crc
    ByteBuffer file =
        ByteBuffer.allocate(28 + 4 + key.length + 8 + blob.size() + 4)
            .order(ByteOrder.LITTLE_ENDIAN);
    file.put("CKOOSNP1".getBytes(StandardCharsets.US_ASCII)).putLong(3).putLong(1);
    CRC32C crc = new CRC32C();
    crc.update(file.array(), 0, 24);
    file.putInt((int) crc.getValue());
    crc.reset();
    crc.update(key);
    crc.update(blob.toByteArray());
    file.putInt(key.length)
        .put(key)
        .putLong(blob.size())
        .put(blob.toByteArray())
        .putInt((int) crc.getValue());
    Files.write(dir.resolve(Persistence.SNAPSHOT), file.array());
    try (CuckooServer server = start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(debugBefore, RespClient.text(client.call("CF.DEBUG", "old")));
      assertArrayEquals(dumpBefore, dump(client, "old"));
    }
  }
}
