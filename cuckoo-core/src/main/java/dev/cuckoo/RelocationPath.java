package dev.cuckoo;

import java.util.Arrays;

/**
 * A relocation path for a concurrent insert: found by a breadth-first search that may race with
 * writers, then checked and applied while the stripes it touches are locked. One per thread and
 * filter; not thread-safe.
 */
final class RelocationPath {
  /*
   * Search. Nodes are buckets, the roots the new item's two buckets. From bucket B the fingerprint
   * fp in slot s can move to alt(B, fp): an edge to a child. The search stops at the first bucket
   * with an empty slot, so the path is a shortest one, and visits each bucket at most once (a set
   * of visited buckets, stamped with a generation number so it never needs clearing); hence the
   * buckets of a path are distinct. It examines at most maxNodes buckets.
   *
   * The search reads without locks, so what it reads may be stale or torn. Each step therefore
   * records the fingerprint it saw; isValid re-reads every step under the locks and accepts the
   * path only if each slot still holds the recorded fingerprint and the last bucket still has an
   * empty slot. Child buckets were computed from the recorded fingerprints, so a valid path moves
   * every fingerprint to its own alternate bucket.
   *
   * Apply, under the locks and inside one write on every stripe involved: the last fingerprint
   * moves into the empty slot, each earlier one into the slot its successor left, and the new
   * fingerprint into the root slot that was freed.
   */
  private static final int INITIAL_NODES = 64;

  private final int maxNodes;
  private long[] nodeBucket;
  private int[] nodeParent;
  private int[] nodeSlot;
  private long[] nodeFingerprint;
  private long[] visitedKeys;
  private int[] visitedStamps;
  private int stamp;

  /** Buckets of the path, root first; moves = buckets − 1. */
  private long[] pathBucket = new long[8];

  private int[] pathSlot = new int[8];
  private long[] pathFingerprint = new long[8];
  private int moves;
  private int[] stripes = new int[8];

  RelocationPath(int maxNodes) {
    this.maxNodes = Math.max(2, maxNodes);
    int nodes = Math.min(this.maxNodes, INITIAL_NODES);
    this.nodeBucket = new long[nodes];
    this.nodeParent = new int[nodes];
    this.nodeSlot = new int[nodes];
    this.nodeFingerprint = new long[nodes];
    this.visitedKeys = new long[2 * INITIAL_NODES];
    this.visitedStamps = new int[visitedKeys.length];
  }

  /** Returns the number of fingerprints the path moves. */
  int moves() {
    return moves;
  }

  /**
   * Searches a path from {@code bucket1} or {@code bucket2} to a bucket with an empty slot; true if
   * found. Reads may race with writers: the result must be checked with {@link #isValid}.
   */
  boolean search(Indexer indexer, BucketTable table, long bucket1, long bucket2) {
    nextStamp();
    int count = 0;
    count = addNode(bucket1, -1, -1, 0, count);
    if (table.firstEmpty(bucket1) >= 0) {
      return found(count - 1);
    }
    count = addNode(bucket2, -1, -1, 0, count);
    if (table.firstEmpty(bucket2) >= 0) {
      return found(count - 1);
    }
    int bucketSize = table.bucketSize();
    for (int head = 0; head < count; head++) {
      long bucket = nodeBucket[head];
      for (int slot = 0; slot < bucketSize; slot++) {
        long fingerprint = table.get(bucket, slot);
        if (fingerprint == 0) {
          continue;
        }
        long child = indexer.alternateBucket(bucket, fingerprint);
        if (isVisited(child)) {
          continue;
        }
        if (count == maxNodes) {
          return false;
        }
        count = addNode(child, head, slot, fingerprint, count);
        if (table.firstEmpty(child) >= 0) {
          return found(count - 1);
        }
      }
    }
    return false;
  }

  /**
   * Sorts the stripes of {@code bucket1}, {@code bucket2} and the path's buckets into ascending
   * order without duplicates; returns how many there are ({@link #stripe(int)} gives them).
   */
  int collectStripes(LockStripes lockStripes, long bucket1, long bucket2) {
    int needed = moves + 3;
    if (stripes.length < needed) {
      stripes = new int[needed];
    }
    int count = 0;
    count = insertSorted(lockStripes.stripeOf(bucket1), count);
    count = insertSorted(lockStripes.stripeOf(bucket2), count);
    for (int i = 1; i <= moves; i++) {
      count = insertSorted(lockStripes.stripeOf(pathBucket[i]), count);
    }
    return count;
  }

