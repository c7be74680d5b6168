package dev.cuckoo.server.persist;

import dev.cuckoo.ScalableCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Numbers;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Applies logged records to a keyspace during recovery, skipping what the snapshot already holds.
 *
 * <p>A record numbered {@code lsn} changes key {@code k} only if {@code lsn} is greater than the
 * number the snapshot stored for {@code k} (or, for a key the snapshot did not visit, than the
 * snapshot's start number). Multi-key records (DEL, FLUSHALL, FLUSHDB, a transaction's writes) are
 * applied key by key under the same rule; records that move data between keys (RENAME, MOVE,
 * SWAPDB) are applied whole if they come after the snapshot's start and skipped otherwise, which is
 * exact because they never run while a snapshot is being written. Records carry the database they
 * ran in. Records of logs older than version 3 carry no number and are always applied. Only keys
 * {@code wanted} accepts are touched, so the same code rebuilds a few keys after a failed log write
 * and the whole keyspace at startup.
 *
 * <p>A record that fails to apply stops recovery with an {@link IOException} naming the file, the
 * offset and the command: a log that replays with errors would start the server with less than was
 * acknowledged.
 */
public final class Replay implements LogReader.RecordSink {
  private final RecordApplier applier;
  private final Keyspace target;
  private final Map<Key, Long> snapshotLsns;
  private final long startLsn;
  private final Predicate<Key> wanted;
  private Path file;
  private long applied;

  /**
   * Creates a replay into {@code target}.
   *
   * @param applier runs records on {@code target} (the command table bound to it)
   * @param snapshotLsns per key, the last record number the snapshot holds
   * @param startLsn the last record number the whole snapshot holds
   * @param wanted the keys to change
   */
  Replay(
      RecordApplier applier,
      Keyspace target,
      Map<Key, Long> snapshotLsns,
      long startLsn,
      Predicate<Key> wanted) {
    this.applier = applier;
    this.target = target;
    this.snapshotLsns = snapshotLsns;
    this.startLsn = startLsn;
    this.wanted = wanted;
  }

  /** Names the file the following records come from (for error messages). */
  void file(Path file) {
    this.file = file;
  }

  /** Returns the number of records applied (not skipped). */
  long applied() {
    return applied;
  }

  private boolean applies(Key key, long lsn) {
    return wanted.test(key) && (lsn < 0 || lsn > snapshotLsns.getOrDefault(key, startLsn));
  }

  /** Receives the keys a logged command changes (see {@link #keysOf}). */
  @FunctionalInterface
  public interface KeySink {
    /** Takes one key the command changes. */
    void key(Key key);

    /**
     * Takes a database whose every key the command changes (-1: every database); ignored unless
     * overridden (a flush or swap then locks and handles everything itself).
     */
    default void database(int db) {}
  }

  /**
   * Hands {@code sink} the keys a logged command run in database {@code db} changes: DEL and UNLINK
   * all their arguments, RENAME and RENAMENX both names, MOVE the key in both databases, FLUSHDB
   * and SWAPDB whole databases, FLUSHALL every database, a transaction record the keys of each of
   * its writes, every other write its first argument. The one place that knows which keys a record
   * touches, for replay, for undoing failed writes and for WATCH.
   */
  public static void keysOf(int db, byte[][] args, KeySink sink) {
    if (Transaction.isRecord(args)) {
      for (Transaction.Write write : Transaction.decode(args)) {
        keysOf(write.db, write.args, sink);
      }
      return;
    }
    String name = Args.lower(args[0]);
    switch (name) {
      case "flushall":
        sink.database(-1);
        return;
      case "flushdb":
        sink.database(db);
        return;
      case "swapdb":
        sink.database(databaseArgument(args[1]));
        sink.database(databaseArgument(args[2]));
        return;
      case "move":
        sink.key(new Key(db, args[1]));
        sink.key(new Key(databaseArgument(args[2]), args[1]));
        return;
      default:
        break;
    }
    int last =
        name.equals("del") || name.equals("unlink")
            ? args.length - 1
            : name.equals("rename") || name.equals("renamenx")
                ? Math.min(2, args.length - 1)
                : Math.min(1, args.length - 1);
    for (int i = 1; i <= last; i++) {
      sink.key(new Key(db, args[i]));
    }
  }

  /**
   * Returns true if a logged command moves data between keys (RENAME, RENAMENX, MOVE, SWAPDB, or a
   * transaction holding one): its effect on one key depends on another key's state, so it is
   * replayed whole or not at all, and never runs while a snapshot is being written.
   */
  public static boolean movesData(byte[][] args) {
    if (Transaction.isRecord(args)) {
      for (Transaction.Write write : Transaction.decode(args)) {
        if (movesData(write.args)) {
          return true;
        }
      }
      return false;
    }
    byte[] name = args[0];
    // on every logged write: compare bytes, allocate nothing (CF.* start with 'c')
    int first = name.length == 0 ? 0 : name[0] | 0x20;
    if (first != 'r' && first != 'm' && first != 's') {
      return false;
    }
    return named(name, "rename")
        || named(name, "renamenx")
        || named(name, "move")
        || named(name, "swapdb");
  }

