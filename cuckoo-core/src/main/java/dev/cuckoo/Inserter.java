package dev.cuckoo;

/**
 * The insert strategies for a fingerprint whose two buckets are both full: neighbour probe, random
 * walk and breadth-first search ({@link Scheme#STANDARD}), or RedisBloom's deterministic kick-out
 * ({@link Scheme#REDISBLOOM}). Each either stores the fingerprint or leaves the table exactly as it
 * was. Scratch space is allocated on first need and kept; one per filter; not thread-safe.
 */
final class Inserter {
  /*
   * STANDARD, in order: NeighbourProbe looks at once at the alternate buckets of all 2·b
   * fingerprints of the two buckets (SWAR tables), and one level further; then a random walk
   * evicts a random slot of one of the two buckets, moves the victim to its alternate bucket and
   * repeats up to maxKicks times [1], each step recorded (KickPath) so that a failed walk is
   * undone in reverse order, restoring the table bit for bit; then PathSearch looks, breadth
   * first over at most 4·maxKicks buckets, for the shortest relocation path to an empty slot and
   * moves only if it finds one.
   *
   * REDISBLOOM (docs/REDISBLOOM.md, "Insert"): start at the first bucket, victim slot 0, swap,
   * go to the evicted fingerprint's alternate bucket, stop at its first empty slot, victim slot + 1
   * mod b, at most maxKicks times; after a failure retrace the path backwards, which restores every
   * slot when the bucket count is a power of two (the alternate-bucket map is then an involution).
   *
   * [1] B. Fan, D. G. Andersen, M. Kaminsky, M. D. Mitzenmacher, "Cuckoo Filter: Practically
   *     Better Than Bloom", CoNEXT 2014.
   */
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private final Indexer indexer;
  private final BucketTable table;
  private final boolean redis;
  private final int maxKicks;
  private long random;

  /** Allocated on the first insert that needs them, so filters that never fill up stay small. */
  private KickPath path;

  private PathSearch search;
  private NeighbourProbe neighbours;

  Inserter(Scheme scheme, Indexer indexer, BucketTable table, int maxKicks) {
    this.indexer = indexer;
    this.table = table;
    this.redis = scheme == Scheme.REDISBLOOM;
    this.maxKicks = maxKicks;
    this.random = Sizing.mix(indexer.seed() ^ GOLDEN);
  }

  /**
   * Stores {@code fingerprint}, whose buckets {@code firstBucket} and its alternate are both full,
   * after relocating others; false, changing nothing, if no strategy finds room.
   */
  boolean relocate(long firstBucket, long fingerprint) {
    if (redis) {
      return redisKickOut(indexer, table, firstBucket, fingerprint, maxKicks);
    }
    return neighbours(firstBucket, fingerprint)
        || randomWalk(firstBucket, fingerprint)
        || breadthFirst(firstBucket, fingerprint);
  }

  /**
   * RedisBloom's kick-out in {@code table} from {@code bucket}: true if {@code fingerprint} was
   * stored; on failure the path is retraced, which restores every slot if the bucket count is a
   * power of two (otherwise slots may change, as in RedisBloom, and the caller must recount).
   */
  static boolean redisKickOut(
      Indexer indexer, BucketTable table, long bucket, long fingerprint, int maxKicks) {
    int bucketSize = table.bucketSize();
    long current = fingerprint;
    int victim = 0;
    for (int step = 0; step < maxKicks; step++) {
      long evicted = table.get(bucket, victim);
      table.set(bucket, victim, current);
      current = evicted;
      bucket = indexer.alternateBucket(bucket, current);
      if (table.insert(bucket, current)) {
        return true;
      }
      victim = victim + 1 == bucketSize ? 0 : victim + 1;
    }
    // retrace: step back to the bucket the current fingerprint came from and swap it back in
    for (int step = 0; step < maxKicks; step++) {
      victim = victim == 0 ? bucketSize - 1 : victim - 1;
      bucket = indexer.alternateBucket(bucket, current);
      long evicted = table.get(bucket, victim);
      table.set(bucket, victim, current);
      current = evicted;
    }
    return false;
  }

  /** Returns the heap bytes of the scratch arrays allocated so far. */
  long sizeInBytes() {
    return (path == null ? 0 : path.sizeInBytes())
        + (search == null ? 0 : search.sizeInBytes())
        + (neighbours == null ? 0 : neighbours.sizeInBytes());
  }

  private long nextRandom() {
    // xorshift64*: a deterministic, seeded walk (no global state)
    long x = random;
    x ^= x >>> 12;
    x ^= x << 25;
    x ^= x >>> 27;
    random = x;
    return x * 0x2545F4914F6CDD1DL;
  }

  private boolean neighbours(long firstBucket, long fingerprint) {
    if (maxKicks == 0 || !table.hasLaneWords()) {
      return false;
    }
    if (neighbours == null) {
      neighbours = new NeighbourProbe(table.bucketSize());
    }
    long other = indexer.alternateBucket(firstBucket, fingerprint);
    return neighbours.insert(indexer, table, firstBucket, other, fingerprint, maxKicks);
  }

  private boolean randomWalk(long firstBucket, long fingerprint) {
    if (path == null) {
      path = new KickPath(maxKicks);
    }
    KickPath moves = path;
    moves.reset();
    int bucketSize = table.bucketSize();
    long r = nextRandom();
    long bucket = (r & 1) == 0 ? firstBucket : indexer.alternateBucket(firstBucket, fingerprint);
    long current = fingerprint;
    for (int step = 0; step < maxKicks; step++) {
      r = nextRandom();
      int slot = (int) (((r >>> 32) * bucketSize) >>> 32);
      current = moves.swap(table, bucket, slot, current);
      bucket = indexer.alternateBucket(bucket, current);
      if (table.insert(bucket, current)) {
        return true;
      }
    }
    moves.undo(table);
    return false;
  }

  private boolean breadthFirst(long firstBucket, long fingerprint) {
    if (maxKicks == 0) {
      return false;
    }
    if (search == null) {
      search = new PathSearch(4 * maxKicks);
    }
    long other = indexer.alternateBucket(firstBucket, fingerprint);
    return search.insert(indexer, table, firstBucket, other, fingerprint);
  }
}
