package dev.cuckoo.bench;

import dev.cuckoo.Scheme;
import org.fastfilter.bloom.BlockedBloom;
import org.fastfilter.cuckoo.Cuckoo16;
import org.fastfilter.cuckoo.Cuckoo8;
import org.fastfilter.cuckoo.CuckooPlus16;
import org.fastfilter.utils.Hash;
import org.fastfilter.xor.Xor8;

/**
 * The filters under test. fastfilter's filters have a fixed fingerprint width (their rate does not
 * depend on the target); its cuckoo filters are sized for {@code n / 0.95} entries, as its own
 * {@code construct} does; its blocked Bloom filter gets {@code ceil(1.44 · log2(1/ε))} bits per
 * key.
 */
public enum FilterKind {
  /** This project's cuckoo filter, b = 4, fingerprint width from the target rate. */
  CUCKOO(true),
  /**
   * This project's cuckoo filter with semi-sorted buckets ({@code semiSorted(true)}): CUCKOO's
   * geometry and fingerprint width, one bit less per slot. Not in the default parameter lists:
   * {@code -p filter=CUCKOO,CUCKOO_SEMISORTED}.
   */
  CUCKOO_SEMISORTED(true),
  /**
   * This project's cuckoo filter pinned to {@link dev.cuckoo.Scheme#STANDARD} (CUCKOO uses the
   * builder's default scheme). Not in the default parameter lists.
   */
  CUCKOO_STANDARD(true),
  /**
   * This project's cuckoo filter pinned to {@link dev.cuckoo.Scheme#STANDARD_FAST}. Not in the
   * default parameter lists.
   */
  CUCKOO_FAST(true),
  /** Guava's Bloom filter. */
  GUAVA(true),
  /** CuckooFilter4J. */
  CUCKOOFILTER4J(true),
  /** fastfilter_java Cuckoo16: 16-bit fingerprints, b = 4. */
  FF_CUCKOO16(true),
  /** fastfilter_java Cuckoo8: 8-bit fingerprints, b = 4. */
  FF_CUCKOO8(true),
  /** fastfilter_java CuckooPlus16: 16-bit fingerprints, one bucket index bit in the entry. */
  FF_CUCKOOPLUS16(true),
  /** fastfilter_java's blocked Bloom filter. */
  FF_BLOCKED_BLOOM(false),
  /** fastfilter_java Xor8: static (built from all keys at once, no insert or delete). */
  FF_XOR8(false),
  /** Not a filter: two random loads per key from an array as large as CUCKOO's table. */
  MEMORY_FLOOR(false);

  /** Seed of fastfilter's global hash seed generator, fixed so runs repeat. */
  private static final long FASTFILTER_SEED = 0x1234567L;

  private final boolean incremental;

  FilterKind(boolean incremental) {
    this.incremental = incremental;
  }

  /** Returns true if an empty filter can be created and filled one key at a time. */
  public boolean incremental() {
    return incremental;
  }

  /** Returns true if the filter takes string keys (the memory floor takes longs only). */
  public boolean acceptsStrings() {
    return this != MEMORY_FLOOR;
  }

  /** Creates an empty filter for {@code n} keys of {@code keys} (incremental kinds only). */
  public Subject createEmpty(KeyType keys, long n, double falsePositiveRate) {
    int entries = Math.toIntExact(Math.max(1, (long) (n / 0.95)));
    Hash.setSeed(FASTFILTER_SEED);
    switch (this) {
      case CUCKOO:
        return new CuckooSubject(n, falsePositiveRate, false, null);
      case CUCKOO_SEMISORTED:
        return new CuckooSubject(n, falsePositiveRate, true, null);
      case CUCKOO_STANDARD:
        return new CuckooSubject(n, falsePositiveRate, false, Scheme.STANDARD);
      case CUCKOO_FAST:
        return new CuckooSubject(n, falsePositiveRate, false, Scheme.STANDARD_FAST);
      case GUAVA:
        return new GuavaSubject(keys, n, falsePositiveRate);
      case CUCKOOFILTER4J:
        return new CuckooFilter4jSubject(keys, n, falsePositiveRate);
      case FF_CUCKOO16:
        Cuckoo16 cuckoo16 = new Cuckoo16(entries);
        return new FastFilterSubject(cuckoo16, cuckoo16::insert);
      case FF_CUCKOO8:
        Cuckoo8 cuckoo8 = new Cuckoo8(entries);
        return new FastFilterSubject(cuckoo8, cuckoo8::insert);
      case FF_CUCKOOPLUS16:
        CuckooPlus16 cuckooPlus16 = new CuckooPlus16(entries);
        return new FastFilterSubject(cuckooPlus16, cuckooPlus16::insert);
      default:
        throw new UnsupportedOperationException(this + " is built from all its keys at once");
    }
  }

  /**
   * Builds a filter holding {@code keys} (exactly one of the arrays is non-null): an empty one
   * filled key by key, or one constructed from all keys at once.
   */
  public Subject build(long[] longKeys, String[] urlKeys, double falsePositiveRate) {
    KeyType keys = longKeys != null ? KeyType.LONG : KeyType.URL;
    int n = longKeys != null ? longKeys.length : urlKeys.length;
    if (this == MEMORY_FLOOR) {
      return new MemoryFloorSubject(CuckooSubject.tableBytes(n, falsePositiveRate));
    }
    if (!incremental) {
      Hash.setSeed(FASTFILTER_SEED);
      long[] hashed = longKeys != null ? longKeys : fastFilterKeys(urlKeys);
      if (this == FF_XOR8) {
        return new FastFilterSubject(Xor8.construct(hashed), FilterKind::refuse);
      }
      BlockedBloom bloom = BlockedBloom.construct(hashed, bloomBitsPerKey(falsePositiveRate));
      return new FastFilterSubject(bloom, bloom::add);
    }
    Subject subject = createEmpty(keys, n, falsePositiveRate);
    for (int i = 0; i < n; i++) {
      boolean added = longKeys != null ? subject.add(longKeys[i]) : subject.add(urlKeys[i]);
      if (!added) {
        throw new IllegalStateException(this + " refused key " + i + " of " + n);
      }
    }
    return subject;
  }

  private static void refuse(long key) {
    throw new UnsupportedOperationException("a static filter takes no inserts");
  }

  /** Bits per key of the blocked Bloom filter at rate ε: ceil(1.44 · log2(1/ε)). */
  static int bloomBitsPerKey(double falsePositiveRate) {
    return (int) Math.ceil(1.44 * Math.log(1 / falsePositiveRate) / Math.log(2));
  }

  private static long[] fastFilterKeys(String[] urlKeys) {
    long[] hashed = new long[urlKeys.length];
    for (int i = 0; i < urlKeys.length; i++) {
      hashed[i] = FastFilterSubject.stringKey(urlKeys[i]);
    }
    return hashed;
  }
}
