package dev.cuckoo.cli;

/**
 * Measures heap use the plain way: used heap after {@link System#gc()}, before and after a
 * structure is built. Good to a few percent for structures of many megabytes, which is all the demo
 * needs; it is not an object-graph walker.
 */
final class HeapMeter {
  private HeapMeter() {}

  /**
   * Returns the used heap in bytes after asking for two full collections.
   *
   * @return used heap bytes
   */
  static long usedAfterGc() {
    Runtime runtime = Runtime.getRuntime();
    System.gc();
    System.gc();
    return runtime.totalMemory() - runtime.freeMemory();
  }

  /**
   * Returns how many more bytes the heap could still grow by.
   *
   * @return the maximum heap minus the used heap
   */
  static long headroom() {
    Runtime runtime = Runtime.getRuntime();
    return runtime.maxMemory() - (runtime.totalMemory() - runtime.freeMemory());
  }
}
