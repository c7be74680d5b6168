package dev.cuckoo.server.rdb;

import dev.cuckoo.RedisCuckooFilter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads a Redis RDB file or replication transfer as it streams in (RDB versions 1 to 12): the
 * RedisBloom cuckoo filters in it ({@code MBbloomCF} module values) become filters, with their
 * database and expiry; every other key is read past and counted by its type; the CRC64 at the end
 * is checked. Memory stays bounded by the largest filter: other values are skipped without being
 * kept, and no declared length is allocated before its bytes have arrived.
 *
 * <pre>{@code
 * RdbReader.Summary summary = new RdbReader(in, 16).read(sink);
 * }</pre>
 *
 * <p>Every malformed input raises {@link RdbFormatException} naming the field and its offset.
 */
public final class RdbReader {
  /*
   * Layout, after Redis's rdb.c / rdb.h: "REDIS" + 4 decimal digits of version, then opcodes until
   * EOF (0xff). 0xfa AUX name value; 0xfb RESIZEDB two lengths; 0xfc EXPIRETIME_MS 8 bytes LE;
   * 0xfd EXPIRETIME 4 bytes LE seconds; 0xfe SELECTDB length; 0xf9 FREQ 1 byte; 0xf8 IDLE length;
   * 0xf7 MODULE_AUX id, when-opcode, when, module opcodes until EOF; 0xf5 FUNCTION2 one string;
   * 0xf4 SLOT_INFO three lengths; any other byte is a value type followed by the key (a string)
   * and the value. From version 5 an 8-byte little-endian CRC64 of everything before it follows
   * EOF (0 when the writer had rdbchecksum off).
   *
   * Values (type byte): 0 string; 1 list, 2 set: count × string; 3 zset: count × (string, text
   * double: 1-byte length, 253..255 for nan/+inf/-inf); 4 hash: count × 2 strings; 5 zset_2: count
   * × (string, 8-byte double); 7 module: 64-bit id (name in 9 × 6 bits, 10 bits encver) then
   * module opcodes (0 EOF, 1 SINT / 2 UINT length, 3 FLOAT 4 bytes, 4 DOUBLE 8 bytes, 5 STRING)
   * until EOF; 9 zipmap, 10 ziplist, 11 intset, 12 zset ziplist, 13 hash ziplist, 16 hash
   * listpack, 17 zset listpack, 20 set listpack, 23 hash listpack with field TTLs: one string
   * blob; 25 the same after an 8-byte minimum expiry; 14 quicklist: count × ziplist string; 18
   * quicklist 2: count × (container length, string); 22/24 hash with field TTLs: (24: 8-byte
   * minimum expiry) count × (TTL length, field, value); 15/19/21 streams (see skipStream).
   */

  /** The newest RDB version read (Redis 7.4 and 8 write 12). */
  public static final int NEWEST_VERSION = 12;

  /** The expiry given to {@link Sink} for a key that has none. */
  public static final long NO_EXPIRY = -1;

  private static final int OPCODE_SLOT_INFO = 244;
  private static final int OPCODE_FUNCTION2 = 245;
  private static final int OPCODE_FUNCTION_PRE_GA = 246;
  private static final int OPCODE_MODULE_AUX = 247;
  private static final int OPCODE_IDLE = 248;
  private static final int OPCODE_FREQ = 249;
  private static final int OPCODE_AUX = 250;
  private static final int OPCODE_RESIZEDB = 251;
  private static final int OPCODE_EXPIRETIME_MS = 252;
  private static final int OPCODE_EXPIRETIME = 253;
  private static final int OPCODE_SELECTDB = 254;
  private static final int OPCODE_EOF = 255;

  private static final int MODULE_EOF = 0;
  private static final int MODULE_SINT = 1;
  private static final int MODULE_UINT = 2;
  private static final int MODULE_FLOAT = 3;
  private static final int MODULE_DOUBLE = 4;
  private static final int MODULE_STRING = 5;

  private static final int TYPE_MODULE_2 = 7;
  private static final int FIRST_CHECKSUM_VERSION = 5;
  private static final int OLDEST_CF_ENCODING = 0;

