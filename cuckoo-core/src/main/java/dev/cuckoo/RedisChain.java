package dev.cuckoo;

import java.util.ArrayList;
import java.util.List;

/**
 * RedisBloom's scalable cuckoo filter (a chain of sub-filters, "links"), bit for bit: the same
 * slots end up holding the same fingerprints as in RedisBloom for the same sequence of commands, so
 * {@code CF.DEBUG}, {@code CF.INFO} and {@code CF.SCANDUMP} agree byte for byte.
 */
final class RedisChain extends Chain {
  /*
   * The rules (docs/REDISBLOOM.md; the arithmetic is Indexer's, the kick-out Inserter's):
   *
   * fp = h mod 255 + 1; bucket 1 = h mod n; bucket 2 = (h XOR fp·0x5bd1e995) mod n, where n is the
   * link's own bucket count. Link k has base·expansion^k buckets (pow in double).
   *
   * Insert: links from the newest to the oldest, in each the first empty slot of bucket 1, then of
   * bucket 2. Otherwise kick in the newest link only: at bucket 1, swap with slot `victim` (0, 1,
   * ... mod b), go to the evicted fingerprint's other bucket (bucket XOR fp·c) mod n, stop at the
   * first empty slot; after maxIterations failed steps retrace the path backwards, which restores
   * every slot because the alternate-bucket map is an involution. Then grow (unless expansion 0)
   * and retry, which places the item in the new, empty link.
   *
   * Delete: links newest first, bucket 1 then bucket 2, the lowest matching slot. Afterwards, with
   * more than one link, compact without continuing past a failure when deletes > 10% of items.
   *
   * Compact: links from the newest down to link 1; every fingerprint (bucket b) moves into the
   * first older link k = 0, 1, ... with an empty slot in bucket b mod n_k or (b XOR fp·c) mod n_k;
   * a link whose every fingerprint moved is freed if it is the newest.
   *
   * Counters are RedisBloom's u64 fields: compared as unsigned, converted to double as unsigned.
   */

  /** Most links a chain can have (RedisBloom's u16 numFilters). */
  static final int MAX_LINKS = 65535;

  /** Most buckets RedisBloom allows in one link (a 56-bit field). */
  static final long MAX_REDIS_BUCKETS = (1L << 56) - 1;

  /**
   * Most slots of one link here: 2^32. RedisBloom computes slot offsets in 32 bits, so larger links
   * would behave differently; they could not be allocated on most heaps anyway.
   */
  static final long MAX_LINK_SLOTS = 1L << 32;

  /** Most links {@link #prefetch} loads from, newest first. */
  static final int PREFETCH_LINKS = 4;

  /** Largest bucket size. */
  static final int MAX_BUCKET_SIZE = 255;

  /** Largest maxIterations. */
  static final int MAX_ITERATIONS = 65535;

  /** Largest expansion. */
  static final int MAX_EXPANSION = 32768;

  /** RedisBloom's sizeof(CuckooFilter), counted by CF.INFO's "Size". */
  static final long HEADER_SIZE = 40;

  /** RedisBloom's sizeof(SubCF), counted by CF.INFO's "Size" for every link. */
  static final long LINK_SIZE = 16;

  /**
   * Estimated heap bytes of a chain's fixed objects (compressed oops, 12-byte headers): this object
   * 64, the list of links 24 and the room index 24; their arrays are counted by {@link
   * #sizeInBytes()}.
   */
  static final long CHAIN_BYTES = 64 + 24 + 24;

  /**
   * Heap bytes of a link besides its table: the RedisLink object (48) and its Indexer (64), checked
   * against a heap walk in the server's KeyspaceMemoryTest.
   */
  static final long LINK_BYTES = 48 + 64;

  private final long baseBuckets;
  private final int bucketSize;
  private final int maxIterations;
  private final int expansion;
  private final ArrayList<RedisLink> links = new ArrayList<>();

  /**
   * Byte offset of link i in the concatenation of all links' payloads, i <= links (room beyond).
   */
  private long[] starts = new long[] {0};

