package dev.cuckoo.server.rdb;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of keys (or writes) of types this server does not hold, by Redis's type name ({@code
 * string}, {@code list}, {@code set}, {@code zset}, {@code hash}, {@code stream}, or a module's
 * type name such as {@code MBbloom--}). Safe to count from one thread while others read.
 */
public final class ForeignTypes {
  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  /** Creates empty counts. */
  public ForeignTypes() {}

  /**
   * Counts one more of {@code type}.
   *
   * @param type Redis's name of the type
   */
  public void add(String type) {
    counts.computeIfAbsent(type, t -> new LongAdder()).increment();
  }

  /**
   * Counts {@code count} more of {@code type}.
   *
   * @param type Redis's name of the type
   * @param count how many more
   */
  public void add(String type, long count) {
    counts.computeIfAbsent(type, t -> new LongAdder()).add(count);
  }

  /**
   * Adds every count of {@code other} to these.
   *
   * @param other the counts to add
   */
  public void addAll(ForeignTypes other) {
    other.snapshot().forEach(this::add);
  }

  /** Forgets every count. */
  public void clear() {
    counts.clear();
  }

  /**
   * Returns the counts, by type name in alphabetical order.
   *
   * @return a copy of the counts
   */
  public Map<String, Long> snapshot() {
    Map<String, Long> copy = new TreeMap<>();
    counts.forEach((type, count) -> copy.put(type, count.sum()));
    return copy;
  }

  /**
   * Returns the sum of every count.
   *
   * @return the total
   */
  public long total() {
    long total = 0;
    for (LongAdder count : counts.values()) {
      total += count.sum();
    }
    return total;
  }

  /**
   * Returns the counts as INFO prints them: {@code type=count} pairs separated by commas,
   * alphabetically ({@code hash=2,string=10}); empty if there are none.
   *
   * @return the text
   */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder();
    for (Map.Entry<String, Long> entry : snapshot().entrySet()) {
      if (text.length() > 0) {
        text.append(',');
      }
      text.append(entry.getKey()).append('=').append(entry.getValue());
    }
    return text.toString();
  }
}
