package dev.cuckoo.cli;

import dev.cuckoo.ScalableCuckooFilter;
import dev.cuckoo.ScanDumpChunk;
import dev.cuckoo.Scheme;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link CliFilter} backed by a growing {@link ScalableCuckooFilter} of byte items: a {@code
 * STANDARD} chain or a RedisBloom chain, stored in the chain format (docs/FORMAT.md, "Chained
 * filters").
 */
final class ChainFilter implements CliFilter {
  private final ScalableCuckooFilter<byte[]> filter;
  private final String hasherName;
  private boolean cannotGrow;

  /**
   * Wraps a chain.
   *
   * @param filter the chain
   * @param hasherName how its items are hashed, for {@code info}
   */
  ChainFilter(ScalableCuckooFilter<byte[]> filter, String hasherName) {
    this.filter = filter;
    this.hasherName = hasherName;
  }

  /**
   * Returns the wrapped chain.
   *
   * @return the chain
   */
  ScalableCuckooFilter<byte[]> filter() {
    return filter;
  }

  /**
   * Returns true once an add failed because the chain could not add a link (link limit, heap, or
   * fingerprints wider than 32 bits), rather than because it may not grow.
   *
   * @return true if the chain ran out of room to grow
   */
  boolean cannotGrow() {
    return cannotGrow;
  }

  @Override
  public AddOutcome add(byte[] item, boolean skipDuplicates) {
    ScalableCuckooFilter.AddResult result =
        skipDuplicates ? filter.tryAddIfAbsent(item) : filter.tryAdd(item);
    switch (result) {
      case ADDED:
        return AddOutcome.ADDED;
      case EXISTS:
        return AddOutcome.PRESENT;
      case NO_MEMORY:
        cannotGrow = true;
        return AddOutcome.FULL;
      default:
        return AddOutcome.FULL;
    }
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
    return filter.capacity() == 0 ? 0 : (double) filter.size() / filter.capacity();
  }

  /**
   * Returns the chain's bound on the false-positive rate once every current link is full (the sum
   * of the links' rates): the library exposes no per-link rate at the current load.
   *
   * @return the bound
   */
  @Override
  public double expectedFalsePositiveRate() {
    return filter.falsePositiveRateAtCapacity();
  }

  @Override
  public String rateLabel() {
    return "false-positive rate at most";
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
    boolean redis = filter.scheme() == Scheme.REDISBLOOM;
    List<Property> properties = new ArrayList<>();
    properties.add(Property.of("type", "type", "ScalableCuckooFilter"));
    properties.add(Property.of("scheme", "scheme", filter.scheme().name()));
    properties.add(Property.of("hasher", "hasher", hasherName));
    properties.add(Property.of("links", "links", filter.linkCount()));
    properties.add(Property.of("bucketSize", "bucket size", filter.bucketSize()));
    properties.add(
        Property.of("baseBuckets", "buckets of the first link", filter.baseBucketCount()));
    if (redis) {
      properties.add(Property.of("expansion", "expansion", filter.expansion()));
    } else {
      properties.add(
          new Property(
              "growthFactor",
              "growth factor",
              filter.growthFactor(),
              Text.decimal(filter.growthFactor(), 2)));
    }
    properties.add(Property.of("capacity", "capacity of the current links", filter.capacity()));
    properties.add(Property.of("items", "items", filter.size()));
    properties.add(Property.of("deletes", "deletes", filter.deletedCount()));
    properties.add(new Property("load", "load", loadFactor(), Text.percent(loadFactor())));
    properties.add(
        new Property(
            "bitsPerItemAtCapacity",
            "bits/item at capacity",
            filter.bitsPerItem(),
            Text.decimal(filter.bitsPerItem(), 2)));
    properties.add(
        new Property(
            "bitsPerStoredItem",
            "bits/item stored",
            bitsPerStoredItem(),
            Text.decimal(bitsPerStoredItem(), 2)));
    properties.add(
        new Property(
            "falsePositiveRateAtCapacity",
            "expected false-positive rate, at most (all links full)",
            filter.falsePositiveRateAtCapacity(),
            Text.percent(filter.falsePositiveRateAtCapacity())));
    properties.addAll(CliFilter.maxKicksAndSize(filter.maxKicks(), filter.sizeInBytes()));
    return properties;
  }

  /**
   * Writes the chain's own SCANDUMP stream ({@link ScalableCuckooFilter#scanDump}); {@code
   * expansion} is ignored, since the chain records its own. An empty chain, for which SCANDUMP
   * sends nothing, is written as its header alone, which {@code CF.LOADCHUNK} turns into an empty
   * filter.
   */
  @Override
  public void scanDump(DumpSink sink, int expansion) throws IOException {
    CliFilter.requireRedisBloom(filter.scheme());
    if (filter.size() == 0) {
      sink.chunk(
          1,
          RedisDumpHeader.encode(
              0,
              filter.baseBucketCount(),
              filter.deletedCount(),
              filter.linkCount(),
              filter.bucketSize(),
              filter.maxKicks(),
              filter.expansion()));
      return;
    }
    for (ScanDumpChunk chunk = filter.scanDump(0);
        chunk.iterator() != 0;
        chunk = filter.scanDump(chunk.iterator())) {
      sink.chunk(chunk.iterator(), chunk.data());
    }
  }

  @Override
  public void writeTo(OutputStream out) throws IOException {
    filter.writeTo(out);
  }
}