  /** Where the filters and the foreign keys go, in the order of the file. */
  public interface Sink {
    /**
     * A cuckoo filter of the RDB.
     *
     * @param db its database
     * @param key its name
     * @param expireAtMillis its expiry (Unix milliseconds) or {@link #NO_EXPIRY}
     * @param filter the filter
     * @throws IOException if the sink cannot take it (reading stops)
     */
    void filter(int db, byte[] key, long expireAtMillis, RedisCuckooFilter<byte[]> filter)
        throws IOException;

    /**
     * A key of a type this server does not hold, read past (counted in the summary after this).
     *
     * @param db its database
     * @param key its name
     * @param type Redis's name of its type ({@code string}, {@code hash}, a module's type name...)
     * @throws IOException to refuse it (reading stops)
     */
    default void foreign(int db, byte[] key, String type) throws IOException {}
  }

  /**
   * What an RDB held.
   *
   * @param version its RDB version
   * @param filters the cuckoo filters given to the sink
   * @param foreign the other keys, by type
   * @param functions the function libraries read past
   * @param moduleAux the modules' auxiliary data read past
   * @param aux the AUX fields (redis-ver, ctime...), as text
   * @param bytes the RDB's length
   */
  public record Summary(
      int version,
      long filters,
      ForeignTypes foreign,
      long functions,
      long moduleAux,
      Map<String, String> aux,
      long bytes) {}

  private final RdbSource source;
  private final int databases;

  /**
   * Creates a reader of the RDB that {@code in} gives, for a server of {@code databases} databases.
   *
   * @param in the RDB's bytes (read in blocks; see {@link #unconsumed} for what follows the RDB)
   * @param databases the number of databases: a SELECTDB beyond is refused
   */
  public RdbReader(InputStream in, int databases) {
    this.source = new RdbSource(in);
    this.databases = databases;
  }