  /** Returns the {@code index}-th stripe collected by {@link #collectStripes}. */
  int stripe(int index) {
    return stripes[index];
  }

  /** Returns true if the path is still valid; the caller holds the locks of its stripes. */
  boolean isValid(BucketTable table) {
    for (int i = 0; i < moves; i++) {
      if (table.get(pathBucket[i], pathSlot[i]) != pathFingerprint[i]) {
        return false;
      }
    }
    return table.firstEmpty(pathBucket[moves]) >= 0;
  }

  /**
   * Moves the path's fingerprints one step and stores {@code fingerprint} in the root; the caller
   * holds the locks and has opened a write on every stripe of the path.
   */
  void apply(PlainBucketTable table, long fingerprint) {
    long last = pathBucket[moves];
    if (moves == 0) {
      table.setNarrow(last, table.firstEmpty(last), fingerprint);
      return;
    }
    table.setNarrow(last, table.firstEmpty(last), pathFingerprint[moves - 1]);
    for (int i = moves - 1; i >= 1; i--) {
      table.setNarrow(pathBucket[i], pathSlot[i], pathFingerprint[i - 1]);
    }
    table.setNarrow(pathBucket[0], pathSlot[0], fingerprint);
  }

  private boolean found(int node) {
    int depth = 0;
    for (int n = node; nodeParent[n] >= 0; n = nodeParent[n]) {
      depth++;
    }
    if (pathBucket.length < depth + 1) {
      pathBucket = new long[depth + 1];
      pathSlot = new int[depth + 1];
      pathFingerprint = new long[depth + 1];
    }
    moves = depth;
    int n = node;
    for (int i = depth; i >= 0; i--) {
      pathBucket[i] = nodeBucket[n];
      if (i > 0) {
        pathSlot[i - 1] = nodeSlot[n];
        pathFingerprint[i - 1] = nodeFingerprint[n];
      }
      n = nodeParent[n];
    }
    return true;
  }

  private int insertSorted(int value, int count) {
    int i = count;
    while (i > 0 && stripes[i - 1] > value) {
      i--;
    }
    if (i > 0 && stripes[i - 1] == value) {
      return count;
    }
    System.arraycopy(stripes, i, stripes, i + 1, count - i);
    stripes[i] = value;
    return count + 1;
  }

  private int addNode(long bucket, int parent, int slot, long fingerprint, int count) {
    if (count == nodeBucket.length) {
      int grown = Math.min(maxNodes, 2 * count);
      nodeBucket = Arrays.copyOf(nodeBucket, grown);
      nodeParent = Arrays.copyOf(nodeParent, grown);
      nodeSlot = Arrays.copyOf(nodeSlot, grown);
      nodeFingerprint = Arrays.copyOf(nodeFingerprint, grown);
      growVisited(count);
    }
    markVisited(bucket);
    nodeBucket[count] = bucket;
    nodeParent[count] = parent;
    nodeSlot[count] = slot;
    nodeFingerprint[count] = fingerprint;
    return count + 1;
  }

  private void nextStamp() {
    stamp++;
    if (stamp == 0) {
      Arrays.fill(visitedStamps, 0);
      stamp = 1;
    }
  }

  /** Rebuilds the visited set with room for twice the node capacity. */
  private void growVisited(int count) {
    visitedKeys = new long[2 * (int) Sizing.nextPowerOfTwo(nodeBucket.length)];
    visitedStamps = new int[visitedKeys.length];
    stamp = 1;
    for (int i = 0; i < count; i++) {
      markVisited(nodeBucket[i]);
    }
  }

  /** Returns true if {@code bucket} is in the visited set. */
  private boolean isVisited(long bucket) {
    int mask = visitedKeys.length - 1;
    for (int i = (int) (Sizing.mix(bucket) & mask); visitedStamps[i] == stamp; i = (i + 1) & mask) {
      if (visitedKeys[i] == bucket) {
        return true;
      }
    }
    return false;
  }

  /** Adds {@code bucket}, not yet visited, to the visited set. */
  private void markVisited(long bucket) {
    int mask = visitedKeys.length - 1;
    int i = (int) (Sizing.mix(bucket) & mask);
    while (visitedStamps[i] == stamp) {
      i = (i + 1) & mask;
    }
    visitedStamps[i] = stamp;
    visitedKeys[i] = bucket;
  }
}
