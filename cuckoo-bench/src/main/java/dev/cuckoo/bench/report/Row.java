package dev.cuckoo.bench.report;

/**
 * One measured result: a benchmark method at one parameter point, its median score over all
 * measurement iterations of all forks, and the spread of the per-fork means.
 *
 * @param method benchmark method: lookup, batchLookup, insert or deleteAndReinsert
 * @param filter filter name
 * @param keys key type
 * @param size number of keys
 * @param fpr target false-positive rate
 * @param hitRatio fraction of probes that were inserted (NaN where it does not apply)
 * @param median median score, ns per operation (inserts: ns per key)
 * @param forkMin smallest per-fork mean, same unit
 * @param forkMax largest per-fork mean, same unit
 * @param forks number of forks
 */
public record Row(
    String method,
    String filter,
    String keys,
    long size,
    double fpr,
    double hitRatio,
    double median,
    double forkMin,
    double forkMax,
    int forks) {

  /** Returns true if this row is at the given point (hit ratio ignored when NaN is passed). */
  boolean is(String method, String filter, String keys, long size, double fpr, double hitRatio) {
    return this.method.equals(method)
        && this.filter.equals(filter)
        && this.keys.equals(keys)
        && this.size == size
        && this.fpr == fpr
        && (Double.isNaN(hitRatio) || this.hitRatio == hitRatio);
  }
}
