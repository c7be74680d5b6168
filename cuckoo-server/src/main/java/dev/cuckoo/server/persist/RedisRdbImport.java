package dev.cuckoo.server.persist;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.rdb.ForeignTypes;
import dev.cuckoo.server.rdb.RdbReader;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;

/**
 * A Redis {@code dump.rdb} left in the data directory, loaded at a first start (no snapshot or log
 * of this server's there yet), as Redis loads its RDB: the file {@code dbfilename} names if it is a
 * Redis RDB, else {@code dump.rdb}, Redis's default name. Its cuckoo filters are loaded with their
 * expiries (keys already expired are dropped, as Redis drops them loading as a master); the other
 * keys are counted by type. A snapshot of this server's own is saved right after, so the RDB is
 * read once; an RDB found under {@code dbfilename} itself is first renamed to {@code
 * <name>.imported}, since the snapshot takes its name.
 */
public final class RedisRdbImport {
  private static final System.Logger LOGGER = System.getLogger(RedisRdbImport.class.getName());

  /** Redis's default RDB file name. */
  public static final String REDIS_FILE_NAME = "dump.rdb";

  private static final byte[] MAGIC = "REDIS".getBytes(StandardCharsets.US_ASCII);

  /**
   * What was imported.
   *
   * @param file the RDB read (where it was found)
   * @param filters the filters loaded
   * @param expired the filters dropped because their expiry had passed
   * @param foreign the keys of other types, by type
   */
  public record Imported(Path file, long filters, long expired, ForeignTypes foreign) {}

  private RedisRdbImport() {}

  /**
   * Loads a Redis RDB into {@code keyspace} if the data directory holds one and nothing of this
   * server's own.
   *
   * @param names the data directory's files
   * @param keyspace the empty keyspace to load into
   * @return what was imported, or null if there was nothing to import
   * @throws IOException if the RDB cannot be read
   * @throws dev.cuckoo.server.rdb.RdbFormatException if it is malformed (the start is refused)
   */
  public static Imported loadAtFirstStart(DataFiles names, Keyspace keyspace) throws IOException {
    if (!Files.isDirectory(names.dir())) {
      return null;
    }
    Path snapshot = names.snapshot();
    boolean snapshotIsRdb = isRdb(snapshot);
    if (Files.exists(snapshot) && !snapshotIsRdb
        || Files.exists(names.log())
        || !names.retiredLogs().isEmpty()) {
      return null;
    }
    Path rdb = snapshotIsRdb ? snapshot : names.dir().resolve(REDIS_FILE_NAME);
    if (!isRdb(rdb)) {
      return null;
    }
    LOGGER.log(Level.INFO, "first start: loading the Redis RDB {0}", rdb);
    long began = System.nanoTime();
    long now = System.currentTimeMillis();
    long[] counts = new long[2];
    RdbReader.Summary summary;
    try (InputStream in = new BufferedInputStream(Files.newInputStream(rdb), 1 << 16)) {
      summary =
          new RdbReader(in, keyspace.databases())
              .read(
                  (int db, byte[] key, long expireAt, RedisCuckooFilter<byte[]> filter) -> {
                    if (expireAt != RdbReader.NO_EXPIRY && expireAt <= now) {
                      counts[1]++;
                      return;
                    }
                    Key name = new Key(db, key);
                    keyspace.put(name, filter);
                    if (expireAt != RdbReader.NO_EXPIRY) {
                      keyspace.expireAt(name, expireAt);
                    }
                    counts[0]++;
                  });
    }
    if (snapshotIsRdb) {
      Path aside = rdb.resolveSibling(rdb.getFileName() + ".imported");
      Files.move(rdb, aside, StandardCopyOption.REPLACE_EXISTING);
      LOGGER.log(Level.INFO, "{0} renamed to {1}: the snapshot takes its name", rdb, aside);
    }
    ForeignTypes foreign = summary.foreign();
    LOGGER.log(
        Level.INFO,
        "loaded {0} (RDB version {1}) in {2} ms: {3} cuckoo filters, {4} expired ones dropped;"
            + " skipped {5} keys of types this server does not hold ({6}), {7} function libraries",
        rdb,
        Integer.toString(summary.version()),
        Long.toString((System.nanoTime() - began) / 1_000_000),
        Long.toString(counts[0]),
        Long.toString(counts[1]),
        Long.toString(foreign.total()),
        foreign.total() == 0 ? "none" : foreign.toString(),
        Long.toString(summary.functions()));
    return new Imported(rdb, counts[0], counts[1], foreign);
  }

  private static boolean isRdb(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      return false;
    }
    try (InputStream in = Files.newInputStream(file)) {
      return Arrays.equals(in.readNBytes(MAGIC.length), MAGIC);
    }
  }
}
