package dev.cuckoo.server.persist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Known-answer files of the log and snapshot formats (docs/PERSISTENCE.md): what this build writes
 * for a fixed input must be byte for byte the file committed under {@code golden/}, and reading the
 * committed file must give back that input. A change to either format fails here. The files are
 * never regenerated: {@link #main} writes only missing ones (from cuckoo-server, after {@code mvn
 * test-compile}: {@code java -cp target/test-classes:target/classes:<dependencies>
 * dev.cuckoo.server.persist.GoldenFormatTest src/test/resources/dev/cuckoo/server/golden}).
 */
class GoldenFormatTest {
  private static final String LOG = "appendonly.v4.log";
  private static final String SNAPSHOT = "dump.v4.cuckoo";
  private static final long GENERATION = 7;
  private static final long BASE_LSN = 41;
  private static final long EXPIRE_AT = 4_102_444_800_000L; // 2100-01-01T00:00:00Z

  @TempDir Path dir;

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[][] command(String... args) {
    byte[][] out = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      out[i] = ascii(args[i]);
    }
    return out;
  }

  /** The records of the golden log, in order, with the database each ran in. */
  private static List<Object[]> logRecords() {
    List<Object[]> records = new ArrayList<>();
    records.add(new Object[] {0, command("CF.RESERVE", "k", "100", "BUCKETSIZE", "2")});
    records.add(new Object[] {0, command("CF.ADD", "k", "a")});
    records.add(new Object[] {3, command("CF.INSERT", "other", "ITEMS", "x", "y")});
    records.add(new Object[] {3, command("PEXPIREAT", "other", Long.toString(EXPIRE_AT))});
    records.add(new Object[] {0, command("DEL", "k")});
    return records;
  }

  private static void writeLog(Path path) throws IOException {
    try (AppendLog log = AppendLog.create(path, FileChannels.DEFAULT, GENERATION, BASE_LSN)) {
      for (Object[] record : logRecords()) {
        log.append((Integer) record[0], (byte[][]) record[1]);
      }
      log.flush(true);
    }
  }

  private static RedisCuckooFilter<byte[]> filter(long capacity, String... items) {
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(capacity, 2, 20, 1);
    for (String item : items) {
      filter.add(ascii(item));
    }
    return filter;
  }

  private static void writeSnapshot(Path path) throws IOException {
    try (SnapshotFile.Writer writer =
        SnapshotFile.open(path, FileChannels.DEFAULT, GENERATION, BASE_LSN)) {
      writer.write(new Key(0, ascii("k")), 42, Keyspace.NO_EXPIRY, filter(16, "a", "b", "c"));
      writer.write(new Key(3, ascii("other")), 44, EXPIRE_AT, filter(8, "x"));
      writer.write(new Key(0, ascii("gone")), 45, Keyspace.NO_EXPIRY, null);
      writer.commit();
    }
  }

  private static byte[] golden(String name) throws IOException {
    try (InputStream in =
        GoldenFormatTest.class.getResourceAsStream("/dev/cuckoo/server/golden/" + name)) {
      assertNotNull(in, "golden file " + name + " is missing: see GoldenFormatTest.main");
      return in.readAllBytes();
    }
  }

  @Test
  void log_fixedRecords_writtenAsTheGoldenFile() throws Exception {
    Path written = dir.resolve("appendonly.log");
    writeLog(written);
    assertArrayEquals(golden(LOG), Files.readAllBytes(written));
  }

  @Test
  void log_goldenFile_readsBackEveryRecord() throws Exception {
    Path file = dir.resolve("appendonly.log");
    Files.write(file, golden(LOG));
    LogReader.Header header = LogReader.header(file);
    assertNull(header.damage());
    assertEquals(GENERATION, header.generation());
    assertEquals(BASE_LSN, header.baseLsn());
    List<Object[]> read = new ArrayList<>();
    LogReader.Result result =
        LogReader.read(
            file,
            header,
            Long.MAX_VALUE,
            false,
            (lsn, db, args, offset) -> read.add(new Object[] {lsn, db, args}));
    List<Object[]> expected = logRecords();
    assertEquals(expected.size(), read.size());
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(BASE_LSN + 1 + i, read.get(i)[0]);
      assertEquals(expected.get(i)[0], read.get(i)[1]);
      assertArrayEquals((byte[][]) expected.get(i)[1], (byte[][]) read.get(i)[2]);
    }
    assertEquals(Files.size(file), result.validEnd());
    assertNull(result.problem());
  }

  @Test
  void snapshot_fixedKeys_writtenAsTheGoldenFile() throws Exception {
    Path written = dir.resolve(Persistence.SNAPSHOT);
    writeSnapshot(written);
    assertArrayEquals(golden(SNAPSHOT), Files.readAllBytes(written));
  }

  @Test
  void snapshot_goldenFile_loadsEveryKey() throws Exception {
    Path file = dir.resolve(Persistence.SNAPSHOT);
    Files.write(file, golden(SNAPSHOT));
    Keyspace keyspace = new Keyspace(16);
    SnapshotFile.Loaded loaded = SnapshotFile.read(file, keyspace, key -> true);
    assertEquals(GENERATION, loaded.generation());
    assertEquals(BASE_LSN, loaded.startLsn());
    assertEquals(
        Map.of(
            new Key(0, ascii("k")), 42L,
            new Key(3, ascii("other")), 44L,
            new Key(0, ascii("gone")), 45L),
        loaded.lsns());
    RedisCuckooFilter<byte[]> k = keyspace.stored(new Key(0, ascii("k")));
    assertEquals(3, k.size());
    for (String item : new String[] {"a", "b", "c"}) {
      assertTrue(k.mightContain(ascii(item)), item);
    }
    Key other = new Key(3, ascii("other"));
    assertTrue(keyspace.stored(other).mightContain(ascii("x")));
    assertEquals(EXPIRE_AT, keyspace.expireAt(other));
    assertNull(keyspace.stored(new Key(0, ascii("gone"))));
  }

  /** Writes the golden files that do not exist yet into the directory given (never overwrites). */
  public static void main(String[] args) throws IOException {
    Path target = Path.of(args[0]);
    Files.createDirectories(target);
    if (!Files.exists(target.resolve(LOG))) {
      writeLog(target.resolve(LOG));
    }
    if (!Files.exists(target.resolve(SNAPSHOT))) {
      writeSnapshot(target.resolve(SNAPSHOT));
    }
  }
}
