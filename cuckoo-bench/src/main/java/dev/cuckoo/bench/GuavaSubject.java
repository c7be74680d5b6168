package dev.cuckoo.bench;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Guava's {@link BloomFilter} at the target rate. It hashes internally (murmur3_128); long keys are
 * boxed because Guava has no primitive API, strings are funnelled as UTF-8.
 */
final class GuavaSubject extends Subject {
  private final BloomFilter<Long> longs;
  private final BloomFilter<CharSequence> strings;

  GuavaSubject(KeyType keys, long expectedItems, double falsePositiveRate) {
    this.longs =
        keys == KeyType.LONG
            ? BloomFilter.create(Funnels.longFunnel(), expectedItems, falsePositiveRate)
            : null;
    this.strings =
        keys == KeyType.URL
            ? BloomFilter.create(
                Funnels.stringFunnel(StandardCharsets.UTF_8), expectedItems, falsePositiveRate)
            : null;
  }

  @Override
  public boolean add(long key) {
    longs.put(key);
    return true;
  }

  @Override
  public boolean add(String key) {
    strings.put(key);
    return true;
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
  public long bitCount() {
    // the serialized form is 6 header bytes and then the bit array's longs
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      if (longs != null) {
        longs.writeTo(out);
      } else {
        strings.writeTo(out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return (out.size() - 6L) * 8;
  }
}