  /** Bit i set iff link i has an empty slot: inserts jump over full links (same result, O(1)). */
  private final java.util.BitSet hasRoom = new java.util.BitSet();

  private long items;
  private long deletes;

  private RedisChain(long baseBuckets, int bucketSize, int maxIterations, int expansion) {
    this.baseBuckets = baseBuckets;
    this.bucketSize = bucketSize;
    this.maxIterations = maxIterations;
    this.expansion = expansion;
  }

  /**
   * Creates an empty chain of one link, as CF.RESERVE does.
   *
   * @throws FilterAllocationException if the link cannot be allocated
   */
  static RedisChain create(long baseBuckets, int bucketSize, int maxIterations, int expansion) {
    RedisChain chain = new RedisChain(baseBuckets, bucketSize, maxIterations, expansion);
    chain.addLinks(1);
    return chain;
  }

  /**
   * Creates a chain of {@code linkCount} empty links with the given counters, as LOADCHUNK's header
   * does. Every link's size is checked, and their total against the maximum heap, before the first
   * is allocated.
   *
   * @throws FilterAllocationException if the links cannot be allocated
   */
  static RedisChain restore(
      long baseBuckets,
      int bucketSize,
      int maxIterations,
      int expansion,
      int linkCount,
      long items,
      long deletes) {
    RedisChain chain = new RedisChain(baseBuckets, bucketSize, maxIterations, expansion);
    chain.addLinks(linkCount);
    chain.items = items;
    chain.deletes = deletes;
    return chain;
  }

  /**
   * Creates a chain of one link over {@code table} (shared, not copied) holding {@code items}
   * items: the chain RedisBloom would hold with the same slots.
   */
  static RedisChain over(BucketTable table, int maxIterations, int expansion, long items) {
    return over(table, maxIterations, expansion, items, 0);
  }

  /**
   * Creates a chain of one link over {@code table} (shared, not copied) with the given counters
   * (RedisBloom's numItems and numDeletes).
   */
  static RedisChain over(
      BucketTable table, int maxIterations, int expansion, long items, long deletes) {
    RedisChain chain =
        new RedisChain(table.bucketCount(), table.bucketSize(), maxIterations, expansion);
    RedisLink link = new RedisLink(table);
    link.recount();
    chain.links.add(link);
    chain.starts = new long[] {0, link.bytes()};
    chain.occupancyChanged(0);
    chain.items = items;
    chain.deletes = deletes;
    return chain;
  }

  /**
   * Returns the bucket count of link {@code k}: base·expansion^k with the power in double, as
   * RedisBloom computes it, or −1 if that exceeds RedisBloom's or this library's link limit.
   */
  long linkBuckets(int k) {
    return linkBuckets(baseBuckets, bucketSize, expansion, k);
  }

  static long linkBuckets(long baseBuckets, int bucketSize, int expansion, int k) {
    double growth = Math.pow(expansion, k);
    double buckets = baseBuckets * growth;
    if (!(buckets <= MAX_REDIS_BUCKETS)) {
      return -1;
    }
    long count = baseBuckets * (long) growth;
    if (count < 1 || bucketSize < 1 || count > maxLinkBuckets(bucketSize)) {
      return -1;
    }
    return count;
  }

  /** Returns the payload bytes of {@code links} links, or −1 if one of them is out of limits. */
  static long payloadBytes(long baseBuckets, int bucketSize, int expansion, int links) {
    long total = 0;
    for (int k = 0; k < links; k++) {
      long buckets = linkBuckets(baseBuckets, bucketSize, expansion, k);
      if (buckets < 0) {
        return -1;
      }
      total += buckets * bucketSize;
      if (total < 0) {
        return -1;
      }
    }
    return total;
  }

  /** Returns the largest bucket count of one link with this bucket size. */
  static long maxLinkBuckets(int bucketSize) {
    return Math.min(BucketTable.maxBucketCount(bucketSize), MAX_LINK_SLOTS / bucketSize);
  }

