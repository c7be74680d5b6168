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

  /** Reads one filter (header, payload, CRC32C) from {@code in}, leaving it just after the CRC. */
  static <T> CuckooFilter<T> read(InputStream in, ItemHasher<? super T> hasher) throws IOException {
    return read(FormatInput.of(in), hasher);
  }

  /** Reads the file {@code path}, which must hold exactly one filter. */
  static <T> CuckooFilter<T> read(Path path, ItemHasher<? super T> hasher) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      long length = Files.isRegularFile(path) ? channel.size() : -1;
      FormatInput input = new FormatInput(Channels.newInputStream(channel), length);
      CuckooFilter<T> filter = read(input, hasher);
      if (input.remaining() > 0) {
        throw new FilterFormatException(
            "end",
            input.offset(),
            input.remaining() + " bytes after the filter's CRC32C (expected: end of file)");
      }
      return filter;
    }
  }

  private static <T> CuckooFilter<T> read(FormatInput input, ItemHasher<? super T> hasher)
      throws IOException {
    Checks.requireNonNull(hasher, "hasher");
    input.resetCrc();
    return readLink(input, hasher, true);
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
    long base = input.offset();
    byte[] bytes = new byte[FilterHeader.BYTES];
    input.readFully(bytes, 0, bytes.length, "header");
    FilterHeader header = FilterHeader.decode(bytes, base);
    header.checkHasher(hasher, base);
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
