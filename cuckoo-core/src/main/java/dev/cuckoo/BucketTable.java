package dev.cuckoo;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A table of {@code bucketCount} buckets of {@code bucketSize} fingerprint slots, kept as one
 * little-endian bit string split into pages; a slot holding 0 is empty. This class holds what the
 * two encodings of a bucket share: the geometry, the pages, a bucket's bits as a word ({@link
 * #bucketWord}) and raw payload access for serialization. How a bucket's fingerprints are laid out
 * in its bits, and so every bucket and slot operation, is the encoding's: {@link PlainBucketTable}
 * (one bit-packed lane per slot) or {@link SemiSortedTable} (four fingerprints sorted and stored in
 * one bit less each).
 *
 * <p>Not thread-safe. Buckets are numbered from 0 and slots within a bucket from 0.
 */
abstract sealed class BucketTable permits PlainBucketTable, SemiSortedTable {
  /*
   * Layout. Bucket k occupies bits [k·B, (k+1)·B) of the table, B = bucketSize × slotBits, where
   * slotBits is what one slot takes in storage (PlainBucketTable: the fingerprint width f, slot s
   * of bucket k at bits [k·B + s·f, k·B + (s+1)·f); SemiSortedTable: f − 1, its buckets encoded as
   * a whole); bits are numbered little-endian (bit 0 is the lowest bit of byte 0). With 8-bit slots
   * that is one byte per slot, bucket-major: exactly the layout of RedisBloom's sub-filter data, so
   * its SCANDUMP chunks are slices of a plain table.
   *
   * Paging. The table is split into pages of bucketsPerPage buckets, each page a byte[] holding
   * its buckets' payload plus 8 bytes of padding, so that an unaligned 8-byte read starting at any
   * payload byte stays in bounds. bucketsPerPage is a multiple of 8, so every page boundary falls
   * on a bucket boundary whose bit offset is a multiple of 8 and the concatenated page payloads
   * are the same bytes as one unpaged table. A table that fits in one page has exactly one page,
   * of its own size; so does a table of CuckooFilter up to 2^30 heap bytes (see below).
   *
   * A full page is a byte[] of at most PAGE_OBJECT_BYTES = 2^28 bytes on the heap, header
   * included, and within 8 buckets of it: G1, the default collector, keeps an array of half
   * a region or more in contiguous whole regions of 1 to 32 MiB, so a full page fills its regions
   * exactly and needs 256 MiB of contiguous free heap, not the whole table's. G1's full
   * collections do not move such arrays, so the free heap can be too fragmented for one large
   * array: with plain byte arrays in a default JVM (6 GiB heap, 4 MiB regions), a fifth array of
   * 1 GiB + 8 bytes failed with 1.9 GiB free, and 400 random creations and drops of 16 MiB to
   * 1 GiB (live data at most 70% of the heap) failed 9 times as single arrays, never as 2^28-byte
   * pages. The buckets of a page are then not a power of two, so a bucket's page is
   * bucket / bucketsPerPage, a multiply-high by a precomputed reciprocal [1]; one-page tables
   * skip it.
   *
   * One array or pages. CuckooFilter's lookups of a one-page table skip the load of the page
   * from the page array, and that is worth keeping a table of up to 2^30 heap bytes in one array
   * (the constructor without a page size): 10^8 long keys at ε = 0.1% (a 310 MB table), ns per
   * lookup, 50% hits, thread CPU time: 67-69 in one array, 92-97 in two pages (93 with pages of
   * a power of two buckets and a shift instead of the multiply-high: the cost is the page-array
   * load). RedisBloom links index the page array on every access anyway (a 1 GiB link: 125-133 ns
   * per CF.EXISTS-style lookup in one array and in five pages alike), so they are paged as soon
   * as they exceed one page (paged()): the server's 1 GiB filters need no 1 GiB of contiguous
   * heap.
   *
   * [1] Division by an invariant integer with a multiply-high, as in T. Granlund and P. Montgomery,
   *     "Division by Invariant Integers using Multiplication" (PLDI 1994): with m = floor((2^64 -
   *     1) / d) + 1, floor(n·m / 2^64) = floor(n / d) whenever n·d < 2^64, because the error of
   *     n·m / 2^64 over n / d is below n / 2^64 < 1 / d. Here n < 2^32 and d <= 2^31.
   */
  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * Heap bytes of a full page, array header included: 2^28, a whole number of G1 regions for every
   * region size (1 to 32 MiB).
   */
  static final long PAGE_OBJECT_BYTES = 1L << 28;

