package dev.cuckoo.cli;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.Scheme;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/** A {@link CliFilter} backed by one {@link CuckooFilter} of byte items. */
final class SingleFilter implements CliFilter {
  private final CuckooFilter<byte[]> filter;
  private final String hasherName;

  /**
   * Wraps a filter.
   *
   * @param filter the filter
   * @param hasherName how its items are hashed, for {@code info}
   */
  SingleFilter(CuckooFilter<byte[]> filter, String hasherName) {
    this.filter = filter;
    this.hasherName = hasherName;
  }

  /**
   * Returns the wrapped filter.
   *
   * @return the filter
   */
  CuckooFilter<byte[]> filter() {
    return filter;
  }

  @Override
  public AddOutcome add(byte[] item, boolean skipDuplicates) {
    if (skipDuplicates && filter.mightContain(item)) {
      return AddOutcome.PRESENT;
    }
    return filter.add(item) ? AddOutcome.ADDED : AddOutcome.FULL;
  }

  @Override
  public boolean mightContain(byte[] item) {
    return filter.mightContain(item);
  }

  @Override
  public long size() {
    return filter.size();
  }

  @Override
  public long capacity() {
    return filter.capacity();
  }

  @Override
  public double loadFactor() {
    return filter.loadFactor();
  }

  @Override
  public double expectedFalsePositiveRate() {
    return filter.expectedFalsePositiveRate();
  }

  @Override
  public double bitsPerStoredItem() {
    return filter.size() == 0 ? 0 : filter.sizeInBytes() * 8.0 / filter.size();
  }

  @Override
  public Scheme scheme() {
    return filter.scheme();
  }

  @Override
  public List<Property> describe() {
    List<Property> properties = new ArrayList<>();
    properties.add(Property.of("type", "type", "CuckooFilter"));
    properties.add(Property.of("scheme", "scheme", filter.scheme().name()));
    properties.add(Property.of("hasher", "hasher", hasherName));
    properties.add(Property.of("fingerprintBits", "fingerprint bits", filter.fingerprintBits()));
    properties.add(Property.of("bucketSize", "bucket size", filter.bucketSize()));
    properties.add(Property.of("buckets", "buckets", filter.bucketCount()));
    properties.add(Property.of("capacity", "capacity", filter.capacity()));
    properties.add(Property.of("items", "items", filter.size()));
    properties.add(
        new Property("load", "load", filter.loadFactor(), Text.percent(filter.loadFactor())));
    properties.add(
        new Property(
            "bitsPerItemAtCapacity",
            "bits/item at capacity",
            filter.bitsPerItem(),
            Text.decimal(filter.bitsPerItem(), 2)));
    properties.add(
        new Property(
            "expectedFalsePositiveRate",
            "expected false-positive rate now",
            filter.expectedFalsePositiveRate(),
            Text.percent(filter.expectedFalsePositiveRate())));
    properties.add(
        new Property(
            "falsePositiveRateAtCapacity",
            "expected false-positive rate at capacity",
            filter.falsePositiveRateAtCapacity(),
            Text.percent(filter.falsePositiveRateAtCapacity())));
    properties.add(Property.of("seed", "seed", filter.seed()));
    properties.addAll(CliFilter.maxKicksAndSize(filter.maxKicks(), filter.sizeInBytes()));
    return properties;
  }

  @Override
  public void scanDump(DumpSink sink, int expansion) throws IOException {
    CliFilter.requireRedisBloom(filter.scheme());
    if (filter.maxKicks() < 1 || filter.maxKicks() > RedisDumpHeader.MAX_ITERATIONS) {
      throw new CliException(
          "max kicks "
              + filter.maxKicks()
              + " cannot be loaded into Redis (expected: 1 to "
              + RedisDumpHeader.MAX_ITERATIONS
              + ")");
    }
    sink.chunk(
        1,
        RedisDumpHeader.encode(
            filter.size(),
            filter.bucketCount(),
            0,
            1,
            filter.bucketSize(),
            filter.maxKicks(),
            expansion));
    PayloadChunker chunker = new PayloadChunker(sink, filter.bucketCount() * filter.bucketSize());
    filter.writeTo(chunker);
    chunker.finish();
  }

  @Override
  public void writeTo(OutputStream out) throws IOException {
    filter.writeTo(out);
  }
}
