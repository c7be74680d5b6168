package dev.cuckoo.bench;

import com.github.mgunlogson.cuckoofilter4j.CuckooFilter;
import com.google.common.hash.Funnels;
import java.nio.charset.StandardCharsets;

/**
 * CuckooFilter4J at the target rate, with its default hash. It hashes internally through a Guava
 * funnel; long keys are boxed (it has no primitive API), strings are funnelled as UTF-8.
 */
final class CuckooFilter4jSubject extends Subject {
  private final CuckooFilter<Long> longs;
  private final CuckooFilter<CharSequence> strings;

  CuckooFilter4jSubject(KeyType keys, long expectedItems, double falsePositiveRate) {
    this.longs =
        keys == KeyType.LONG
            ? new CuckooFilter.Builder<Long>(Funnels.longFunnel(), expectedItems)
                .withFalsePositiveRate(falsePositiveRate)
                .build()
            : null;
    this.strings =
        keys == KeyType.URL
            ? new CuckooFilter.Builder<CharSequence>(
                    Funnels.stringFunnel(StandardCharsets.UTF_8), expectedItems)
                .withFalsePositiveRate(falsePositiveRate)
                .build()
            : null;
  }

  @Override
  public boolean add(long key) {
    return longs.put(key);
  }

  @Override
  public boolean add(String key) {
    return strings.put(key);
  }

  @Override
  public boolean mightContain(long key) {
    return longs.mightContain(key);
  }

  @Override
  public boolean mightContain(String key) {
    return strings.mightContain(key);
  }

  @Override
  public boolean remove(long key) {
    return longs.delete(key);
  }

  @Override
  public boolean remove(String key) {
    return strings.delete(key);
  }

  @Override
  public boolean supportsRemove() {
    return true;
  }

  @Override
  public long bitCount() {
    return longs != null ? longs.getStorageSize() : strings.getStorageSize();
  }
}