  /**
   * Reads the whole RDB, up to and including its CRC64.
   *
   * @param sink where the filters and foreign keys go
   * @return what the RDB held
   * @throws RdbFormatException if the RDB is malformed, truncated or fails its CRC64
   * @throws IOException if the input or the sink fails
   */
  public Summary read(Sink sink) throws IOException {
    String magic = source.ascii(5, "magic");
    if (!magic.equals("REDIS")) {
      throw RdbSource.bad(
          "magic", 0, "'" + printable(magic) + "' (expected: 'REDIS', an RDB file)");
    }
    String digits = source.ascii(4, "RDB version");
    int version = parseVersion(digits);
    ForeignTypes foreign = new ForeignTypes();
    Map<String, long[]> counted = new java.util.HashMap<>();
    Map<String, String> aux = new LinkedHashMap<>();
    long filters = 0;
    long functions = 0;
    long moduleAux = 0;
    int db = 0;
    long expireAt = NO_EXPIRY;
    while (true) {
      long at = source.offset();
      int type = source.u8("opcode");
      switch (type) {
        case OPCODE_EXPIRETIME_MS:
          expireAt = source.littleEndian(8, "EXPIRETIME_MS");
          continue;
        case OPCODE_EXPIRETIME:
          expireAt = (int) source.littleEndian(4, "EXPIRETIME") * 1000L;
          continue;
        case OPCODE_FREQ:
          source.u8("FREQ");
          continue;
        case OPCODE_IDLE:
          source.length("IDLE");
          continue;
        case OPCODE_SELECTDB:
          long selected = source.length("SELECTDB");
          if (selected < 0 || selected >= databases) {
            throw RdbSource.bad(
                "SELECTDB",
                at,
                "database "
                    + Long.toUnsignedString(selected)
                    + " (expected: 0 to "
                    + (databases - 1)
                    + ", the databases this server has)");
          }
          db = (int) selected;
          continue;
        case OPCODE_RESIZEDB:
          source.length("RESIZEDB keys");
          source.length("RESIZEDB expires");
          continue;
        case OPCODE_SLOT_INFO:
          source.length("SLOT_INFO slot");
          source.length("SLOT_INFO keys");
          source.length("SLOT_INFO expires");
          continue;
        case OPCODE_AUX:
          String name = text(source.string("AUX name"));
          aux.put(name, text(source.string("AUX " + name)));
          continue;
        case OPCODE_MODULE_AUX:
          long id = source.length("MODULE_AUX module id");
          source.length("MODULE_AUX when opcode");
          source.length("MODULE_AUX when");
          skipModuleValue("MODULE_AUX " + DumpPayload.moduleTypeName(id));
          moduleAux++;
          continue;
        case OPCODE_FUNCTION2:
          source.skipString("FUNCTION2");
          functions++;
          continue;
        case OPCODE_FUNCTION_PRE_GA:
          throw RdbSource.bad(
              "opcode", at, "246, Redis 7.0's release-candidate functions (not read by Redis)");
        case OPCODE_EOF:
          checkCrc(version);
          counted.forEach((typeName, count) -> foreign.add(typeName, count[0]));
          return new Summary(version, filters, foreign, functions, moduleAux, aux, source.offset());
        default:
          break;
      }
      byte[] key = source.string("key");
      if (type == TYPE_MODULE_2) {
        long valueAt = source.offset();
        source.startCopy();
        long id = source.length("module id");
        if (DumpPayload.isCuckooFilterModule(id)) {
          skipModuleValue("value of " + text(key));
          sink.filter(db, key, expireAt, filter(key, valueAt, source.endCopy()));
          filters++;
        } else {
          source.endCopy();
          skipModuleValue("value of " + text(key));
          String typeName = DumpPayload.moduleTypeName(id);
          sink.foreign(db, key, typeName);
          foreign.add(typeName);
        }
      } else {
        String typeName;
        try {
          typeName = skipValue(type, at);
        } catch (RdbFormatException e) {
          // the key's name is spelled out only for an error (no text per key read past)
          throw new RdbFormatException(
              "value of " + text(key), e.offset(), e.detail(), e.getCause());
        }
        sink.foreign(db, key, typeName);
        counted.computeIfAbsent(typeName, t -> new long[1])[0]++;
      }
      expireAt = NO_EXPIRY;
    }
  }

  /**
   * Returns the bytes read from the input after the RDB's end (a diskless transfer's EOF mark and
   * what follows it).
   *
   * @return the bytes, possibly none
   */
  public byte[] unconsumed() {
    return source.unconsumed();
  }

  private static int parseVersion(String digits) {
    int version = -1;
    if (digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      version = Integer.parseInt(digits);
    }
    if (version < 1 || version > NEWEST_VERSION) {
      throw RdbSource.bad(
          "RDB version",
          5,
          "'" + printable(digits) + "' (expected: 0001 to 00" + NEWEST_VERSION + ")");
    }
    return version;
  }

  private void checkCrc(int version) throws IOException {
    if (version < FIRST_CHECKSUM_VERSION) {
      return;
    }
    long expected = source.crc();
    long at = source.offset();
    long stored = source.littleEndian(8, "CRC64");
    // 0: written with rdbchecksum no, which Redis loads unchecked
    if (stored != 0 && stored != expected) {
      throw RdbSource.bad(
          "CRC64",
          at,
          String.format(
              "%016x (expected: %016x, the CRC of the bytes before it)", stored, expected));
    }
  }

  /** Turns the copied module value (from its id to its EOF) into a filter. */
  private static RedisCuckooFilter<byte[]> filter(byte[] key, long valueAt, byte[] copied) {
    byte[] value = new byte[copied.length + 1];
    value[0] = TYPE_MODULE_2;
    System.arraycopy(copied, 0, value, 1, copied.length);
    try {
      return DumpPayload.decodeValue(value, value.length, OLDEST_CF_ENCODING);
    } catch (DumpPayloadException e) {
      throw new RdbFormatException("cuckoo filter " + text(key), valueAt, e.getMessage(), e);
    }
  }

