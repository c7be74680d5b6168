package dev.cuckoo.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bits per key and measured false-positive rates the benchmark forks appended to a CSV file.
 */
public final class FilterStats {
  /**
   * Bits per key and measured rate of one filter at one parameter point.
   *
   * @param filter filter name
   * @param keys key type
   * @param size number of keys
   * @param fpr target rate
   * @param bitsPerKey table bits per inserted key
   * @param measuredFpr measured false-positive rate
   */
  public record Stat(
      String filter, String keys, long size, double fpr, double bitsPerKey, double measuredFpr) {}

  private final Map<String, Stat> stats = new LinkedHashMap<>();

  /**
   * Reads lines {@code filter,keys,size,fpr,bitsPerKey,measuredFpr}; the last line of a point wins.
   */
  public static FilterStats read(Path file) throws IOException {
    FilterStats result = new FilterStats();
    if (!Files.exists(file)) {
      return result;
    }
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String[] f = line.split(",");
      if (f.length == 6) {
        Stat stat =
            new Stat(
                f[0],
                f[1],
                Long.parseLong(f[2]),
                Double.parseDouble(f[3]),
                Double.parseDouble(f[4]),
                Double.parseDouble(f[5]));
        result.stats.put(key(stat.filter(), stat.keys(), stat.size(), stat.fpr()), stat);
      }
    }
    return result;
  }

  /** Returns the statistics of a point, or null if none were recorded. */
  public Stat get(String filter, String keys, long size, double fpr) {
    return stats.get(key(filter, keys, size, fpr));
  }

  /** Returns every recorded point. */
  public List<Stat> all() {
    return new ArrayList<>(stats.values());
  }

  private static String key(String filter, String keys, long size, double fpr) {
    return filter + "," + keys + "," + size + "," + fpr;
  }
}
