package dev.cuckoo.bench;

/**
 * The memory floor: not a filter but a {@code long[]} of the same byte size as this project's table
 * for the same size and rate, and a "lookup" that does two independent random 8-byte loads (indexes
 * from the low and high halves of the key) and nothing else. No filter that reads two random
 * buckets per key can beat it; batched lookups are measured against it.
 */
final class MemoryFloorSubject extends Subject {
  private final long[] words;
  private final long length;

  MemoryFloorSubject(long bytes) {
    this.words = new long[Math.toIntExact(Math.max(1, bytes / 8))];
    for (int i = 0; i < words.length; i++) {
      words[i] = Keys.mix(i);
    }
    this.length = words.length;
  }

  /** Returns the word the floor's "lookup" computes for {@code key}: the xor of its two loads. */
  long probe(long key) {
    int first = (int) (((key & 0xFFFFFFFFL) * length) >>> 32);
    int second = (int) (((key >>> 32) * length) >>> 32);
    return words[first] ^ words[second];
  }

  @Override
  public boolean add(long key) {
    return true;
  }

  @Override
  public boolean add(String key) {
    throw new UnsupportedOperationException("the memory floor takes long keys only");
  }

  @Override
  public boolean mightContain(long key) {
    return (probe(key) & 1) != 0;
  }

  @Override
  public boolean mightContain(String key) {
    throw new UnsupportedOperationException("the memory floor takes long keys only");
  }

  @Override
  public long bitCount() {
    return length * 64;
  }
}
