package dev.cuckoo.server.command;

import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.replication.Replication;
import java.lang.management.ManagementFactory;

/**
 * What the server's heap holds, as INFO memory ({@code used_memory}, {@code used_memory_overhead},
 * {@code used_memory_startup}, {@code used_memory_dataset}) and MEMORY STATS report it: the heap
 * live at start-up (classes' data, the network's pools, the tables of an empty server), the keys'
 * entries, expiry times and tables, the replication backlog, the clients' buffers ({@link
 * ClientMemory}: input and output buffers, most of them Netty's direct memory outside the heap, as
 * Redis counts everything it allocated), and the filters (the dataset).
 *
 * @param startupBytes the heap live after start-up, before any data was loaded
 * @param keysBytes the filters and their keys' entries and expiry times
 * @param keyOverheadBytes of {@code keysBytes}, the entries and expiry times
 * @param tableBytes the key tables' slot arrays
 * @param backlogBytes the replication backlog's ring
 * @param normalClientBytes the buffers of clients other than replicas (mem_clients_normal)
 * @param replicaClientBytes the buffers of replicas' links, their stream included
 *     (mem_clients_slaves)
 */
record MemoryUsage(
    long startupBytes,
    long keysBytes,
    long keyOverheadBytes,
    long tableBytes,
    long backlogBytes,
    long normalClientBytes,
    long replicaClientBytes) {
  /*
   * Measured against the live heap (jcmd GC.run, then GC.heap_info) with 200,000 filters made by
   * CF.RESERVE user:N 100 and five CF.ADD each: the keys alone counted 0.88 of the live heap; the
   * start-up heap, the key tables and the backlog make up the rest (docs/server-benchmark.md).
   */

  // the live heap after the first start in this JVM, measured once (one full collection)
  private static volatile long startupHeap = -1;

  /**
   * Measures the heap live after start-up, once per JVM: a full collection, then the heap in use.
   * Called before any data is loaded, while the heap is small and the collection short.
   */
  static void measureStartup() {
    if (startupHeap < 0) {
      synchronized (MemoryUsage.class) {
        if (startupHeap < 0) {
          System.gc();
          startupHeap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        }
      }
    }
  }

  /** Returns the accounting now. */
  static MemoryUsage of(ServerContext context) {
    Keyspace keyspace = context.keyspace();
    long keyOverhead = 0;
    long[] entries = keyspace.keyOverheadBytes();
    for (int db = 0; db < entries.length; db++) {
      keyOverhead += entries[db] + keyspace.expiryOverheadBytes(db);
    }
    Replication replication = context.replication();
    return new MemoryUsage(
        Math.max(0, startupHeap),
        keyspace.usedBytes(),
        keyOverhead,
        keyspace.tableBytes(),
        replication == null ? 0 : replication.backlogMemoryBytes(),
        context.clientMemory().normalBytes(),
        context.clientMemory().replicaBytes());
  }

  /** Returns used_memory: everything counted. */
  long total() {
    return startupBytes + keysBytes + tableBytes + backlogBytes + clientBytes();
  }

  /** Returns the clients' buffers, replicas' included. */
  private long clientBytes() {
    return normalClientBytes + replicaClientBytes;
  }

  /** Returns used_memory_overhead: everything but the filters. */
  long overhead() {
    return startupBytes + keyOverheadBytes + tableBytes + backlogBytes + clientBytes();
  }

  /** Returns used_memory_dataset: the filters' bytes. */
  long dataset() {
    return keysBytes - keyOverheadBytes;
  }

  /** Returns used_memory_dataset_perc as Redis computes it: of the memory used since start-up. */
  double datasetPercent() {
    return dataset() * 100.0 / Math.max(1, total() - startupBytes);
  }

  /** Returns used_memory_peak: the keys' peak with today's other parts, or the total if higher. */
  long peak(long keysPeakBytes) {
    return Math.max(total(), keysPeakBytes + total() - keysBytes);
  }
}