  /**
   * Returns the heap bytes of a new chain of one link of {@code baseBuckets} buckets, as {@link
   * #sizeInBytes()} gives it right after {@link #create}.
   *
   * @throws FilterAllocationException if the link is beyond the limits
   */
  static long newChainBytes(long baseBuckets, int bucketSize) {
    if (linkBuckets(baseBuckets, bucketSize, 1, 0) < 0) {
      throw beyondLimits(baseBuckets, bucketSize, 1, 0);
    }
    return arraysBytes(1, 2) + linkBytes(baseBuckets, bucketSize);
  }

  private static FilterAllocationException beyondLimits(
      long baseBuckets, int bucketSize, int expansion, int k) {
    return new FilterAllocationException(
        -1,
        "link "
            + k
            + ": base "
            + baseBuckets
            + " × expansion "
            + expansion
            + "^"
            + k
            + " buckets (expected: <= "
            + Math.min(MAX_REDIS_BUCKETS, maxLinkBuckets(bucketSize))
            + ")");
  }

  /**
   * Returns the heap bytes of the chain's fixed objects and arrays with {@code linkCount} links and
   * {@code startsLength} link offsets: the list's array counts as its default 10 slots or one per
   * link, the room index as one bit per link.
   */
  private static long arraysBytes(int linkCount, int startsLength) {
    return CHAIN_BYTES
        + BucketTable.referenceArrayBytes(Math.max(10, linkCount))
        + BucketTable.arrayBytes(8L * ((linkCount + 63) / 64))
        + BucketTable.arrayBytes(8L * startsLength);
  }

  /** Returns the heap bytes of a link of {@code buckets} buckets: its table and its object. */
  static long linkBytes(long buckets, int bucketSize) {
    return BucketTable.pagedHeapBytes(buckets, bucketSize, 8) + LINK_BYTES;
  }

  /**
   * Allocates {@code count} new links. Every link's bucket count is checked against the limits, and
   * their total size against the maximum heap, before the first is allocated; a link whose
   * allocation runs out of heap fails the whole call.
   *
   * @throws FilterAllocationException if a link is out of limits, the links are larger than the
   *     maximum heap, or the heap has no room for one of them even after a full collection
   */
  private void addLinks(int count) {
    int first = links.size();
    long[] sizes = new long[count];
    long total = 0;
    for (int i = 0; i < count; i++) {
      long buckets = linkBuckets(first + i);
      if (buckets < 0) {
        throw beyondLimits(baseBuckets, bucketSize, expansion, first + i);
      }
      sizes[i] = buckets;
      total += linkBytes(buckets, bucketSize);
      if (total < 0) {
        throw new FilterAllocationException(-1, "links need more than 2^63 bytes");
      }
    }
    HeapBudget.requireWithinMaxHeap(total, count + " link(s) of " + bucketSize + "-slot buckets");
    links.ensureCapacity(first + count);
    long[] newStarts = starts;
    if (newStarts.length < first + count + 1) {
      newStarts = java.util.Arrays.copyOf(starts, Math.max(first + count + 1, 2 * starts.length));
    }
    for (int i = 0; i < count; i++) {
      RedisLink link =
          new RedisLink(HeapBudget.allocate(sizes[i], bucketSize, 8, "link " + (first + i)));
      links.add(link);
      hasRoom.set(first + i);
      newStarts[first + i + 1] = newStarts[first + i] + link.bytes();
    }
    starts = newStarts;
  }

  /** Fails if the room index disagrees with the links (tests). */
  void checkRoomIndex() {
    for (int i = 0; i < links.size(); i++) {
      if (hasRoom.get(i) == links.get(i).isFull()) {
        throw new IllegalStateException("room index of link " + i);
      }
    }
    if (hasRoom.length() > links.size()) {
      throw new IllegalStateException("room index beyond the last link");
    }
  }

