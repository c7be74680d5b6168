package dev.cuckoo;

import java.util.ArrayList;
import java.util.List;

/**
 * The growing filter of the {@link Scheme#STANDARD} scheme: a chain of {@link CuckooFilter} links
 * (each of {@link #LINK_SCHEME}), each {@code growthFactor} times the capacity of the one before
 * and with fingerprints wide enough that the false-positive rates of all links, however many there
 * will be, sum to at most the target.
 */
final class StandardChain<T> extends Chain {
  /*
   * Tightening (after the scalable Bloom filter, Almeida et al. 2007 [1]). A lookup is a false
   * positive if any link gives one, so the compound rate is at most the sum of the links' rates at
   * capacity. The budget left, R (initially the target ε), is shared out geometrically: link k may
   * use at most (1 − r)·R and gets the narrowest fingerprint whose rate at capacity, e_k, fits;
   * then R −= e_k. Since e_k ≤ (1 − r)·R, R stays positive for ever and Σ e_k < ε for any number of
   * links; rounding the width up leaves some of each allowance to the later links.
   *
   * The price is bits: each allowance is a fraction of what is left, so later links need wider
   * fingerprints. r = 0.8 minimises the bits per item of a chain grown 1000-fold with growth 2
   * (computed for ε from 10^-2 to 10^-4 over r in [0.5, 0.97]): about 14.3 bits per slot for the
   * newest links at ε = 1%, against 10 for one filter sized for the final count.
   *
   * No schedule can do much better with growth 2. Link k's rate at capacity is about 2bα / 2^f_k
   * whatever its size, so a chain whose links hold the shares p_k of the items needs
   * Σ 2bα / 2^f_k ≤ ε, and the mean width Σ p_k·f_k is smallest, even knowing the final p_k in
   * advance, at f_k = log2(2bα/ε) + log2(1/p_k): the single filter's width plus the entropy of
   * (p_k), which is 2 bits for the geometric shares of growth 2 (the newest link holds 1/2, the one
   * before 1/4, ...). At ε = 1%, b = 4 that is 9.56 + 2 bits against the single filter's 10 (its
   * width rounded up): ≥ 1.156x the bits per item before any rounding of the chain's widths, and
   * ≥ 1.145x at ε = 0.1% (12.88 + 2 against 13). Not knowing how far the chain will grow costs the
   * rest: with shares fixed when each link is made, the mean width exceeds log2(2bα/ε) by
   * log2(1/(1 − r)) + (k − 2)·log2(1/r) for k links (the mean link index is k − 2), at best
   * log2(k − 1) + 1.4 bits: 4.5 bits for k = 10, i.e. a 1000-fold growth.
   *
   * With a hint of the final count the chain knows the shares in advance for the links up to the
   * hint, and GrowthPlan gives those links the widths of that lower bound (rounded to integers and
   * with a small reserve for later links); links past the hint use the tightening above over what
   * is left of the budget.
   *
   * A link is full when it holds its rated capacity (so its load never exceeds the design load its
   * rate was computed for), or earlier if an insert fails in it.
   *
   * [1] P. S. Almeida, C. Baquero, N. Preguiça, D. Hutchison, "Scalable Bloom Filters",
   *     Information Processing Letters 101(6), 2007.
   */

  /** Share of the remaining false-positive budget that each new link leaves to later links. */
  static final double TIGHTENING = 0.8;

  /** The scheme of every link, plain buckets (the chain format accepts no other). */
  static final Scheme LINK_SCHEME = Scheme.STANDARD_FAST;

  private final ItemHasher<? super T> hasher;
  private final long initialCapacity;
  private final double growthFactor;
  private final double falsePositiveRate;
  private final int bucketSize;
  private final int maxKicks;
  private final long seed;
  private final ArrayList<CuckooFilter<T>> links = new ArrayList<>();

  /** Widths of the links a final-size hint covers ({@link GrowthPlan}); empty without a hint. */
  private final int[] plannedBits;

  private double remainingRate;
  private long size;
  private long removes;