  /** Heap bytes of a byte[]'s header: mark word, compressed class pointer, length. */
  static final int ARRAY_HEADER_BYTES = 16;

  /** Length of a full page's byte[] (payload and padding). */
  static final int PAGE_ARRAY_BYTES = (int) (PAGE_OBJECT_BYTES - ARRAY_HEADER_BYTES);

  /** Bytes after each page's payload so that 8-byte reads near its end stay in bounds. */
  static final int PAGE_PADDING_BYTES = 8;

  /** Most heap bytes of a table the three-argument constructor keeps in one array. */
  static final long ONE_ARRAY_MAX_BYTES = 1L << 30;

  /** Most buckets of one page, so that bucket · bucketsPerPage < 2^64 for bucket < 2^32 ([1]). */
  private static final long MAX_BUCKETS_PER_PAGE = 1L << 31;

  /**
   * Estimated heap bytes of a PlainBucketTable object itself (12-byte header, 9 longs, 3 ints, 2
   * compressed references, a boolean, padded to 8).
   */
  static final int OBJECT_BYTES = 112;

  /** Number of buckets. */
  final long bucketCount;

  /** Slots per bucket. */
  final int bucketSize;

  /** Bits of one bucket in storage: bucketSize × the bits a slot takes. */
  final int bucketBits;

  /** The only page of a one-page table, else null: lookups then skip the page-array load. */
  final byte[] singlePage;

  /**
   * Bits of the buckets of a full page (all buckets if there is one page): page i starts at bit i ×
   * pageBits of the payload.
   */
  private final long pageBits;

  /** floor((2^64 - 1) / buckets per page) + 1, or 0 if there is one page ({@link #pageIndex}). */
  private final long pageReciprocal;

  private final byte[][] pages;

  private final long payloadBytes;

  /**
   * The image of this table a snapshot is writing, or null (nearly always): every change of the
   * payload first hands the bytes it changes to {@link TableImage#beforeChange}. Set and cleared by
   * {@link TableImage#attach} and {@link TableImage#detach} under the lock that guards the filter's
   * writes, which makes it visible to them; a plain field, so that a table without an image pays
   * one field test per change.
   */
  TableImage image;

  /**
   * Allocates the pages of {@code bucketCount} buckets of {@code bucketSize} slots of {@code
   * slotBits} bits each: in one array if the table fits in one page of {@code pageArrayBytes} or
   * takes at most {@code oneArrayMaxBytes} of heap, else in pages; over {@code onlyPage} (shared,
   * not copied) if it is not null, which must then be the one page.
   */
  BucketTable(
      long bucketCount,
      int bucketSize,
      int slotBits,
      long oneArrayMaxBytes,
      long pageArrayBytes,
      byte[] onlyPage) {
    Checks.requireRange("bucketCount", bucketCount, 1, maxBucketCount(bucketSize));
    Checks.requireRange("bucketSize", bucketSize, 1, 255);
    Checks.requireRange("fingerprintBits", slotBits, 1, 32);
    this.bucketCount = bucketCount;
    this.bucketSize = bucketSize;
    this.bucketBits = bucketSize * slotBits;
    this.payloadBytes = payloadBytes(bucketCount, bucketSize, slotBits);

    long perPage = bucketsPerPage(pageArrayBytes, bucketBits);
    if (isOneArray(bucketCount, perPage, payloadBytes, oneArrayMaxBytes)) {
      this.pageBits = bucketCount * bucketBits;
      this.pageReciprocal = 0;
      int pageLength = Math.toIntExact(payloadBytes + PAGE_PADDING_BYTES);
      if (onlyPage != null && onlyPage.length != pageLength) {
        throw new IllegalArgumentException(
            "page: length " + onlyPage.length + " (expected: " + pageLength + ")");
      }
      this.pages = new byte[][] {onlyPage != null ? onlyPage : new byte[pageLength]};
      this.singlePage = pages[0];
    } else if (onlyPage != null) {
      throw new IllegalArgumentException(
          "page: " + bucketCount + " buckets do not fit in one page of " + perPage);
    } else {
      this.pageBits = perPage * bucketBits;
      this.pageReciprocal = reciprocal(perPage);
      int pageCount = Math.toIntExact((bucketCount + perPage - 1) / perPage);
      this.pages = new byte[pageCount][];
      this.singlePage = null;
      for (int i = 0; i < pageCount; i++) {
        long buckets = Math.min(perPage, bucketCount - i * perPage);
        pages[i] =
            new byte
                [Math.toIntExact(payloadBytes(buckets, bucketSize, slotBits) + PAGE_PADDING_BYTES)];
      }
    }
  }