  /** Reads a module value's opcodes up to and including its EOF. */
  private void skipModuleValue(String field) throws IOException {
    while (true) {
      long at = source.offset();
      long opcode = source.length(field);
      switch ((int) Math.min(opcode, Integer.MAX_VALUE)) {
        case MODULE_EOF:
          return;
        case MODULE_SINT:
        case MODULE_UINT:
          source.length(field);
          break;
        case MODULE_FLOAT:
          source.skip(4, field);
          break;
        case MODULE_DOUBLE:
          source.skip(8, field);
          break;
        case MODULE_STRING:
          source.skipString(field);
          break;
        default:
          throw RdbSource.bad(
              field, at, "module opcode " + Long.toUnsignedString(opcode) + " (expected: 0 to 5)");
      }
    }
  }

  /** Reads past a value of a type other than a module's; returns Redis's name of its type. */
  private String skipValue(int type, long at) throws IOException {
    String field = "value";
    switch (type) {
      case 0:
        source.skipString(field);
        return "string";
      case 1:
        skipStrings(source.length(field), 1, field);
        return "list";
      case 2:
        skipStrings(source.length(field), 1, field);
        return "set";
      case 3:
        for (long n = source.length(field); n > 0; n--) {
          source.skipString(field);
          int length = source.u8(field);
          if (length < 253) {
            source.skip(length, field);
          }
        }
        return "zset";
      case 4:
        skipStrings(source.length(field), 2, field);
        return "hash";
      case 5:
        for (long n = source.length(field); n > 0; n--) {
          source.skipString(field);
          source.skip(8, field);
        }
        return "zset";
      case 9, 13, 16, 23:
        source.skipString(field);
        return "hash";
      case 25:
        source.skip(8, field);
        source.skipString(field);
        return "hash";
      case 10:
        source.skipString(field);
        return "list";
      case 11, 20:
        source.skipString(field);
        return "set";
      case 12, 17:
        source.skipString(field);
        return "zset";
      case 14:
        skipStrings(source.length(field), 1, field);
        return "list";
      case 18:
        for (long n = source.length(field); n > 0; n--) {
          source.length(field);
          source.skipString(field);
        }
        return "list";
      case 22, 24:
        if (type == 24) {
          source.skip(8, field);
        }
        for (long n = source.length(field); n > 0; n--) {
          source.length(field);
          source.skipString(field);
          source.skipString(field);
        }
        return "hash";
      case 15, 19, 21:
        skipStream(type, field);
        return "stream";
      default:
        throw RdbSource.bad(
            "type",
            at,
            type
                + " (expected: a value type 0 to 7 or 9 to 25, or an opcode 244 to 255; RDB"
                + " version "
                + NEWEST_VERSION
                + " is the newest read)");
    }
  }

  private void skipStrings(long count, int perEntry, String field) throws IOException {
    for (long n = count; n > 0; n--) {
      for (int i = 0; i < perEntry; i++) {
        source.skipString(field);
      }
    }
  }

  /**
   * Reads past a stream: its listpacks (master id, listpack), length and last id, (version 2 on)
   * first id, max deleted id and entries added, then its consumer groups with their pending entries
   * and consumers (version 3 adds each consumer's active time).
   */
  private void skipStream(int type, String field) throws IOException {
    skipStrings(source.length(field), 2, field);
    int lengths = type >= 19 ? 8 : 3;
    for (int i = 0; i < lengths; i++) {
      source.length(field);
    }
    for (long groups = source.length(field); groups > 0; groups--) {
      source.skipString(field);
      source.length(field);
      source.length(field);
      if (type >= 19) {
        source.length(field);
      }
      for (long pending = source.length(field); pending > 0; pending--) {
        source.skip(16 + 8, field);
        source.length(field);
      }
      for (long consumers = source.length(field); consumers > 0; consumers--) {
        source.skipString(field);
        source.skip(type >= 21 ? 16 : 8, field);
        for (long pending = source.length(field); pending > 0; pending--) {
          source.skip(16, field);
        }
      }
    }
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static String printable(String text) {
    return text.replaceAll("[^\\x20-\\x7e]", "?");
  }
}