  StandardChain(
      ItemHasher<? super T> hasher,
      long initialCapacity,
      double growthFactor,
      double falsePositiveRate,
      int bucketSize,
      int maxKicks,
      long seed,
      List<CuckooFilter<T>> links,
      long removes) {
    this(
        hasher,
        initialCapacity,
        growthFactor,
        falsePositiveRate,
        bucketSize,
        maxKicks,
        seed,
        links,
        removes,
        0);
  }

  /**
   * Creates a chain whose first {@code hintedLinks} links take their widths from {@link GrowthPlan}
   * (0: none, the tightening alone).
   *
   * @throws IllegalArgumentException if the hinted links cannot be sized or would need fingerprints
   *     wider than 32 bits
   */
  StandardChain(
      ItemHasher<? super T> hasher,
      long initialCapacity,
      double growthFactor,
      double falsePositiveRate,
      int bucketSize,
      int maxKicks,
      long seed,
      List<CuckooFilter<T>> links,
      long removes,
      int hintedLinks) {
    // links == null: a new chain of one empty link; otherwise the links read back, in order
    this.hasher = hasher;
    this.initialCapacity = initialCapacity;
    this.growthFactor = growthFactor;
    this.falsePositiveRate = falsePositiveRate;
    this.bucketSize = bucketSize;
    this.maxKicks = maxKicks;
    this.seed = seed;
    this.remainingRate = falsePositiveRate;
    this.plannedBits = hintedLinks == 0 ? new int[0] : plan(hintedLinks);
    if (plannedBits == null) {
      throw new IllegalArgumentException(
          "hintedLinks: "
              + hintedLinks
              + " (its links would need fingerprints wider than 32 bits)");
    }
    if (links == null) {
      CuckooFilter<T> first = newLink(0);
      if (first == null) {
        throw new IllegalArgumentException(
            "falsePositiveRate: " + falsePositiveRate + " (too small for 32-bit fingerprints)");
      }
      this.links.add(first);
      remainingRate -= first.falsePositiveRateAtCapacity();
      return;
    }
    for (CuckooFilter<T> link : links) {
      appendLink(link);
    }
    this.removes = removes;
  }

  /** Creates an empty chain of one link. */
  StandardChain(
      ItemHasher<? super T> hasher,
      long initialCapacity,
      double growthFactor,
      double falsePositiveRate,
      int bucketSize,
      int maxKicks,
      long seed) {
    this(
        hasher,
        initialCapacity,
        growthFactor,
        falsePositiveRate,
        bucketSize,
        maxKicks,
        seed,
        null,
        0);
  }

  /** Returns the fingerprint width of the next link, or -1 if more than 32 bits are needed. */
  int nextLinkBits() {
    if (links.size() < plannedBits.length) {
      return plannedBits[links.size()];
    }
    try {
      return Sizing.fingerprintBits(
          remainingRate * (1 - TIGHTENING), bucketSize, Sizing.designLoad(bucketSize));
    } catch (IllegalArgumentException e) {
      return -1;
    }
  }

  /** Returns the items link {@code k} is sized for: ceil(initialCapacity × growthFactor^k). */
  long linkItems(int k) {
    double capacity = Math.ceil(initialCapacity * Math.pow(growthFactor, k));
    return capacity >= Sizing.MAX_EXPECTED_ITEMS ? Sizing.MAX_EXPECTED_ITEMS : (long) capacity;
  }

  /**
   * Returns the rated capacity of link {@code k}, as {@link CuckooFilter.Builder#build()} rates it.
   *
   * @throws IllegalArgumentException if the link is beyond the table limits
   */
  long linkCapacity(int k) {
    long items = linkItems(k);
    long buckets = linkBuckets(items);
    return Math.max(
        items,
        (long)
            Math.floor(buckets * bucketSize * Sizing.designLoad(bucketSize, buckets * bucketSize)));
  }

