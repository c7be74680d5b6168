package dev.cuckoo;

/**
 * The filters pinned by the golden files in {@code src/test/resources/dev/cuckoo/golden}: fixed
 * geometry (not derived from the builder's sizing rules) and fixed items. The STANDARD_FAST and
 * STANDARD filters allow no kicks (an insert that needed one would fail the generator), so their
 * bytes depend only on hashing, the fingerprint and bucket mapping and the slot order; the
 * REDISBLOOM one uses RedisBloom's deterministic kick-out.
 */
final class GoldenFilters {
  /** Items "golden-0" to "golden-319" are added, then the last {@link #REMOVED} removed. */
  static final int ADDED = 320;

  /** Items removed again: "golden-300" to "golden-319". */
  static final int REMOVED = 20;

  /** Probes "probe-0" to "probe-9999", never added. */
  static final int PROBES = 10_000;

  static final String STANDARD_FAST_RESOURCE = "golden/standard-fast-f12-b4.v1.bin";
  static final String STANDARD_RESOURCE = "golden/standard-f12-b4.v1.bin";
  static final String REDISBLOOM_RESOURCE = "golden/redisbloom-b2.v1.bin";

  private GoldenFilters() {}

  /**
   * STANDARD_FAST (the default scheme), f = 12, b = 4, 256 buckets (about 29% full), no kicks, seed
   * 0x5EED, XXH3 UTF-8.
   */
  static CuckooFilter<CharSequence> standardFast() {
    return fill(
        new CuckooFilter<>(ItemHashers.utf8(), Scheme.STANDARD_FAST, 256, 4, 12, 0, 0x5EEDL, 960));
  }

  /** STANDARD, f = 12, b = 4, 256 buckets (about 29% full), no kicks, seed 0x5EED, XXH3 UTF-8. */
  static CuckooFilter<CharSequence> standard() {
    return fill(
        new CuckooFilter<>(ItemHashers.utf8(), Scheme.STANDARD, 256, 4, 12, 0, 0x5EEDL, 960));
  }

  /** REDISBLOOM, b = 2, 256 buckets (about 59% full), 20 kicks, MurmurHash64A UTF-8 hasher. */
  static CuckooFilter<CharSequence> redisBloom() {
    return fill(
        new CuckooFilter<>(ItemHashers.redisUtf8(), Scheme.REDISBLOOM, 256, 2, 8, 20, 0, 512));
  }

  static String item(int i) {
    return "golden-" + i;
  }

  static String probe(int i) {
    return "probe-" + i;
  }

  private static CuckooFilter<CharSequence> fill(CuckooFilter<CharSequence> filter) {
    for (int i = 0; i < ADDED; i++) {
      if (!filter.add(item(i))) {
        throw new IllegalStateException("golden filter full at item " + i);
      }
    }
    for (int i = ADDED - REMOVED; i < ADDED; i++) {
      if (!filter.remove(item(i))) {
        throw new IllegalStateException("golden item " + i + " not removed");
      }
    }
    return filter;
  }

  /** Returns how many probes the filter answers "might contain" for (its false positives). */
  static int falsePositives(MembershipFilter<CharSequence> filter) {
    int hits = 0;
    for (int i = 0; i < PROBES; i++) {
      if (filter.mightContain(probe(i))) {
        hits++;
      }
    }
    return hits;
  }
}
