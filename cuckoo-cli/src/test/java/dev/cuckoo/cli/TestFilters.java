package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoo.FilterFile;
import dev.cuckoo.ItemHasher;
import dev.cuckoo.RedisCuckooFilter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Builds filter files with {@code cuckoo build} for the tests. */
final class TestFilters {
  private TestFilters() {}

  /**
   * Writes {@code items} to {@code dir/name.txt} and builds {@code dir/name.cuckoo} from it.
   *
   * @return the filter file
   */
  static Path build(Path dir, String name, List<String> items, String... options)
      throws IOException {
    Path input = dir.resolve(name + ".txt");
    Files.write(input, items, StandardCharsets.UTF_8);
    Path output = dir.resolve(name + ".cuckoo");
    List<String> args =
        new ArrayList<>(
            List.of("build", "--input", input.toString(), "--output", output.toString()));
    args.addAll(List.of(options));
    CliRun run = CliRun.run(args.toArray(new String[0]));
    assertEquals(0, run.exitCode, run.toString());
    return output;
  }

  /**
   * Reads the single {@code REDISBLOOM} filter of {@code path} as the library reads it: a {@link
   * RedisCuckooFilter} of one link that never grows, from a file still in the single-filter form.
   */
  static <T> RedisCuckooFilter<T> readSingleRedis(Path path, ItemHasher<? super T> hasher)
      throws IOException {
    FilterFile<T> file = FilterFile.read(path, id -> hasher);
    assertEquals(false, file.isChain(), path + " is a single-filter file");
    RedisCuckooFilter<T> filter = (RedisCuckooFilter<T>) file.filter();
    assertEquals(1, filter.linkCount());
    assertEquals(0, filter.expansion());
    return filter;
  }
}
