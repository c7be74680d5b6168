package dev.cuckoo.server.rdb;

import dev.cuckoo.FilterAllocationException;
import dev.cuckoo.FilterFormatException;
import dev.cuckoo.RedisCuckooFilter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The {@code DUMP} / {@code RESTORE} payload of a cuckoo filter, byte for byte as Redis with
 * RedisBloom writes it: {@link #encode} gives what Redis's {@code DUMP} answers for a RedisBloom
 * filter holding the same slots and counters, and {@link #decode} reads such a payload back
 * (written here or by Redis), checking it as Redis's {@code RESTORE} does.
 *
 * <pre>{@code
 * byte[] payload = DumpPayload.encode(filter);               // DUMP key
 * RedisCuckooFilter<byte[]> copy = DumpPayload.decode(payload); // RESTORE key 0 payload
 * }</pre>
 */
public final class DumpPayload {
  /*
   * Layout (docs/DUMP.md):
   *
   *   07                          RDB_TYPE_MODULE_2
   *   81 + 8 bytes big-endian     module id: "MBbloomCF" in 6-bit characters, then encver 4
   *   02 len  (x7)                UINT opcode + RDB length: numFilters, numBuckets, numItems,
   *                               numDeletes, bucketSize, maxIterations, expansion
   *   per link: 02 len, 05 str    UINT numBuckets of the link, STRING of its slots
   *   00                          EOF opcode
   *   2 bytes little-endian       RDB version (12 written; 0 to 12 read)
   *   8 bytes little-endian       CRC64 of everything before it
   *
   * Reading never allocates more than the payload can describe: a link's string is at most its
   * raw bytes, or LZF's 88-fold expansion of the compressed bytes, so the links a header declares
   * must fit in 88 times the bytes that remain, checked before the filter is allocated.
   */

  /** The RDB version written, and the highest one read (Redis 7.4 and 8). */
  public static final int RDB_VERSION = 12;

  /** RedisBloom's cuckoo-filter type name. */
  public static final String MODULE_TYPE_NAME = "MBbloomCF";

  /** RedisBloom's cuckoo-filter encoding version written (CF_MIN_EXPANSION_VERSION). */
  public static final int ENCODING_VERSION = 4;

  private static final int TYPE_MODULE_2 = 7;
  private static final int OPCODE_EOF = 0;
  private static final int OPCODE_UINT = 2;
  private static final int OPCODE_STRING = 5;
  private static final int FOOTER_BYTES = 10;
  private static final int HEADER_BYTES = 38;
  private static final String MODULE_ID_CHARACTERS =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  private static final long MODULE_ID = moduleId(MODULE_TYPE_NAME, ENCODING_VERSION);
  private static final int LARGEST_LINK_BYTES = Integer.MAX_VALUE - 8;
  // RedisBloom's defaults, which its loader gives values of encoding versions below 4
  private static final int OLD_BUCKET_SIZE = 2;
  private static final int OLD_MAX_ITERATIONS = 20;

  private DumpPayload() {}

  /** Redis's module type id: 9 characters of 6 bits each, then a 10-bit encoding version. */
  private static long moduleId(String name, int encodingVersion) {
    long id = 0;
    for (int i = 0; i < name.length(); i++) {
      id = (id << 6) | MODULE_ID_CHARACTERS.indexOf(name.charAt(i));
    }
    return (id << 10) | encodingVersion;
  }

  /** Returns true if the module type id {@code id} is RedisBloom's cuckoo filter's (any encver). */
  static boolean isCuckooFilterModule(long id) {
    return id >>> 10 == MODULE_ID >>> 10;
  }

  /** Returns the 9-character type name a module type id holds, as Redis's moduleTypeNameByID. */
  static String moduleTypeName(long id) {
    char[] name = new char[9];
    for (int i = 0; i < name.length; i++) {
      name[i] = MODULE_ID_CHARACTERS.charAt((int) ((id >>> (10 + 6 * (8 - i))) & 63));
    }
    return new String(name);
  }

  /**
   * Returns the DUMP payload of {@code filter}.
   *
   * @param filter the filter
   * @return the payload, as Redis's {@code DUMP} of the same RedisBloom filter
   * @throws IllegalStateException if a link or the payload is too large for one Java array
   */
  public static byte[] encode(RedisCuckooFilter<byte[]> filter) {
    int links = filter.linkCount();
    RdbOutput out = new RdbOutput(64);
    out.writeByte(TYPE_MODULE_2);
    out.writeLength(MODULE_ID);
    writeUnsigned(out, links);
    writeUnsigned(out, filter.baseBucketCount());
    writeUnsigned(out, filter.size());
    writeUnsigned(out, filter.deletedCount());
    writeUnsigned(out, filter.bucketSize());
    writeUnsigned(out, filter.maxKicks());
    writeUnsigned(out, filter.expansion());
    for (int k = 0; k < links; k++) {
      byte[] slots = filter.linkSlots(k);
      writeUnsigned(out, slots.length / filter.bucketSize());
      out.writeLength(OPCODE_STRING);
      out.writeString(slots);
      if (out.size() > LARGEST_LINK_BYTES - FOOTER_BYTES) {
        throw new IllegalStateException(
            "payload: more than " + (LARGEST_LINK_BYTES - FOOTER_BYTES) + " bytes at link " + k);
      }
    }
    out.writeLength(OPCODE_EOF);
    out.writeByte(RDB_VERSION & 0xFF);
    out.writeByte(RDB_VERSION >>> 8);
    byte[] body = out.toByteArray();
    ByteBuffer payload =
        ByteBuffer.allocate(body.length + 8).order(ByteOrder.LITTLE_ENDIAN).put(body);
    payload.putLong(Crc64.of(body, 0, body.length));
    return payload.array();
  }

  private static void writeUnsigned(RdbOutput out, long value) {
    out.writeLength(OPCODE_UINT);
    out.writeLength(value);
  }

  /**
   * Checks the payload's footer as Redis's RESTORE does first: at least 10 bytes, an RDB version of
   * at most {@link #RDB_VERSION}, and the CRC64 of everything before the CRC.
   *
   * @param payload the payload
   * @throws DumpPayloadException of kind {@link DumpPayloadException.Kind#CHECKSUM} if not
   */
  public static void verify(byte[] payload) {
    if (payload.length < FOOTER_BYTES) {
      throw checksum("payload", -1, "length " + payload.length + " (expected: >= 10)");
    }
    ByteBuffer footer = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
    int versionAt = payload.length - FOOTER_BYTES;
    int version = footer.getShort(versionAt) & 0xFFFF;
    if (version > RDB_VERSION) {
      throw checksum("RDB version", versionAt, version + " (expected: <= " + RDB_VERSION + ")");
    }
    long stored = footer.getLong(versionAt + 2);
    long computed = Crc64.of(payload, 0, payload.length - 8);
    if (stored != computed) {
      throw checksum(
          "CRC64",
          versionAt + 2,
          String.format(
              "%016x (expected: %016x, the CRC of the bytes before it)", stored, computed));
    }
  }

  private static DumpPayloadException checksum(String field, long offset, String detail) {
    return new DumpPayloadException(DumpPayloadException.Kind.CHECKSUM, field, offset, detail);
  }

  /**
   * Reads a filter from a DUMP payload: {@link #verify} first, then the RDB value, which must be a
   * RedisBloom cuckoo filter of encoding version 4 whose links have the sizes its header implies.
   * Bytes between the module's EOF and the footer are ignored, as Redis ignores them.
   *
   * @param payload the payload
   * @return the filter, items hashed as RedisBloom hashes them
   * @throws DumpPayloadException if the footer is wrong ({@link
   *     DumpPayloadException.Kind#CHECKSUM}) or the value is not a filter this server can hold
   *     ({@link DumpPayloadException.Kind#CONTENT}); nothing larger than the payload can describe
   *     is allocated first
   */
  public static RedisCuckooFilter<byte[]> decode(byte[] payload) {
    verify(payload);
    return decodeValue(payload, payload.length - FOOTER_BYTES, ENCODING_VERSION);
  }

  /**
   * Reads the module value at the start of {@code value} (type byte, module id, the module's
   * fields, EOF) up to {@code end}, accepting the encoding versions from {@code
   * oldestEncodingVersion} to {@link #ENCODING_VERSION}. Versions below 4 hold no numDeletes,
   * bucketSize, maxIterations or expansion, nor each link's numBuckets: they read as RedisBloom's
   * loader reads them, with its defaults (bucket size 2, 20 iterations, expansion 1, every link
   * numBuckets long).
   */
  static RedisCuckooFilter<byte[]> decodeValue(byte[] value, int end, int oldestEncodingVersion) {
    RdbInput in = new RdbInput(value, 0, end);
    int type = in.readByte("type");
    if (type != TYPE_MODULE_2) {
      throw RdbInput.bad(
          "type",
          0,
          type
              + " (expected: "
              + TYPE_MODULE_2
              + ", a module value; only cuckoo"
              + " filters are held here)");
    }
    long id = in.readLength("module id");
    if (id >>> 10 != MODULE_ID >>> 10) {
      throw RdbInput.bad(
          "module id", 1, String.format("%016x (expected: type %s)", id, MODULE_TYPE_NAME));
    }
    long encodingVersion = id & 1023;
    if (encodingVersion < oldestEncodingVersion || encodingVersion > ENCODING_VERSION) {
      throw RdbInput.bad(
          "module encoding version",
          1,
          encodingVersion
              + " (expected: "
              + (oldestEncodingVersion == ENCODING_VERSION
                  ? Integer.toString(ENCODING_VERSION)
                  : oldestEncodingVersion + " to " + ENCODING_VERSION)
              + ")");
    }
    boolean old = encodingVersion < ENCODING_VERSION;
    long links = readUnsigned(in, "numFilters");
    long buckets = readUnsigned(in, "numBuckets");
    long items = readUnsigned(in, "numItems");
    long deletes = old ? 0 : readUnsigned(in, "numDeletes");
    long bucketSize = old ? OLD_BUCKET_SIZE : readUnsigned(in, "bucketSize");
    long maxIterations = old ? OLD_MAX_ITERATIONS : readUnsigned(in, "maxIterations");
    long expansion = old ? 1 : readUnsigned(in, "expansion");
    // RedisBloom keeps these four in 16 bits; the header's own checks follow in loadDumpHeader
    requireSixteenBits("numFilters", links, 1);
    requireSixteenBits("bucketSize", bucketSize, 1);
    requireSixteenBits("maxIterations", maxIterations, 1);
    requireSixteenBits("expansion", expansion, 0);
    if (buckets == 0) {
      throw RdbInput.bad("numBuckets", -1, "0 (expected: >= 1)");
    }
    requireLinksFit(links, buckets, bucketSize, expansion, in.remaining());
    byte[] header =
        ByteBuffer.allocate(HEADER_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putLong(items)
            .putLong(buckets)
            .putLong(deletes)
            .putLong(links)
            .putShort((short) bucketSize)
            .putShort((short) maxIterations)
            .putShort((short) expansion)
            .array();
    RedisCuckooFilter<byte[]> filter;
    try {
      filter = RedisCuckooFilter.loadDumpHeader(header);
    } catch (FilterFormatException | FilterAllocationException e) {
      throw RdbInput.bad("header", 1, e.getMessage());
    }
    long start = 0;
    long linkBuckets = buckets;
    for (int k = 0; k < links; k++) {
      String field = "link " + k;
      int at = in.position();
      long declared = old ? linkBuckets : readUnsigned(in, field + " numBuckets");
      if (declared != linkBuckets) {
        throw RdbInput.bad(
            field + " numBuckets",
            at,
            Long.toUnsignedString(declared)
                + " (expected: "
                + linkBuckets
                + ", numBuckets × expansion^"
                + k
                + ")");
      }
      requireOpcode(in, field, OPCODE_STRING);
      byte[] slots = in.readString(field, linkBuckets * bucketSize);
      try {
        filter.loadDumpChunk(start + slots.length + 1, slots);
      } catch (FilterFormatException e) {
        throw RdbInput.bad(field, at, e.getMessage());
      }
      start += slots.length;
      linkBuckets *= expansion;
    }
    int at = in.position();
    long eof = in.readLength("EOF");
    if (eof != OPCODE_EOF) {
      throw RdbInput.bad("EOF", at, "opcode " + Long.toUnsignedString(eof) + " (expected: 0)");
    }
    return filter;
  }

  private static long readUnsigned(RdbInput in, String field) {
    requireOpcode(in, field, OPCODE_UINT);
    return in.readLength(field);
  }

  private static void requireOpcode(RdbInput in, String field, int opcode) {
    int at = in.position();
    long found = in.readLength(field + " opcode");
    if (found != opcode) {
      throw RdbInput.bad(
          field + " opcode", at, Long.toUnsignedString(found) + " (expected: " + opcode + ")");
    }
  }

  private static void requireSixteenBits(String field, long value, long min) {
    if (value < min || value > 0xFFFF) {
      throw RdbInput.bad(
          field, -1, Long.toUnsignedString(value) + " (expected: " + min + " to 65535, 16 bits)");
    }
  }

  /**
   * Checks, before anything is allocated, that the links the header implies (link k has numBuckets
   * × expansion^k buckets) each fit in one array and together can be described by the bytes that
   * remain: at most {@link Lzf#MAX_RATIO} plain bytes per payload byte.
   */
  private static void requireLinksFit(
      long links, long buckets, long bucketSize, long expansion, int remaining) {
    long limit = (long) remaining * Lzf.MAX_RATIO;
    long total = 0;
    long linkBuckets = buckets;
    for (long k = 0; k < links; k++) {
      long bytes;
      try {
        bytes = Math.multiplyExact(linkBuckets, bucketSize);
        total = Math.addExact(total, bytes);
        linkBuckets = Math.multiplyExact(linkBuckets, expansion);
      } catch (ArithmeticException e) {
        bytes = Long.MAX_VALUE;
        total = Long.MAX_VALUE;
      }
      if (bytes > LARGEST_LINK_BYTES || total > limit) {
        throw RdbInput.bad(
            "numBuckets",
            -1,
            buckets
                + " × expansion "
                + expansion
                + "^"
                + k
                + " × bucketSize "
                + bucketSize
                + ": links of "
                + (total == Long.MAX_VALUE ? "over 2^63" : total)
                + " bytes (expected: <= "
                + Math.min(limit, LARGEST_LINK_BYTES)
                + ", what "
                + remaining
                + " payload bytes can hold)");
      }
    }
  }
}
