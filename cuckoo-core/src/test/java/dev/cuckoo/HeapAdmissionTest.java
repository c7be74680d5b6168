package dev.cuckoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.dynatrace.hash4j.hashing.Hashing;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.commons.codec.digest.MurmurHash2;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Garbage never makes a filter allocation fail: in a child JVM with a 256 MiB heap, half of it held
 * by a live filter, filters of a quarter of the heap are created (and read back from files) and
 * dropped, eight heaps' worth in all, and every creation must succeed. The free heap that {@code
 * Runtime} reports counts the dropped filters as used until a collection runs; a check against it
 * refused the second creation under G1 and the tenth under the parallel collector. Then a filter
 * that really does not fit must fail with {@link FilterAllocationException}, not {@link
 * OutOfMemoryError}, and fit once the live filter is dropped.
 */
@SuppressWarnings("deprecation") // also the tests of the deprecated redisBloom factory
class HeapAdmissionTest {
  private static final String HEAP = "-Xmx256m";

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseSerialGC"})
  void create_droppedFiltersSeveralTimesTheHeap_neverRefused(String collector, @TempDir Path dir)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add(HEAP);
    command.add(collector);
    command.add("-cp");
    command.add(classPath());
    command.add(Child.class.getName());
    command.add(dir.toString());
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try (InputStream in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertTrue(process.waitFor(120, TimeUnit.SECONDS), "child did not finish:\n" + output);
    assertEquals(0, process.exitValue(), collector + ", child output:\n" + output);
    assertTrue(output.contains("done"), output);
  }

  /** The directories or jars of the core, its two dependencies and this test. */
  private static String classPath() throws URISyntaxException {
    List<String> entries = new ArrayList<>();
    for (Class<?> type :
        new Class<?>[] {
          HeapAdmissionTest.class, ScalableCuckooFilter.class, Hashing.class, MurmurHash2.class
        }) {
      String entry =
          Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
      if (!entries.contains(entry)) {
        entries.add(entry);
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /** The child JVM: prints what it did, exits with 1 at the first failure. */
  static final class Child {
    private Child() {}

    /**
     * Runs the scenario in a small heap.
     *
     * @param args a directory for temporary files
     */
    public static void main(String[] args) throws IOException {
      long max = Runtime.getRuntime().maxMemory();
      byte[] item = "item".getBytes(StandardCharsets.UTF_8);
      // half the heap, rounded down to a power of two: 128 MiB of one-byte slots for 256 MiB
      long half = Long.highestOneBit(max / 2);
      RedisCuckooFilter<byte[]> live = RedisCuckooFilter.reserve(half, 1, 20, 1);
      live.add(item);
      long quarter = half / 2;
      int rounds = (int) (8 * max / quarter);
      System.out.println(
          "max heap "
              + (max >> 20)
              + " MiB, live "
              + (live.sizeInBytes() >> 20)
              + " MiB, "
              + rounds
              + " filters of "
              + (quarter >> 20)
              + " MiB");

      // created, as CF.RESERVE does
      for (int i = 0; i < rounds; i++) {
        RedisCuckooFilter<byte[]> filter = create(quarter, i);
        filter.add(item);
      }

      // read back, as snapshots and the dump header are loaded
      RedisCuckooFilter<byte[]> saved = create(quarter, -1);
      saved.add(item);
      Path chain = Path.of(args[0], "chain.bin");
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(chain))) {
        saved.writeTo(out);
      }
      byte[] header = saved.scanDump(0).data();
      saved = null;
      CuckooFilter<byte[]> single =
          new CuckooFilter<>(
              ItemHashers.redisBytes(), Scheme.REDISBLOOM, quarter / 2, 2, 8, 20, 0, quarter);
      Path singleFile = Path.of(args[0], "single.bin");
      single.writeTo(singleFile);
      single = null;
      for (int i = 0; i < rounds; i++) {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(chain))) {
          require(
              RedisCuckooFilter.readFrom(in, ItemHashers.redisBytes()).mightContain(item),
              "chain read back");
        } catch (FilterFormatException e) {
          fail("read " + i, e);
        }
        try {
          FilterFile.read(singleFile, id -> ItemHashers.redisBytes());
          RedisCuckooFilter.loadDumpHeader(header).add(item);
        } catch (FilterFormatException e) {
          fail("load " + i, e);
        }
      }

      // what really does not fit: refused with the library's exception, and fits after a drop.
      // Ballast of small arrays (movable by every collector) holds 70% of the heap; the filter,
      // 2^20 buckets of about 55% of the heap in bytes, is within the maximum-heap bound.
      live = null;
      List<byte[]> ballast = new ArrayList<>();
      for (long held = 0; held < max / 10 * 7; held += 256 << 10) {
        ballast.add(new byte[256 << 10]);
      }
      int bucketSize = (int) Math.min(255, (max / 20 * 11) >> 20);
      long capacity = (long) bucketSize << 20;
      require(
          RedisCuckooFilter.reservedSizeInBytes(capacity, bucketSize)
              <= HeapBudget.maxRequestBytes(),
          "within the maximum heap");
      try {
        RedisCuckooFilter.reserve(capacity, bucketSize, 20, 1);
        fail("no refusal with " + ballast.size() + " ballast arrays", null);
      } catch (FilterAllocationException e) {
        require(e.getCause() instanceof OutOfMemoryError, "caused by OutOfMemoryError: " + e);
        System.out.println("refused as expected: " + e.getMessage());
      }
      ballast = null;
      try {
        RedisCuckooFilter.reserve(capacity, bucketSize, 20, 1).add(item);
      } catch (FilterAllocationException e) {
        fail("creation after the ballast was dropped", e);
      }
      System.out.println("done");
    }

    private static RedisCuckooFilter<byte[]> create(long capacity, int round) {
      try {
        return RedisCuckooFilter.reserve(capacity, 1, 20, 1);
      } catch (FilterAllocationException e) {
        fail("creation " + round, e);
        return null;
      }
    }

    private static void require(boolean condition, String what) {
      if (!condition) {
        fail(what, null);
      }
    }

    private static void fail(String what, Exception e) {
      System.out.println("FAILED: " + what + (e == null ? "" : ": " + e));
      System.exit(1);
    }
  }
}
