package dev.cuckoo.server.replication;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.rdb.RdbReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * A full transfer from a Redis master: its RDB, read as it arrives (no copy on disk), puts the
 * cuckoo filters into a fresh keyspace with their expiries, kept as the master sent them (the
 * master expires keys, as Redis's replicas keep expired keys of a transfer), and counts or refuses
 * the keys of other types.
 */
final class RedisTransfer {
  /** A key or write of a type this server does not hold, with replica-ignore-foreign-types no. */
  static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /**
   * What the transfer held.
   *
   * @param summary what the reader found (filters, foreign keys by type)
   * @param unconsumed bytes read after the RDB's end (a diskless transfer's EOF mark, the stream)
   */
  record Loaded(RdbReader.Summary summary, byte[] unconsumed) {}

  private RedisTransfer() {}

  /**
   * Reads the RDB from {@code in} into {@code fresh}.
   *
   * @param ignoreForeign false to refuse the first key of a type this server does not hold
   * @throws Refused if a foreign key is refused
   * @throws dev.cuckoo.server.rdb.RdbFormatException if the RDB is malformed
   */
  static Loaded load(InputStream in, Keyspace fresh, boolean ignoreForeign) throws IOException {
    RdbReader reader = new RdbReader(in, fresh.databases());
    RdbReader.Summary summary =
        reader.read(
            new RdbReader.Sink() {
              @Override
              public void filter(
                  int db, byte[] key, long expireAtMillis, RedisCuckooFilter<byte[]> filter) {
                Key name = new Key(db, key);
                fresh.put(name, filter);
                if (expireAtMillis != RdbReader.NO_EXPIRY) {
                  fresh.expireAt(name, expireAtMillis);
                }
              }

              @Override
              public void foreign(int db, byte[] key, String type) throws Refused {
                if (!ignoreForeign) {
                  throw refused("key '" + text(key) + "' in database " + db, type);
                }
              }
            });
    return new Loaded(summary, reader.unconsumed());
  }

  /** The refusal of a foreign key or write, naming it, its type and the parameter. */
  static Refused refused(String what, String type) {
    return new Refused(
        "the master holds "
            + what
            + " of type "
            + type
            + ", which this server does not hold, and replica-ignore-foreign-types is no:"
            + " replication stopped (set it to yes to skip such keys, counted in INFO)");
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
