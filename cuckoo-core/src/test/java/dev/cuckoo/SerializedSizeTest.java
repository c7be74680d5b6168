package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code serializedSizeInBytes()} against the number of bytes {@code writeTo} really writes, for
 * every filter type, scheme and table layout, at sizes whose payload ends inside a byte, empty and
 * filled, and for chains as they grow and shrink.
 */
class SerializedSizeTest {
  private static final long[] SIZES = {1, 7, 30, 100, 1_000, 4_099, 50_000};

  /** Counts what is written, keeping nothing. */
  private static final class CountingStream extends OutputStream {
    long count;

    @Override
    public void write(int b) {
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      count += len;
    }
  }

  private static long written(MembershipFilter<?> filter) throws IOException {
    CountingStream out = new CountingStream();
    filter.writeTo(out);
    return out.count;
  }

  private static void assertExact(MembershipFilter<?> filter, String where) throws IOException {
    assertEquals(written(filter), filter.serializedSizeInBytes(), where);
  }

  /** Adds items "0", "1", ... until {@code count} are stored or an add fails. */
  private static void fill(MembershipFilter<CharSequence> filter, long count) {
    for (long i = 0; i < count && filter.add(Long.toString(i)); i++) {
      // adding is the point
    }
  }

  /** Every plain and semi-sorted builder shape of the single-filter format. */
  private static List<CuckooFilter.Builder<CharSequence>> singleBuilders(long items) {
    List<CuckooFilter.Builder<CharSequence>> builders = new ArrayList<>();
    for (Scheme scheme : new Scheme[] {Scheme.STANDARD, Scheme.STANDARD_FAST}) {
      for (int bucketSize : new int[] {2, 4, 8}) {
        // odd widths: with b = 2 and m = 2 mod 4 the payload ends inside a byte
        for (int bits : new int[] {4, 5, 7, 12, 13, 17, 32}) {
          builders.add(
              CuckooFilter.builder(ItemHashers.utf8())
                  .scheme(scheme)
                  .expectedItems(items)
                  .bucketSize(bucketSize)
                  .fingerprintBits(bits));
        }
        builders.add(
            CuckooFilter.builder(ItemHashers.utf8())
                .scheme(scheme)
                .expectedItems(items)
                .bucketSize(bucketSize)
                .falsePositiveRate(0.001));
      }
      for (int bits : new int[] {5, 9, 12, 16}) {
        builders.add(
            CuckooFilter.builder(ItemHashers.utf8())
                .scheme(scheme)
                .expectedItems(items)
                .semiSorted(true)
                .fingerprintBits(bits));
      }
    }
    for (int bucketSize : new int[] {1, 2, 3, 4, 7}) {
      builders.add(
          CuckooFilter.builder(ItemHashers.redisUtf8())
              .redisBloomScheme()
              .expectedItems(items)
              .bucketSize(bucketSize));
    }
    return builders;
  }

  @Test
  void serializedSizeInBytes_everySingleFilterShape_equalsWrittenLengthEmptyAndFilled()
      throws IOException {
    int shapes = 0;
    for (long items : SIZES) {
      for (CuckooFilter.Builder<CharSequence> builder : singleBuilders(items)) {
        CuckooFilter<CharSequence> filter = builder.build();
        String where = filter.toString();
        assertEquals(filter.serializedSizeInBytes(), builder.serializedSizeInBytes(), where);
        assertExact(filter, where);
        fill(filter, filter.capacity());
        assertExact(filter, where + " filled");
        shapes++;
      }
    }
    assertTrue(shapes > 400, "shapes " + shapes);
  }

  @Test
  void serializedSizeInBytes_concurrentFilter_equalsWrittenLengthAndPlainFilters()
      throws IOException {
    for (long items : SIZES) {
      for (int bucketSize : new int[] {2, 4, 8}) {
        ConcurrentCuckooFilter<CharSequence> filter =
            ConcurrentCuckooFilter.builder(ItemHashers.utf8())
                .expectedItems(items)
                .bucketSize(bucketSize)
                .fingerprintBits(7)
                .build();
        String where = filter.toString();
        assertExact(filter, where);
        fill(filter, items);
        assertExact(filter, where + " filled");
        assertEquals(
            CuckooFilter.builder(ItemHashers.utf8())
                .expectedItems(items)
                .bucketSize(bucketSize)
                .fingerprintBits(7)
                .serializedSizeInBytes(),
            filter.serializedSizeInBytes(),
            where);
      }
    }
  }

