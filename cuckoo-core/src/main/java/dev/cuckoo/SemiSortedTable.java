package dev.cuckoo;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A table of {@code bucketCount} buckets of four {@code fingerprintBits}-bit fingerprints stored
 * semi-sorted: each bucket takes {@code 4 × (fingerprintBits − 1)} bits instead of {@code 4 ×
 * fingerprintBits}. A slot holding 0 is empty.
 *
 * <p>Slots are the positions of a bucket's fingerprints in ascending order, so writing a slot can
 * move fingerprints to other slots; {@link #set} returns where the written value ended up. Not
 * thread-safe. It shares the paged storage of {@link BucketTable} with {@link PlainBucketTable},
 * each bucket taking the bits of a plain bucket of four slots of {@code fingerprintBits − 1} bits.
 */
final class SemiSortedTable extends BucketTable {
  /*
   * Semi-sorting (Fan et al. [1], §5.2). The order of the fingerprints within a bucket carries no
   * information, so a bucket can be stored in any canonical order. Sort the four fingerprints of
   * a bucket (empty slots are the value 0) and split each into its high 4 bits ("nibble") and its
   * low f − 4 bits. The sorted nibbles are a non-decreasing 4-tuple of values in [0, 16): there
   * are C(16 + 4 − 1, 4) = 3876 of them, so the tuple's index fits in 12 bits, where the four
   * nibbles took 16: one bit saved per slot.
   *
   * Bucket layout, 4·(f − 1) bits, bit 0 first (the bucket occupies the bits of a plain table with
   * 4 slots of f − 1 bits, so paging, padding and serialization are the BucketTable base's):
   *   bits [0, 12)                       the index of the sorted nibble tuple (below)
   *   bits [12 + i·w, 12 + (i + 1)·w)    the low w = f − 4 bits of the i-th smallest fingerprint
   * The fingerprints are sorted by their whole value (so by nibble, then by low bits), which makes
   * the encoding canonical: a bucket's bits depend only on the multiset it holds. Undoing a kick
   * path by restoring multisets therefore restores the table bit for bit, and equal filters have
   * equal bytes.
   *
   * Index of a tuple a0 <= a1 <= a2 <= a3: with c_i = a_i + i the c_i are strictly increasing in
   * [0, 19), and by the combinatorial number system [2] rank = C(c0, 1) + C(c1, 2) + C(c2, 3) +
   * C(c3, 4) is a bijection onto [0, C(19, 4)) = [0, 3876). RANK holds C(a + i, i + 1).
   * Decoding is a table lookup: SPREAD[rank] holds the four nibbles already placed at the top of
   * four 16-bit lanes, the low parts are shifted in under them, and a lookup compares the query
   * fingerprint (left-aligned in 16-bit lanes) with all four lanes at once: the has-zero-lane
   * test of BucketTable on 16-bit lanes. Fingerprints of up to 16 bits fit a lane; at least 5
   * leave a non-empty low part (f = 4 would be a 12-bit bucket of nibbles alone).
   *
   * Lookups with f >= 8 skip that spreading: the low parts are compared where they are stored, as
   * four w-bit lanes, and NIBBLE_LANES[w][index] holds the four nibbles in four w-bit lanes too
   * (w >= 4, so a nibble fits). Lane i of (low parts ^ query low) | (nibbles ^ query nibble) is
   * zero iff both halves of fingerprint i match, so one has-zero-lane test answers. Bits above the
   * four lanes (the next bucket's) do not matter: the test's borrows only run upwards.
   * LookupBenchmark, 10^6 long keys, ε = 0.1% (f = 13), 50% hits, -f 1 -wi 3 -i 5: 15.0 ns with
   * the 16-bit lanes, 9.9 ns this way (plain table 7.4-7.9 ns in the same runs).
   *
   * Writes (insert, set) do not decode the bucket into values, sort and encode again. With the
   * written slot's nibble and low part cut out of the stored bits, the three others stay sorted
   * (0, a1, a2, a3 for an insert, which always replaces the empty slot 0), so a table indexed by
   * those three nibbles (816 sorted triples, numbered densely by STEP_ROW from a tuple index and by
   * TRIPLE_ROW from the packed nibbles, 8 KiB each) and the new nibble n gives the new tuple's
   * index and n's position among the three (INSERT_STEP, 26 KiB); only a tie of nibbles needs a
   * look at low parts, which are then shifted apart at that position. Filling a filter for 10^6
   * long keys, ε = 0.1%, to rated capacity, 30 fills in one JVM: ns per insert at loads 0-50% /
   * 50-80%, then ms per fill: 17.3 / 34.3 / 39.5 with decode, min/max sort and encode; 15.0 / 27.3
   * / 33.7 with the position from a SWAR comparison and the index from pair-summed RANK terms;
   * 12.7-13.4 / 24.2-25.0 / 30.0-30.7 with the table for inserts (plain table 6.5 / 16.5 / 19.3 in these runs). A
   * 128 KiB table indexed by tuple index directly, and set by the SWAR way, measured the same.
   *
   * Bucket words. bucketWord returns the stored bits; lane, hasEmptyLane and matchingLanes decode
   * them, so NeighbourProbe works on this table (hasLaneWords), while BatchLookup, which reads raw
   * words itself, does not (isSwar is false: batched lookups are single lookups here). SPREAD and
   * the NIBBLE_LANES table of each width are 32 KiB each, shared by every table.
   *
   * [1] B. Fan, D. G. Andersen, M. Kaminsky, M. D. Mitzenmacher, "Cuckoo Filter: Practically Better
   *     Than Bloom", CoNEXT 2014, §5.2 "Semi-sorting buckets".
   * [2] D. E. Knuth, The Art of Computer Programming 4A, §7.2.1.3 (combinatorial number system).
   */
  /** Narrowest fingerprint of a semi-sorted table. */
  static final int MIN_FINGERPRINT_BITS = 5;

  /** Widest fingerprint of a semi-sorted table: one 16-bit lane per slot in a 64-bit word. */
  static final int MAX_FINGERPRINT_BITS = 16;

  /** Slots per bucket of a semi-sorted table. */
  static final int BUCKET_SIZE = 4;

  /** Number of non-decreasing 4-tuples of 4-bit values: C(19, 4). */
  static final int TUPLES = 3876;

  /** Bits of a tuple index. */
  static final int INDEX_BITS = 12;

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long LANES_LOW = 0x0001_0001_0001_0001L;
  private static final long LANES_HIGH = 0x8000_8000_8000_8000L;
  private static final long LANES_REST = 0x7FFF_7FFF_7FFF_7FFFL;

  /** RANK[16·i + a] = C(a + i, i + 1): the term of nibble i in {@link #rank}. */
  private static final int[] RANK = new int[BUCKET_SIZE * 16];

  /**
   * Number of sorted nibble tuples whose smallest nibble is 0 (C(18, 3)): the rows of INSERT_STEP.
   */
  private static final int ROOMY_TUPLES = 816;

  /**
   * Tuple index to its row of {@link #INSERT_STEP} if its smallest nibble is 0 (the bucket may have
   * an empty slot 0), else {@link #NO_ROOM}; 8 KiB.
   */
  private static final char[] STEP_ROW = new char[1 << INDEX_BITS];

  /**
   * INSERT_STEP[row << 4 | n], for the tuple (0, a1, a2, a3) of that {@link #STEP_ROW} and a new
   * nibble n: the index of the tuple with the 0 replaced by n (bits 0-11), and how many of a1, a2,
   * a3 are below n (bits 12-13) and equal to n (bits 14-15); 26 KiB.
   */
  private static final char[] INSERT_STEP = new char[ROOMY_TUPLES * 16];

  /**
   * Three ascending nibbles a1 | a2 << 4 | a3 << 8 to the {@link #INSERT_STEP} row of (0, a1, a2,
   * a3), for writes that replace any slot; 8 KiB.
   */
  private static final char[] TRIPLE_ROW = new char[1 << INDEX_BITS];

  /** A {@link #STEP_ROW} entry of a tuple without an empty slot. */
  private static final char NO_ROOM = 0xFFFF;

  /** Tuple index to the four nibbles at bits 16·i + 12 (lane i, ascending); 4096 entries. */
  private static final long[] SPREAD = new long[1 << INDEX_BITS];

  /**
   * Tuple index to the four nibbles at bits 4·i: SPREAD in 8 KiB, for insert's decoding (which then
   * stays in L1 more often: 10^6 inserts at half load, 31 -> 20 ns per insert; plain 7.4-8).
   */
  private static final char[] TUPLE = new char[1 << INDEX_BITS];

  /** Per low-part width w = 4 to 12: tuple index to the four nibbles at bits i·w; built on use. */
  private static final AtomicReferenceArray<long[]> NIBBLE_LANES =
      new AtomicReferenceArray<>(MAX_FINGERPRINT_BITS - 4 + 1);

  static {
    Arrays.fill(STEP_ROW, NO_ROOM);
    int rows = 0;
    for (int i = 0; i < BUCKET_SIZE; i++) {
      for (int a = 0; a < 16; a++) {
        RANK[16 * i + a] = (int) binomial(a + i, i + 1);
      }
    }
    for (int a0 = 0; a0 < 16; a0++) {
      for (int a1 = a0; a1 < 16; a1++) {
        for (int a2 = a1; a2 < 16; a2++) {
          for (int a3 = a2; a3 < 16; a3++) {
            int index = rank(a0, a1, a2, a3);
            SPREAD[index] = (long) a0 << 12 | (long) a1 << 28 | (long) a2 << 44 | (long) a3 << 60;
            TUPLE[index] = (char) (a0 | a1 << 4 | a2 << 8 | a3 << 12);
            if (a0 == 0) {
              STEP_ROW[index] = (char) rows;
              TRIPLE_ROW[a1 | a2 << 4 | a3 << 8] = (char) rows;
              for (int n = 0; n < 16; n++) {
                INSERT_STEP[rows << 4 | n] = insertStep(a1, a2, a3, n);
              }
              rows++;
            }
          }
        }
      }
    }
  }

  private final int fingerprintBits;

  /** Width of the low part of a fingerprint, f − 4. */
  private final int lowBits;

  private final long lowMask;

  /** The bits of three low parts: 3·(f − 4). */
  private final long threeLowsMask;

  private final long fingerprintMask;

  /** The bits of one bucket: 4·(f − 1) of them. */
  private final long bucketMask;

  /** How far a fingerprint is shifted to the top of a 16-bit lane: 16 − f. */
  private final int alignShift;

  /**
   * {@link #NIBBLE_LANES} of this width if f >= 8, else null (lookups spread into 16-bit lanes).
   */
  private final long[] nibbleLanes;

  /** The lowest bit of each of the four w-bit lanes of the low parts. */
  private final long lowLanesLow;

  /** The highest bit of each of the four w-bit lanes of the low parts. */
  private final long lowLanesHigh;

  /**
   * Creates an empty table of {@code bucketCount} buckets of four {@code fingerprintBits}-bit
   * fingerprints.
   */
  SemiSortedTable(long bucketCount, int fingerprintBits) {
    super(
        bucketCount,
        BUCKET_SIZE,
        checkBits(fingerprintBits) - 1,
        ONE_ARRAY_MAX_BYTES,
        PAGE_ARRAY_BYTES,
        null);
    this.fingerprintBits = fingerprintBits;
    this.lowBits = fingerprintBits - 4;
    this.lowMask = (1L << lowBits) - 1;
    this.threeLowsMask = (1L << 3 * lowBits) - 1;
    this.fingerprintMask = (1L << fingerprintBits) - 1;
    this.bucketMask = (1L << (BUCKET_SIZE * (fingerprintBits - 1))) - 1;
    this.alignShift = 16 - fingerprintBits;
    this.nibbleLanes = lowBits >= 4 ? nibbleLanes(lowBits) : null;
    this.lowLanesLow = 1L | 1L << lowBits | 1L << 2 * lowBits | 1L << 3 * lowBits;
    this.lowLanesHigh = lowLanesLow << (lowBits - 1);
  }

  /** Returns the table of the four nibbles of each tuple index in four {@code w}-bit lanes. */
  private static long[] nibbleLanes(int w) {
    long[] table = NIBBLE_LANES.get(w);
    if (table == null) {
      table = new long[1 << INDEX_BITS];
      for (int index = 0; index < TUPLES; index++) {
        long nibbles = SPREAD[index];
        for (int i = 0; i < BUCKET_SIZE; i++) {
          table[index] |= ((nibbles >>> (16 * i + 12)) & 0xF) << (i * w);
        }
      }
      NIBBLE_LANES.compareAndSet(w, null, table);
      table = NIBBLE_LANES.get(w);
    }
    return table;
  }

  private static int checkBits(int fingerprintBits) {
    return (int)
        Checks.requireRange(
            "fingerprintBits", fingerprintBits, MIN_FINGERPRINT_BITS, MAX_FINGERPRINT_BITS);
  }

  /** Returns the heap bytes of a table of this geometry, as {@link #sizeInBytes()} returns. */
  static long heapBytes(long bucketCount, int fingerprintBits) {
    return BucketTable.heapBytes(bucketCount, BUCKET_SIZE, fingerprintBits - 1);
  }

  /** Returns the payload bytes of a table of this geometry. */
  static long payloadBytes(long bucketCount, int fingerprintBits) {
    return BucketTable.payloadBytes(bucketCount, BUCKET_SIZE, fingerprintBits - 1);
  }

  /** Returns the index of the non-decreasing nibble tuple (a0, a1, a2, a3), in [0, 3876). */
  static int rank(int a0, int a1, int a2, int a3) {
    return RANK[a0] + RANK[16 + a1] + RANK[32 + a2] + RANK[48 + a3];
  }

  /** Returns the {@link #INSERT_STEP} entry of the tuple (0, a1, a2, a3) and a new nibble n. */
  private static char insertStep(int a1, int a2, int a3, int n) {
    int[] sorted = {a1, a2, a3, n};
    Arrays.sort(sorted);
    int below = (a1 < n ? 1 : 0) + (a2 < n ? 1 : 0) + (a3 < n ? 1 : 0);
    int equal = (a1 == n ? 1 : 0) + (a2 == n ? 1 : 0) + (a3 == n ? 1 : 0);
    int index = rank(sorted[0], sorted[1], sorted[2], sorted[3]);
    return (char) (index | below << INDEX_BITS | equal << (INDEX_BITS + 2));
  }

  private static long binomial(int n, int k) {
    long result = 1;
    for (int i = 1; i <= k; i++) {
      result = result * (n - k + i) / i;
    }
    return n < k ? 0 : result;
  }

  /** Returns the width of a fingerprint (one bit more than each slot stores). */
  @Override
  int fingerprintBits() {
    return fingerprintBits;
  }

  /** Returns false: a bucket word holds an encoding, not one lane per slot. */
  @Override
  boolean isSwar() {
    return false;
  }

  // ---------------------------------------------------------------------------------------------
  // Decoding and encoding

  /**
   * Returns the bucket's fingerprints in ascending order, fingerprint i in the top f bits of the
   * 16-bit lane i (bits below them zero).
   */
  private long lanes(long bucket) {
    return lanesOf(bucketWord(bucket));
  }

  private long lanesOf(long raw) {
    long low = raw >>> INDEX_BITS;
    int w = lowBits;
    // the four w-bit low parts, each moved to the bottom of its 16-bit lane
    long spread =
        (low & lowMask)
            | ((low >>> w) & lowMask) << 16
            | ((low >>> 2 * w) & lowMask) << 32
            | ((low >>> 3 * w) & lowMask) << 48;
    // the low parts go just under the nibbles, which sit at the top of each lane
    return SPREAD[(int) raw & 0xFFF] | spread << (12 - w);
  }

  /**
   * Returns the slot that {@code value}, whose {@link #INSERT_STEP} entry is {@code step}, takes
   * among three fingerprints with ascending low parts {@code lows} (w bits each, the smallest
   * lowest).
   */
  private int position(int step, long lows, long value) {
    int w = lowBits;
    long low = value & lowMask;
    int position = (step >>> INDEX_BITS) & 3;
    for (int ties = step >>> (INDEX_BITS + 2); ties > 0; ties--) {
      // a fingerprint with the same nibble: ordered by low part
      if (((lows >>> w * position) & lowMask) > low) {
        break;
      }
      position++;
    }
    return position;
  }

  /**
   * Returns the bucket bits that hold {@code value}, in slot {@code position}, and the three
   * fingerprints of {@link #position}: the new tuple index of {@code step} and the low parts
   * shifted apart there.
   */
  private long placed(int step, long lows, long value, int position) {
    int w = lowBits;
    long below = (1L << w * position) - 1;
    long newLows = (lows & below) | (value & lowMask) << w * position | (lows & ~below) << w;
    return (step & 0xFFF) | newLows << INDEX_BITS;
  }

  /** Returns fingerprint {@code slot} of a {@link #lanes} word. */
  private long laneValue(long lanes, int slot) {
    return (lanes >>> (16 * slot + alignShift)) & fingerprintMask;
  }

  /**
   * Returns the lanes of {@code lanes} equal to {@code fingerprint}: the top bit of each, exactly.
   */
  private long equalLanes(long lanes, long fingerprint) {
    long x = lanes ^ ((fingerprint << alignShift) * LANES_LOW);
    return ~(((x & LANES_REST) + LANES_REST) | x | LANES_REST) & LANES_HIGH;
  }

  // ---------------------------------------------------------------------------------------------
  // Bucket operations

  @Override
  boolean contains(long bucket, long fingerprint) {
    return isNonZero(matches(lanes(bucket), fingerprint));
  }

  @Override
  boolean containsEither(long first, long second, long fingerprint) {
    long[] nibbles = nibbleLanes;
    if (nibbles != null) {
      // f >= 8: compare in the stored w-bit lanes (see the top of the class)
      long raw1 = bucketWord(first);
      long raw2 = bucketWord(second);
      long lowPattern = (fingerprint & lowMask) * lowLanesLow;
      long nibblePattern = (fingerprint >>> lowBits) * lowLanesLow;
      long y1 =
          ((raw1 >>> INDEX_BITS) ^ lowPattern) | (nibbles[(int) raw1 & 0xFFF] ^ nibblePattern);
      long y2 =
          ((raw2 >>> INDEX_BITS) ^ lowPattern) | (nibbles[(int) raw2 & 0xFFF] ^ nibblePattern);
      return isNonZero(((y1 - lowLanesLow) & ~y1 | (y2 - lowLanesLow) & ~y2) & lowLanesHigh);
    }
    long lanes1 = lanes(first);
    long lanes2 = lanes(second);
    return isNonZero(matches(lanes1, fingerprint) | matches(lanes2, fingerprint));
  }

  /** Returns non-zero iff a lane equals {@code fingerprint}: the has-zero-lane test. */
  private long matches(long lanes, long fingerprint) {
    long x = lanes ^ ((fingerprint << alignShift) * LANES_LOW);
    return (x - LANES_LOW) & ~x & LANES_HIGH;
  }

  @Override
  int count(long bucket, long fingerprint) {
    return Long.bitCount(equalLanes(lanes(bucket), fingerprint));
  }

  @Override
  int find(long bucket, long fingerprint) {
    long equal = equalLanes(lanes(bucket), fingerprint);
    return equal == 0 ? -1 : Long.numberOfTrailingZeros(equal) >>> 4;
  }

  /** Returns 0 if the bucket has an empty slot (the smallest value sorts first), else -1. */
  @Override
  int firstEmpty(long bucket) {
    return hasEmptyLane(bucketWord(bucket)) ? 0 : -1;
  }

  /**
   * Stores {@code fingerprint} in place of the bucket's empty slot 0: one read of the bucket's
   * word, the new tuple index and the fingerprint's position from {@link #INSERT_STEP}, the low
   * parts shifted apart there, one write of the same word.
   */
  @Override
  boolean insert(long bucket, long fingerprint) {
    byte[] page = pageOf(bucket);
    long bit = bitInPage(bucket);
    int offset = (int) (bit >>> 3);
    int shift = (int) bit & 7;
    long word = (long) LONG_LE.get(page, offset);
    long raw = word >>> shift;
    long lows = raw >>> INDEX_BITS;
    // slot 0 holds the smallest fingerprint: the bucket has room iff that is 0 (low part first,
    // which rules out nearly every full bucket before the transition table is read)
    if ((lows & lowMask) != 0) {
      return false;
    }
    int row = STEP_ROW[(int) raw & 0xFFF];
    if (row == NO_ROOM) {
      return false;
    }
    long others = (lows >>> lowBits) & threeLowsMask;
    long value = fingerprint & fingerprintMask;
    int step = INSERT_STEP[row << 4 | (int) (value >>> lowBits) & 0xF];
    long bits = placed(step, others, value, position(step, others, value));
    // 4·(f − 1) <= 60 bits plus a shift of at most 4 (bucket offsets are multiples of 4): one word
    LONG_LE.set(page, offset, (word & ~(bucketMask << shift)) | (bits << shift));
    return true;
  }

  @Override
  int occupied(long bucket) {
    return BUCKET_SIZE - count(bucket, 0);
  }

  @Override
  long countOccupied() {
    return countOccupiedByBucket();
  }

  // ---------------------------------------------------------------------------------------------
  // Slot operations

  @Override
  long get(long bucket, int slot) {
    return lane(bucketWord(bucket), slot);
  }

  /**
   * Replaces the fingerprint in {@code slot} (its position in ascending order) by {@code
   * fingerprint} (0 to clear) and re-sorts the bucket.
   *
   * @return the slot {@code fingerprint} now occupies: writing the old value there undoes the call
   */
  @Override
  int set(long bucket, int slot, long fingerprint) {
    byte[] page = pageOf(bucket);
    long bit = bitInPage(bucket);
    int offset = (int) (bit >>> 3);
    int shift = (int) bit & 7;
    long word = (long) LONG_LE.get(page, offset);
    long raw = word >>> shift;
    int tuple = TUPLE[(int) raw & 0xFFF];
    long lows = raw >>> INDEX_BITS;
    // the three other slots, still ascending: slot's nibble and low part taken out
    int nibbleShift = 4 * slot;
    int below = (1 << nibbleShift) - 1;
    int otherNibbles = (tuple & below) | ((tuple >>> 4) & ~below);
    int lowShift = lowBits * slot;
    long lowsBelow = (1L << lowShift) - 1;
    long otherLows = ((lows & lowsBelow) | ((lows >>> lowBits) & ~lowsBelow)) & threeLowsMask;
    long value = fingerprint & fingerprintMask;
    int step = INSERT_STEP[TRIPLE_ROW[otherNibbles] << 4 | (int) (value >>> lowBits) & 0xF];
    int position = position(step, otherLows, value);
    long bits = placed(step, otherLows, value, position);
    LONG_LE.set(page, offset, (word & ~(bucketMask << shift)) | (bits << shift));
    return position;
  }

  @Override
  boolean hasLaneWords() {
    return true;
  }

  /**
   * Returns true iff the stored bucket bits {@code word} ({@link #bucketWord}) have an empty slot.
   */
  @Override
  boolean hasEmptyLane(long word) {
    // a slot is empty iff the smallest fingerprint is 0: nibble 0 of the tuple and low part 0
    return ((word >>> INDEX_BITS) & lowMask) == 0 && (TUPLE[(int) word & 0xFFF] & 0xF) == 0;
  }

  /** Returns fingerprint {@code slot} (ascending) of the stored bucket bits {@code word}. */
  @Override
  long lane(long word, int slot) {
    long nibble = (TUPLE[(int) word & 0xFFF] >>> (4 * slot)) & 0xF;
    return nibble << lowBits | ((word >>> (INDEX_BITS + slot * lowBits)) & lowMask);
  }

  /**
   * {@link #lane} of the four slots with one read of the nibble tuple and one word of low parts.
   * Filling 10^4 long keys to rated capacity, ε = 0.1%: 393 -> 356 instructions per insert (plain
   * table 252), JMH 186 -> 169 µs per fill (medians of 4 forks; docs/performance-notes.md).
   */
  @Override
  void alternates(Indexer indexer, long bucket, long word, long[] out, int at) {
    int w = lowBits;
    long mask = lowMask;
    long tuple = TUPLE[(int) word & 0xFFF];
    long lows = word >>> INDEX_BITS;
    out[at] = indexer.alternateBucket(bucket, (tuple & 0xF) << w | lows & mask);
    out[at + 1] = indexer.alternateBucket(bucket, (tuple >>> 4 & 0xF) << w | (lows >>> w) & mask);
    out[at + 2] =
        indexer.alternateBucket(bucket, (tuple >>> 8 & 0xF) << w | (lows >>> 2 * w) & mask);
    out[at + 3] = indexer.alternateBucket(bucket, (tuple >>> 12) << w | (lows >>> 3 * w) & mask);
  }

  /** Returns non-zero iff the stored bucket bits {@code word} hold {@code fingerprint}. */
  @Override
  long matchingLanes(long word, long fingerprint) {
    return matches(lanesOf(word), fingerprint);
  }

  // ---------------------------------------------------------------------------------------------
  // Validation of read payloads

  /**
   * Fails unless every bucket is a valid canonical encoding: a tuple index below {@value #TUPLES}
   * and fingerprints in ascending order (as this class writes them).
   *
   * @param payloadOffset the stream offset of the payload, for the exception's offset
   * @throws FilterFormatException naming {@code payload} and the offset of the first bad bucket
   */
  void checkEncoding(long payloadOffset) {
    long bucketBits = BUCKET_SIZE * (fingerprintBits - 1L);
    for (long bucket = 0, n = bucketCount(); bucket < n; bucket++) {
      long raw = bucketWord(bucket);
      int index = (int) raw & 0xFFF;
      String problem = null;
      if (index >= TUPLES) {
        problem = "nibble tuple index " + index + " (expected: < " + TUPLES + ")";
      } else {
        long lanes = lanesOf(raw);
        for (int slot = 1; slot < BUCKET_SIZE && problem == null; slot++) {
          if (laneValue(lanes, slot - 1) > laneValue(lanes, slot)) {
            problem = "fingerprints not in ascending order (expected: the canonical encoding)";
          }
        }
      }
      if (problem != null) {
        throw new FilterFormatException(
            "payload",
            payloadOffset + bucket * bucketBits / 8,
            "semi-sorted bucket " + bucket + ": " + problem);
      }
    }
  }
}
