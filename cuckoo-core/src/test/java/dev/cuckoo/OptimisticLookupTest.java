package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class OptimisticLookupTest {

  @Test
  void forShape_onlyOnePageStandardSwarWithoutSeed_isFast() {
    assertNotNull(lookupOf(CuckooFilter.builder(ItemHashers.longs()).expectedItems(1000)));
    assertNotNull(
        lookupOf(CuckooFilter.builder(ItemHashers.longs()).expectedItems(1000).bucketSize(2)));
    assertNull(lookupOf(CuckooFilter.builder(ItemHashers.longs()).expectedItems(1000).seed(7)));
    assertNull(
        lookupOf(
            CuckooFilter.builder(ItemHashers.longs()).expectedItems(1000).fingerprintBits(17)));
    assertNull(
        lookupOf(CuckooFilter.builder(ItemHashers.longs()).expectedItems(1000).redisBloomScheme()));
  }

  @ParameterizedTest
  @EnumSource(names = {"STANDARD", "STANDARD_FAST"})
  void probe_randomHashes_equalsTheTableTest(Scheme scheme) {
    long seed = TestSeeds.seed();
    SplittableRandom random = new SplittableRandom(seed);
    for (int bits : new int[] {7, 10, 13, 16}) {
      for (int bucketSize : new int[] {2, 4}) {
        ConcurrentCuckooFilter<Long> filter =
            ConcurrentCuckooFilter.<Long>builder(ItemHashers.longs())
                .scheme(scheme)
                .expectedItems(5000)
                .bucketSize(bucketSize)
                .fingerprintBits(bits)
                .build();
        OptimisticLookup lookup =
            OptimisticLookup.forShape(
                scheme, filter.indexer(), filter.table(), filter.lockStripes());
        assertNotNull(lookup, "f " + bits + " b " + bucketSize);
        long[] added = new long[3000];
        for (int i = 0; i < added.length; i++) {
          added[i] = random.nextLong();
          assertTrue(filter.addHash(added[i]), "seed " + seed);
        }
        Indexer indexer = new Indexer(scheme, filter.bucketCount(), bits);
        int present = 0;
        for (int i = 0; i < 100_000; i++) {
          long hash = (i & 1) == 0 ? added[random.nextInt(added.length)] : random.nextLong();
          long fingerprint = indexer.fingerprint(hash);
          long bucket = indexer.firstBucket(hash);
          boolean expected =
              filter
                  .table()
                  .containsEither(
                      bucket, indexer.alternateBucket(bucket, fingerprint), fingerprint);
          int answer = lookup.probe(hash);
          String where = "seed " + seed + " f " + bits + " b " + bucketSize + " hash " + hash;
          assertEquals(expected ? 1 : 0, answer, where);
          assertEquals(expected, filter.mightContainHash(hash), where);
          present += answer;
        }
        assertTrue(present >= 50_000, "every added hash is found: " + present);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(names = {"STANDARD", "STANDARD_FAST"})
  void probe_writeOpenOnEitherStripe_retriesUntilClosed(Scheme scheme) {
    ConcurrentCuckooFilter<Long> filter =
        ConcurrentCuckooFilter.<Long>builder(ItemHashers.longs())
            .scheme(scheme)
            .expectedItems(5000)
            .build();
    long hash = ItemHashers.hashLong(42);
    filter.addHash(hash);
    LockStripes stripes = filter.lockStripes();
    OptimisticLookup lookup =
        OptimisticLookup.forShape(scheme, filter.indexer(), filter.table(), stripes);
    Indexer indexer = new Indexer(scheme, filter.bucketCount(), filter.fingerprintBits());
    long bucket1 = indexer.firstBucket(hash);
    long bucket2 = indexer.alternateBucket(bucket1, indexer.fingerprint(hash));
    for (long bucket : new long[] {bucket1, bucket2}) {
      int stripe = stripes.stripeOf(bucket);
      assertEquals(1, lookup.probe(hash));
      stripes.lock(stripe);
      stripes.beginWrite(stripe);
      assertEquals(OptimisticLookup.RETRY, lookup.probe(hash), "write open on stripe " + stripe);
      stripes.endWrite(stripe);
      stripes.unlock(stripe);
      assertEquals(1, lookup.probe(hash));
    }
  }

  private static OptimisticLookup lookupOf(CuckooFilter.Builder<Long> builder) {
    CuckooFilter<Long> filter = builder.build();
    return OptimisticLookup.forShape(
        filter.scheme(),
        filter.indexer(),
        filter.table(),
        new LockStripes(filter.bucketCount(), 64));
  }
}
