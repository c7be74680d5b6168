package dev.cuckoo;

import java.util.Arrays;

/**
 * Breadth-first search for a relocation path from an item's two buckets to a bucket with an empty
 * slot, the fallback when a random-walk insert fails. Preallocated; one per filter; not
 * thread-safe.
 */
final class PathSearch {
  /*
   * Nodes are buckets. From bucket B, the fingerprint in slot s can move to its alternate bucket
   * alt(B, fp), an edge to a child node. The search stops at the first bucket with an empty slot
   * (so the path is a shortest one), then moves fingerprints from the end of the path towards the
   * root, each move freeing the slot the next one fills, and finally stores the new fingerprint in
   * the root. Nothing moves unless a path is found, so a failed search changes nothing. Visited
   * buckets are kept in an open-addressing set whose entries are stamped with a generation number,
   * so it never needs clearing.
   */
  private final int maxNodes;
  private final long[] nodeBucket;
  private final int[] nodeParent;
  private final int[] nodeSlot;
  private final long[] visitedKeys;
  private final int[] visitedStamps;
  private final int visitedMask;
  private int stamp;

  PathSearch(int maxNodes) {
    this.maxNodes = Math.max(2, maxNodes);
    this.nodeBucket = new long[this.maxNodes];
    this.nodeParent = new int[this.maxNodes];
    this.nodeSlot = new int[this.maxNodes];
    int capacity = Integer.highestOneBit(this.maxNodes * 2 - 1) << 1;
    this.visitedKeys = new long[capacity];
    this.visitedStamps = new int[capacity];
    this.visitedMask = capacity - 1;
  }

  /**
   * Stores {@code fingerprint} in {@code bucket1} or {@code bucket2} after relocating others along
   * a shortest path; returns false, changing nothing, if no path is found within the node limit.
   */
  boolean insert(Indexer indexer, BucketTable table, long bucket1, long bucket2, long fingerprint) {
    nextStamp();
    int count = 0;
    count = addNode(bucket1, -1, -1, count);
    count = addNode(bucket2, -1, -1, count);
    int bucketSize = table.bucketSize();
    for (int head = 0; head < count; head++) {
      long bucket = nodeBucket[head];
      for (int slot = 0; slot < bucketSize && count < maxNodes; slot++) {
        long child = indexer.alternateBucket(bucket, table.get(bucket, slot));
        if (!markVisited(child)) {
          continue;
        }
        nodeBucket[count] = child;
        nodeParent[count] = head;
        nodeSlot[count] = slot;
        if (table.firstEmpty(child) >= 0) {
          applyPath(table, count, fingerprint);
          return true;
        }
        count++;
      }
    }
    return false;
  }

  private int addNode(long bucket, int parent, int slot, int count) {
    if (!markVisited(bucket)) {
      return count;
    }
    nodeBucket[count] = bucket;
    nodeParent[count] = parent;
    nodeSlot[count] = slot;
    return count + 1;
  }

  private void applyPath(BucketTable table, int node, long fingerprint) {
    int current = node;
    while (nodeParent[current] >= 0) {
      int parent = nodeParent[current];
      long from = nodeBucket[parent];
      int slot = nodeSlot[current];
      table.insert(nodeBucket[current], table.get(from, slot));
      table.set(from, slot, 0);
      current = parent;
    }
    table.insert(nodeBucket[current], fingerprint);
  }

  /** Returns the heap bytes of the search arrays. */
  long sizeInBytes() {
    return 16L * maxNodes + 12L * visitedKeys.length + 96;
  }

  /** Adds {@code bucket} to the visited set; false if it was already there. */
  private boolean markVisited(long bucket) {
    int index = (int) Sizing.mix(bucket) & visitedMask;
    while (visitedStamps[index] == stamp) {
      if (visitedKeys[index] == bucket) {
        return false;
      }
      index = (index + 1) & visitedMask;
    }
    visitedStamps[index] = stamp;
    visitedKeys[index] = bucket;
    return true;
  }

  private void nextStamp() {
    stamp++;
    if (stamp == 0) {
      Arrays.fill(visitedStamps, 0);
      stamp = 1;
    }
  }
}
