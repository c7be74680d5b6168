package dev.cuckoo.cli;

import dev.cuckoo.CuckooFilter;
import dev.cuckoo.MembershipFilter;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.ScalableCuckooFilter;
import java.util.ArrayList;
import java.util.List;

/**
 * What the commands report about a filter: the properties {@code cuckoo info} prints and the
 * figures of {@code build}'s and {@code import}'s summary lines. A chain's load and rate are
 * reported against its rated capacity (the rate as the bound with every link full). A single filter
 * is reported with a single filter's properties, its type the class the library reads it as: a
 * {@link CuckooFilter}, or a {@link RedisCuckooFilter} of one link that never grows (a single
 * {@code REDISBLOOM} file).
 */
final class FilterSummary {
  private FilterSummary() {}

  /**
   * Returns the number of links of a chain, or 0 for a single filter.
   *
   * @param filter a filter read or built by the command line
   * @param chain whether it is (or is written as) a chain
   * @return the link count
   */
  static int linkCount(MembershipFilter<byte[]> filter, boolean chain) {
    if (!chain) {
      return 0;
    }
    if (filter instanceof ScalableCuckooFilter<byte[]> scalable) {
      return scalable.linkCount();
    }
    return ((RedisCuckooFilter<byte[]>) filter).linkCount();
  }

  /**
   * Returns the load: the fraction of slots in use, or for a chain the items per rated item.
   *
   * @param filter the filter
   * @param chain whether it is a chain
   * @return the load
   */
  static double loadFactor(MembershipFilter<byte[]> filter, boolean chain) {
    if (chain) {
      return filter.capacity() == 0 ? 0 : (double) filter.size() / filter.capacity();
    }
    return filter.loadFactor();
  }

  /**
   * Returns the rate the summary line reports: the expected false-positive rate now, or a chain's
   * bound once every current link is full.
   *
   * @param filter the filter
   * @param chain whether it is a chain
   * @return the rate
   */
  static double reportedRate(MembershipFilter<byte[]> filter, boolean chain) {
    return chain ? filter.falsePositiveRateAtCapacity() : filter.expectedFalsePositiveRate();
  }

  /**
   * Returns how {@link #reportedRate} is worded.
   *
   * @param chain whether the filter is a chain
   * @return the label
   */
  static String rateLabel(boolean chain) {
    return chain ? "false-positive rate at most" : "expected false-positive rate";
  }

  /**
   * Returns heap bits per stored item (heap size × 8 / items), or 0 when empty.
   *
   * @param filter the filter
   * @return bits per item
   */
  static double bitsPerStoredItem(MembershipFilter<byte[]> filter) {
    return filter.size() == 0 ? 0 : filter.sizeInBytes() * 8.0 / filter.size();
  }

  /**
   * Returns the parameters and state for {@code cuckoo info}, in display order.
   *
   * @param filter the filter
   * @param chain whether it is a chain
   * @return the properties
   */
  static List<Property> describe(MembershipFilter<byte[]> filter, boolean chain) {
    List<Property> properties =
        chain
            ? describeChain(filter)
            : filter instanceof RedisCuckooFilter<byte[]> redis
                ? describeSingle(redis)
                : describeSingle((CuckooFilter<byte[]>) filter);
    properties.add(Property.of("maxKicks", "max kicks", filter.maxKicks()));
    properties.add(
        new Property(
            "sizeInBytes",
            "size in memory",
            filter.sizeInBytes(),
            Text.bytes(filter.sizeInBytes())));
    return properties;
  }

  private static List<Property> head(MembershipFilter<byte[]> filter, String type) {
    List<Property> properties = new ArrayList<>();
    properties.add(Property.of("type", "type", type));
    properties.add(Property.of("scheme", "scheme", filter.scheme().name()));
    properties.add(Property.of("hasher", "hasher", filter.hasher().toString()));
    return properties;
  }