  /**
   * Returns a plain one-page table over {@code page} (shared, not copied): the payload of {@code
   * bucketCount} buckets followed by {@link #PAGE_PADDING_BYTES} of padding, the layout of a table
   * made by {@link #paged} of that geometry, e.g. a {@link CompactRedisChain}'s slots.
   *
   * @throws IllegalArgumentException if the page's length does not match the geometry
   */
  static PlainBucketTable overPage(
      byte[] page, long bucketCount, int bucketSize, int fingerprintBits) {
    return new PlainBucketTable(
        bucketCount,
        bucketSize,
        fingerprintBits,
        0,
        PAGE_ARRAY_BYTES,
        Checks.requireNonNull(page, "page"));
  }

  /**
   * Returns a plain table in one array only if it fits in one page of {@link #PAGE_OBJECT_BYTES}:
   * for RedisBloom links, whose accesses index the page array whatever the table's size.
   */
  static PlainBucketTable paged(long bucketCount, int bucketSize, int fingerprintBits) {
    return new PlainBucketTable(bucketCount, bucketSize, fingerprintBits, PAGE_ARRAY_BYTES);
  }

  /**
   * Returns the buckets of a full page whose array is at most {@code pageArrayBytes} long: a
   * multiple of 8 (so pages start on byte boundaries), at least 8, at most 2^31.
   */
  private static long bucketsPerPage(long pageArrayBytes, int bucketBits) {
    long fit = (pageArrayBytes - PAGE_PADDING_BYTES) * 8 / bucketBits;
    return Math.min(MAX_BUCKETS_PER_PAGE, Math.max(8, fit & ~7L));
  }

  /** Returns true if a table of this size is kept in one array. */
  private static boolean isOneArray(
      long bucketCount, long bucketsPerPage, long payloadBytes, long oneArrayMaxBytes) {
    return bucketCount <= bucketsPerPage
        || arrayBytes(payloadBytes + PAGE_PADDING_BYTES) <= oneArrayMaxBytes;
  }

  /**
   * Returns the heap bytes a table of this geometry made by the three-argument constructor
   * occupies: its arrays (headers, payload, padding), the array of pages and the table object, as
   * {@link #sizeInBytes()} returns for it. Not counted: the collector's rounding of an array to
   * whole regions (G1 keeps an array of half a region or more in whole regions; full pages fill
   * theirs exactly).
   */
  static long heapBytes(long bucketCount, int bucketSize, int fingerprintBits) {
    return heapBytes(bucketCount, bucketSize, fingerprintBits, ONE_ARRAY_MAX_BYTES);
  }

  /** Returns {@link #heapBytes} of a table made by {@link #paged}. */
  static long pagedHeapBytes(long bucketCount, int bucketSize, int fingerprintBits) {
    return heapBytes(bucketCount, bucketSize, fingerprintBits, 0);
  }

