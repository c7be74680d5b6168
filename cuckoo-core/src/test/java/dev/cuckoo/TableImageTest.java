package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayOutputStream;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link TableImage} over paged tables of several widths: every way a table's payload changes
 * (insert, set, setNarrow, writePayload, clear) between the image's regions leaves the image with
 * the bytes of the capture.
 */
class TableImageTest {
  @ParameterizedTest(name = "{0} buckets × {1} × {2} bits, pages of {3} bytes")
  @CsvSource({
    "600000, 1, 8, 100000", // RedisBloom's 8-bit slots, pages that cut regions
    "300000, 4, 13, 70000", // SWAR lanes that straddle bytes and regions
    "100000, 3, 23, 1000000", // no SWAR: slots written one by one, one page
  })
  void take_tableChangedBetweenRegions_givesCaptureBytes(
      long buckets, int bucketSize, int bits, long pageBytes) {
    long seed = TestSeeds.seed() + buckets;
    SplittableRandom random = new SplittableRandom(seed);
    PlainBucketTable table = new PlainBucketTable(buckets, bucketSize, bits, pageBytes);
    long mask = (1L << bits) - 1;
    for (int i = 0; i < buckets; i++) {
      table.insert(random.nextLong(buckets), 1 + (random.nextLong() & (mask - 1)));
    }
    byte[] expected = new byte[Math.toIntExact(table.payloadBytes())];
    table.readPayload(0, expected, 0, expected.length);

    TableImage image = new TableImage(table);
    image.attach();
    byte[] buffer = new byte[TableImage.REGION_BYTES];
    ByteArrayOutputStream written = new ByteArrayOutputStream();
    for (int region = 0; region < image.regionCount(); region++) {
      written.write(image.take(region, buffer), 0, image.regionLength(region));
      for (int op = 0; op < 50; op++) {
        long bucket = random.nextLong(buckets);
        long fingerprint = random.nextLong() & mask;
        switch (random.nextInt(4)) {
          case 0 -> table.insert(bucket, fingerprint == 0 ? 1 : fingerprint);
          case 1 -> table.set(bucket, random.nextInt(bucketSize), fingerprint);
          case 2 -> table.setNarrow(bucket, random.nextInt(bucketSize), fingerprint);
          default -> {
            byte[] bytes = new byte[1 + random.nextInt(300)];
            random.nextBytes(bytes);
            long offset = random.nextLong(table.payloadBytes() - bytes.length + 1);
            table.writePayload(offset, bytes, 0, bytes.length);
          }
        }
      }
      if (region == 2) {
        table.clear();
      }
    }
    image.detach();

    assertArrayEquals(expected, written.toByteArray(), "seed " + seed);
    assertNull(table.image, "seed " + seed + ": detached");
  }
}
