package dev.cuckoo.server.command;

import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.session.Session;

/**
 * MEMORY STATS, DOCTOR, MALLOC-STATS and PURGE, answered in the shape of Redis's object.c {@code
 * memoryCommand} from the server's own accounting of the keyspace ({@link Keyspace#usedBytes}, the
 * figure INFO's used_memory and maxmemory use).
 *
 * <p>What the accounting knows: the bytes of every filter and key ({@code total.allocated}), their
 * peak, the keys per database and their entries and expiry times (the hash-table overheads). What
 * it does not count is answered as zero, as on a Redis with no such memory: startup memory,
 * replication backlog, client buffers, cluster links, the append-only buffer and script caches (the
 * log is written straight from each command, there is no script cache). The allocator fields are
 * Redis's for an allocator without statistics (libc malloc): allocated and resident as the total,
 * no muzzy pages, every ratio 1 and every overhead 0, since the JVM does not tell which heap bytes
 * belong to which structure.
 */
final class MemoryCommands {
  /** Below this total Redis's doctor declares the instance empty (5 MiB). */
  private static final long EMPTY_BYTES = 5L * 1024 * 1024;

  /** Redis's MEMORY DOCTOR report when it finds nothing to report. */
  static final String HEALTHY =
      "Hi Sam, I can't find any memory issue in your instance. "
          + "I can only account for what occurs on this base.\n";

  /** Redis's MEMORY DOCTOR report for an instance using less than 5 MiB. */
  static final String EMPTY =
      "Hi Sam, this instance is empty or is using very little memory, "
          + "my issues detector can't be used in these conditions. "
          + "Please, leave for your mission on Earth and fill it with some data. "
          + "The new Sam and I will be back to our programming as soon as I "
          + "finished rebooting.\n";

  private static final String PEAK =
      "Sam, I detected a few issues in this Redis instance memory implants:\n\n"
          + " * Peak memory: In the past this instance used more than 150% the memory that is"
          + " currently using. The allocator is normally not able to release memory after a peak,"
          + " so you can expect to see a big fragmentation ratio, however this is actually"
          + " harmless and is only due to the memory peak, and if the Redis instance Resident Set"
          + " Size (RSS) is currently bigger than expected, the memory will be used as soon as you"
          + " fill the Redis instance with more data. If the memory peak was only occasional and"
          + " you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise"
          + " the only other option is to shutdown and restart the instance.\n\n"
          + "I'm here to keep you safe, Sam. I want to help you.\n";

  private final ServerContext context;
  private final Keyspace keyspace;

  /** Creates the commands over the server's keyspace. */
  MemoryCommands(ServerContext context) {
    this.context = context;
    this.keyspace = context.keyspace();
  }

  /**
   * MEMORY STATS: Redis's map of 31 fields and one {@code db.N} map per database holding keys, in
   * Redis's order. The per-database overheads are kept by the keyspace (no walk over the keys).
   */
  void stats(Session session, Request request) {
    MemoryUsage usage = MemoryUsage.of(context);
    long total = usage.total();
    long peak = usage.peak(keyspace.peakUsedBytes());
    long[] mainBytes = keyspace.keyOverheadBytes();
    int databases = 0;
    for (int db = 0; db < mainBytes.length; db++) {
      if (keyspace.size(db) > 0) {
        databases++;
      }
    }
    long overhead = usage.overhead();
    long dataset = usage.dataset();
    long keys = keyspace.size();
    Reply reply = session.reply();
    reply.map(31 + databases);
    field(reply, "peak.allocated", peak);
    field(reply, "total.allocated", total);
    field(reply, "startup.allocated", usage.startupBytes());
    field(reply, "replication.backlog", usage.backlogBytes());
    field(reply, "clients.slaves", usage.replicaClientBytes());
    field(reply, "clients.normal", usage.normalClientBytes());
    field(reply, "cluster.links", 0);
    field(reply, "aof.buffer", 0);
    field(reply, "lua.caches", 0);
    field(reply, "functions.caches", 0);
    for (int db = 0; db < mainBytes.length; db++) {
      if (keyspace.size(db) > 0) {
        reply.bulk("db." + db);
        reply.map(2);
        field(reply, "overhead.hashtable.main", mainBytes[db]);
        field(reply, "overhead.hashtable.expires", keyspace.expiryOverheadBytes(db));
      }
    }
    field(reply, "overhead.db.hashtable.lut", usage.tableBytes());
    field(reply, "overhead.db.hashtable.rehashing", 0);
    field(reply, "overhead.total", overhead);
    field(reply, "db.dict.rehashing.count", 0);
    field(reply, "keys.count", keys);
    field(reply, "keys.bytes-per-key", keys == 0 ? 0 : dataset / keys);
    field(reply, "dataset.bytes", dataset);
    // Redis computes both percentages in float; net usage (total - startup) is at least 1
    reply.bulk("dataset.percentage");
    reply.doubleValue((float) usage.datasetPercent());
    reply.bulk("peak.percentage");
    // at the peak exactly 100 (in float arithmetic a large total times 100 over itself may not be)
    reply.doubleValue(peak == 0 || total >= peak ? 100 : (float) ((double) total * 100 / peak));
    field(reply, "allocator.allocated", total);
    field(reply, "allocator.active", total);
    field(reply, "allocator.resident", total);
    field(reply, "allocator.muzzy", 0);
    ratio(reply, "allocator-fragmentation", 0);
    ratio(reply, "allocator-rss", 0);
    ratio(reply, "rss-overhead", 0);
    reply.bulk("fragmentation");
    reply.doubleValue(1);
    field(reply, "fragmentation.bytes", 0);
  }

  private static void field(Reply reply, String name, long value) {
    reply.bulk(name);
    reply.integer(value);
  }

  /** Writes a {@code <name>.ratio} of 1 and a {@code <name>.bytes} of {@code bytes}. */
  private static void ratio(Reply reply, String name, long bytes) {
    reply.bulk(name + ".ratio");
    reply.doubleValue(1);
    field(reply, name + ".bytes", bytes);
  }

  /**
   * MEMORY DOCTOR: Redis's report for the accounted memory: the empty-instance text below 5 MiB;
   * above it, the peak-memory issue if the peak is more than 1.5 times the current total, else the
   * healthy text (fragmentation, client buffers and scripts are never reported: see the class).
   */
  void doctor(Session session, Request request) {
    session.reply().verbatimText(report(keyspace.usedBytes(), keyspace.peakUsedBytes()));
  }

  /** Returns MEMORY DOCTOR's text for a total and a peak in bytes. */
  static String report(long total, long peak) {
    if (total < EMPTY_BYTES) {
      return EMPTY;
    }
    return (float) peak / total > 1.5 ? PEAK : HEALTHY;
  }

  /** MEMORY MALLOC-STATS: Redis's answer without jemalloc. */
  void mallocStats(Session session, Request request) {
    session.reply().bulk("Stats not supported for the current allocator");
  }

  /** MEMORY PURGE: OK, as Redis answers when its allocator has nothing to purge. */
  void purge(Session session, Request request) {
    session.reply().ok();
  }
}