  /**
   * Returns the fewest links whose rated capacities sum to at least {@code finalItems}, or -1 if
   * more than {@code maxLinks} links, or a link beyond the table limits, would be needed.
   */
  int linksToHold(long finalItems, int maxLinks) {
    long total = 0;
    for (int k = 0; k < maxLinks; k++) {
      try {
        total += linkCapacity(k);
      } catch (IllegalArgumentException e) {
        return -1;
      }
      if (total >= finalItems) {
        return k + 1;
      }
    }
    return -1;
  }

  /**
   * Returns the widths {@link GrowthPlan} gives the first {@code count} links, or null if they
   * cannot be sized or would need more than 32 bits.
   */
  int[] plan(int count) {
    long[] capacities = new long[count];
    long[] slots = new long[count];
    try {
      for (int k = 0; k < count; k++) {
        capacities[k] = linkCapacity(k);
        slots[k] = linkBuckets(linkItems(k)) * bucketSize;
      }
    } catch (IllegalArgumentException e) {
      return null;
    }
    return GrowthPlan.widths(capacities, slots, bucketSize, falsePositiveRate);
  }

  /** Returns the number of links whose widths come from a final-size hint (0: no hint). */
  int hintedLinks() {
    return plannedBits.length;
  }

  /** Returns the bucket count of a link sized for {@code items}. */
  long linkBuckets(long items) {
    return Sizing.bucketCount(items, bucketSize);
  }

  /**
   * Returns link {@code k} sized and tightened, or null if its fingerprints would need more than 32
   * bits.
   *
   * @throws FilterAllocationException if it is larger than the maximum heap, or the heap has no
   *     room for it even after a full collection
   * @throws IllegalArgumentException if its capacity is beyond the table limits
   */
  private CuckooFilter<T> newLink(int k) {
    int bits = nextLinkBits();
    if (bits < 0) {
      return null;
    }
    long items = linkItems(k);
    long buckets = linkBuckets(items);
    String what = "link " + k + " of " + items + " items";
    // the table, and the kick path an insert allocates when the link fills (20 bytes per kick)
    long bytes = BucketTable.heapBytes(buckets, bucketSize, bits) + 20L * maxKicks;
    HeapBudget.requireWithinMaxHeap(bytes, what);
    try {
      return CuckooFilter.<T>builder(hasher)
          .scheme(LINK_SCHEME)
          .expectedItems(items)
          .fingerprintBits(bits)
          .bucketSize(bucketSize)
          .maxKicks(maxKicks)
          .seed(seed)
          .build();
    } catch (OutOfMemoryError e) {
      throw HeapBudget.outOfHeap(bytes, what, e);
    }
  }

  /** Appends a link read back (its width and size were checked against {@link #nextLinkBits}). */
  void appendLink(CuckooFilter<T> link) {
    links.add(link);
    size += link.size();
    remainingRate -= link.falsePositiveRateAtCapacity();
  }

  /** Adds a link; false if it cannot be made (limits, heap or fingerprint width). */
  private boolean grow() {
    CuckooFilter<T> link;
    try {
      link = newLink(links.size());
    } catch (FilterAllocationException | IllegalArgumentException e) {
      return false;
    }
    if (link == null) {
      return false;
    }
    links.add(link);
    remainingRate -= link.falsePositiveRateAtCapacity();
    return true;
  }

  /**
   * Adds one copy of the item of {@code hash} to the newest link, growing the chain if it is full;
   * none if {@code ifAbsent} and it might be present.
   */
  AddOutcome add(long hash, boolean ifAbsent) {
    if (ifAbsent && mightContain(hash)) {
      return AddOutcome.ALREADY_PRESENT;
    }
    CuckooFilter<T> newest = links.get(links.size() - 1);
    if (newest.size() < newest.capacity() && newest.addHash(hash)) {
      size++;
      return AddOutcome.ADDED;
    }
    if (!grow()) {
      return AddOutcome.NO_MEMORY;
    }
    if (links.get(links.size() - 1).addHash(hash)) {
      size++;
      return AddOutcome.ADDED;
    }
    return AddOutcome.NO_MEMORY;
  }

  @Override
  boolean mightContain(long hash) {
    for (int i = links.size() - 1; i >= 0; i--) {
      if (links.get(i).mightContainHash(hash)) {
        return true;
      }
    }
    return false;
  }

