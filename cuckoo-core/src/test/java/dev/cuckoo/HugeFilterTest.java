package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Filters whose table exceeds 2^31 bytes (several pages): inserts, lookups across every page, and a
 * streaming round trip through the format. The huge test needs a heap of about 5 GiB: {@code mvn
 * -pl cuckoo-core -am verify -Dtest=HugeFilterTest -Dtest.excludedTags= -Dtest.argLine=-Xmx5g
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class HugeFilterTest {
  private static final long SAMPLE_SEED = 0x5A3B1E;

  @Test
  @Tag("huge")
  void writeTo_readFrom_tableLargerThan3GiB_roundTripsThroughFileWithoutSecondCopy(
      @TempDir Path dir) throws IOException {
    // f = 8, b = 4: one byte per slot, 820 M buckets = 3.28·10^9 slots = 3.05 GiB in 4 pages
    long buckets = 820_000_000L;
    CuckooFilter<Long> filter =
        new CuckooFilter<>(
            ItemHashers.longs(),
            Scheme.STANDARD,
            buckets,
            4,
            8,
            500,
            0,
            (long) Math.floor(buckets * 4 * 0.945));
    BucketTable table = filter.table();
    long payload = table.payloadBytes();
    assertTrue(payload > (3L << 30), "payload " + payload);
    assertTrue(table.pageCount() >= 4, "pages " + table.pageCount());
    assertWithinOnePercent(filter);

    int sample = 20_000_000;
    long started = System.nanoTime();
    long[] perPage = new long[table.pageCount()];
    SplittableRandom random = new SplittableRandom(SAMPLE_SEED);
    for (int i = 0; i < sample; i++) {
      long hash = ItemHashers.hashLong(random.nextLong());
      if (!filter.addHash(hash)) {
        throw new AssertionError("add failed at sample item " + i + ", seed " + SAMPLE_SEED);
      }
      perPage[pageOf(filter, hash)]++;
    }
    double insertSeconds = seconds(started);
    for (int page = 0; page < perPage.length; page++) {
      assertTrue(perPage[page] > 0, "no sample item in page " + page);
    }
    assertAllPresent(filter, sample);

    Path file = dir.resolve("huge.bin");
    started = System.nanoTime();
    filter.writeTo(file);
    double writeSeconds = seconds(started);
    long fileBytes = Files.size(file);
    assertEquals(FilterHeader.BYTES + payload + FilterFormat.CRC_BYTES, fileBytes);
    long size = filter.size();
    filter = null;
    table = null;

    System.gc();
    long usedBefore = usedHeap();
    HeapSampler sampler = new HeapSampler();
    started = System.nanoTime();
    CuckooFilter<Long> copy = CuckooFilter.readFrom(file, ItemHashers.longs());
    double readSeconds = seconds(started);
    long peakDuringRead = sampler.stop();
    assertEquals(size, copy.size());
    assertEquals(buckets, copy.bucketCount());
    assertAllPresent(copy, sample);
    // reading needs the table and a 64 KiB buffer, not a second table
    assertTrue(
        peakDuringRead < usedBefore + payload + payload / 4,
        "peak heap " + peakDuringRead + " during read, table " + payload);

    System.out.printf(
        "huge filter: %d buckets x 4 slots x 8 bits, payload %d bytes (%.2f GiB), %d pages,"
            + " sizeInBytes %d%n"
            + "  insert %d items: %.1f s; write %d bytes: %.1f s (%.0f MiB/s);"
            + " read (incl. CRC and recount): %.1f s (%.0f MiB/s)%n"
            + "  heap used before read %d MiB, peak heap during read %d MiB, peak RSS %s%n",
        buckets,
        payload,
        payload / (double) (1L << 30),
        copy.table().pageCount(),
        copy.sizeInBytes(),
        sample,
        insertSeconds,
        fileBytes,
        writeSeconds,
        fileBytes / writeSeconds / (1 << 20),
        readSeconds,
        fileBytes / readSeconds / (1 << 20),
        usedBefore >> 20,
        peakDuringRead >> 20,
        peakResidentSetSize());
  }

  @Test
  void sizeInBytes_largeFilter_withinOnePercentOfPayload() {
    CuckooFilter<Long> filter =
        CuckooFilter.builder(ItemHashers.longs())
            .expectedItems(60_000_000)
            .fingerprintBits(8)
            .bucketSize(4)
            .build();
    assertTrue(filter.table().payloadBytes() > 60_000_000L);
    assertWithinOnePercent(filter);
  }

  private static void assertWithinOnePercent(CuckooFilter<?> filter) {
    long payload = filter.table().payloadBytes();
    long size = filter.sizeInBytes();
    assertTrue(
        size >= payload && size <= payload + payload / 100,
        "sizeInBytes " + size + " vs payload " + payload);
  }

  private static int pageOf(CuckooFilter<?> filter, long hash) {
    BucketTable table = filter.table();
    long bucket = filter.indexer().firstBucket(filter.indexer().remix(hash));
    long bucketsPerPage =
        (table.pagePayloadBytes(0) * 8L) / (table.bucketSize() * table.fingerprintBits());
    return (int) (bucket / bucketsPerPage);
  }

  private static void assertAllPresent(CuckooFilter<Long> filter, int sample) {
    SplittableRandom random = new SplittableRandom(SAMPLE_SEED);
    for (int i = 0; i < sample; i++) {
      long hash = ItemHashers.hashLong(random.nextLong());
      if (!filter.mightContainHash(hash)) {
        throw new AssertionError("false negative at sample item " + i + ", seed " + SAMPLE_SEED);
      }
    }
  }

  private static double seconds(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1e9;
  }

  private static long usedHeap() {
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }

  /** Samples the used heap every few milliseconds on a daemon thread and keeps the maximum. */
  private static final class HeapSampler {
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long peak = usedHeap();

    HeapSampler() {
      thread =
          new Thread(
              () -> {
                while (running) {
                  peak = Math.max(peak, usedHeap());
                  try {
                    Thread.sleep(5);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "heap-sampler");
      thread.setDaemon(true);
      thread.start();
    }

    long stop() {
      running = false;
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return Math.max(peak, usedHeap());
    }
  }

  private static String peakResidentSetSize() throws IOException {
    Path status = Path.of("/proc/self/status");
    if (!Files.isReadable(status)) {
      return "n/a";
    }
    return Files.readAllLines(status).stream()
        .filter(line -> line.startsWith("VmHWM:"))
        .map(line -> line.substring(6).trim())
        .findFirst()
        .orElse("n/a");
  }
}
