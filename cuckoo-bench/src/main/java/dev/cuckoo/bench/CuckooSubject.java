package dev.cuckoo.bench;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.ItemHashers;
import dev.cuckoo.Scheme;

/**
 * This project's {@link CuckooFilter} (b = 4, sized from the target rate, plain or semi-sorted
 * buckets, the default scheme or a given one). Long keys go through the hash-level API with {@link
 * ItemHashers#hashLong(long)} (no boxing); strings through {@link ItemHashers#utf8()} (XXH3-64 of
 * the UTF-8 bytes).
 */
final class CuckooSubject extends Subject {
  private final CuckooFilter<CharSequence> filter;
  private long[] hashes = new long[0];

  CuckooSubject(long expectedItems, double falsePositiveRate, boolean semiSorted, Scheme scheme) {
    CuckooFilter.Builder<CharSequence> builder =
        CuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(expectedItems)
            .falsePositiveRate(falsePositiveRate)
            .semiSorted(semiSorted);
    if (scheme != null) {
      builder.scheme(scheme);
    }
    this.filter = builder.build();
  }

  /** Returns the payload bytes of the table this filter would have: the memory floor's size. */
  static long tableBytes(long expectedItems, double falsePositiveRate) {
    CuckooFilter<CharSequence> filter =
        CuckooFilter.builder(ItemHashers.utf8())
            .expectedItems(expectedItems)
            .falsePositiveRate(falsePositiveRate)
            .build();
    return filter.bucketCount() * filter.bucketSize() * filter.fingerprintBits() / 8;
  }

  @Override
  public boolean add(long key) {
    return filter.addHash(ItemHashers.hashLong(key));
  }

  @Override
  public boolean add(String key) {
    return filter.add(key);
  }

  @Override
  public boolean mightContain(long key) {
    return filter.mightContainHash(ItemHashers.hashLong(key));
  }

  @Override
  public boolean mightContain(String key) {
    return filter.mightContain(key);
  }

  @Override
  public boolean remove(long key) {
    return filter.removeHash(ItemHashers.hashLong(key));
  }

  @Override
  public boolean remove(String key) {
    return filter.remove(key);
  }

  @Override
  public boolean supportsRemove() {
    return true;
  }

  @Override
  public long bitCount() {
    // the table's payload bits: bitsPerItem() is per rated item (semi-sorted: f − 1 bits a slot)
    return Math.round(filter.bitsPerItem() * filter.capacity());
  }

  @Override
  public void mightContainAll(long[] keys, int from, int to, long[] resultBits) {
    // hash the keys, then let the filter look them up block by block with overlapped loads
    if (hashes.length < to - from) {
      hashes = new long[to - from];
    }
    for (int i = from; i < to; i++) {
      hashes[i - from] = ItemHashers.hashLong(keys[i]);
    }
    filter.mightContainAll(hashes, 0, to - from, resultBits);
  }

  @Override
  public void mightContainAll(String[] keys, int from, int to, long[] resultBits) {
    filter.mightContainAll(keys, from, to, resultBits);
  }
}