  /** Returns true if the bytes spell the lower-case ASCII name, in any case. */
  private static boolean named(byte[] bytes, String name) {
    if (bytes.length != name.length()) {
      return false;
    }
    for (int i = 0; i < bytes.length; i++) {
      int c = bytes[i];
      if (c >= 'A' && c <= 'Z') {
        c += 'a' - 'A';
      }
      if (c != name.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private static int databaseArgument(byte[] arg) {
    Long db = Numbers.parseLong(arg);
    return db == null || db < 0 || db > Integer.MAX_VALUE ? -1 : (int) (long) db;
  }

  @Override
  public void accept(long lsn, int db, byte[][] args, long offset) throws IOException {
    if (Transaction.isRecord(args)) {
      List<Transaction.Write> writes;
      try {
        writes = Transaction.decode(args);
      } catch (IllegalArgumentException e) {
        throw new IOException(
            file
                + ": the record at offset "
                + offset
                + ": "
                + e.getMessage()
                + "; refusing to start");
      }
      for (Transaction.Write write : writes) {
        apply(lsn, write.db, write.args, offset);
      }
    } else {
      apply(lsn, db, args, offset);
    }
    applied++;
  }

  private void apply(long lsn, int db, byte[][] args, long offset) throws IOException {
    if (db < 0 || db >= target.databases()) {
      throw new IOException(
          file
              + ": the record at offset "
              + offset
              + " ("
              + describe(args)
              + ") is for database "
              + db
              + " but the server has "
              + target.databases()
              + " databases; restart with --databases "
              + (db + 1)
              + " or more");
    }
    List<Key> changing = new ArrayList<>(1);
    int[] wholeDatabases = {-2, -2};
    keysOf(
        db,
        args,
        new KeySink() {
          @Override
          public void key(Key key) {
            changing.add(key);
          }

          @Override
          public void database(int which) {
            wholeDatabases[wholeDatabases[0] == -2 ? 0 : 1] = which;
          }
        });
    if (movesData(args)) {
      // replayed whole or not at all: movers never run during a snapshot, so every key the
      // snapshot holds is either before the record or after it
      if (lsn < 0 || lsn > startLsn) {
        execute(db, args, offset);
      }
      return;
    }
    if (wholeDatabases[0] != -2) {
      for (Key key : target.keys()) {
        if ((wholeDatabases[0] == -1 || key.db() == wholeDatabases[0]) && applies(key, lsn)) {
          target.remove(key);
        }
      }
      return;
    }
    changing.removeIf(key -> !applies(key, lsn));
    if (changing.isEmpty()) {
      return;
    }
    byte[][] effective = args;
    String name = Args.lower(args[0]);
    if (name.equals("del") || name.equals("unlink")) {
      effective = new byte[changing.size() + 1][];
      effective[0] = args[0];
      for (int i = 0; i < changing.size(); i++) {
        effective[i + 1] = changing.get(i).bytes();
      }
    }
    execute(db, effective, offset);
  }

  private void execute(int db, byte[][] args, long offset) throws IOException {
    String error = applier.apply(db, args);
    if (error != null) {
      throw new IOException(
          file
              + ": replaying the record at offset "
              + offset
              + " ("
              + describe(args)
              + ") failed: "
              + error
              + memoryAdvice(error, args)
              + "; refusing to start with less than was acknowledged");
    }
  }

  private String memoryAdvice(String error, byte[][] args) {
    if (!error.contains("memory")) {
      return "";
    }
    long filters = 0;
    for (ScalableCuckooFilter<byte[]> filter : target.entries().values()) {
      filters += filter.sizeInBytes();
    }
    long requested = requestedBytes(args);
    return ". The filters replayed so far take "
        + filters
        + " bytes"
        + (requested > 0 ? ", this one needs " + requested + " more" : "")
        + " and the maximum heap is "
        + Runtime.getRuntime().maxMemory()
        + " bytes: restart with a larger -Xmx";
  }

  /** Returns the bytes a logged CF.RESERVE creates, or 0 if unknown. */
  private static long requestedBytes(byte[][] args) {
    if (!Args.lower(args[0]).equals("cf.reserve") || args.length < 3) {
      return 0;
    }
    Long capacity = Numbers.parseLong(args[2]);
    long bucketSize = 2;
    for (int i = 3; i + 1 < args.length; i += 2) {
      if (Args.lower(args[i]).equals("bucketsize")) {
        Long value = Numbers.parseLong(args[i + 1]);
        bucketSize = value == null ? bucketSize : value;
      }
    }
    try {
      return capacity == null
          ? 0
          : ScalableCuckooFilter.redisBloomSizeInBytes(capacity, (int) bucketSize);
    } catch (RuntimeException e) {
      return 0;
    }
  }

  private static String describe(byte[][] args) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < Math.min(args.length, 3); i++) {
      String arg = Args.text(args[i]);
      text.append(i == 0 ? "" : " ").append(arg, 0, Math.min(arg.length(), 64));
    }
    return args.length > 3 ? text.append(" ...").toString() : text.toString();
  }
}
