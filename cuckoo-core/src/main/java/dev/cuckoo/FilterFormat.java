package dev.cuckoo;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads and writes the binary form of a {@link CuckooFilter}: a {@link FilterHeader}, the table
 * payload, and a CRC32C of both (docs/FORMAT.md).
 *
 * <p>The payload is streamed page by page between the stream and the table, so writing or reading a
 * filter of any size needs no second copy of its table. Reading validates every header field before
 * allocating, checks the CRC, and recounts the occupied slots, so corrupt input raises {@link
 * FilterFormatException} rather than yielding a filter that answers wrong.
 */
final class FilterFormat {
  /** Size of the CRC32C trailer. */
  static final int CRC_BYTES = 4;

  private FilterFormat() {}

  /** Returns the bytes of a serialized filter whose table payload is {@code payloadBytes}. */
  static long serializedBytes(long payloadBytes) {
    return FilterHeader.BYTES + payloadBytes + CRC_BYTES;
  }

  /** Writes {@code filter} (header, payload, CRC32C) to {@code out}; does not close it. */
  static void write(CuckooFilter<?> filter, OutputStream out) throws IOException {
    FormatOutput output = new FormatOutput(out);
    writeLink(filter, output);
    output.writeCrc();
    out.flush();
  }

  /** Writes {@code filter} to the file {@code path}, replacing it if it exists. */
  static void write(CuckooFilter<?> filter, Path path) throws IOException {
    try (OutputStream out =
        new BufferedOutputStream(
            Files.newOutputStream(
                path,
                StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE),
            FormatInput.CHUNK_BYTES)) {
      write(filter, out);
    }
  }

  /**
   * Which class a single filter is read into: a {@link CuckooFilter} ({@link Scheme#REDISBLOOM}
   * refused), a {@link RedisCuckooFilter} (only {@link Scheme#REDISBLOOM}), or whichever the scheme
   * asks for.
   */
  enum Reader {
    CUCKOO_FILTER,
    REDIS_CUCKOO_FILTER,
    ANY
  }

  /**
   * Reads one {@link CuckooFilter} (header, payload, CRC32C) from {@code in}, leaving it just after
   * the CRC; a {@link Scheme#REDISBLOOM} filter is refused before its table is allocated.
   */
  static <T> CuckooFilter<T> read(InputStream in, ItemHasher<? super T> hasher) throws IOException {
    return (CuckooFilter<T>) FilterFormat.<T>read(FormatInput.of(in), hasher, Reader.CUCKOO_FILTER);
  }

  /** Reads the file {@code path}, which must hold exactly one {@link CuckooFilter}. */
  static <T> CuckooFilter<T> read(Path path, ItemHasher<? super T> hasher) throws IOException {
    return (CuckooFilter<T>) FilterFormat.<T>read(path, hasher, Reader.CUCKOO_FILTER);
  }

  /**
   * Reads one single filter from {@code in} as {@code reader} says: a {@link Scheme#REDISBLOOM}
   * filter becomes a one-link {@link RedisCuckooFilter} that never grows (expansion 0).
   */
  static <T> MembershipFilter<T> read(InputStream in, ItemHasher<? super T> hasher, Reader reader)
      throws IOException {
    return read(FormatInput.of(in), hasher, reader);
  }

