package dev.cuckoo.server;

import dev.cuckoo.FilterFormatException;
import dev.cuckoo.ItemHasher;
import dev.cuckoo.ItemHashers;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A chain of RedisBloom-layout cuckoo sub-filters with RedisBloom's insert, delete, count,
 * compaction and SCANDUMP/LOADCHUNK rules.
 *
 * <p>Temporary server-side stand-in with the method names of the core library's
 * {@code dev.cuckoo.ScalableCuckooFilter}; the server switches to the core class when it exists.
 * Each sub-filter is one {@code byte[]} (one byte per slot, 0 = empty), so a sub-filter is limited
 * to {@link #MAX_SUB_FILTER_BYTES}; larger requests fail like a failed allocation does.
 *
 * @param <T> item type (the server only uses {@code byte[]})
 */
final class ScalableCuckooFilter<T> {
  /*
   * Layout and algorithm follow RedisBloom's cuckoo.c as described in the project's RedisBloom
   * reference (sections 2 and 3): fp = h mod 255 + 1, h2 = h1 xor fp * 0x5bd1e995, buckets are
   * taken modulo each sub-filter's bucket count, inserts go newest sub-filter first, kicks only in
   * the newest, failed kicks are rolled back, and sub-filter i has base * expansion^i buckets.
   */

  /** Result of an insert. */
  enum AddResult {
    /** The fingerprint was stored. */
    ADDED,
    /** The fingerprint was already present (only from {@link #tryAddIfAbsent}). */
    EXISTS,
    /** No room and the filter does not expand. */
    FULL,
    /** No room and a new sub-filter could not be made. */
    NO_MEMORY
  }

  /** Largest sub-filter this stand-in can hold, in bytes (one Java array). */
  static final long MAX_SUB_FILTER_BYTES = Integer.MAX_VALUE - 16;

  private static final long ALT_MULTIPLIER = 0x5bd1e995L;
  private static final int MAX_FILTERS = 65535;
  private static final long MAX_BUCKETS = (1L << 56) - 1;
  private static final int MAX_SCANDUMP_SIZE = 16 * 1024 * 1024;
  private static final int HEADER_BYTES = 38;
  private static final double AUTO_COMPACT_RATIO = 0.10;

  private final ItemHasher<byte[]> hasher = ItemHashers.redisBytes();
  private final long baseBuckets;
  private final int bucketSize;
  private final int maxIterations;
  private final int expansion;
  private byte[][] filters;
  private int numFilters;
  private long numItems;
  private long numDeletes;

  private ScalableCuckooFilter(
      long baseBuckets, int bucketSize, int maxIterations, int expansion, int numFilters) {
    this.baseBuckets = baseBuckets;
    this.bucketSize = bucketSize;
    this.maxIterations = maxIterations;
    this.expansion = expansion;
    this.filters = new byte[Math.max(4, numFilters)][];
    for (int i = 0; i < numFilters; i++) {
      byte[] data = allocate(i);
      if (data == null) {
        throw new FilterAllocationException(
            "sub-filter " + i + " of " + numFilters + " cannot be allocated");
      }
      filters[i] = data;
    }
    this.numFilters = numFilters;
  }

  /** Creates a RedisBloom chain exactly as CF.RESERVE does. */
  static ScalableCuckooFilter<byte[]> redisBloom(
      long capacity, int bucketSize, int maxIterations, int expansion) {
    if (bucketSize < 1 || bucketSize > 255) {
      throw new IllegalArgumentException("bucketSize: " + bucketSize + " (expected: 1..255)");
    }
    if (maxIterations < 1 || maxIterations > 65535) {
      throw new IllegalArgumentException(
          "maxIterations: " + maxIterations + " (expected: 1..65535)");
    }
    if (expansion < 0 || expansion > 32768) {
      throw new IllegalArgumentException("expansion: " + expansion + " (expected: 0..32768)");
    }
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity: " + capacity + " (expected: >= 1)");
    }
    long buckets = nextPowerOfTwo(Math.max(1, capacity / bucketSize));
    return new ScalableCuckooFilter<>(
        buckets, bucketSize, maxIterations, (int) nextPowerOfTwo(expansion), 1);
  }

  private static long nextPowerOfTwo(long n) {
    if (n <= 1) {
      return n;
    }
    return Long.highestOneBit(n - 1) << 1;
  }

  private long bucketsOf(int index) {
    double buckets = baseBuckets * Math.pow(expansion, index);
    return buckets >= MAX_BUCKETS ? Long.MAX_VALUE : (long) buckets;
  }

  private byte[] allocate(int index) {
    long buckets = bucketsOf(index);
    if (buckets < 1 || buckets > MAX_BUCKETS) {
      return null;
    }
    if (buckets > MAX_SUB_FILTER_BYTES / bucketSize) {
      return null;
    }
    long bytes = buckets * bucketSize;
    Runtime rt = Runtime.getRuntime();
    long free = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    if (bytes > free) {
      return null;
    }
    try {
      return new byte[(int) bytes];
    } catch (OutOfMemoryError e) {
      return null;
    }
  }

  private boolean grow() {
    if (numFilters >= MAX_FILTERS) {
      return false;
    }
    byte[] data = allocate(numFilters);
    if (data == null) {
      return false;
    }
    if (numFilters == filters.length) {
      filters = Arrays.copyOf(filters, Math.min(MAX_FILTERS, filters.length * 2));
    }
    filters[numFilters++] = data;
    return true;
  }

  private long bucketCount(byte[] data) {
    return data.length / bucketSize;
  }

  private static long reduce(long hash, long buckets) {
    return (buckets & (buckets - 1)) == 0
        ? hash & (buckets - 1)
        : Long.remainderUnsigned(hash, buckets);
  }

  private int findSlot(byte[] data, long bucket, int fp) {
    int base = (int) (bucket * bucketSize);
    for (int j = 0; j < bucketSize; j++) {
      if ((data[base + j] & 0xff) == fp) {
        return base + j;
      }
    }
    return -1;
  }

  private int countIn(byte[] data, long bucket, int fp) {
    int base = (int) (bucket * bucketSize);
    int count = 0;
    for (int j = 0; j < bucketSize; j++) {
      if ((data[base + j] & 0xff) == fp) {
        count++;
      }
    }
    return count;
  }

  private static int fingerprint(long hash) {
    return (int) Long.remainderUnsigned(hash, 255) + 1;
  }

  private static long alternate(long h, int fp) {
    return h ^ (fp * ALT_MULTIPLIER);
  }

  /** Inserts the item as CF.ADD does. */
  AddResult tryAdd(T item) {
    long h1 = hasher.hash((byte[]) item);
    return insert(h1, fingerprint(h1));
  }

  /** Inserts the item unless its fingerprint is already present, as CF.ADDNX does. */
  AddResult tryAddIfAbsent(T item) {
    long h1 = hasher.hash((byte[]) item);
    int fp = fingerprint(h1);
    if (contains(h1, fp)) {
      return AddResult.EXISTS;
    }
    return insert(h1, fp);
  }

  private AddResult insert(long h1, int fp) {
    long h2 = alternate(h1, fp);
    while (true) {
      for (int i = numFilters - 1; i >= 0; i--) {
        byte[] data = filters[i];
        long n = bucketCount(data);
        int slot = findSlot(data, reduce(h1, n), 0);
        if (slot < 0) {
          slot = findSlot(data, reduce(h2, n), 0);
        }
        if (slot >= 0) {
          data[slot] = (byte) fp;
          numItems++;
          return AddResult.ADDED;
        }
      }
      if (kickInsert(filters[numFilters - 1], h1, fp)) {
        numItems++;
        return AddResult.ADDED;
      }
      if (expansion == 0) {
        return AddResult.FULL;
      }
      if (!grow()) {
        return AddResult.NO_MEMORY;
      }
    }
  }

  private boolean kickInsert(byte[] data, long h1, int fingerprint) {
    long n = bucketCount(data);
    long bucket = reduce(h1, n);
    int victim = 0;
    int fp = fingerprint;
    for (int i = 0; i < maxIterations; i++) {
      int index = (int) (bucket * bucketSize) + victim;
      int evicted = data[index] & 0xff;
      data[index] = (byte) fp;
      fp = evicted;
      bucket = reduce(alternate(bucket, fp), n);
      int empty = findSlot(data, bucket, 0);
      if (empty >= 0) {
        data[empty] = (byte) fp;
        return true;
      }
      victim = (victim + 1) % bucketSize;
    }
    for (int i = 0; i < maxIterations; i++) {
      victim = (victim + bucketSize - 1) % bucketSize;
      bucket = reduce(alternate(bucket, fp), n);
      int index = (int) (bucket * bucketSize) + victim;
      int evicted = data[index] & 0xff;
      data[index] = (byte) fp;
      fp = evicted;
    }
    return false;
  }

  private boolean contains(long h1, int fp) {
    long h2 = alternate(h1, fp);
    for (int i = 0; i < numFilters; i++) {
      byte[] data = filters[i];
      long n = bucketCount(data);
      if (findSlot(data, reduce(h1, n), fp) >= 0 || findSlot(data, reduce(h2, n), fp) >= 0) {
        return true;
      }
    }
    return false;
  }

  /** Returns true if the item might be present (CF.EXISTS). */
  boolean mightContain(T item) {
    long h1 = hasher.hash((byte[]) item);
    return contains(h1, fingerprint(h1));
  }

  /** Counts fingerprint copies in both buckets of every sub-filter (CF.COUNT). */
  long count(T item) {
    long h1 = hasher.hash((byte[]) item);
    int fp = fingerprint(h1);
    long h2 = alternate(h1, fp);
    long total = 0;
    for (int i = 0; i < numFilters; i++) {
      byte[] data = filters[i];
      long n = bucketCount(data);
      total += countIn(data, reduce(h1, n), fp) + countIn(data, reduce(h2, n), fp);
    }
    return total;
  }

  /** Removes one copy of the item's fingerprint, newest sub-filter first (CF.DEL). */
  boolean remove(T item) {
    long h1 = hasher.hash((byte[]) item);
    int fp = fingerprint(h1);
    long h2 = alternate(h1, fp);
    for (int i = numFilters - 1; i >= 0; i--) {
      byte[] data = filters[i];
      long n = bucketCount(data);
      int slot = findSlot(data, reduce(h1, n), fp);
      if (slot < 0) {
        slot = findSlot(data, reduce(h2, n), fp);
      }
      if (slot >= 0) {
        data[slot] = 0;
        numItems--;
        numDeletes++;
        if (numFilters > 1 && numDeletes > numItems * AUTO_COMPACT_RATIO) {
          compact(false);
        }
        return true;
      }
    }
    return false;
  }

  /** Moves fingerprints into older sub-filters and frees empty newest ones (CF.COMPACT). */
  void compact() {
    compact(true);
  }

  private void compact(boolean cont) {
    for (int ii = numFilters; ii > 1; ii--) {
      if (!compactSingle(ii - 1) && !cont) {
        break;
      }
    }
    numDeletes = 0;
  }

  private boolean compactSingle(int filterIndex) {
    byte[] data = filters[filterIndex];
    long n = bucketCount(data);
    boolean allMoved = true;
    for (long bucket = 0; bucket < n; bucket++) {
      for (int j = 0; j < bucketSize; j++) {
        int index = (int) (bucket * bucketSize) + j;
        int fp = data[index] & 0xff;
        if (fp != 0 && !relocate(fp, bucket, filterIndex)) {
          allMoved = false;
        } else if (fp != 0) {
          data[index] = 0;
        }
      }
    }
    if (allMoved && filterIndex == numFilters - 1) {
      filters[--numFilters] = null;
    }
    return allMoved;
  }

  private boolean relocate(int fp, long bucket, int filterIndex) {
    long h2 = alternate(bucket, fp);
    for (int k = 0; k < filterIndex; k++) {
      byte[] target = filters[k];
      long n = bucketCount(target);
      int slot = findSlot(target, reduce(bucket, n), 0);
      if (slot < 0) {
        slot = findSlot(target, reduce(h2, n), 0);
      }
      if (slot >= 0) {
        target[slot] = (byte) fp;
        return true;
      }
    }
    return false;
  }

  /** Returns the number of items inserted minus deleted. */
  long size() {
    return numItems;
  }

  /** Returns the number of deletes since the last compaction. */
  long deletedCount() {
    return numDeletes;
  }

  /** Returns the number of sub-filters. */
  int linkCount() {
    return numFilters;
  }

  /** Returns the first sub-filter's bucket count. */
  long baseBucketCount() {
    return baseBuckets;
  }

  /** Returns the slots per bucket. */
  int bucketSize() {
    return bucketSize;
  }

  /** Returns the kick limit. */
  int maxKicks() {
    return maxIterations;
  }

  /** Returns the (rounded) expansion factor. */
  int expansion() {
    return expansion;
  }

  /** Returns RedisBloom's computed size: 40 + 16 * filters + total slots. */
  long redisSize() {
    long size = 40L + 16L * numFilters;
    for (int i = 0; i < numFilters; i++) {
      size += filters[i].length;
    }
    return size;
  }

  /** Returns the CF.DEBUG line. */
  String redisDebug() {
    return "bktsize:" + bucketSize + " buckets:" + baseBuckets + " items:" + numItems
        + " deletes:" + numDeletes + " filters:" + numFilters + " max_iterations:"
        + maxIterations + " expansion:" + expansion;
  }

  /** Returns an estimate of the heap used by this filter, in bytes. */
  long sizeInBytes() {
    long size = 64L + 16L * filters.length;
    for (int i = 0; i < numFilters; i++) {
      size += 16L + filters[i].length;
    }
    return size;
  }

  private byte[] header() {
    ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(numItems).putLong(baseBuckets).putLong(numDeletes).putLong(numFilters);
    b.putShort((short) bucketSize).putShort((short) maxIterations).putShort((short) expansion);
    return b.array();
  }

  /** Returns the SCANDUMP chunk at the iterator (iterator >= 0). */
  ScanDumpChunk scanDump(long iterator) {
    if (numItems == 0) {
      return ScanDumpChunk.DONE;
    }
    if (iterator == 0) {
      return new ScanDumpChunk(1, header());
    }
    long offset = iterator - 1;
    long start = 0;
    for (int i = 0; i < numFilters; i++) {
      byte[] data = filters[i];
      if (offset < start + data.length) {
        if (data.length <= MAX_SCANDUMP_SIZE) {
          return new ScanDumpChunk(iterator + data.length, data.clone());
        }
        int from = (int) (offset - start);
        int length = Math.min(MAX_SCANDUMP_SIZE, data.length - from);
        return new ScanDumpChunk(iterator + length, Arrays.copyOfRange(data, from, from + length));
      }
      start += data.length;
    }
    return ScanDumpChunk.DONE;
  }

  /** Creates an empty chain from a 38-byte SCANDUMP header. */
  static ScalableCuckooFilter<byte[]> loadDumpHeader(byte[] header) {
    if (header.length != HEADER_BYTES) {
      throw new FilterFormatException("header", 0, "length " + header.length + " (expected 38)");
    }
    ByteBuffer b = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
    long items = b.getLong();
    long buckets = b.getLong();
    long deletes = b.getLong();
    long filterCount = b.getLong();
    int bucketSize = b.getShort() & 0xffff;
    int maxIterations = b.getShort() & 0xffff;
    int expansion = b.getShort() & 0xffff;
    check(bucketSize >= 1 && bucketSize <= 255, "bucketSize", 32);
    check(filterCount >= 1 && filterCount <= MAX_FILTERS, "numFilters", 24);
    check(maxIterations >= 1, "maxIterations", 34);
    check(expansion <= 32768, "expansion", 36);
    check(!(expansion == 0 && filterCount > 1), "expansion", 36);
    check(buckets >= 1 && buckets <= MAX_BUCKETS && Long.bitCount(buckets) == 1, "numBuckets", 8);
    ScalableCuckooFilter<byte[]> filter;
    try {
      filter =
          new ScalableCuckooFilter<>(
              buckets, bucketSize, maxIterations, expansion, (int) filterCount);
    } catch (FilterAllocationException e) {
      throw new FilterFormatException("numBuckets", 8, e.getMessage(), e);
    }
    filter.numItems = items;
    filter.numDeletes = deletes;
    return filter;
  }

  private static void check(boolean ok, String field, long offset) {
    if (!ok) {
      throw new FilterFormatException(field, offset, field + " out of range");
    }
  }

  /** Copies one SCANDUMP chunk into place (iterator >= 2). */
  void loadDumpChunk(long iterator, byte[] data) {
    long length = data.length;
    if (length <= 0 || iterator - 1 < length) {
      throw new FilterFormatException("chunk", iterator, "bad chunk length " + length);
    }
    long offset = iterator - length - 1;
    long start = 0;
    for (int i = 0; i < numFilters; i++) {
      byte[] target = filters[i];
      if (offset < start + target.length) {
        long from = offset - start;
        if (from + length > target.length) {
          break;
        }
        System.arraycopy(data, 0, target, (int) from, (int) length);
        return;
      }
      start += target.length;
    }
    throw new FilterFormatException("chunk", iterator, "chunk does not fit a sub-filter");
  }
}
