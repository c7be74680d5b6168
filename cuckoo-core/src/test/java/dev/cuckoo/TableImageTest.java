package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
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

  /** A table of 8-bit slots, one per bucket: bucket b is payload byte b, in region b / 4096. */
  private static PlainBucketTable regions(int count) {
    return new PlainBucketTable((long) count * TableImage.REGION_BYTES, 1, 8, 1L << 20);
  }

  private static long bucketIn(int region) {
    return (long) region * TableImage.REGION_BYTES + 7;
  }

  /** Starts a thread that sets the slot of {@code bucket}; returns it. */
  private static Thread setting(PlainBucketTable table, long bucket) {
    Thread writer = new Thread(() -> table.set(bucket, 0, 0x5A), "table-writer");
    writer.setDaemon(true);
    writer.start();
    return writer;
  }

  private static void awaitWaiting(Thread thread) throws InterruptedException {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (thread.getState() != Thread.State.WAITING) {
      assertTrue(thread.isAlive(), "the writer finished instead of waiting for the budget");
      assertTrue(System.nanoTime() < deadline, "the writer did not wait: " + thread.getState());
      Thread.sleep(5);
    }
  }

  @Test
  void beforeChange_budgetSpent_writerWaitsUntilACopyIsWrittenAndImageKeepsCaptureBytes()
      throws Exception {
    PlainBucketTable table = regions(8);
    byte[] expected = new byte[Math.toIntExact(table.payloadBytes())];
    TableImage image = new TableImage(table, new TableImage.CopyBudget(TableImage.REGION_BYTES));
    image.attach();
    // the first change of a pending region takes the whole budget with its copy
    table.set(bucketIn(5), 0, 0x11);
    Thread second = setting(table, bucketIn(6));
    awaitWaiting(second);
    assertEquals(0, table.get(bucketIn(6), 0), "changed before its region was copied or written");
    byte[] buffer = new byte[TableImage.REGION_BYTES];
    ByteArrayOutputStream written = new ByteArrayOutputStream();
    for (int region = 0; region < image.regionCount(); region++) {
      written.write(image.take(region, buffer), 0, image.regionLength(region));
      if (region == 5) {
        // writing region 5 freed its copy's bytes: the waiting writer copies region 6 and goes on
        second.join(5_000);
        assertFalse(second.isAlive(), "the writer still waits after the budget was given back");
      }
    }
    image.detach();
    assertArrayEquals(expected, written.toByteArray(), "the image holds the capture's bytes");
    assertEquals(0x5A, table.get(bucketIn(6), 0));
  }

  @Test
  void detach_writerWaitingForBudget_goesOnWithoutCopy() throws Exception {
    PlainBucketTable table = regions(4);
    TableImage image = new TableImage(table, new TableImage.CopyBudget(0));
    image.attach();
    Thread writer = setting(table, bucketIn(2));
    awaitWaiting(writer);
    image.detach();
    writer.join(5_000);
    assertFalse(writer.isAlive(), "detach released the writer");
    assertEquals(0x5A, table.get(bucketIn(2), 0));
    assertEquals(0, image.savedBytes());
  }
}
