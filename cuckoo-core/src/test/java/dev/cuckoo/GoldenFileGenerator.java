package dev.cuckoo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the golden files that do not exist yet; not a test, and not run by the build. A golden
 * file is never regenerated: an existing one is left as it is, a format change bumps {@link
 * FilterHeader#VERSION} and adds new files next to the old ones, which must stay readable. Usage
 * (from cuckoo-core, after {@code mvn test-compile}): {@code java -cp
 * target/test-classes:target/classes:<dependencies> dev.cuckoo.GoldenFileGenerator
 * src/test/resources/dev/cuckoo}.
 */
@SuppressWarnings("deprecation") // also the tests of the deprecated redisBloom factory
final class GoldenFileGenerator {
  private GoldenFileGenerator() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    write(GoldenFilters.standardFast(), dir.resolve(GoldenFilters.STANDARD_FAST_RESOURCE));
    write(GoldenFilters.standard(), dir.resolve(GoldenFilters.STANDARD_RESOURCE));
    write(GoldenFilters.redisBloom(), dir.resolve(GoldenFilters.REDISBLOOM_RESOURCE));
  }

  private static void write(CuckooFilter<CharSequence> filter, Path file) throws IOException {
    if (Files.exists(file)) {
      System.out.printf("%s: exists, kept%n", file.getFileName());
      return;
    }
    Files.createDirectories(file.getParent());
    filter.writeTo(file);
    System.out.printf(
        "%s: %d bytes, size %d, false positives %d of %d probes%n",
        file.getFileName(),
        Files.size(file),
        filter.size(),
        GoldenFilters.falsePositives(filter),
        GoldenFilters.PROBES);
  }
}