  /** Reads the file {@code path}, which must hold exactly one single filter, as {@code reader}. */
  static <T> MembershipFilter<T> read(Path path, ItemHasher<? super T> hasher, Reader reader)
      throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      long length = Files.isRegularFile(path) ? channel.size() : -1;
      FormatInput input = new FormatInput(Channels.newInputStream(channel), length);
      MembershipFilter<T> filter = read(input, hasher, reader);
      if (input.remaining() > 0) {
        throw new FilterFormatException(
            "end",
            input.offset(),
            input.remaining() + " bytes after the filter's CRC32C (expected: end of file)");
      }
      return filter;
    }
  }

  private static <T> MembershipFilter<T> read(
      FormatInput input, ItemHasher<? super T> hasher, Reader reader) throws IOException {
    Checks.requireNonNull(hasher, "hasher");
    input.resetCrc();
    CuckooFilter<T> filter = readLink(input, hasher, true, reader);
    return filter.scheme() == Scheme.REDISBLOOM ? RedisCuckooFilter.ofSingle(filter) : filter;
  }

  /**
   * Writes a filter's header and payload, without a CRC: the framing of one link of a chained
   * filter, whose caller decides where the CRC goes.
   */
  static void writeLink(CuckooFilter<?> filter, FormatOutput output) throws IOException {
    byte[] header = FilterHeader.of(filter).encode();
    output.write(header, 0, header.length);
    output.writePayload(filter.table());
  }

  /**
   * Reads a header and payload written by {@link #writeLink}, validating the header before
   * allocating and the payload after reading (unused trailing bits zero, semi-sorted buckets
   * canonically encoded, occupied slots equal to the item count).
   *
   * @param checkCrc if true, a CRC32C of the bytes read since the input's last {@link
   *     FormatInput#resetCrc()} follows the payload and is checked before the payload is inspected;
   *     if false the caller checks a CRC that covers these bytes later
   */
  static <T> CuckooFilter<T> readLink(
      FormatInput input, ItemHasher<? super T> hasher, boolean checkCrc) throws IOException {
    return readLink(input, hasher, checkCrc, null);
  }

  /**
   * {@link #readLink(FormatInput, ItemHasher, boolean)} refusing what {@code reader} cannot hold
   * (null: a link of a chain, which the chain checks).
   */
  private static <T> CuckooFilter<T> readLink(
      FormatInput input, ItemHasher<? super T> hasher, boolean checkCrc, Reader reader)
      throws IOException {
    long base = input.offset();
    byte[] bytes = new byte[FilterHeader.BYTES];
    input.readFully(bytes, 0, bytes.length, "header");
    FilterHeader header = FilterHeader.decode(bytes, base);
    header.checkHasher(hasher, base);
    checkReader(header, reader, base);
    long payloadOffset = base + FilterHeader.BYTES;
    input.requireAvailable(
        "payloadLength",
        base + FilterHeader.OFFSET_PAYLOAD_LENGTH,
        header.payloadLength + (checkCrc ? CRC_BYTES : 0));
    CuckooFilter<T> filter = header.newFilter(hasher, base);
    BucketTable table = filter.table();
    input.readPayload(table, "payload");
    if (checkCrc) {
      input.readAndCheckCrc("crc32c");
    }
    checkUnusedBits(table, payloadOffset);
    if (table instanceof SemiSortedTable semiSorted) {
      semiSorted.checkEncoding(payloadOffset);
    }
    long occupied = table.countOccupied();
    if (occupied != header.itemCount) {
      throw new FilterFormatException(
          "itemCount",
          base + FilterHeader.OFFSET_ITEM_COUNT,
          header.itemCount + " but the payload holds " + occupied + " fingerprints (corrupt)");
    }
    filter.setSize(occupied);
    return filter;
  }

  /**
   * Refuses, before anything is allocated, a filter that {@code reader} cannot hold: a {@link
   * Scheme#REDISBLOOM} filter as a {@link CuckooFilter}, any other as a {@link RedisCuckooFilter},
   * and a {@link Scheme#REDISBLOOM} filter whose max kicks are outside RedisBloom's MAXITERATIONS.
   */
  private static void checkReader(FilterHeader header, Reader reader, long base) {
    if (reader == null) {
      return;
    }
    boolean redis = header.scheme == Scheme.REDISBLOOM;
    int schemeByte = FilterHeader.schemeByte(header.scheme, header.semiSorted);
    if (redis && reader == Reader.CUCKOO_FILTER) {
      throw new FilterFormatException(
          "scheme",
          base + FilterHeader.OFFSET_SCHEME,
          schemeByte
              + ", a REDISBLOOM filter (expected: 1, 3, 4 or 5 for a CuckooFilter; a REDISBLOOM"
              + " filter is a RedisCuckooFilter: read it with RedisCuckooFilter.readFrom or"
              + " FilterFile.read)");
    }
    if (!redis && reader == Reader.REDIS_CUCKOO_FILTER) {
      throw new FilterFormatException(
          "scheme",
          base + FilterHeader.OFFSET_SCHEME,
          schemeByte
              + ", a "
              + header.scheme
              + " filter (expected: 2, a REDISBLOOM filter, for a RedisCuckooFilter; read it with"
              + " CuckooFilter.readFrom or FilterFile.read)");
    }
    if (redis && (header.maxKicks < 1 || header.maxKicks > RedisCuckooFilter.MAX_ITERATIONS)) {
      throw new FilterFormatException(
          "maxKicks",
          base + FilterHeader.OFFSET_MAX_KICKS,
          header.maxKicks
              + " (expected: 1 to "
              + RedisCuckooFilter.MAX_ITERATIONS
              + " for a REDISBLOOM filter, RedisBloom's MAXITERATIONS)");
    }
  }

  /** Fails if bits after the last slot in the last payload byte are set. */
  private static void checkUnusedBits(BucketTable table, long payloadOffset) {
    long bits = table.bucketCount() * table.bucketSize() * table.fingerprintBits();
    int used = (int) (bits & 7);
    if (used == 0) {
      return;
    }
    int last = table.pageCount() - 1;
    int index = table.pagePayloadBytes(last) - 1;
    int value = table.page(last)[index] & 0xFF;
    if ((value >>> used) != 0) {
      throw new FilterFormatException(
          "payload",
          payloadOffset + table.payloadBytes() - 1,
          String.format(
              "last byte 0x%02x has bits set after the last slot (expected: the top %d bits zero)",
              value, 8 - used));
    }
  }
}