  /** Records that {@code moved} fingerprints were written into the one link (a merge). */
  void merged(long moved) {
    RedisLink link = links.get(0);
    link.occupied += moved;
    occupancyChanged(0);
    items += moved;
  }

  /** Records that the occupancy of link {@code index} changed. */
  void occupancyChanged(int index) {
    hasRoom.set(index, !links.get(index).isFull());
  }

  private void removeLastLink() {
    hasRoom.clear(links.size() - 1);
    links.remove(links.size() - 1);
  }

  // ---------------------------------------------------------------------------------------------
  // Commands

  /** CF.ADD / CF.ADDNX. */
  AddOutcome add(long h, boolean ifAbsent) {
    if (ifAbsent && mightContain(h)) {
      return AddOutcome.ALREADY_PRESENT;
    }
    long fp = Indexer.redisFingerprint(h);
    long h2 = Indexer.redisAlternateHash(h, fp);
    while (true) {
      for (int i = hasRoom.previousSetBit(links.size() - 1);
          i >= 0;
          i = hasRoom.previousSetBit(i - 1)) {
        RedisLink link = links.get(i);
        if (link.table.insert(link.index(h), fp) || link.table.insert(link.index(h2), fp)) {
          link.occupied++;
          occupancyChanged(i);
          items++;
          return AddOutcome.ADDED;
        }
      }
      RedisLink newest = links.get(links.size() - 1);
      if (kick(newest, h, fp)) {
        newest.occupied++;
        occupancyChanged(links.size() - 1);
        items++;
        return AddOutcome.ADDED;
      }
      if (expansion == 0) {
        return AddOutcome.FULL;
      }
      if (!grow()) {
        return AddOutcome.NO_MEMORY;
      }
    }
  }

  /** Adds a link; false if the link limit is reached or it cannot be allocated. */
  private boolean grow() {
    if (links.size() >= MAX_LINKS || linkBuckets(links.size()) < 0) {
      return false;
    }
    try {
      addLinks(1);
      return true;
    } catch (FilterAllocationException e) {
      return false;
    }
  }

  /** RedisBloom's kick-out in {@code link}; on failure every slot is restored. */
  private boolean kick(RedisLink link, long h, long fp) {
    if (Inserter.redisKickOut(link.indexer, link.table, link.index(h), fp, maxIterations)) {
      return true;
    }
    if (!link.isPowerOfTwo()) {
      // as in RedisBloom, retracing by (i XOR fp·c) mod n is not exact here: slots may change
      link.recount();
      occupancyChanged(links.size() - 1);
    }
    return false;
  }