  private static long heapBytes(
      long bucketCount, int bucketSize, int fingerprintBits, long oneArrayMaxBytes) {
    int bucketBits = bucketSize * fingerprintBits;
    long perPage = bucketsPerPage(PAGE_ARRAY_BYTES, bucketBits);
    long payload = payloadBytes(bucketCount, bucketSize, fingerprintBits);
    long fullPages =
        isOneArray(bucketCount, perPage, payload, oneArrayMaxBytes) ? 0 : bucketCount / perPage;
    long lastBuckets = bucketCount - fullPages * perPage;
    long pageCount = fullPages + (lastBuckets > 0 ? 1 : 0);
    long bytes =
        fullPages
            * arrayBytes(payloadBytes(perPage, bucketSize, fingerprintBits) + PAGE_PADDING_BYTES);
    if (lastBuckets > 0) {
      bytes +=
          arrayBytes(payloadBytes(lastBuckets, bucketSize, fingerprintBits) + PAGE_PADDING_BYTES);
    }
    return bytes + referenceArrayBytes(pageCount) + OBJECT_BYTES;
  }

  /** Returns the heap bytes of a byte[] of {@code length}: header and elements, padded to 8. */
  static long arrayBytes(long length) {
    return (ARRAY_HEADER_BYTES + length + 7) & ~7L;
  }

  /** Returns the heap bytes of an array of {@code length} compressed references. */
  static long referenceArrayBytes(long length) {
    return (ARRAY_HEADER_BYTES + 4 * length + 7) & ~7L;
  }

  /**
   * Returns the largest bucket count a table with this bucket size supports: 2^32 buckets and 2^40
   * slots. The fingerprint width does not matter: even at 32 bits, 2^40 slots are 2^45 bits, so bit
   * offsets and page indices stay far from overflow.
   */
  static long maxBucketCount(int bucketSize) {
    return Math.min(1L << 32, (1L << 40) / Math.max(1, bucketSize));
  }

  /** Returns the number of payload bytes of a table of the given geometry. */
  static long payloadBytes(long bucketCount, int bucketSize, int fingerprintBits) {
    return (bucketCount * bucketSize * fingerprintBits + 7) >>> 3;
  }

  long bucketCount() {
    return bucketCount;
  }

  int bucketSize() {
    return bucketSize;
  }

  /** Returns the width of a fingerprint. */
  abstract int fingerprintBits();

  /** Returns the number of bytes of the bit-packed payload (without page padding). */
  long payloadBytes() {
    return payloadBytes;
  }

  /**
   * Returns the heap bytes the table occupies: the page arrays (headers, payload, padding), the
   * array of pages and this object ({@link #heapBytes} of its geometry).
   */
  long sizeInBytes() {
    long bytes = referenceArrayBytes(pages.length) + OBJECT_BYTES;
    for (byte[] page : pages) {
      bytes += arrayBytes(page.length);
    }
    return bytes;
  }

  /** Returns true if every bucket is one word of one lane per slot, which callers may read raw. */
  abstract boolean isSwar();

  /**
   * Returns true if {@link #lane} and {@link #hasEmptyLane} work on {@link #bucketWord}s: a SWAR
   * plain table's lanes, or a {@link SemiSortedTable}'s encoded buckets, which those two decode
   * (NeighbourProbe needs only these; BatchLookup compares raw words and needs {@link #isSwar}).
   */
  abstract boolean hasLaneWords();

  // ---------------------------------------------------------------------------------------------
  // Bucket operations: the encoding's

  /** Returns true if {@code fingerprint} is stored in {@code bucket}. */
  abstract boolean contains(long bucket, long fingerprint);

  /** Returns true if {@code fingerprint} is stored in {@code first} or {@code second}. */
  abstract boolean containsEither(long first, long second, long fingerprint);

  /** Returns the number of slots of {@code bucket} that hold {@code fingerprint}. */
  abstract int count(long bucket, long fingerprint);

  /** Returns the lowest slot of {@code bucket} holding {@code fingerprint}, or -1. */
  abstract int find(long bucket, long fingerprint);

  /** Returns the lowest empty slot of {@code bucket}, or -1 if it is full. */
  abstract int firstEmpty(long bucket);

  /** Stores {@code fingerprint} in an empty slot of {@code bucket}; false if full. */
  abstract boolean insert(long bucket, long fingerprint);

  /** Returns the number of occupied slots of {@code bucket}. */
  abstract int occupied(long bucket);

  /** Returns the number of non-empty slots. */
  abstract long countOccupied();

