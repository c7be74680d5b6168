package dev.cuckoo;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The fixed-size header of a serialized {@link CuckooFilter}: magic, format version, scheme,
 * geometry, seed, counts and the payload length, {@value #BYTES} bytes, little-endian.
 *
 * <p>{@link #decode} checks every field against its limits before anything is allocated; {@link
 * #newFilter} then allocates the table. Also used to frame each link of a chained filter.
 * docs/FORMAT.md documents the layout byte by byte.
 */
final class FilterHeader {
  /**
   * The magic bytes at offset 0: 0x89 "CUCKOO" 0x0A (the high byte and LF catch text-mode copies).
   */
  static final long MAGIC = 0x0A4F4F4B43554389L;

  /** The format version: the one this library writes and the only one it reads. */
  static final int VERSION = 1;

  /** Size of the header in bytes. */
  static final int BYTES = 64;

  static final int OFFSET_MAGIC = 0;
  static final int OFFSET_VERSION = 8;
  static final int OFFSET_SCHEME = 10;
  static final int OFFSET_FINGERPRINT_BITS = 11;
  static final int OFFSET_BUCKET_SIZE = 12;
  static final int OFFSET_FLAGS = 14;
  static final int OFFSET_HASHER_ID = 16;
  static final int OFFSET_MAX_KICKS = 20;
  static final int OFFSET_BUCKET_COUNT = 24;
  static final int OFFSET_SEED = 32;
  static final int OFFSET_CAPACITY = 40;
  static final int OFFSET_ITEM_COUNT = 48;
  static final int OFFSET_PAYLOAD_LENGTH = 56;

  /**
   * The {@code scheme} byte of a {@link Scheme#STANDARD} filter whose buckets are semi-sorted
   * ({@link SemiSortedTable}): same index arithmetic, another table layout.
   */
  static final int SEMI_SORTED_SCHEME_ID = 3;

  /** The {@code scheme} byte of a {@link Scheme#STANDARD_FAST} filter with semi-sorted buckets. */
  static final int SEMI_SORTED_FAST_SCHEME_ID = 5;

  /** Returns the {@code scheme} byte of a filter of {@code scheme}, semi-sorted or not. */
  static int schemeByte(Scheme scheme, boolean semiSorted) {
    if (!semiSorted) {
      return scheme.id();
    }
    return scheme == Scheme.STANDARD_FAST ? SEMI_SORTED_FAST_SCHEME_ID : SEMI_SORTED_SCHEME_ID;
  }

  final Scheme scheme;
  final boolean semiSorted;
  final int fingerprintBits;
  final int bucketSize;
  final int hasherId;
  final int maxKicks;
  final long bucketCount;
  final long seed;
  final long capacity;
  final long itemCount;
  final long payloadLength;

  private FilterHeader(
      Scheme scheme,
      boolean semiSorted,
      int fingerprintBits,
      int bucketSize,
      int hasherId,
      int maxKicks,
      long bucketCount,
      long seed,
      long capacity,
      long itemCount,
      long payloadLength) {
    this.scheme = scheme;
    this.semiSorted = semiSorted;
    this.fingerprintBits = fingerprintBits;
    this.bucketSize = bucketSize;
    this.hasherId = hasherId;
    this.maxKicks = maxKicks;
    this.bucketCount = bucketCount;
    this.seed = seed;
    this.capacity = capacity;
    this.itemCount = itemCount;
    this.payloadLength = payloadLength;
  }

  /** Returns the header describing {@code filter} as it is now. */
  static FilterHeader of(CuckooFilter<?> filter) {
    return new FilterHeader(
        filter.scheme(),
        filter.isSemiSorted(),
        filter.fingerprintBits(),
        filter.bucketSize(),
        filter.hasher().id(),
        filter.maxKicks(),
        filter.bucketCount(),
        filter.seed(),
        filter.capacity(),
        filter.size(),
        filter.table().payloadBytes());
  }

  /** Returns the number of slots, {@code bucketCount × bucketSize}. */
  long slots() {
    return bucketCount * bucketSize;
  }

  /** Returns the {@value #BYTES} header bytes. */
  byte[] encode() {
    ByteBuffer buffer = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN);
    buffer.putLong(OFFSET_MAGIC, MAGIC);
    buffer.putShort(OFFSET_VERSION, (short) VERSION);
    buffer.put(OFFSET_SCHEME, (byte) schemeByte(scheme, semiSorted));
    buffer.put(OFFSET_FINGERPRINT_BITS, (byte) fingerprintBits);
    buffer.putShort(OFFSET_BUCKET_SIZE, (short) bucketSize);
    buffer.putShort(OFFSET_FLAGS, (short) 0);
    buffer.putInt(OFFSET_HASHER_ID, hasherId);
    buffer.putInt(OFFSET_MAX_KICKS, maxKicks);
    buffer.putLong(OFFSET_BUCKET_COUNT, bucketCount);
    buffer.putLong(OFFSET_SEED, seed);
    buffer.putLong(OFFSET_CAPACITY, capacity);
    buffer.putLong(OFFSET_ITEM_COUNT, itemCount);
    buffer.putLong(OFFSET_PAYLOAD_LENGTH, payloadLength);
    return buffer.array();
  }

  /**
   * Parses and validates a header.
   *
   * @param bytes at least {@value #BYTES} bytes, the header at index 0
   * @param base the stream offset of the header, added to the offsets in error messages
   * @return the header; every field is within its limits and consistent with the others
   * @throws FilterFormatException naming the first bad field
   */
  static FilterHeader decode(byte[] bytes, long base) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes, 0, BYTES).order(ByteOrder.LITTLE_ENDIAN);
    long magic = buffer.getLong(OFFSET_MAGIC);
    if (magic != MAGIC) {
      throw bad("magic", base + OFFSET_MAGIC, hex(magic) + " (expected: " + hex(MAGIC) + ")");
    }
    int version = Short.toUnsignedInt(buffer.getShort(OFFSET_VERSION));
    if (version != VERSION) {
      throw bad(
          "version",
          base + OFFSET_VERSION,
          version + " (expected: " + VERSION + "; written by a newer library?)");
    }
    int schemeId = Byte.toUnsignedInt(buffer.get(OFFSET_SCHEME));
    boolean semiSorted =
        schemeId == SEMI_SORTED_SCHEME_ID || schemeId == SEMI_SORTED_FAST_SCHEME_ID;
    Scheme scheme =
        schemeId == SEMI_SORTED_SCHEME_ID
            ? Scheme.STANDARD
            : schemeId == SEMI_SORTED_FAST_SCHEME_ID ? Scheme.STANDARD_FAST : Scheme.byId(schemeId);
    if (scheme == null) {
      throw bad(
          "scheme",
          base + OFFSET_SCHEME,
          schemeId
              + " (expected: 1 STANDARD, 2 REDISBLOOM, 3 STANDARD with semi-sorted buckets, 4"
              + " STANDARD_FAST or 5 STANDARD_FAST with semi-sorted buckets)");
    }
    boolean redis = scheme == Scheme.REDISBLOOM;
    int fingerprintBits = Byte.toUnsignedInt(buffer.get(OFFSET_FINGERPRINT_BITS));
    if (semiSorted
        && (fingerprintBits < SemiSortedTable.MIN_FINGERPRINT_BITS
            || fingerprintBits > SemiSortedTable.MAX_FINGERPRINT_BITS)) {
      throw bad(
          "fingerprintBits",
          base + OFFSET_FINGERPRINT_BITS,
          fingerprintBits
              + " (expected: "
              + SemiSortedTable.MIN_FINGERPRINT_BITS
              + " to "
              + SemiSortedTable.MAX_FINGERPRINT_BITS
              + " for semi-sorted buckets)");
    }
    if (redis ? fingerprintBits != 8 : fingerprintBits < 4 || fingerprintBits > 32) {
      throw bad(
          "fingerprintBits",
          base + OFFSET_FINGERPRINT_BITS,
          fingerprintBits + (redis ? " (expected: 8 for REDISBLOOM)" : " (expected: 4 to 32)"));
    }
    int bucketSize = Short.toUnsignedInt(buffer.getShort(OFFSET_BUCKET_SIZE));
    if (semiSorted && bucketSize != SemiSortedTable.BUCKET_SIZE) {
      throw bad(
          "bucketSize",
          base + OFFSET_BUCKET_SIZE,
          bucketSize + " (expected: " + SemiSortedTable.BUCKET_SIZE + " for semi-sorted buckets)");
    }
    if (redis
        ? bucketSize < 1 || bucketSize > 255
        : bucketSize != 2 && bucketSize != 4 && bucketSize != 8) {
      throw bad(
          "bucketSize",
          base + OFFSET_BUCKET_SIZE,
          bucketSize + (redis ? " (expected: 1 to 255 for REDISBLOOM)" : " (expected: 2, 4 or 8)"));
    }
    int flags = Short.toUnsignedInt(buffer.getShort(OFFSET_FLAGS));
    if (flags != 0) {
      throw bad("flags", base + OFFSET_FLAGS, flags + " (expected: 0)");
    }
    int hasherId = buffer.getInt(OFFSET_HASHER_ID);
    if (hasherId < 0) {
      throw bad("hasherId", base + OFFSET_HASHER_ID, hasherId + " (expected: >= 0)");
    }
    int maxKicks = buffer.getInt(OFFSET_MAX_KICKS);
    if (maxKicks < 0 || maxKicks > CuckooFilter.MAX_KICKS_LIMIT) {
      throw bad(
          "maxKicks",
          base + OFFSET_MAX_KICKS,
          maxKicks + " (expected: 0 to " + CuckooFilter.MAX_KICKS_LIMIT + ")");
    }
    long bucketCount = buffer.getLong(OFFSET_BUCKET_COUNT);
    checkBucketCount(scheme, bucketCount, bucketSize, base + OFFSET_BUCKET_COUNT);
    long slots = bucketCount * bucketSize;
    long seed = buffer.getLong(OFFSET_SEED);
    if (redis && seed != 0) {
      throw bad("seed", base + OFFSET_SEED, seed + " (expected: 0 for REDISBLOOM)");
    }
    long capacity = buffer.getLong(OFFSET_CAPACITY);
    if (redis ? capacity != slots : capacity < 1 || capacity > slots) {
      throw bad(
          "capacity",
          base + OFFSET_CAPACITY,
          capacity
              + (redis
                  ? " (expected: " + slots + " = bucketCount × bucketSize for REDISBLOOM)"
                  : " (expected: 1 to " + slots + " = bucketCount × bucketSize)"));
    }
    long itemCount = buffer.getLong(OFFSET_ITEM_COUNT);
    if (itemCount < 0 || itemCount > slots) {
      throw bad(
          "itemCount",
          base + OFFSET_ITEM_COUNT,
          itemCount + " (expected: 0 to " + slots + " = bucketCount × bucketSize)");
    }
    long payloadLength = buffer.getLong(OFFSET_PAYLOAD_LENGTH);
    long expected =
        semiSorted
            ? SemiSortedTable.payloadBytes(bucketCount, fingerprintBits)
            : BucketTable.payloadBytes(bucketCount, bucketSize, fingerprintBits);
    if (payloadLength != expected) {
      throw bad(
          "payloadLength",
          base + OFFSET_PAYLOAD_LENGTH,
          payloadLength + " (expected: " + expected + " for this geometry)");
    }
    return new FilterHeader(
        scheme,
        semiSorted,
        fingerprintBits,
        bucketSize,
        hasherId,
        maxKicks,
        bucketCount,
        seed,
        capacity,
        itemCount,
        payloadLength);
  }

  private static void checkBucketCount(
      Scheme scheme, long bucketCount, int bucketSize, long offset) {
    long max = BucketTable.maxBucketCount(bucketSize);
    if (scheme == Scheme.REDISBLOOM) {
      if (bucketCount < 1 || bucketCount > max || Long.bitCount(bucketCount) != 1) {
        throw bad(
            "bucketCount",
            offset,
            bucketCount + " (expected: a power of two from 1 to " + max + " for REDISBLOOM)");
      }
    } else {
      max = Math.min(max, Sizing.MAX_STANDARD_BUCKETS);
      if (bucketCount < 2 || bucketCount > max || (bucketCount & 1) != 0) {
        throw bad("bucketCount", offset, bucketCount + " (expected: even, 2 to " + max + ")");
      }
    }
  }

  /**
   * Refuses {@code hasher} if both it and the header name a hasher id and the ids differ; 0 (a
   * custom hasher) on either side is not checked.
   */
  void checkHasher(ItemHasher<?> hasher, long base) {
    int id = hasher.id();
    if (hasherId != 0 && id != 0 && hasherId != id) {
      throw bad(
          "hasherId",
          base + OFFSET_HASHER_ID,
          "the filter was written with hasher "
              + hasherName(hasherId)
              + " but is being read with "
              + hasherName(id)
              + "; read it with the same hasher");
    }
  }

  /**
   * Allocates an empty filter of this header's geometry, or fails with a {@link
   * FilterFormatException} naming {@code payloadLength} (never {@link OutOfMemoryError}): before
   * allocating if the table is larger than the maximum heap, otherwise if the allocation runs out
   * of heap (after the full collection the JVM makes first, so garbage never causes a refusal).
   */
  <T> CuckooFilter<T> newFilter(ItemHasher<? super T> hasher, long base) {
    // the table, and the kick path an insert allocates when the filter fills (20 bytes per kick)
    long tableBytes =
        semiSorted
            ? SemiSortedTable.heapBytes(bucketCount, fingerprintBits)
            : BucketTable.heapBytes(bucketCount, bucketSize, fingerprintBits);
    long needed = tableBytes + 20L * maxKicks;
    long bound = HeapBudget.maxRequestBytes();
    if (needed > bound) {
      throw bad(
          "payloadLength",
          base + OFFSET_PAYLOAD_LENGTH,
          payloadLength
              + " bytes need "
              + needed
              + " bytes of heap (expected: <= "
              + bound
              + ", the maximum heap less a margin)");
    }
    try {
      BucketTable table =
          semiSorted
              ? new SemiSortedTable(bucketCount, fingerprintBits)
              : new PlainBucketTable(bucketCount, bucketSize, fingerprintBits);
      return new CuckooFilter<>(hasher, scheme, table, maxKicks, seed, capacity);
    } catch (OutOfMemoryError e) {
      throw new FilterFormatException(
          "payloadLength",
          base + OFFSET_PAYLOAD_LENGTH,
          payloadLength
              + " bytes need "
              + needed
              + " bytes of heap: out of heap ("
              + Runtime.getRuntime().maxMemory()
              + " bytes at most) after a full collection",
          e);
    }
  }

  private static String hasherName(int id) {
    ItemHasher<?> builtin = ItemHashers.byId(id);
    return builtin != null ? builtin + " (id " + id + ")" : "id " + id;
  }

  private static String hex(long value) {
    return String.format("0x%016x", value);
  }

  static FilterFormatException bad(String field, long offset, String message) {
    return new FilterFormatException(field, offset, message);
  }
}