  /** CF.EXISTS. */
  @Override
  boolean mightContain(long h) {
    long fp = Indexer.redisFingerprint(h);
    long h2 = Indexer.redisAlternateHash(h, fp);
    for (int i = links.size() - 1; i >= 0; i--) {
      RedisLink link = links.get(i);
      if (link.table.contains(link.index(h), fp) || link.table.contains(link.index(h2), fp)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Loads the first slot of both buckets of every hash in the newest {@link #PREFETCH_LINKS} links
   * (the links a lookup of an absent item reads first): per link, the indexes of all the hashes
   * first (arithmetic only), then a tight loop of independent loads whose cache misses overlap.
   */
  @Override
  long prefetch(long[] hashes, int from, int to, long[] buckets) {
    int count = to - from;
    long folded = 0;
    for (int i = links.size() - 1; i >= Math.max(0, links.size() - PREFETCH_LINKS); i--) {
      RedisLink link = links.get(i);
      for (int k = 0; k < count; k++) {
        long h = hashes[from + k];
        buckets[2 * k] = link.index(h);
        buckets[2 * k + 1] = link.index(Indexer.redisAlternateHash(h, Indexer.redisFingerprint(h)));
      }
      BucketTable table = link.table;
      for (int j = 0; j < 2 * count; j++) {
        folded ^= table.get(buckets[j], 0);
      }
    }
    return folded;
  }

  /** CF.COUNT: both buckets of every link, the same bucket twice if both indexes coincide. */
  @Override
  long count(long h) {
    long fp = Indexer.redisFingerprint(h);
    long h2 = Indexer.redisAlternateHash(h, fp);
    long count = 0;
    for (RedisLink link : links) {
      count += link.table.count(link.index(h), fp) + link.table.count(link.index(h2), fp);
    }
    return count;
  }

  /** CF.DEL, with RedisBloom's automatic compaction. */
  @Override
  boolean remove(long h) {
    long fp = Indexer.redisFingerprint(h);
    long h2 = Indexer.redisAlternateHash(h, fp);
    for (int i = links.size() - 1; i >= 0; i--) {
      RedisLink link = links.get(i);
      if (clearFirst(link, link.index(h), fp) || clearFirst(link, link.index(h2), fp)) {
        occupancyChanged(i);
        items--;
        deletes++;
        if (links.size() > 1 && unsignedToDouble(deletes) > unsignedToDouble(items) * 0.10) {
          compact(false);
        }
        return true;
      }
    }
    return false;
  }

  private static boolean clearFirst(RedisLink link, long bucket, long fp) {
    int slot = link.table.find(bucket, fp);
    if (slot < 0) {
      return false;
    }
    link.table.set(bucket, slot, 0);
    link.occupied--;
    return true;
  }

  /**
   * Replaces one copy of the first hash by the second without counting a delete: the first copy
   * found as CF.DEL would find it is cleared, the second hash is added as CF.ADD would add it, and
   * if that fails the first is put back in the same slot.
   */
  @Override
  boolean replace(long oldHash, long newHash) {
    long fp = Indexer.redisFingerprint(oldHash);
    long h2 = Indexer.redisAlternateHash(oldHash, fp);
    for (int i = links.size() - 1; i >= 0; i--) {
      RedisLink link = links.get(i);
      long bucket = link.index(oldHash);
      int slot = link.table.find(bucket, fp);
      if (slot < 0) {
        bucket = link.index(h2);
        slot = link.table.find(bucket, fp);
      }
      if (slot >= 0) {
        link.table.set(bucket, slot, 0);
        link.occupied--;
        occupancyChanged(i);
        items--;
        if (add(newHash, false) == AddOutcome.ADDED) {
          return true;
        }
        link.table.set(bucket, slot, fp);
        link.occupied++;
        occupancyChanged(i);
        items++;
        return false;
      }
    }
    return false;
  }

  /**
   * CF.COMPACT ({@code cont} true) and the automatic compaction after deletes ({@code cont} false).
   */
  void compact(boolean cont) {
    for (int k = links.size() - 1; k >= 1; k--) {
      if (!compactLink(k) && !cont) {
        break;
      }
    }
    deletes = 0;
  }

  /** Moves every fingerprint of link {@code k} into older links if it can; true if all moved. */
  private boolean compactLink(int k) {
    RedisLink link = links.get(k);
    BucketTable table = link.table;
    boolean allMoved = true;
    for (long bucket = 0; bucket < link.bucketCount; bucket++) {
      for (int slot = 0; slot < bucketSize; slot++) {
        long fp = table.get(bucket, slot);
        if (fp == 0) {
          continue;
        }
        if (relocate(fp, bucket, k)) {
          table.set(bucket, slot, 0);
          link.occupied--;
        } else {
          allMoved = false;
        }
      }
    }
    occupancyChanged(k);
    if (allMoved && k == links.size() - 1) {
      removeLastLink();
    }
    return allMoved;
  }

  private boolean relocate(long fp, long bucket, int below) {
    long other = Indexer.redisAlternateHash(bucket, fp);
    for (int k = 0; k < below; k++) {
      RedisLink link = links.get(k);
      if (link.table.insert(link.index(bucket), fp) || link.table.insert(link.index(other), fp)) {
        link.occupied++;
        occupancyChanged(k);
        return true;
      }
    }
    return false;
  }

  /** Empties the chain: one empty link, counters zero. */
  @Override
  void clear() {
    while (links.size() > 1) {
      removeLastLink();
    }
    links.get(0).table.clear();
    links.get(0).occupied = 0;
    occupancyChanged(0);
    items = 0;
    deletes = 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Properties

  long items() {
    return items;
  }

  long deletes() {
    return deletes;
  }

  @Override
  int linkCount() {
    return links.size();
  }

  long baseBuckets() {
    return baseBuckets;
  }

  @Override
  int bucketSize() {
    return bucketSize;
  }

  int maxIterations() {
    return maxIterations;
  }

  @Override
  int expansion() {
    return expansion;
  }

  List<RedisLink> links() {
    return links;
  }

  /**
   * Returns the byte offset of link {@code i} in the dump's concatenated payload; i may be
   * linkCount.
   */
  long linkStart(int i) {
    return starts[i];
  }

  /** Returns the index of the link holding payload byte {@code offset}, or −1 if past the end. */
  int linkAt(long offset) {
    if (offset < 0 || offset >= starts[links.size()]) {
      return -1;
    }
    int low = 0;
    int high = links.size() - 1;
    while (low < high) {
      int mid = (low + high + 1) >>> 1;
      if (starts[mid] <= offset) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    return low;
  }

  /** CF.INFO "Size": 40 + 16 per link + every link's slots. */
  long redisSize() {
    return HEADER_SIZE + LINK_SIZE * links.size() + starts[links.size()];
  }

  /**
   * Returns the heap bytes of the chain: every link's table and object, and the chain's own objects
   * and arrays (estimated: a list that grew may have more slots than links).
   */
  @Override
  long sizeInBytes() {
    long bytes = arraysBytes(links.size(), starts.length);
    for (RedisLink link : links) {
      bytes += link.table.sizeInBytes() + LINK_BYTES;
    }
    return bytes;
  }

  /** CF.DEBUG's string. */
  String debug() {
    return "bktsize:"
        + bucketSize
        + " buckets:"
        + baseBuckets
        + " items:"
        + Long.toUnsignedString(items)
        + " deletes:"
        + Long.toUnsignedString(deletes)
        + " filters:"
        + links.size()
        + " max_iterations:"
        + maxIterations
        + " expansion:"
        + expansion;
  }

  /** Returns the item count, RedisBloom's numItems. */
  @Override
  long size() {
    return items;
  }

  @Override
  long deletedCount() {
    return deletes;
  }

  @Override
  long baseBucketCount() {
    return baseBuckets;
  }

  @Override
  int maxKicks() {
    return maxIterations;
  }

  @Override
  double growthFactor() {
    return expansion;
  }

  /** Returns the number of slots: RedisBloom rates a link for as many items as it has slots. */
  @Override
  long capacity() {
    return starts[links.size()];
  }

  /** Returns the sum of the links' rates when full: about {@code 2 × bucketSize / 255} each. */
  @Override
  double falsePositiveRateAtCapacity() {
    return links.size() * Sizing.falsePositiveRate(255, bucketSize, 1.0);
  }

  @Override
  double expectedFalsePositiveRate() {
    double none = 1;
    for (RedisLink link : links) {
      none *= 1 - Sizing.falsePositiveRate(255, bucketSize, (double) link.occupied / link.slots);
    }
    return 1 - none;
  }

  /** Returns the items (as RedisBloom's unsigned count) per slot of all links. */
  @Override
  double loadFactor() {
    return unsignedToDouble(items) / starts[links.size()];
  }

  /** Returns 8: every slot is one byte and a chain is rated for one item per slot. */
  @Override
  double bitsPerItem() {
    return 8.0;
  }

  @Override
  String describe() {
    return debug();
  }

  /** Converts an unsigned 64-bit value to the nearest double, as C does for a u64. */
  static double unsignedToDouble(long value) {
    if (value >= 0) {
      return value;
    }
    // halve with the lost bit kept sticky so rounding matches the direct conversion
    return ((value >>> 1) | (value & 1)) * 2.0;
  }
}