  /** Counts non-empty slots bucket by bucket (any fingerprint width). */
  long countOccupiedByBucket() {
    long occupied = 0;
    for (long bucket = 0; bucket < bucketCount; bucket++) {
      occupied += occupied(bucket);
    }
    return occupied;
  }

  /**
   * Returns true iff {@code word}, a bucket word from {@link #bucketWord} of a table with {@link
   * #hasLaneWords}, has an empty slot.
   */
  abstract boolean hasEmptyLane(long word);

  /**
   * Returns the fingerprint in slot {@code slot} of {@code word}, a bucket word from {@link
   * #bucketWord} of a table with {@link #hasLaneWords}.
   */
  abstract long lane(long word, int slot);

  /**
   * Stores in {@code out[at .. at + b)} the alternate bucket of each fingerprint of {@code bucket},
   * whose bucket word ({@link #bucketWord}, a table with {@link #hasLaneWords}) is {@code word}:
   * slot s's fingerprint {@link #lane lane(word, s)} goes to {@code out[at + s]}.
   */
  abstract void alternates(Indexer indexer, long bucket, long word, long[] out, int at);

  /**
   * Returns non-zero iff {@code word}, a bucket word from {@link #bucketWord}, holds {@code
   * fingerprint}.
   */
  abstract long matchingLanes(long word, long fingerprint);

  /**
   * Returns {@code x != 0} without a conditional branch. The JIT compiles {@code return x != 0} on
   * a long into a branch when the profile says the answer is nearly always the same (e.g. after a
   * run of lookups of absent items), and then mispredicts it half the time on a mix of hits and
   * misses; a mispredicted branch that waits for a cache miss also discards the lookups issued
   * after it. An int compared with 0 whose true value is 1 becomes a branch-free conversion
   * instead. LookupBenchmark.lookup, CUCKOO, 10^6 keys, ε = 0.1%, 1 fork, ns for no / half / all
   * hits: 14.1 / 22.5 / 14.4 before, 15.8 / 15.4 / 15.2 after.
   */
  static boolean isNonZero(long x) {
    // (x | −x) has its sign bit set exactly when x != 0
    return ((int) ((x | -x) >>> 63)) != 0;
  }

  /**
   * Returns non-zero iff some lane of {@code word} equals the lane of {@code pattern} (a {@link
   * PlainBucketTable#broadcast} fingerprint): the has-zero-lane test of a SWAR plain table's {@link
   * #matchingLanes(long, long)}, with its masks passed in (ConcurrentCuckooFilter and
   * OptimisticLookup hold them in locals).
   */
  static long matchingLanes(long word, long pattern, long lanesLow, long lanesHigh) {
    long x = word ^ pattern;
    return (x - lanesLow) & ~x & lanesHigh;
  }

  // ---------------------------------------------------------------------------------------------
  // Slot operations: the encoding's

  /** Returns the fingerprint in {@code slot} of {@code bucket} (0 if empty). */
  abstract long get(long bucket, int slot);

  /**
   * Stores {@code fingerprint} (0 to clear) in {@code slot} of {@code bucket} and returns the slot
   * that now holds it: {@code slot} in a plain table; a {@link SemiSortedTable} re-sorts the
   * bucket.
   */
  abstract int set(long bucket, int slot, long fingerprint);

  // ---------------------------------------------------------------------------------------------
  // Pages and bucket words

  /**
   * Returns the page that holds {@code bucket}: with {@link #bitInPage} and {@link #wordAt}, the
   * parts of {@link #bucketWord}, for callers that must compute addresses before a memory fence and
   * load only after it (ConcurrentCuckooFilter).
   */
  byte[] pageOf(long bucket) {
    byte[] page = singlePage;
    return page != null ? page : pages[pageIndex(bucket)];
  }

  /** Returns the index of the page holding {@code bucket}: bucket / buckets per page ([1]). */
  private int pageIndex(long bucket) {
    return quotient(bucket, pageReciprocal);
  }

  /** Returns floor((2^64 - 1) / divisor) + 1 for a divisor from 8 to 2^31 ([1]). */
  static long reciprocal(long divisor) {
    return Long.divideUnsigned(-1L, divisor) + 1;
  }

