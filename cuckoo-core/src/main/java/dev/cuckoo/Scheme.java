package dev.cuckoo;

/**
 * How a filter derives an item's fingerprint and its two buckets from the item's 64-bit hash. The
 * scheme's {@link #id()} is written into serialized filters, so the constants are frozen.
 */
public enum Scheme {
  /**
   * The first of the two STANDARD arithmetics, with the costlier alternate bucket ({@link
   * #STANDARD_FAST} is the default): any fingerprint width from 4 to 32 bits, bucket sizes 2, 4 or
   * 8, and any even bucket count (a filter sized for 10 million items is not rounded up to 16.7
   * million). The fingerprint is taken from the high 32 bits of the hash (never 0, which marks an
   * empty slot), the first bucket is {@code (low 32 bits × m) >>> 32}, and the alternate bucket is
   * {@code (−i − r(fp)) mod m} with {@code r(fp)} odd, which is an involution whose two buckets
   * always differ.
   */
  STANDARD(1),
  /**
   * Bit-exact with RedisBloom's cuckoo filter (Redis 8 {@code CF.*} commands): 8-bit fingerprints
   * {@code hash mod 255 + 1}, bucket index {@code hash mod m}, alternate bucket {@code (i XOR
   * fp·0x5bd1e995) mod m}, a power-of-two bucket count, bucket sizes 1 to 255, and RedisBloom's
   * deterministic kick-out with rollback, with items hashed by {@link ItemHashers#redisUtf8()} or
   * {@link ItemHashers#redisBytes()} (MurmurHash64A, seed 0). The scheme of {@link
   * RedisCuckooFilter} only, the one way to build such a filter ({@link
   * RedisCuckooFilter#reserve(long, int, int, int)}; expansion 0 for one that never grows): {@link
   * CuckooFilter.Builder#scheme} and {@link ConcurrentCuckooFilter.Builder#scheme} refuse it. A
   * file of a single filter of this scheme (written by {@link RedisCuckooFilter#writeSingleTo}, or
   * by a {@link CuckooFilter} before it refused the scheme) reads as a one-link {@link
   * RedisCuckooFilter}.
   */
  REDISBLOOM(2),
  /**
   * The default of {@link CuckooFilter}, {@link ConcurrentCuckooFilter} and the links and shards of
   * {@link ScalableCuckooFilter} and {@link ShardedCuckooFilter}: {@link #STANDARD} with a cheaper
   * alternate bucket. The same fingerprints, first buckets, bucket sizes, fingerprint widths and
   * bucket counts, but the alternate bucket is {@code (r(fp) − i) mod m} with {@code r(fp)} the top
   * {@code s} bits of {@code fp · 0x9E3779B97F4A7C15} (mod 2^64), OR 1, where {@code 2^s} is the
   * largest power of two not above {@code m}. It is again an involution whose two buckets always
   * differ (the two indexes add up to an odd number modulo an even {@code m}), with one multiply
   * where STANDARD needs two multiply-shift range reductions, so more lookups overlap their cache
   * misses. Same false-positive rate and load factors as STANDARD.
   */
  STANDARD_FAST(4);

  private final int id;

  Scheme(int id) {
    this.id = id;
  }

  /**
   * Returns the scheme's frozen numeric id, as stored in the binary format.
   *
   * @return the id
   */
  public int id() {
    return id;
  }

  /**
   * Returns true for {@link #STANDARD} and {@link #STANDARD_FAST}, the schemes that share
   * fingerprints, first buckets and geometry and differ only in the alternate bucket.
   *
   * @return true unless this is {@link #REDISBLOOM}
   */
  public boolean isStandard() {
    return this != REDISBLOOM;
  }

  /**
   * Returns the scheme with the given id.
   *
   * @param id a scheme id
   * @return the scheme, or {@code null} if no scheme has that id
   */
  static Scheme byId(int id) {
    for (Scheme scheme : values()) {
      if (scheme.id == id) {
        return scheme;
      }
    }
    return null;
  }
}