  @Test
  void serializedSizeInBytes_standardChainGrowing_equalsWrittenLengthAtEveryLink()
      throws IOException {
    List<ScalableCuckooFilter<CharSequence>> chains =
        List.of(
            ScalableCuckooFilter.builder(ItemHashers.utf8()).expectedItems(10).build(),
            ScalableCuckooFilter.builder(ItemHashers.utf8())
                .expectedItems(7)
                .growthFactor(1.5)
                .bucketSize(2)
                .falsePositiveRate(0.03)
                .build(),
            ScalableCuckooFilter.builder(ItemHashers.utf8())
                .expectedItems(16)
                .expectedFinalItems(1000)
                .bucketSize(8)
                .build());
    for (ScalableCuckooFilter<CharSequence> chain : chains) {
      int links = chain.linkCount();
      assertExact(chain, chain.toString());
      for (int i = 0; i < 3000; i++) {
        chain.add("item" + i);
        if (chain.linkCount() != links) {
          links = chain.linkCount();
          assertExact(chain, chain.toString());
        }
      }
      assertTrue(links >= 5, chain.toString());
      assertExact(chain, chain.toString());
      chain.clear();
      assertExact(chain, chain + " cleared");
    }
  }

  @Test
  void serializedSizeInBytes_redisBloomChainGrowingAndCompacted_equalsWrittenLength()
      throws IOException {
    for (int expansion : new int[] {0, 1, 2, 4}) {
      for (int bucketSize : new int[] {1, 2, 3}) {
        for (int capacity : new int[] {20, 3_000}) {
          RedisCuckooFilter<CharSequence> chain =
              RedisCuckooFilter.reserve(
                  ItemHashers.redisUtf8(), capacity, bucketSize, 20, expansion);
          String where =
              "capacity " + capacity + ", expansion " + expansion + ", bucketSize " + bucketSize;
          assertExact(chain, where);
          fill(chain, 20L * capacity);
          assertTrue(expansion == 0 || chain.linkCount() > 2, where);
          assertExact(chain, where + " grown to " + chain.linkCount() + " links");
          for (int i = 0; i < 20 * capacity; i++) {
            chain.remove(Integer.toString(i));
          }
          chain.compact();
          assertExact(chain, where + " compacted to " + chain.linkCount() + " links");
        }
      }
    }
  }

  @Test
  void serializedSizeInBytes_sharded_equalsWrittenLengthAndShardSizes() throws IOException {
    for (int shardBits = 0; shardBits <= 4; shardBits++) {
      for (long items : new long[] {1, 1_000, 30_000}) {
        ShardedCuckooFilter.Builder<CharSequence> builder =
            ShardedCuckooFilter.builder(ItemHashers.utf8())
                .expectedItems(items)
                .shardBits(shardBits)
                .falsePositiveRate(0.003);
        ShardedCuckooFilter<CharSequence> filter = builder.build();
        String where = filter.toString();
        assertExact(filter, where);
        fill(filter, items);
        assertExact(filter, where + " filled");
        assertEquals(
            ShardedCuckooFilter.HEADER_BYTES
                + filter.shardCount() * builder.shardBuilder().serializedSizeInBytes(),
            filter.serializedSizeInBytes(),
            where);
      }
    }
  }

  @Test
  void builderSerializedSizeInBytes_javadocExample_isTheBuiltFiltersSize() {
    CuckooFilter.Builder<CharSequence> builder =
        CuckooFilter.builder(ItemHashers.utf8()).expectedItems(1_000_000).falsePositiveRate(0.001);
    assertEquals(1_719_656, builder.serializedSizeInBytes());
    assertEquals(1_719_656, builder.build().serializedSizeInBytes());
  }
}
