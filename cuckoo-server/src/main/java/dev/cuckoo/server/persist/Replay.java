package dev.cuckoo.server.persist;

import dev.cuckoo.RedisCuckooFilter;
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
  private final RecordRules rules;
  private final Keyspace target;
  private final Map<Key, Long> snapshotLsns;
  private final long startLsn;
  private final Predicate<Key> wanted;
  private Path file;
  private long applied;
  // the stream position after the records replayed so far, and a mark not yet followed by its
  // record
  private StreamMark position;
  private StreamMark pendingMark;

  /**
   * Creates a replay into {@code target}.
   *
   * @param applier runs records on {@code target} (the command table bound to it)
   * @param rules which keys a record changes and whether it moves data
   * @param snapshotLsns per key, the last record number the snapshot holds
   * @param startLsn the last record number the whole snapshot holds
   * @param wanted the keys to change
   */
  Replay(
      RecordApplier applier,
      RecordRules rules,
      Keyspace target,
      Map<Key, Long> snapshotLsns,
      long startLsn,
      Predicate<Key> wanted) {
    this.applier = applier;
    this.rules = rules;
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
    return wanted.test(key) && lsn > snapshotLsns.getOrDefault(key, startLsn);
  }

  /**
   * Returns where the replayed data stands in a master's stream (see {@link StreamMark}), as a mark
   * whose two offsets are that position, or null if no mark was read.
   */
  StreamMark streamMark() {
    StreamMark standing = pendingMark != null ? pendingMark : position;
    if (standing == null) {
      return null;
    }
    return new StreamMark(
        standing.replicationId(), standing.before(), standing.before(), standing.db());
  }

  @Override
  public void accept(long lsn, int db, byte[][] args, long offset) throws IOException {
    StreamMark next = StreamMark.of(args);
    if (next != null) {
      pendingMark = next;
      return;
    }
    if (pendingMark != null) {
      position = pendingMark.settled();
      pendingMark = null;
    } else if (position != null && position.continuable()) {
      position = position.next(db, args);
    }
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
    rules.keysOf(
        db,
        args,
        new RecordRules.KeySink() {
          @Override
          public void key(Key key) {
            changing.add(key);
          }

          @Override
          public void database(int which) {
            wholeDatabases[wholeDatabases[0] == -2 ? 0 : 1] = which;
          }
        });
    if (rules.movesData(args)) {
      // replayed whole or not at all: movers never run during a snapshot, so every key the
      // snapshot holds is either before the record or after it
      if (lsn > startLsn) {
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
    // counted as filters were stored: nothing is allocated on a heap that just ran out
    long filters = target.usedBytes();
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
          : RedisCuckooFilter.reservedSizeInBytes(capacity, (int) bucketSize);
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
