package dev.cuckoo;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A bit-packed table of {@code bucketCount × bucketSize} slots of {@code fingerprintBits} bits,
 * slot s of a bucket in its own lane; a slot holding 0 is empty. The table of every filter except a
 * semi-sorted one ({@link SemiSortedTable}).
 *
 * <p>Not thread-safe; {@link #setNarrow} lets writers of different buckets run concurrently
 * (ConcurrentCuckooFilter).
 */
final class PlainBucketTable extends BucketTable {
  /*
   * SWAR. When every bucket fits in one unaligned 64-bit read (B + the bucket's bit offset within
   * its first byte <= 64; e.g. b = 4 with f <= 16, b = 8 with f = 8), a bucket is loaded as one
   * word and compared lane by lane with the fingerprint broadcast to all b lanes [1]:
   *   hasZeroLane(x)  = (x - LO) & ~x & HI                         (any lane zero; lanes are not exact)
   *   zeroLanes(x)    = ~(((x & REST) + REST) | x | REST) & HI      (exactly the zero lanes: no carries
   *                                                                  cross lanes because REST + REST < 2^f)
   * where LO has the lowest bit of every lane set, HI the highest, REST the low f-1 bits.
   * Other buckets fall back to a loop over slots.
   *
   * [1] Sean Eron Anderson, Bit Twiddling Hacks, "Determine if a word has a zero byte",
   *     generalised from bytes to f-bit lanes.
   */
  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final int fingerprintBits;
  private final long slotMask;
  private final boolean swar;
  private final long lanesLow;
  private final long lanesHigh;
  private final long lanesRest;

  /** ceil(2^16 / f): (x · divideByF) >>> 16 == x / f for x = q·f, q <= 64. */
  private final long divideByF;

  /**
   * Creates a table in one array if that takes at most {@link #ONE_ARRAY_MAX_BYTES} of heap, for
   * CuckooFilter's one-page lookups; larger tables in pages.
   */
  PlainBucketTable(long bucketCount, int bucketSize, int fingerprintBits) {
    this(bucketCount, bucketSize, fingerprintBits, ONE_ARRAY_MAX_BYTES, PAGE_ARRAY_BYTES, null);
  }

  /**
   * Creates a table whose full pages are byte arrays of about {@code pageArrayBytes}, in one array
   * only if it fits in one page (tests use small pages).
   */
  PlainBucketTable(long bucketCount, int bucketSize, int fingerprintBits, long pageArrayBytes) {
    this(bucketCount, bucketSize, fingerprintBits, 0, pageArrayBytes, null);
  }

  /** See {@link BucketTable#BucketTable(long, int, int, long, long, byte[])}. */
  PlainBucketTable(
      long bucketCount,
      int bucketSize,
      int fingerprintBits,
      long oneArrayMaxBytes,
      long pageArrayBytes,
      byte[] onlyPage) {
    super(bucketCount, bucketSize, fingerprintBits, oneArrayMaxBytes, pageArrayBytes, onlyPage);
    this.fingerprintBits = fingerprintBits;
    this.slotMask = (1L << fingerprintBits) - 1;
    // a bucket starts at a bit offset within its first byte that is a multiple of gcd(B, 8)
    int maxShift = 8 - gcd(bucketBits, 8);
    this.swar = bucketBits + maxShift <= 64;
    long low = 0;
    for (int lane = 0; lane < bucketSize && swar; lane++) {
      low |= 1L << (lane * fingerprintBits);
    }
    this.lanesLow = low;
    this.lanesHigh = low << (fingerprintBits - 1);
    this.lanesRest = low * ((1L << (fingerprintBits - 1)) - 1);
    this.divideByF = ((1L << 16) + fingerprintBits - 1) / fingerprintBits;
  }

  @Override
  int fingerprintBits() {
    return fingerprintBits;
  }

  /** Returns true if every bucket is processed as one 64-bit word. */
  @Override
  boolean isSwar() {
    return swar;
  }

  /**
   * Returns true if {@link #lane} and {@link #hasEmptyLane} work on {@link #bucketWord}s: a SWAR
   * table's lanes, or a {@link SemiSortedTable}'s encoded buckets, which those two decode
   * (NeighbourProbe needs only these; BatchLookup compares raw words and needs {@link #isSwar}).
   */
  @Override
  boolean hasLaneWords() {
    return swar;
  }

  /** Returns true if {@code fingerprint} is stored in {@code bucket}. */
  @Override
  boolean contains(long bucket, long fingerprint) {
    if (swar) {
      long x = bucketWord(bucket) ^ (fingerprint * lanesLow);
      return ((x - lanesLow) & ~x & lanesHigh) != 0;
    }
    for (int slot = 0; slot < bucketSize; slot++) {
      if (get(bucket, slot) == fingerprint) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns true if {@code fingerprint} is stored in {@code first} or {@code second}. Both words
   * are loaded unconditionally and the two tests are or-ed as words, with no branch on either
   * answer: a lookup then costs the same whether it hits in the first bucket, the second or
   * neither. (LookupBenchmark, CUCKOO, 10^4 long keys, ε = 0.1%, two alternating runs each: with
   * two contains calls, hits 37.7 and 52.9 ns vs misses 23.5 and 32.5 ns; with this, hits 29.2 and
   * 31.9 ns vs misses 28.2 and 24.8 ns. The machine was heavily loaded, so only the ratios count.)
   */
  @Override
  boolean containsEither(long first, long second, long fingerprint) {
    byte[] page = singlePage;
    // one page: no dependent load of the page array. LookupBenchmark, idle machine, 10^7 long
    // keys, ε = 0.1%, 50% hits, 2 forks: 37.6 -> 25.3 ns (fastfilter Cuckoo16 in the same run:
    // 32.8 and 35.1 ns); 10^4 keys: 13.2 -> 11.5 ns.
    if (swar && page != null) {
      long word1 = wordAt(page, first * bucketBits);
      long word2 = wordAt(page, second * bucketBits);
      return isNonZero(matchingLanes(word1, fingerprint) | matchingLanes(word2, fingerprint));
    }
    if (swar) {
      return isNonZero(
          matchingLanes(bucketWord(first), fingerprint)
              | matchingLanes(bucketWord(second), fingerprint));
    }
    return contains(first, fingerprint) | contains(second, fingerprint);
  }

  /** Returns the number of slots of {@code bucket} that hold {@code fingerprint}. */
  @Override
  int count(long bucket, long fingerprint) {
    if (swar) {
      return Long.bitCount(zeroLanes(bucketWord(bucket) ^ (fingerprint * lanesLow)));
    }
    int count = 0;
    for (int slot = 0; slot < bucketSize; slot++) {
      if (get(bucket, slot) == fingerprint) {
        count++;
      }
    }
    return count;
  }

  /** Returns the lowest slot of {@code bucket} holding {@code fingerprint}, or -1. */
  @Override
  int find(long bucket, long fingerprint) {
    if (swar) {
      return firstLane(zeroLanes(bucketWord(bucket) ^ (fingerprint * lanesLow)));
    }
    for (int slot = 0; slot < bucketSize; slot++) {
      if (get(bucket, slot) == fingerprint) {
        return slot;
      }
    }
    return -1;
  }

  /** Returns the lowest empty slot of {@code bucket}, or -1 if it is full. */
  @Override
  int firstEmpty(long bucket) {
    return find(bucket, 0);
  }

  /** Stores {@code fingerprint} in the lowest empty slot of {@code bucket}; false if full. */
  @Override
  boolean insert(long bucket, long fingerprint) {
    if (swar) {
      return insertSwar(bucket, fingerprint);
    }
    int slot = firstEmpty(bucket);
    if (slot < 0) {
      return false;
    }
    set(bucket, slot, fingerprint);
    return true;
  }

  /**
   * {@link #insert} of a SWAR table: reads the bucket's word once and writes the same 8 bytes back
   * with the fingerprint in the lowest empty lane, whose position comes from the zero-lane mask
   * directly (no slot number, no second address computation as {@link #set} needs).
   * InsertBenchmark, ε = 0.1%, ns per insert filling to rated capacity, two alternating rounds,
   * fastfilter Cuckoo16 in the same runs: 10^6 keys 57.9 / 56.1 -> 44.3 / 44.2 (Cuckoo16
   * 49.4-62.5); 10^7 keys 247 / 226 -> 151 / 148 (Cuckoo16 130-224); 3.2·10^7 keys 301 / 288 -> 219
   * / 198 (Cuckoo16 233-246). Fewer instructions per insert let more inserts' cache misses overlap.
   */
  private boolean insertSwar(long bucket, long fingerprint) {
    byte[] page = pageOf(bucket);
    long bit = bitInPage(bucket);
    int offset = (int) (bit >>> 3);
    int shift = (int) bit & 7;
    long raw = (long) LONG_LE.get(page, offset);
    long empty = zeroLanes(raw >>> shift);
    if (empty == 0) {
      return false;
    }
    // the lowest set bit of the mask is the top bit of the lowest empty lane
    int laneStart = Long.numberOfTrailingZeros(empty) - (fingerprintBits - 1);
    beforeSlotChange(bucket, laneStart);
    LONG_LE.set(page, offset, raw | ((fingerprint & slotMask) << (laneStart + shift)));
    return true;
  }

  /** Returns the number of occupied slots of {@code bucket}. */
  @Override
  int occupied(long bucket) {
    return bucketSize - count(bucket, 0);
  }

  /** Returns the number of non-empty slots. */
  @Override
  long countOccupied() {
    return 64 % fingerprintBits == 0 ? countOccupiedByWord() : countOccupiedByBucket();
  }

  /**
   * Counts non-empty slots eight payload bytes at a time, for widths that divide 64 (4, 8, 16, 32),
   * whose slots never straddle a word: pages start on bucket boundaries, and the last word of a
   * page is read into its padding and masked.
   */
  long countOccupiedByWord() {
    int bits = fingerprintBits;
    // lanes over the whole word (a bucket's lanes may not fill it)
    long wordLanesLow = 0;
    for (int lane = 0; lane < 64; lane += bits) {
      wordLanesLow |= 1L << lane;
    }
    long wordLanesHigh = wordLanesLow << (bits - 1);
    long wordLanesRest = wordLanesLow * ((1L << (bits - 1)) - 1);
    long occupied = 0;
    for (int i = 0; i < pageCount(); i++) {
      byte[] page = page(i);
      int length = pagePayloadBytes(i);
      for (int offset = 0; offset < length; offset += 8) {
        long word = (long) LONG_LE.get(page, offset);
        if (length - offset < 8) {
          word &= (1L << ((length - offset) * 8)) - 1; // ignore the page padding
        }
        // a lane's top bit ends up set iff the lane is non-zero: adding REST to the low f-1 bits
        // carries into the top bit iff they are non-zero, and cannot carry out of the lane
        occupied +=
            Long.bitCount((((word & wordLanesRest) + wordLanesRest) | word) & wordLanesHigh);
      }
    }
    return occupied;
  }

  /**
   * Returns true iff {@code word}, a bucket word from {@link #bucketWord} of a SWAR table, has an
   * empty slot.
   */
  @Override
  boolean hasEmptyLane(long word) {
    return zeroLanes(word) != 0;
  }

  /**
   * Returns the fingerprint in slot {@code slot} of {@code word}, a bucket word from {@link
   * #bucketWord} of a SWAR table (lane s holds bits s·f to s·f + f − 1).
   */
  @Override
  long lane(long word, int slot) {
    return (word >>> (slot * fingerprintBits)) & ((1L << fingerprintBits) - 1);
  }

  /**
   * Stores in {@code out[at .. at + b)} the alternate bucket of each fingerprint of {@code bucket},
   * whose bucket word ({@link #bucketWord}, a table with {@link #hasLaneWords}) is {@code word}:
   * slot s's fingerprint {@link #lane lane(word, s)} goes to {@code out[at + s]}.
   */
  @Override
  void alternates(Indexer indexer, long bucket, long word, long[] out, int at) {
    for (int slot = 0; slot < bucketSize; slot++) {
      out[at + slot] = indexer.alternateBucket(bucket, lane(word, slot));
    }
  }

  private long zeroLanes(long x) {
    return ~(((x & lanesRest) + lanesRest) | x | lanesRest) & lanesHigh;
  }

  private int firstLane(long lanes) {
    if (lanes == 0) {
      return -1;
    }
    // the lowest set bit is the top bit of lane s, at s·f + f − 1; divide (s + 1)·f by f.
    return (int) (((Long.numberOfTrailingZeros(lanes) + 1) * divideByF) >>> 16) - 1;
  }

  /**
   * Returns non-zero iff {@code word}, a bucket word from {@link #bucketWord} of a SWAR table,
   * holds {@code fingerprint} in one of its lanes: the has-zero-lane test of {@link #contains}.
   */
  @Override
  long matchingLanes(long word, long fingerprint) {
    return matchingLanes(word, broadcast(fingerprint), lanesLow, lanesHigh);
  }

  /** Returns {@code fingerprint} copied into every lane of a SWAR bucket word. */
  long broadcast(long fingerprint) {
    return fingerprint * lanesLow;
  }

  /** Returns the SWAR mask with the lowest bit of every lane set. */
  long lanesLow() {
    return lanesLow;
  }

  /** Returns the SWAR mask with the highest bit of every lane set. */
  long lanesHigh() {
    return lanesHigh;
  }

  /** Returns the fingerprint in {@code slot} of {@code bucket} (0 if empty). */
  @Override
  long get(long bucket, int slot) {
    byte[] page = pageOf(bucket);
    long bit = bitInPage(bucket) + (long) slot * fingerprintBits;
    return ((long) LONG_LE.get(page, (int) (bit >>> 3)) >>> (bit & 7)) & slotMask;
  }

  /**
   * Stores {@code fingerprint} (0 to clear) in {@code slot} of {@code bucket} and returns the slot
   * that now holds it: {@code slot} here; a {@link SemiSortedTable} re-sorts the bucket.
   */
  @Override
  int set(long bucket, int slot, long fingerprint) {
    byte[] page = pageOf(bucket);
    long bit = bitInPage(bucket) + (long) slot * fingerprintBits;
    int offset = (int) (bit >>> 3);
    int shift = (int) (bit & 7);
    beforeSlotChange(bucket, (long) slot * fingerprintBits);
    long word = (long) LONG_LE.get(page, offset);
    word = (word & ~(slotMask << shift)) | ((fingerprint & slotMask) << shift);
    LONG_LE.set(page, offset, word);
    return slot;
  }

  /**
   * Stores {@code fingerprint} in {@code slot} of {@code bucket} like {@link #set}, but writes only
   * the bytes that hold the slot's bits, so it never rewrites bytes of a bucket further on. Writers
   * of buckets that share no byte may then run concurrently (ConcurrentCuckooFilter).
   */
  void setNarrow(long bucket, int slot, long fingerprint) {
    byte[] page = pageOf(bucket);
    long bit = bitInPage(bucket) + (long) slot * fingerprintBits;
    int offset = (int) (bit >>> 3);
    int shift = (int) (bit & 7);
    beforeSlotChange(bucket, (long) slot * fingerprintBits);
    long mask = slotMask << shift; // at most 7 + 32 bits: fits
    long value = (fingerprint & slotMask) << shift;
    for (int i = 0; (mask >>> (8 * i)) != 0; i++) {
      int byteMask = (int) (mask >>> (8 * i)) & 0xFF;
      int byteValue = (int) (value >>> (8 * i)) & byteMask;
      page[offset + i] = (byte) ((page[offset + i] & ~byteMask) | byteValue);
    }
  }

  /**
   * Before the slot starting {@code bitInBucket} bits into {@code bucket} changes, hands its
   * payload bytes (counted over the whole payload, not within a page: pages hold whole bytes of
   * whole buckets) to the image being written, if there is one.
   */
  private void beforeSlotChange(long bucket, long bitInBucket) {
    TableImage saving = image;
    if (saving != null) {
      long bit = bucket * bucketBits + bitInBucket;
      saving.beforeChange(bit >>> 3, (bit + fingerprintBits - 1) >>> 3);
    }
  }

  private static int gcd(int a, int b) {
    while (b != 0) {
      int t = a % b;
      a = b;
      b = t;
    }
    return a;
  }
}
