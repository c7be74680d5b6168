package dev.cuckoo;

import java.util.ArrayList;
import java.util.List;

/**
 * The union of two cuckoo filters of identical scheme, seed and geometry: every fingerprint of the
 * source moves into the target, all or nothing.
 */
final class FilterMerge {
  /*
   * A fingerprint in bucket i of the source belongs to the pair {i, alt(i, fp)}, which is the same
   * pair in the target because scheme, seed and geometry agree; so it goes into i or alt(i, fp) of
   * the target, after a random walk of kicks if both are full (each kick keeps every moved
   * fingerprint inside its own pair). Counts stay exact: for every item, the target's count
   * afterwards is the sum of both counts before.
   *
   * All or nothing: every slot the merge writes is logged (bucket, slot, old value) in an undo log
   * before it is written; if one fingerprint finds no room, the log is replayed backwards and the
   * target is bit for bit as it was. The log holds two longs per write (about one write per moved
   * fingerprint plus one per kick), in chunks, so it never needs one huge array.
   */
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private final Indexer indexer;
  private final BucketTable table;
  private final int bucketSize;
  private final int maxKicks;
  private final UndoLog log = new UndoLog();
  private long random;

  private FilterMerge(Indexer indexer, BucketTable table, int maxKicks, long randomSeed) {
    this.indexer = indexer;
    this.table = table;
    this.bucketSize = table.bucketSize();
    this.maxKicks = maxKicks;
    this.random = randomSeed;
  }

  /**
   * Adds every fingerprint of {@code source} to {@code target}, a table of the same geometry
   * indexed by {@code indexer}, kicking at most {@code maxKicks} times per fingerprint with a walk
   * seeded by {@code randomSeed}; on failure {@code target} is left exactly as it was.
   *
   * @return the number of fingerprints moved, or −1 if not all fit (target unchanged)
   */
  static long addAll(
      Indexer indexer, BucketTable target, int maxKicks, long randomSeed, BucketTable source) {
    return new FilterMerge(indexer, target, maxKicks, randomSeed).moveAll(source);
  }

  /**
   * Fails unless a filter described by {@code mine} can take the fingerprints of one described by
   * {@code theirs}: the message names the first parameter that differs.
   *
   * @param names the parameter names, in the order of the values
   */
  static void requireCompatible(String[] names, Object[] mine, Object[] theirs) {
    for (int i = 0; i < names.length; i++) {
      Checks.requireArgument(
          mine[i].equals(theirs[i]),
          "%s differs: this filter has %s, the other %s (expected: equal to merge)",
          names[i],
          mine[i],
          theirs[i]);
    }
  }

  private long moveAll(BucketTable source) {
    long moved = 0;
    for (long bucket = 0, n = source.bucketCount(); bucket < n; bucket++) {
      for (int slot = 0; slot < bucketSize; slot++) {
        long fingerprint = source.get(bucket, slot);
        if (fingerprint == 0) {
          continue;
        }
        if (!place(bucket, fingerprint)) {
          log.undo(table);
          return -1;
        }
        moved++;
      }
    }
    return moved;
  }

  /** Stores {@code fingerprint} in {@code bucket} or its alternate, kicking if both are full. */
  private boolean place(long bucket, long fingerprint) {
    long other = indexer.alternateBucket(bucket, fingerprint);
    if (storeInEmpty(bucket, fingerprint) || storeInEmpty(other, fingerprint)) {
      return true;
    }
    long current = fingerprint;
    long at = (nextRandom() & 1) == 0 ? bucket : other;
    for (int kick = 0; kick < maxKicks; kick++) {
      int slot = (int) (((nextRandom() >>> 32) * bucketSize) >>> 32);
      long evicted = table.get(at, slot);
      write(at, slot, current);
      current = evicted;
      at = indexer.alternateBucket(at, current);
      if (storeInEmpty(at, current)) {
        return true;
      }
    }
    return false;
  }

  private boolean storeInEmpty(long bucket, long fingerprint) {
    int slot = table.firstEmpty(bucket);
    if (slot < 0) {
      return false;
    }
    write(bucket, slot, fingerprint);
    return true;
  }

  private void write(long bucket, int slot, long fingerprint) {
    long old = table.get(bucket, slot);
    // log the slot the fingerprint landed in (a semi-sorted table re-sorts): undo writes there
    log.record(bucket, table.set(bucket, slot, fingerprint), old);
  }

  private long nextRandom() {
    // SplitMix64: a deterministic sequence from the target's seed and size (see addAll's caller)
    random += GOLDEN;
    return Sizing.mix(random);
  }

  /** Slot writes in order, replayable backwards; stored in fixed-size chunks. */
  static final class UndoLog {
    private static final int CHUNK_ENTRIES = 1 << 15;

    private final List<long[]> chunks = new ArrayList<>();
    private long entries;

    void record(long bucket, int slot, long oldFingerprint) {
      int index = (int) (entries % CHUNK_ENTRIES);
      if (index == 0) {
        chunks.add(new long[2 * CHUNK_ENTRIES]);
      }
      long[] chunk = chunks.get(chunks.size() - 1);
      chunk[2 * index] = bucket;
      chunk[2 * index + 1] = ((long) slot << 32) | oldFingerprint;
      entries++;
    }

    long size() {
      return entries;
    }

    /** Restores every recorded slot, newest first. */
    void undo(BucketTable table) {
      for (long e = entries - 1; e >= 0; e--) {
        long[] chunk = chunks.get((int) (e / CHUNK_ENTRIES));
        int index = (int) (e % CHUNK_ENTRIES);
        long packed = chunk[2 * index + 1];
        table.set(chunk[2 * index], (int) (packed >>> 32), packed & 0xFFFFFFFFL);
      }
      chunks.clear();
      entries = 0;
    }
  }
}
