package dev.cuckoo;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes the binary form of a {@link ScalableCuckooFilter} (the {@link Scheme#STANDARD}
 * chain) or a {@link RedisCuckooFilter} (the {@link Scheme#REDISBLOOM} chain): an 80-byte chain
 * header, the links, and one CRC32C of everything (docs/FORMAT.md, "Chained filters").
 */
final class ChainFormat {
  /** 0x89, "CKCHAIN": the chain's magic, distinct from a single filter's. */
  static final long MAGIC = 0x4E494148434B4389L;

  static final int VERSION = 1;
  static final int HEADER_BYTES = 80;

  /**
   * Most links of a STANDARD chain a reader accepts (growth 1.1 from 1 item reaches 2^36 in 264).
   */
  static final int MAX_STANDARD_LINKS = 1024;

  static final int OFFSET_MAGIC = 0;
  static final int OFFSET_VERSION = 8;
  static final int OFFSET_SCHEME = 10;
  static final int OFFSET_FLAGS = 11;
  static final int OFFSET_HASHER_ID = 12;
  static final int OFFSET_LINK_COUNT = 16;
  static final int OFFSET_MAX_KICKS = 20;
  static final int OFFSET_BUCKET_SIZE = 24;
  static final int OFFSET_EXPANSION = 26;
  static final int OFFSET_RESERVED = 28;

  /** STANDARD: the {@code reserved} field holds the links a final-size hint covers (0: none). */
  static final int OFFSET_HINTED_LINKS = OFFSET_RESERVED;

  static final int OFFSET_BASE = 32;
  static final int OFFSET_GROWTH = 40;
  static final int OFFSET_RATE = 48;
  static final int OFFSET_SEED = 56;
  static final int OFFSET_ITEMS = 64;
  static final int OFFSET_DELETES = 72;

  private ChainFormat() {}

  /** Returns the number of bytes {@link #write} writes for {@code chain} as it is now. */
  static long serializedBytes(StandardChain<?> chain) {
    long bytes = HEADER_BYTES + FilterFormat.CRC_BYTES;
    for (CuckooFilter<?> link : chain.links()) {
      bytes += FilterHeader.BYTES + link.table().payloadBytes();
    }
    return bytes;
  }

  /** Returns the number of bytes {@link #writeRedis} writes for {@code chain} as it is now. */
  static long serializedBytes(RedisChain chain) {
    long bytes = HEADER_BYTES + FilterFormat.CRC_BYTES;
    for (RedisLink link : chain.links()) {
      bytes += link.table.payloadBytes();
    }
    return bytes;
  }

  /** Writes a STANDARD chain: the header, every link with its own header, the CRC. */
  static void write(StandardChain<?> chain, ItemHasher<?> hasher, OutputStream out)
      throws IOException {
    FormatOutput output = new FormatOutput(out);
    ByteBuffer header =
        header(
            Scheme.STANDARD,
            hasher,
            chain.linkCount(),
            chain.maxKicks(),
            chain.bucketSize(),
            chain.size(),
            chain.deletedCount());
    header.putLong(OFFSET_BASE, chain.initialCapacity());
    header.putDouble(OFFSET_GROWTH, chain.growthFactor());
    header.putDouble(OFFSET_RATE, chain.falsePositiveRate());
    header.putLong(OFFSET_SEED, chain.seed());
    header.putInt(OFFSET_HINTED_LINKS, chain.hintedLinks());
    output.write(header.array(), 0, HEADER_BYTES);
    for (CuckooFilter<?> link : chain.links()) {
      FilterFormat.writeLink(link, output);
    }
    output.writeCrc();
    out.flush();
  }

  /** Returns the number of bytes {@link #writeRedis} writes for {@code compact}. */
  static long serializedBytes(CompactRedisChain compact) {
    return HEADER_BYTES + compact.baseBucketCount() * compact.bucketSize() + FilterFormat.CRC_BYTES;
  }

  /**
   * Writes a one-link RedisBloom filter in the compact form: its slots as they are, the same bytes
   * as its expanded RedisChain, without expanding it.
   */
  static void writeRedis(CompactRedisChain compact, ItemHasher<?> hasher, OutputStream out)
      throws IOException {
    FormatOutput output = writeRedisHeader(compact, hasher, out);
    compact.writePayload(output);
    output.writeCrc();
    out.flush();
  }

  /** Writes a RedisBloom chain: the header, every link's slots as they are, the CRC. */
  static void writeRedis(RedisChain chain, ItemHasher<?> hasher, OutputStream out)
      throws IOException {
    FormatOutput output = writeRedisHeader(chain, hasher, out);
    for (RedisLink link : chain.links()) {
      output.writePayload(link.table);
    }
    output.writeCrc();
    out.flush();
  }

  /** Writes the header of a RedisBloom chain of either form; returns the output for the slots. */
  private static FormatOutput writeRedisHeader(Chain chain, ItemHasher<?> hasher, OutputStream out)
      throws IOException {
    FormatOutput output = new FormatOutput(out);
    output.write(redisHeader(chain, hasher), 0, HEADER_BYTES);
    return output;
  }

  /** Returns the header of a RedisBloom chain of either form as it is now. */
  static byte[] redisHeader(Chain chain, ItemHasher<?> hasher) {
    ByteBuffer header =
        header(
            Scheme.REDISBLOOM,
            hasher,
            chain.linkCount(),
            chain.maxKicks(),
            chain.bucketSize(),
            chain.size(),
            chain.deletedCount());
    header.putShort(OFFSET_EXPANSION, (short) chain.expansion());
    header.putLong(OFFSET_BASE, chain.baseBucketCount());
    return header.array();
  }

  /** Returns a header buffer with the fields both schemes have; the rest is zero. */
  private static ByteBuffer header(
      Scheme scheme,
      ItemHasher<?> hasher,
      int linkCount,
      int maxKicks,
      int bucketSize,
      long items,
      long deletes) {
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    header.putLong(OFFSET_MAGIC, MAGIC);
    header.putShort(OFFSET_VERSION, (short) VERSION);
    header.put(OFFSET_SCHEME, (byte) scheme.id());
    header.putInt(OFFSET_HASHER_ID, Math.max(0, hasher.id()));
    header.putInt(OFFSET_LINK_COUNT, linkCount);
    header.putInt(OFFSET_MAX_KICKS, maxKicks);
    header.putShort(OFFSET_BUCKET_SIZE, (short) bucketSize);
    header.putLong(OFFSET_ITEMS, items);
    header.putLong(OFFSET_DELETES, deletes);
    return header;
  }

  /**
   * Reads a chain of either scheme: a {@link RedisCuckooFilter} for {@link Scheme#REDISBLOOM}, a
   * {@link ScalableCuckooFilter} for {@link Scheme#STANDARD}.
   */
  static <T> MembershipFilter<T> read(InputStream in, ItemHasher<? super T> hasher)
      throws IOException {
    LinksReader<MembershipFilter<T>> either =
        (header, input) ->
            scheme(header) == Scheme.REDISBLOOM
                ? readRedis(header, input, hasher)
                : readStandard(header, input, hasher);
    return read(in, hasher, null, either);
  }

  /** Reads a RedisBloom chain; a STANDARD one is refused as a format error. */
  static <T> RedisCuckooFilter<T> readRedis(InputStream in, ItemHasher<? super T> hasher)
      throws IOException {
    return read(in, hasher, Scheme.REDISBLOOM, (header, input) -> readRedis(header, input, hasher));
  }

  /** Reads a STANDARD chain; a RedisBloom one is refused as a format error. */
  static <T> ScalableCuckooFilter<T> readStandard(InputStream in, ItemHasher<? super T> hasher)
      throws IOException {
    return read(
        in, hasher, Scheme.STANDARD, (header, input) -> readStandard(header, input, hasher));
  }

  /** Reads what follows a chain's header: the links of one scheme. */
  private interface LinksReader<F> {
    F read(ByteBuffer header, FormatInput input) throws IOException;
  }

  /** Reads the header, checked against {@code expected}, then the links, then the CRC32C. */
  private static <F> F read(
      InputStream in, ItemHasher<?> hasher, Scheme expected, LinksReader<F> links)
      throws IOException {
    FormatInput input = FormatInput.of(in);
    F filter = links.read(checkedHeader(input, hasher, expected), input);
    input.readAndCheckCrc("crc32c");
    return filter;
  }

  /**
   * Reads the header; a chain of another scheme than {@code expected} (unless null) is refused as a
   * format error naming the class that reads it.
   */
  private static ByteBuffer checkedHeader(FormatInput input, ItemHasher<?> hasher, Scheme expected)
      throws IOException {
    ByteBuffer header = readHeader(input, Checks.requireNonNull(hasher, "hasher"));
    Scheme scheme = scheme(header);
    if (expected != null && (scheme == Scheme.REDISBLOOM) != (expected == Scheme.REDISBLOOM)) {
      throw new FilterFormatException(
          "scheme",
          OFFSET_SCHEME,
          scheme.id()
              + " (expected: "
              + expected.id()
              + ", a "
              + expected
              + " chain, which "
              + reader(expected)
              + " holds; read a "
              + scheme
              + " chain with "
              + reader(scheme)
              + ".readFrom or FilterFile.read)");
    }
    return header;
  }

  /** Returns the class that holds a chain of {@code scheme}. */
  private static String reader(Scheme scheme) {
    return scheme == Scheme.REDISBLOOM ? "RedisCuckooFilter" : "ScalableCuckooFilter";
  }

  /** Reads and checks the fields both schemes share: magic, version, flags, hasher, scheme. */
  private static ByteBuffer readHeader(FormatInput input, ItemHasher<?> hasher) throws IOException {
    byte[] bytes = new byte[HEADER_BYTES];
    input.readFully(bytes, 0, HEADER_BYTES, "header");
    ByteBuffer header = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    if (header.getLong(OFFSET_MAGIC) != MAGIC) {
      throw new FilterFormatException(
          "magic",
          OFFSET_MAGIC,
          String.format(
              "0x%016x (expected: 0x%016x, a chained filter)",
              header.getLong(OFFSET_MAGIC), MAGIC));
    }
    int version = header.getShort(OFFSET_VERSION) & 0xFFFF;
    require("version", OFFSET_VERSION, version, VERSION, VERSION);
    require("flags", OFFSET_FLAGS, header.get(OFFSET_FLAGS), 0, 0);
    int hasherId = header.getInt(OFFSET_HASHER_ID);
    require("hasherId", OFFSET_HASHER_ID, hasherId, 0, Integer.MAX_VALUE);
    if (hasherId != 0 && hasher.id() > 0 && hasher.id() != hasherId) {
      throw new FilterFormatException(
          "hasherId",
          OFFSET_HASHER_ID,
          "the filter was written with hasher id "
              + hasherId
              + " but is being read with "
              + hasher
              + " (id "
              + hasher.id()
              + "); read it with the same hasher");
    }
    scheme(header);
    return header;
  }

  /** Returns the header's scheme, refusing an unknown id. */
  private static Scheme scheme(ByteBuffer header) {
    Scheme scheme = Scheme.byId(header.get(OFFSET_SCHEME) & 0xFF);
    if (scheme == null) {
      throw new FilterFormatException(
          "scheme", OFFSET_SCHEME, (header.get(OFFSET_SCHEME) & 0xFF) + " (expected: 1 or 2)");
    }
    return scheme;
  }

  private static <T> RedisCuckooFilter<T> readRedis(
      ByteBuffer header, FormatInput input, ItemHasher<? super T> hasher) throws IOException {
    require("reserved", OFFSET_RESERVED, header.getInt(OFFSET_RESERVED), 0, 0);
    require("growthFactor", OFFSET_GROWTH, header.getLong(OFFSET_GROWTH), 0, 0);
    require("falsePositiveRate", OFFSET_RATE, header.getLong(OFFSET_RATE), 0, 0);
    require("seed", OFFSET_SEED, header.getLong(OFFSET_SEED), 0, 0);
    int links = header.getInt(OFFSET_LINK_COUNT);
    require("linkCount", OFFSET_LINK_COUNT, links, 1, RedisChain.MAX_LINKS);
    int maxKicks = header.getInt(OFFSET_MAX_KICKS);
    require("maxKicks", OFFSET_MAX_KICKS, maxKicks, 1, RedisChain.MAX_ITERATIONS);
    int bucketSize = header.getShort(OFFSET_BUCKET_SIZE) & 0xFFFF;
    int expansion = header.getShort(OFFSET_EXPANSION) & 0xFFFF;
    long base = header.getLong(OFFSET_BASE);
    long payload = RedisChain.payloadBytes(base, bucketSize, expansion, links);
    if (payload >= 0) {
      input.requireAvailable("payload", HEADER_BYTES, payload + FilterFormat.CRC_BYTES);
    }
    byte[] redisHeader =
        ByteBuffer.allocate(RedisDump.HEADER_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putLong(header.getLong(OFFSET_ITEMS))
            .putLong(base)
            .putLong(header.getLong(OFFSET_DELETES))
            .putLong(links)
            .putShort((short) bucketSize)
            .putShort((short) maxKicks)
            .putShort((short) expansion)
            .array();
    RedisChain chain;
    try {
      chain = RedisDump.load(redisHeader);
    } catch (FilterFormatException e) {
      throw new FilterFormatException(e.field(), chainOffset(e.field()), e.getMessage(), e);
    }
    for (int i = 0; i < chain.linkCount(); i++) {
      RedisLink link = chain.links().get(i);
      input.readPayload(link.table, "payload");
      link.recount();
      chain.occupancyChanged(i);
    }
    return RedisCuckooFilter.wrap(hasher, chain);
  }

  private static int chainOffset(String redisField) {
    switch (redisField) {
      case "numBuckets":
        return OFFSET_BASE;
      case "numFilters":
        return OFFSET_LINK_COUNT;
      case "bucketSize":
        return OFFSET_BUCKET_SIZE;
      case "maxIterations":
        return OFFSET_MAX_KICKS;
      case "expansion":
        return OFFSET_EXPANSION;
      default:
        return -1;
    }
  }

  private static <T> ScalableCuckooFilter<T> readStandard(
      ByteBuffer header, FormatInput input, ItemHasher<? super T> hasher) throws IOException {
    int links = header.getInt(OFFSET_LINK_COUNT);
    require("linkCount", OFFSET_LINK_COUNT, links, 1, MAX_STANDARD_LINKS);
    int maxKicks = header.getInt(OFFSET_MAX_KICKS);
    require("maxKicks", OFFSET_MAX_KICKS, maxKicks, 0, CuckooFilter.MAX_KICKS_LIMIT);
    int bucketSize = header.getShort(OFFSET_BUCKET_SIZE) & 0xFFFF;
    if (bucketSize != 2 && bucketSize != 4 && bucketSize != 8) {
      throw new FilterFormatException(
          "bucketSize", OFFSET_BUCKET_SIZE, bucketSize + " (expected: 2, 4 or 8)");
    }
    require("expansion", OFFSET_EXPANSION, header.getShort(OFFSET_EXPANSION), 0, 0);
    long initial = header.getLong(OFFSET_BASE);
    require("initialCapacity", OFFSET_BASE, initial, 1, Sizing.MAX_EXPECTED_ITEMS);
    double growth = header.getDouble(OFFSET_GROWTH);
    if (!(growth >= 1.1 && growth <= 64)) {
      throw new FilterFormatException(
          "growthFactor", OFFSET_GROWTH, growth + " (expected: 1.1 <= growthFactor <= 64)");
    }
    double rate = header.getDouble(OFFSET_RATE);
    if (!(rate > 0 && rate < 1)) {
      throw new FilterFormatException(
          "falsePositiveRate", OFFSET_RATE, rate + " (expected: 0 < falsePositiveRate < 1)");
    }
    long seed = header.getLong(OFFSET_SEED);
    long items = header.getLong(OFFSET_ITEMS);
    long removes = header.getLong(OFFSET_DELETES);
    require("deletes", OFFSET_DELETES, removes, 0, Long.MAX_VALUE);
    int hinted = header.getInt(OFFSET_HINTED_LINKS);
    require("hintedLinks", OFFSET_HINTED_LINKS, hinted, 0, MAX_STANDARD_LINKS);
    // a chain of no links yet, to replay the sizing of each link as it is read
    StandardChain<T> shape;
    try {
      shape =
          new StandardChain<>(
              hasher, initial, growth, rate, bucketSize, maxKicks, seed, List.of(), 0, hinted);
    } catch (IllegalArgumentException e) {
      throw new FilterFormatException(
          "hintedLinks",
          OFFSET_HINTED_LINKS,
          hinted + " (expected: links the chain can plan: " + e.getMessage() + ")",
          e);
    }
    List<CuckooFilter<T>> read = new ArrayList<>();
    long size = 0;
    for (int k = 0; k < links; k++) {
      long at = input.offset();
      CuckooFilter<T> link = FilterFormat.readLink(input, hasher, false);
      int bits = shape.nextLinkBits();
      long buckets;
      try {
        buckets = shape.linkBuckets(shape.linkItems(k));
      } catch (IllegalArgumentException e) {
        throw new FilterFormatException(
            "initialCapacity",
            OFFSET_BASE,
            "link " + k + " would be too large: " + e.getMessage(),
            e);
      }
      if (link.scheme() != StandardChain.LINK_SCHEME
          || link.isSemiSorted()
          || link.fingerprintBits() != bits
          || link.bucketCount() != buckets
          || link.bucketSize() != bucketSize
          || link.maxKicks() != maxKicks
          || link.seed() != seed
          || link.size() > link.capacity()) {
        throw new FilterFormatException(
            "link",
            at,
            "link "
                + k
                + " ("
                + link
                + ") does not match the chain: expected "
                + StandardChain.LINK_SCHEME
                + ", "
                + buckets
                + " buckets of "
                + bucketSize
                + " slots of "
                + bits
                + " bits, maxKicks "
                + maxKicks
                + ", seed "
                + seed);
      }
      shape.appendLink(link);
      read.add(link);
      size += link.size();
    }
    if (size != items) {
      throw new FilterFormatException(
          "items", OFFSET_ITEMS, items + " but the links hold " + size + " fingerprints (corrupt)");
    }
    return ScalableCuckooFilter.of(
        hasher,
        new StandardChain<>(
            hasher, initial, growth, rate, bucketSize, maxKicks, seed, read, removes, hinted));
  }

  private static void require(String field, int offset, long value, long min, long max) {
    if (value < min || value > max) {
      throw new FilterFormatException(
          field, offset, value + " (expected: " + min + " <= " + field + " <= " + max + ")");
    }
  }
}