  @Override
  long count(long hash) {
    long count = 0;
    for (CuckooFilter<T> link : links) {
      count += link.countHash(hash);
    }
    return count;
  }

  @Override
  boolean remove(long hash) {
    for (int i = links.size() - 1; i >= 0; i--) {
      if (links.get(i).removeHash(hash)) {
        size--;
        removes++;
        return true;
      }
    }
    return false;
  }

  @Override
  boolean replace(long oldHash, long newHash) {
    for (int i = links.size() - 1; i >= 0; i--) {
      CuckooFilter<T> link = links.get(i);
      if (link.mightContainHash(oldHash)) {
        if (link.replaceHash(oldHash, newHash)) {
          return true;
        }
        // no room beside it in that link: remove, add anywhere, or put it back
        link.removeHash(oldHash);
        size--;
        if (add(newHash, false) == AddOutcome.ADDED) {
          return true;
        }
        link.addHash(oldHash);
        size++;
        return false;
      }
    }
    return false;
  }

  @Override
  void clear() {
    while (links.size() > 1) {
      links.remove(links.size() - 1);
    }
    links.get(0).clear();
    remainingRate = falsePositiveRate - links.get(0).falsePositiveRateAtCapacity();
    size = 0;
    removes = 0;
  }

  @Override
  long size() {
    return size;
  }

  long removes() {
    return removes;
  }

  /** Returns the sum of the links' rated capacities. */
  @Override
  long capacity() {
    long capacity = 0;
    for (CuckooFilter<T> link : links) {
      capacity += link.capacity();
    }
    return capacity;
  }

  @Override
  int linkCount() {
    return links.size();
  }

  List<CuckooFilter<T>> links() {
    return links;
  }

  long initialCapacity() {
    return initialCapacity;
  }

  @Override
  double growthFactor() {
    return growthFactor;
  }

  double falsePositiveRate() {
    return falsePositiveRate;
  }

  @Override
  int bucketSize() {
    return bucketSize;
  }

  @Override
  int maxKicks() {
    return maxKicks;
  }

  long seed() {
    return seed;
  }

  /** Returns the sum of the links' false-positive rates at capacity: the compound bound. */
  @Override
  double falsePositiveRateAtCapacity() {
    double sum = 0;
    for (CuckooFilter<T> link : links) {
      sum += link.falsePositiveRateAtCapacity();
    }
    return sum;
  }

  /** Returns the expected false-positive rate at the current loads: 1 − Π (1 − rate of link i). */
  @Override
  double expectedFalsePositiveRate() {
    double none = 1;
    for (CuckooFilter<T> link : links) {
      none *= 1 - link.expectedFalsePositiveRate();
    }
    return 1 - none;
  }

  long tableBits() {
    long bits = 0;
    for (CuckooFilter<T> link : links) {
      bits += link.bucketCount() * link.bucketSize() * link.fingerprintBits();
    }
    return bits;
  }

  @Override
  long sizeInBytes() {
    long bytes = 64;
    for (CuckooFilter<T> link : links) {
      bytes += link.sizeInBytes();
    }
    return bytes;
  }

  @Override
  long deletedCount() {
    return removes;
  }

  @Override
  long baseBucketCount() {
    return links.get(0).bucketCount();
  }

  /** Returns {@link #growthFactor()} rounded down. */
  @Override
  int expansion() {
    return (int) growthFactor;
  }

  @Override
  double loadFactor() {
    long slots = 0;
    for (CuckooFilter<T> link : links) {
      slots += link.bucketCount() * link.bucketSize();
    }
    return (double) size / slots;
  }

  @Override
  double bitsPerItem() {
    return (double) tableBits() / capacity();
  }

  @Override
  String describe() {
    return "size="
        + size
        + ", links="
        + links.size()
        + ", falsePositiveRate="
        + falsePositiveRate
        + (plannedBits.length > 0 ? ", hintedLinks=" + plannedBits.length : "");
  }
}