  /**
   * Returns {@code dividend / divisor} for a dividend below 2^32, given the divisor's {@link
   * #reciprocal}: the high 64 bits of the 128-bit product ([1]).
   */
  static int quotient(long dividend, long reciprocal) {
    return (int) Math.multiplyHigh(dividend, reciprocal);
  }

  /** Returns the only page of a one-page table, or null if the table has several pages. */
  byte[] singlePage() {
    return singlePage;
  }

  /** Returns the offset in bits of {@code bucket} within its page ({@link #pageOf}). */
  long bitInPage(long bucket) {
    long bit = bucket * bucketBits;
    return singlePage != null ? bit : bit - pageIndex(bucket) * pageBits;
  }

  /**
   * Returns the bucket word that starts at {@code bitInPage} of {@code page}, as {@link
   * #bucketWord}.
   */
  static long wordAt(byte[] page, long bitInPage) {
    return (long) LONG_LE.get(page, (int) (bitInPage >>> 3)) >>> (bitInPage & 7);
  }

  /** Returns the bucket's bits in the low bits of a word; higher bits are unspecified. */
  long bucketWord(long bucket) {
    return wordAt(pageOf(bucket), bitInPage(bucket));
  }

  /** Empties every slot. */
  void clear() {
    TableImage saving = image;
    if (saving != null) {
      saving.beforeChange(0, payloadBytes - 1);
    }
    for (byte[] page : pages) {
      Arrays.fill(page, (byte) 0);
    }
  }

  /** Returns the number of pages. */
  int pageCount() {
    return pages.length;
  }

  /** Returns the payload bytes of page {@code index} (excluding padding). */
  int pagePayloadBytes(int index) {
    return pages[index].length - PAGE_PADDING_BYTES;
  }

  /** Returns page {@code index} itself (payload then padding); callers must not write padding. */
  byte[] page(int index) {
    return pages[index];
  }

  /** Copies {@code length} payload bytes starting at {@code offset} into {@code dst}. */
  void readPayload(long offset, byte[] dst, int dstOffset, int length) {
    copyPayload(offset, dst, dstOffset, length, false);
  }

  /** Overwrites {@code length} payload bytes starting at {@code offset} from {@code src}. */
  void writePayload(long offset, byte[] src, int srcOffset, int length) {
    TableImage saving = image;
    if (saving != null && length > 0 && offset >= 0 && offset <= payloadBytes - length) {
      saving.beforeChange(offset, offset + length - 1);
    }
    copyPayload(offset, src, srcOffset, length, true);
  }

  private void copyPayload(
      long offset, byte[] buffer, int bufferOffset, int length, boolean write) {
    if (offset < 0 || length < 0 || offset > payloadBytes - length) {
      throw new IndexOutOfBoundsException(
          "payload range ["
              + offset
              + ", "
              + (offset + length)
              + ") outside [0, "
              + payloadBytes
              + ")");
    }
    long pageStart = 0;
    for (int i = 0; i < pages.length && length > 0; i++) {
      int pageBytes = pagePayloadBytes(i);
      long pageEnd = pageStart + pageBytes;
      if (offset < pageEnd) {
        int from = (int) (offset - pageStart);
        int n = Math.min(length, pageBytes - from);
        if (write) {
          System.arraycopy(buffer, bufferOffset, pages[i], from, n);
        } else {
          System.arraycopy(pages[i], from, buffer, bufferOffset, n);
        }
        offset += n;
        bufferOffset += n;
        length -= n;
      }
      pageStart = pageEnd;
    }
    if (write && (payloadBytes * 8) != bucketCount * bucketBits) {
      clearBitsAfterPayload();
    }
  }

  /** Keeps the unused high bits of the last payload byte zero, so equal tables have equal bytes. */
  private void clearBitsAfterPayload() {
    byte[] last = pages[pages.length - 1];
    int usedBits = (int) ((bucketCount * bucketBits) & 7);
    int index = pagePayloadBytes(pages.length - 1) - 1;
    last[index] &= (byte) ((1L << usedBits) - 1);
  }
}