  private static Property bitsPerItemAtCapacity(double bitsPerItem) {
    return new Property(
        "bitsPerItemAtCapacity",
        "bits/item at capacity",
        bitsPerItem,
        Text.decimal(bitsPerItem, 2));
  }

  private static List<Property> describeSingle(CuckooFilter<byte[]> filter) {
    return describeSingle(
        filter,
        "CuckooFilter",
        filter.fingerprintBits(),
        filter.bucketCount(),
        filter.bitsPerItem(),
        filter.seed());
  }

  /** A single REDISBLOOM file: 8-bit fingerprints, no seed, as its single-filter header says. */
  private static List<Property> describeSingle(RedisCuckooFilter<byte[]> filter) {
    return describeSingle(
        filter, "RedisCuckooFilter", Byte.SIZE, filter.baseBucketCount(), filter.bitsPerItem(), 0);
  }

  private static List<Property> describeSingle(
      MembershipFilter<byte[]> filter,
      String type,
      int fingerprintBits,
      long buckets,
      double bitsPerItem,
      long seed) {
    List<Property> properties = head(filter, type);
    properties.add(Property.of("fingerprintBits", "fingerprint bits", fingerprintBits));
    properties.add(Property.of("bucketSize", "bucket size", filter.bucketSize()));
    properties.add(Property.of("buckets", "buckets", buckets));
    properties.add(Property.of("capacity", "capacity", filter.capacity()));
    properties.add(Property.of("items", "items", filter.size()));
    properties.add(
        new Property("load", "load", filter.loadFactor(), Text.percent(filter.loadFactor())));
    properties.add(bitsPerItemAtCapacity(bitsPerItem));
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
    properties.add(Property.of("seed", "seed", seed));
    return properties;
  }

  /** The figures only a chain has, read from either chain class. */
  private record Links(
      String type, int count, long baseBuckets, long deletes, Property growth, double bitsPerItem) {
    static Links of(MembershipFilter<byte[]> filter) {
      if (filter instanceof RedisCuckooFilter<byte[]> redis) {
        return new Links(
            "RedisCuckooFilter",
            redis.linkCount(),
            redis.baseBucketCount(),
            redis.deletedCount(),
            Property.of("expansion", "expansion", redis.expansion()),
            redis.bitsPerItem());
      }
      ScalableCuckooFilter<byte[]> chain = (ScalableCuckooFilter<byte[]>) filter;
      return new Links(
          "ScalableCuckooFilter",
          chain.linkCount(),
          chain.baseBucketCount(),
          chain.deletedCount(),
          new Property(
              "growthFactor",
              "growth factor",
              chain.growthFactor(),
              Text.decimal(chain.growthFactor(), 2)),
          chain.bitsPerItem());
    }
  }

  private static List<Property> describeChain(MembershipFilter<byte[]> filter) {
    Links links = Links.of(filter);
    List<Property> properties = head(filter, links.type());
    properties.add(Property.of("links", "links", links.count()));
    properties.add(Property.of("bucketSize", "bucket size", filter.bucketSize()));
    properties.add(Property.of("baseBuckets", "buckets of the first link", links.baseBuckets()));
    properties.add(links.growth());
    properties.add(Property.of("capacity", "capacity of the current links", filter.capacity()));
    properties.add(Property.of("items", "items", filter.size()));
    properties.add(Property.of("deletes", "deletes", links.deletes()));
    double load = loadFactor(filter, true);
    properties.add(new Property("load", "load", load, Text.percent(load)));
    properties.add(bitsPerItemAtCapacity(links.bitsPerItem()));
    double stored = bitsPerStoredItem(filter);
    properties.add(
        new Property("bitsPerStoredItem", "bits/item stored", stored, Text.decimal(stored, 2)));
    properties.add(
        new Property(
            "falsePositiveRateAtCapacity",
            "expected false-positive rate, at most (all links full)",
            filter.falsePositiveRateAtCapacity(),
            Text.percent(filter.falsePositiveRateAtCapacity())));
    return properties;
  }
}
