package dev.cuckoo.server.persist;

import dev.cuckoo.FilterAllocationException;
import dev.cuckoo.FilterFormatException;
import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.Fsync;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.keyspace.HeapGuard;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Durability: the snapshot file plus the append-only logs of writes made since it began.
 *
 * <p><b>The rule.</b> A reply that acknowledges a write is sent only after its log record is
 * written (and, with {@code appendfsync always}, forced to disk): see {@link #commit}. A write
 * whose record cannot be written is undone and its client gets an error.
 *
 * <p><b>Files.</b> {@code dump.cuckoo} (the snapshot, {@link SnapshotFile}), {@code appendonly.log}
 * (the active log, {@link AppendLog}) and, while or after a snapshot is being taken, retired logs
 * {@code appendonly.log.<generation>}. Every record carries a sequence number.
 *
 * <p><b>Snapshots do not stop the world</b> (a fuzzy checkpoint). SAVE (a) retires the active log
 * and starts generation g+1, remembering the number of the last record retired ({@code startLsn});
 * (b) writes the keys one at a time with the number of the last record applied at that moment (a
 * key deleted meanwhile as a tombstone): a small filter under its stripe's read lock, a big one (1
 * MiB or more) from an image captured under that lock and written without it, while commands go on
 * changing the filter (copy on write: a region of its table is copied aside only when a command
 * changes it before the snapshot has written it); (c) forces the log (so the snapshot never holds a
 * write that is not in the log), forces and renames the snapshot, and deletes the retired logs. A
 * crash at any point leaves either the old snapshot with every log since, or the new snapshot with
 * the logs it needs.
 *
 * <p><b>Recovery</b> loads the snapshot and replays the logs of its generation and later, in order,
 * skipping every record the snapshot already holds ({@link Replay}). It refuses to start, naming
 * the file and offset and the repair option, when a file is damaged: a log header whose checksum
 * fails, a log whose generation does not fit the snapshot, a missing log between them, a corrupt
 * record in the middle of a log, a corrupt snapshot, a record that fails to replay. {@code
 * --repair-log yes} replays what can be read instead. Replay ignores {@code maxmemory}: memory
 * admission applies to new commands only.
 *
 * <p><b>Failures.</b> When a log write or fsync fails, writes are refused with {@code -MISCONF}
 * (reads go on), the records that were not acknowledged are dropped from the log buffer and the
 * keys they touched are rebuilt from the files, so memory again equals what a restart would load. A
 * background task then retries every second to take a snapshot into a new log generation; once one
 * succeeds, writes are accepted again.
 *
 * <p><b>Automatic rewrite</b>, Redis's rule and defaults adapted to a log that holds only what
 * changed since the snapshot: when the active log is at least {@code auto-aof-rewrite-min-size} and
 * at least {@code auto-aof-rewrite-percentage} percent of the snapshot's size (Redis: the log grew
 * by that percentage over its size after the last rewrite, which is the data's image), a snapshot
 * is taken in the background. The log therefore stays below the larger of the minimum size and the
 * percentage of the live data, plus what is written while one snapshot runs.
 */
public final class Persistence implements Snapshots, WriteLog {
  /** Snapshot file name inside the data directory. */
  public static final String SNAPSHOT = "dump.cuckoo";

  /** Active log file name inside the data directory. */
  public static final String LOG = "appendonly.log";

  private static final System.Logger LOGGER = System.getLogger(Persistence.class.getName());

  private static final String REPAIR_HINT =
      "; refusing to start. Restart with --repair-log yes" + " to ";

  private final DataFiles names;
  private final Keyspace keyspace;
  private volatile Fsync fsync;
  private final FileChannels files;
  private final Function<Keyspace, RecordApplier> commandsFor;
  private final RecordRules rules;
  private final PersistenceContext context;
  private final AppendLog log;

  /** Snapshots and recovery attempts. */
  private final ScheduledExecutorService background;

  /** The everysec fsync, on its own thread so that a long snapshot never delays it. */
  private final ScheduledExecutorService syncer;

  private final ReentrantLock saveLock = new ReentrantLock();
  // held shared by commands that move data between keys, exclusively while a snapshot is written
  // whether a record that moves data between keys was logged since the last snapshot
  private volatile boolean moversLogged;
  // the command name array of the last record found not to move data: the decoder hands out the
  // same array while a connection repeats a command, so the table is not asked once per record
  // (command name arrays are never modified; a stale value only costs one more lookup)
  private byte[] lastNonMover;
  private final BackgroundSaves saves;
  private final AtomicBoolean recovering = new AtomicBoolean();
  // ranges of record numbers undone after log failures (copy on write: read on every commit)
  private volatile long[][] discarded = new long[0][];
  private volatile long generation;
  private final SaveStats saveStats;
  private volatile long rewriteBaseBytes;
  private volatile String refusal;
  private IOException handledFailure;
  // test seam: runs on the saving thread after the log is rotated, before the keys are listed
  private volatile Runnable afterRotate = () -> {};
  private volatile Runnable atRotation = () -> {};
  private StreamMark recoveredMark;

  private Persistence(
      PersistenceContext context,
      Keyspace keyspace,
      FileChannels files,
      Function<Keyspace, RecordApplier> commandsFor,
      RecordRules rules,
      AppendLog log,
      long generation) {
    this.context = context;
    this.names = DataFiles.of(context.config());
    this.keyspace = keyspace;
    this.fsync = context.config().get(Parameters.APPENDFSYNC);
    this.files = files;
    this.commandsFor = commandsFor;
    this.rules = rules;
    this.log = log;
    this.generation = generation;
    this.saveStats = context.saveStats();
    this.rewriteBaseBytes = snapshotBytes(names);
    this.background = daemonExecutor("cuckoo-persistence");
    this.saves = new BackgroundSaves(background, this::save);
    log.afterForce(context::logForced);
    this.syncer = daemonExecutor("cuckoo-fsync");
    syncer.scheduleWithFixedDelay(
        () -> {
          if (fsync == Fsync.EVERYSEC) {
            syncQuietly();
          }
        },
        1,
        1,
        TimeUnit.SECONDS);
  }

  private static long snapshotBytes(DataFiles names) {
    try {
      return Files.size(names.snapshot());
    } catch (IOException e) {
      return 0;
    }
  }

  private static ScheduledExecutorService daemonExecutor(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }

  /** A log file found in the data directory. */
  static final class LogFile {
    final Path path;
    final LogReader.Header header;
    final boolean active;

    LogFile(Path path, LogReader.Header header, boolean active) {
      this.path = path;
      this.header = header;
      this.active = active;
    }
  }

  /** What the files of the data directory hold, found by {@link #scan}. */
  static final class Recovered {
    SnapshotFile.Loaded snapshot = new SnapshotFile.Loaded(0, 0, 0, Map.of());
    final List<LogFile> needed = new ArrayList<>();
    final List<Path> obsolete = new ArrayList<>();
    LogFile active;
    boolean repaired;
    long lastLsn;
    long activeEnd;
    String activeProblem;
    StreamMark mark;
  }

  /**
   * Recovers the keyspace from the data directory and opens the log for appending.
   *
   * @param commandsFor builds the command table over a keyspace (used to replay records)
   * @param rules which keys a logged record changes and whether it moves data
   * @throws IOException if the files cannot be read, or are damaged and repair is not allowed
   */
  public static Persistence open(
      PersistenceContext context,
      FileChannels files,
      Function<Keyspace, RecordApplier> commandsFor,
      RecordRules rules)
      throws IOException {
    DataFiles names = DataFiles.of(context.config());
    Keyspace keyspace = context.keyspace();
    Recovered found = load(context, commandsFor, rules);
    long generation = found.snapshot.generation();
    Path logPath = names.log();
    AppendLog log;
    if (found.repaired) {
      // records are only appended to a sound current-format log of the snapshot's generation:
      // fold what was replayed into a snapshot of a new generation, then start an empty log of
      // it (a crash in between leaves a log older than the snapshot, which refuses to start
      // unless repaired, and repair skips what the snapshot holds)
      LOGGER.log(Level.INFO, "{0} was repaired; saving a snapshot to start a sound log", logPath);
      generation = Math.max(generation, lastGeneration(found)) + 1;
      writeWholeSnapshot(names.snapshot(), files, generation, found.lastLsn, keyspace);
      log = AppendLog.create(logPath, files, generation, found.lastLsn);
      if (found.mark != null) {
        log.append(0, found.mark.args());
      }
      for (LogFile file : found.needed) {
        if (!file.active) {
          found.obsolete.add(file.path);
        }
      }
    } else if (found.active == null) {
      log =
          AppendLog.create(
              logPath, files, Math.max(generation, lastGeneration(found)), found.lastLsn);
    } else {
      if (found.activeProblem != null) {
        LOGGER.log(
            Level.WARNING,
            "{0}: {1}; truncating at offset {2}",
            logPath,
            found.activeProblem,
            found.activeEnd);
      }
      log =
          AppendLog.openAt(
              logPath, files, found.active.header.generation(), found.activeEnd, found.lastLsn);
    }
    removeObsolete(found);
    Persistence persistence =
        new Persistence(context, keyspace, files, commandsFor, rules, log, generation);
    persistence.recoveredMark = found.mark;
    return persistence;
  }

  /**
   * Loads the data directory into the context's keyspace at start-up: removes what interrupted
   * writes left, then loads the snapshot and replays the logs.
   */
  static Recovered load(
      PersistenceContext context, Function<Keyspace, RecordApplier> commandsFor, RecordRules rules)
      throws IOException {
    Config config = context.config();
    DataFiles names = DataFiles.of(config);
    removeInterruptedWrites(names);
    Keyspace keyspace = context.keyspace();
    return recover(
        names,
        keyspace,
        commandsFor.apply(keyspace),
        rules,
        key -> true,
        Long.MAX_VALUE,
        config.get(Parameters.REPAIR_LOG),
        true);
  }

  /** Deletes the retired logs older than the snapshot that {@link #load} found. */
  static void removeObsolete(Recovered found) throws IOException {
    for (Path obsolete : found.obsolete) {
      Files.deleteIfExists(obsolete);
      LOGGER.log(Level.INFO, "removed {0}: the snapshot holds its records", obsolete);
    }
  }

  /** Creates the data directory and removes the temporary files of writes a crash interrupted. */
  private static void removeInterruptedWrites(DataFiles names) throws IOException {
    Files.createDirectories(names.dir());
    for (Path stale :
        new Path[] {
          SnapshotFile.tempOf(names.snapshot()), names.logSibling(".tmp"), names.logSibling(".new")
        }) {
      if (Files.deleteIfExists(stale)) {
        LOGGER.log(Level.INFO, "removed {0} left by an interrupted write", stale);
      }
    }
  }

  /**
   * Starts persistence over the keyspace as it is now (CONFIG SET appendonly yes), as Redis
   * rewrites its append-only file when the log is turned on: the logs in the data directory (left
   * from before the log was turned off, so stale) are removed, a snapshot of every key is written
   * and an empty log of the same generation is started. Nothing is read from the directory. The
   * caller keeps writes out meanwhile (holds every stripe), so that each write is in the snapshot
   * or in the log.
   *
   * @throws IOException if the directory, the snapshot or the log cannot be written
   */
  public static Persistence startFresh(
      PersistenceContext context,
      FileChannels files,
      Function<Keyspace, RecordApplier> commandsFor,
      RecordRules rules)
      throws IOException {
    DataFiles names = DataFiles.of(context.config());
    Files.createDirectories(names.dir());
    Files.deleteIfExists(names.log());
    names.deleteRetiredBefore(Long.MAX_VALUE);
    long generation = 1;
    writeWholeSnapshot(names.snapshot(), files, generation, 0, context.keyspace());
    AppendLog log = AppendLog.create(names.log(), files, generation, 0);
    return new Persistence(context, context.keyspace(), files, commandsFor, rules, log, generation);
  }

  /** Returns the generation after the last retired log's, or the active log's (0 if none). */
  static long lastGeneration(Recovered found) {
    long last = 0;
    for (LogFile file : found.needed) {
      last = Math.max(last, file.header.generation() + (file.active ? 0 : 1));
    }
    return last;
  }

  private static void rewriteHeader(Path path, LogReader.Header header) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
      ByteBuffer bytes = ByteBuffer.wrap(AppendLog.header(header.generation(), header.baseLsn()));
      while (bytes.hasRemaining()) {
        channel.write(bytes, bytes.position());
      }
      channel.force(true);
    }
  }

  /**
   * Loads the snapshot and replays the logs into {@code target}, for the keys {@code wanted}
   * accepts; the active log is read up to {@code activeLimit}.
   */
  static Recovered recover(
      DataFiles names,
      Keyspace target,
      RecordApplier commands,
      RecordRules rules,
      Predicate<Key> wanted,
      long activeLimit,
      boolean repair,
      boolean startup)
      throws IOException {
    Recovered found = new Recovered();
    Path snapshotPath = names.snapshot();
    if (Files.exists(snapshotPath)) {
      try {
        found.snapshot = SnapshotFile.read(snapshotPath, target, wanted);
      } catch (FilterFormatException e) {
        // a filter that does not fit the heap is not damage: the start needs a larger heap
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
          if (cause instanceof FilterAllocationException tooBig) {
            throw tooBig;
          }
          if (cause instanceof OutOfMemoryError outOfHeap) {
            throw outOfHeap;
          }
        }
        throw new IOException(
            snapshotPath
                + ": corrupt snapshot at offset "
                + e.offset()
                + " ("
                + e.field()
                + "): "
                + e.getMessage()
                + "; refusing to start. Move the file"
                + " away to start from the logs alone (what only the snapshot held is then lost)",
            e);
      } catch (IOException e) {
        throw new IOException(snapshotPath + ": " + e.getMessage(), e);
      }
      if (startup) {
        LOGGER.log(
            Level.INFO,
            "loaded {0} keys from {1} (generation {2})",
            found.snapshot.keys(),
            snapshotPath,
            found.snapshot.generation());
      }
    }
    scan(names, found, repair);
    Replay replay =
        new Replay(
            commands, rules, target, found.snapshot.lsns(), found.snapshot.startLsn(), wanted);
    found.lastLsn = Math.max(found.snapshot.startLsn(), maxLsn(found.snapshot.lsns()));
    for (LogFile file : found.needed) {
      replay.file(file.path);
      LogReader.Header header = file.header;
      if (header.damage() != null) {
        header = new LogReader.Header(header.generation(), 0, null);
      }
      LogReader.Result result =
          LogReader.read(
              file.path, header, file.active ? activeLimit : Long.MAX_VALUE, repair, replay);
      found.lastLsn = Math.max(found.lastLsn, result.lastLsn());
      if (file.active) {
        found.activeEnd = result.validEnd();
        found.activeProblem = result.problem();
      } else if (result.problem() != null && startup) {
        LOGGER.log(
            Level.WARNING,
            "{0}: {1}; the records after offset {2} were never" + " acknowledged",
            file.path,
            result.problem(),
            result.validEnd());
      }
      if (startup) {
        LOGGER.log(Level.INFO, "replayed {0} records from {1}", result.records(), file.path);
      }
    }
    target.recountUsed();
    found.mark = replay.streamMark();
    return found;
  }

  private static long maxLsn(Map<Key, Long> lsns) {
    long max = 0;
    for (long lsn : lsns.values()) {
      max = Math.max(max, lsn);
    }
    return max;
  }

  /**
   * Finds the logs the snapshot needs and checks that they fit together: the active log's
   * generation is the snapshot's or later, every retired generation in between is present, and the
   * first needed log starts at or before the snapshot's start number.
   */
  private static void scan(DataFiles names, Recovered found, boolean repair) throws IOException {
    long snapshotGeneration = found.snapshot.generation();
    Path snapshotPath = names.snapshot();
    TreeMap<Long, LogFile> retired = new TreeMap<>();
    for (Map.Entry<Long, Path> entry : names.retiredLogs().entrySet()) {
      Path path = entry.getValue();
      LogReader.Header header = headerOf(path, repair, entry.getKey());
      if (header.generation() < snapshotGeneration) {
        found.obsolete.add(path);
      } else {
        retired.put(header.generation(), new LogFile(path, header, false));
      }
    }
    Path activePath = names.log();
    if (Files.exists(activePath)) {
      long guess = retired.isEmpty() ? snapshotGeneration : retired.lastKey() + 1;
      found.active = new LogFile(activePath, headerOf(activePath, repair, guess), true);
    }
    LogFile active = found.active;
    long expected = snapshotGeneration;
    for (LogFile file : retired.values()) {
      found.repaired |= file.header.generation() != expected || file.header.damage() != null;
      if (file.header.generation() != expected && !repair) {
        throw new IOException(
            file.path
                + " continues generation "
                + file.header.generation()
                + " but generation "
                + expected
                + " is missing (snapshot "
                + snapshotPath
                + " has generation "
                + snapshotGeneration
                + ")"
                + REPAIR_HINT
                + "replay the logs that exist");
      }
      found.needed.add(file);
      expected = file.header.generation() + 1;
    }
    if (active != null) {
      long activeGeneration = active.header.generation();
      found.repaired |= activeGeneration != expected || active.header.damage() != null;
      if (activeGeneration != expected && !repair) {
        String why =
            activeGeneration < snapshotGeneration
                ? "the log is older than the snapshot"
                : "the snapshot is missing or older than the log";
        throw new IOException(
            activePath
                + " continues snapshot generation "
                + activeGeneration
                + " but "
                + snapshotPath
                + " has generation "
                + snapshotGeneration
                + (activeGeneration > snapshotGeneration && !retired.isEmpty()
                    ? " and the retired logs end at " + (expected - 1)
                    : "")
                + "; "
                + why
                + REPAIR_HINT
                + "replay the log (records the snapshot holds are"
                + " skipped)");
      }
      found.needed.add(active);
    }
    if (!found.needed.isEmpty()) {
      LogReader.Header first = found.needed.get(0).header;
      if (first.damage() == null && first.baseLsn() > found.snapshot.startLsn()) {
        found.repaired = true;
      }
      if (found.repaired && !repair) {
        throw new IOException(
            found.needed.get(0).path
                + " starts after record "
                + first.baseLsn()
                + " but "
                + snapshotPath
                + " holds records up to "
                + found.snapshot.startLsn()
                + " only; a log is missing"
                + REPAIR_HINT
                + "replay the logs that exist");
      }
    }
  }

  private static LogReader.Header headerOf(Path path, boolean repair, long generationGuess)
      throws IOException {
    LogReader.Header header;
    try {
      header = LogReader.header(path);
    } catch (LogReader.CorruptLogException e) {
      if (!repair) {
        throw new IOException(
            e.getMessage()
                + REPAIR_HINT
                + "rewrite the header and replay"
                + " the records (those the snapshot holds are skipped)",
            e);
      }
      if (Files.size(path) >= AppendLog.HEADER_BYTES) {
        // a damaged magic: read the records as the current format's
        return new LogReader.Header(generationGuess, 0, e.getMessage());
      }
      LOGGER.log(
          Level.WARNING,
          "{0}; writing a new header (repair allowed; a log shorter than"
              + " its header holds no records)",
          e.getMessage());
      try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
        channel.truncate(0);
      }
      rewriteHeader(path, new LogReader.Header(generationGuess, 0, null));
      LogReader.Header rewritten = LogReader.header(path);
      return new LogReader.Header(rewritten.generation(), 0, e.getMessage());
    }
    if (header.damage() != null) {
      if (!repair) {
        throw new IOException(
            path
                + ": "
                + header.damage()
                + REPAIR_HINT
                + "rewrite the"
                + " header and replay the records (those the snapshot holds are skipped)");
      }
      return new LogReader.Header(generationGuess, 0, header.damage());
    }
    return header;
  }

  private static void writeWholeSnapshot(
      Path target, FileChannels files, long generation, long startLsn, Keyspace keyspace)
      throws IOException {
    try (SnapshotFile.Writer writer = SnapshotFile.open(target, files, generation, startLsn)) {
      for (Map.Entry<Key, RedisCuckooFilter<byte[]>> entry : keyspace.entries().entrySet()) {
        writer.write(entry.getKey(), startLsn, keyspace.expireAt(entry.getKey()), entry.getValue());
      }
      writer.commit();
    }
  }

  /**
   * Appends the stream mark (if not null) and then one record of a write run in database {@code
   * db}; returns the record's sequence number.
   */
  @Override
  public long append(int db, byte[][] args, StreamMark mark) {
    if (mark != null) {
      append(0, mark.args());
    }
    return append(db, args);
  }

  /** Appends one record of a write run in database {@code db}; returns its sequence number. */
  @Override
  public long append(int db, byte[][] args) {
    saveStats.changed();
    if (!moversLogged && movesData(args)) {
      moversLogged = true;
    }
    return log.append(db, args);
  }

  private boolean movesData(byte[][] args) {
    if (args.length == 0 || Transaction.isRecord(args)) {
      return rules.movesData(args);
    }
    byte[] name = args[0];
    if (name == lastNonMover) {
      return false;
    }
    boolean moves = rules.movesData(args);
    if (!moves) {
      lastNonMover = name;
    }
    return moves;
  }

  /**
   * Returns the error writes get (without the dash), or null while writes are accepted: the log's
   * MISCONF after a failed write, else the one after a failed background save ({@link
   * SaveStats#refusal}).
   */
  @Override
  public String refusal() {
    String failed = refusal;
    return failed != null
        ? failed
        : saveStats.refusal(context.stopWritesOnBgsaveError(), context.savePoints());
  }

  /**
   * Pushes this log's failure, if it has one, to the write path's refusals (once it is the log in
   * force: a failure of a log not yet in force is not taken).
   */
  public synchronized void pushFailure() {
    if (refusal != null) {
      context.writeRefusals().logFailure(this, refusal);
    }
  }

  /** Returns true if the log failed and no new generation could be started since. */
  public boolean logFailed() {
    return refusal != null;
  }

  /**
   * Makes the writes of records {@code firstLsn..lastLsn} durable per the fsync policy; called
   * before a batch of replies that acknowledges them is sent.
   *
   * @return true if they are acknowledged; false if they were undone after a log failure
   */
  @Override
  public boolean commit(long firstLsn, long lastLsn) {
    Fsync policy = fsync;
    long durable = makeDurable(lastLsn, policy == Fsync.ALWAYS);
    Fsync now = fsync;
    if (now != policy) {
      // switched meanwhile: to always, the switch forced what was written before it, not a batch
      // written after it; from always, what was forced is written
      durable = makeDurable(lastLsn, now == Fsync.ALWAYS);
    }
    if (!acknowledgedBy(lastLsn, durable)) {
      return false;
    }
    for (long[] range : discarded) {
      if (firstLsn <= range[1] && lastLsn >= range[0]) {
        return false;
      }
    }
    maybeRewrite();
    return true;
  }

  /**
   * Forces the log to disk through record {@code lsn}, whatever the fsync policy.
   *
   * @return true if it is on disk and not undone after a log failure
   */
  public boolean force(long lsn) {
    return acknowledgedBy(lsn, makeDurable(lsn, true));
  }

  /**
   * Returns true if record {@code lsn} is acknowledged: durable per the fsync policy and not undone
   * after a log failure (records before it are then acknowledged too).
   */
  @Override
  public boolean acknowledged(long lsn) {
    return acknowledged(lsn, fsync == Fsync.ALWAYS);
  }

  /**
   * Returns true if record {@code lsn} is forced to disk and not undone after a log failure,
   * whatever the fsync policy (WAITAOF's local fsync). A number past the last record appended is
   * one of a log replaced since (appendonly turned off and on again): the snapshot that started
   * this log holds its write, forced.
   */
  public boolean fsynced(long lsn) {
    return lsn > log.appendedLsn() || acknowledged(lsn, true);
  }

  /** Returns the number of the last record forced to disk. */
  public long fsyncedLsn() {
    return log.durableLsn(true);
  }

  /** Returns the number of the last record appended (every append that returned is at or below). */
  public long appendedLsn() {
    return log.appendedLsn();
  }

  private boolean acknowledged(long lsn, boolean forced) {
    return acknowledgedBy(lsn, log.durableLsn(forced));
  }

  /**
   * Returns true if record {@code lsn} is acknowledged when the log is durable through {@code
   * durableLsn}: not past it, and not undone after a log failure.
   */
  private boolean acknowledgedBy(long lsn, long durableLsn) {
    if (durableLsn < lsn) {
      return false;
    }
    for (long[] range : discarded) {
      if (lsn >= range[0] && lsn <= range[1]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Makes record {@code lsn} durable (written; forced too if {@code forced}), unless another
   * connection's flush (group commit) already covered it; returns the log's durable number then.
   */
  private long makeDurable(long lsn, boolean forced) {
    try {
      return log.durableThrough(lsn, forced);
    } catch (IOException e) {
      failed(e);
      return log.durableLsn(forced);
    }
  }

  /**
   * Changes the fsync policy (CONFIG SET appendfsync). Every record written so far is forced first,
   * with other writes waiting, so that each record is acknowledged and, after a failure, undone
   * under one policy. A failing disk fails the log as any write would; the policy changes anyway.
   */
  public void fsync(Fsync policy) {
    try {
      log.forceThen(() -> fsync = policy);
    } catch (IOException e) {
      failed(e);
      fsync = policy;
    }
  }

  /** Returns the fsync policy in force. */
  public Fsync fsync() {
    return fsync;
  }

  private void syncQuietly() {
    try {
      log.flush(true);
    } catch (IOException e) {
      failed(e);
    } catch (RuntimeException e) {
      LOGGER.log(Level.ERROR, "background fsync failed", e);
    }
  }

  /**
   * Handles a failed log write or fsync: refuses writes, drops the records that were not
   * acknowledged and rebuilds the keys they touched from the files, then schedules recovery.
   */
  void failed(IOException cause) {
    synchronized (this) {
      if (handledFailure == cause) {
        return;
      }
      handledFailure = cause;
      refusal = "MISCONF Errors writing to the AOF file: " + describe(cause);
      context.writeRefusals().logFailure(this, refusal);
    }
    LOGGER.log(
        Level.ERROR,
        "append-only log write failed; refusing writes until a new log"
            + " generation can be written: "
            + describe(cause),
        cause);
    // a snapshot in progress must not commit or delete logs while the files are read back
    // (it cannot commit: its final flush fails now); keys are locked after it, as it locks keys
    saveLock.lock();
    keyspace.lockAll();
    try {
      long before = log.lastLsn();
      byte[] records = log.discardUnacknowledged(fsync == Fsync.ALWAYS);
      Set<Key> affected = new HashSet<>();
      // a record that moves data makes a key's history depend on other keys: rebuild them all
      boolean[] all = {moversLogged};
      long[] first = {Long.MAX_VALUE};
      LogReader.parse(
          records,
          (lsn, db, args, offset) -> {
            first[0] = Math.min(first[0], lsn);
            rules.keysOf(
                db,
                args,
                new RecordRules.KeySink() {
                  @Override
                  public void key(Key key) {
                    affected.add(key);
                  }

                  @Override
                  public void database(int which) {
                    all[0] = true;
                  }
                });
          });
      if (first[0] <= before) {
        long[][] ranges = Arrays.copyOf(discarded, discarded.length + 1);
        ranges[ranges.length - 1] = new long[] {first[0], before};
        discarded = ranges;
      }
      if (all[0] || !affected.isEmpty()) {
        rebuild(all[0] ? key -> true : affected::contains, all[0] ? null : affected);
        LOGGER.log(
            Level.WARNING, "undid {0} write(s) that were not acknowledged", before - first[0] + 1);
      }
    } catch (OutOfMemoryError e) {
      HeapGuard.fatal("undoing writes after a log failure", e);
    } catch (IOException | RuntimeException e) {
      LOGGER.log(
          Level.ERROR,
          "could not undo the writes that were not acknowledged; the data in"
              + " memory may hold them until a restart",
          e);
    } finally {
      keyspace.unlockAll();
      saveLock.unlock();
    }
    scheduleRecovery(1);
  }

  /** Replaces the wanted keys (all if {@code keys} is null) with what the files hold. */
  private void rebuild(Predicate<Key> wanted, Set<Key> keys) throws IOException {
    Keyspace rebuilt = new Keyspace(keyspace.databases());
    rebuilt.loading(true);
    recover(
        names,
        rebuilt,
        commandsFor.apply(rebuilt),
        rules,
        wanted,
        log.writtenBytes(),
        false,
        false);
    if (keys == null) {
      Reload.into(keyspace, rebuilt, true);
      return;
    }
    for (Key key : keys) {
      Reload.copy(keyspace, rebuilt, key);
    }
  }

  /**
   * DEBUG RELOAD: takes a snapshot (unless {@code save} is false), then, with every key locked,
   * writes out the log's buffered records and loads what the snapshot and the log hold into a new
   * keyspace, which then replaces the live one ({@code flush}) or is copied over it. The files are
   * left as they are, so a restart restores exactly what the reload loaded. Nothing changes in
   * memory if the files cannot be read.
   */
  @Override
  public String reload(boolean save, boolean flush, boolean merge, Runnable flushing) {
    saveLock.lock();
    try {
      if (save) {
        try {
          save(false);
        } catch (IOException | RuntimeException e) {
          LOGGER.log(Level.WARNING, "DEBUG RELOAD: could not save: " + describe(e));
          return Reload.SAVE_ERROR;
        }
      }
      keyspace.moveGate().closeForSnapshot();
      keyspace.lockAll();
      try {
        try {
          log.flush(false);
        } catch (IOException e) {
          failed(e);
          return Reload.LOAD_ERROR;
        }
        Keyspace rebuilt = new Keyspace(keyspace.databases());
        rebuilt.loading(true);
        try {
          recover(
              names,
              rebuilt,
              commandsFor.apply(rebuilt),
              rules,
              key -> true,
              log.writtenBytes(),
              false,
              false);
        } catch (IOException | RuntimeException e) {
          LOGGER.log(Level.WARNING, "DEBUG RELOAD: could not load: " + describe(e));
          return Reload.LOAD_ERROR;
        }
        return Reload.apply(keyspace, rebuilt, flush, merge, flushing);
      } finally {
        keyspace.unlockAll();
        keyspace.moveGate().open();
      }
    } finally {
      saveLock.unlock();
    }
  }

  private void scheduleRecovery(long delaySeconds) {
    if (recovering.compareAndSet(false, true)) {
      try {
        background.schedule(this::tryRecover, delaySeconds, TimeUnit.SECONDS);
      } catch (RejectedExecutionException e) {
        recovering.set(false);
      }
    }
  }

  private void tryRecover() {
    recovering.set(false);
    if (refusal == null) {
      return;
    }
    try {
      // not a BGSAVE: its failure is the log's refusal, not rdb_last_bgsave_status
      save(false);
      LOGGER.log(
          Level.INFO, "the log is writable again (generation {0}); accepting writes", generation);
    } catch (IOException | RuntimeException e) {
      LOGGER.log(Level.WARNING, "still cannot write a new log generation: " + describe(e));
      scheduleRecovery(1);
    }
  }

  private static String describe(Throwable e) {
    return BackgroundSaves.describe(e);
  }

  private void maybeRewrite() {
    int percentage = context.rewritePercentage();
    if (percentage <= 0 || saves.running()) {
      return;
    }
    long size = log.writtenBytes();
    long base = Math.max(rewriteBaseBytes, AppendLog.HEADER_BYTES);
    if (size >= context.rewriteMinSize() && size >= base / 100 * percentage) {
      // Redis's AOF rewrite, not a BGSAVE: a failure shows in aof_last_bgrewrite_status only
      if (saveAsync(false) != null) {
        LOGGER.log(
            Level.INFO,
            "log is {0} bytes, {1}% of the {2}-byte snapshot; taking a new" + " snapshot",
            size,
            size * 100 / base,
            base);
      }
    }
  }

  /**
   * Takes a snapshot into a new log generation (SAVE). Commands go on meanwhile: writes of a small
   * filter pause while it is written, writes of a big one only while its image is captured.
   *
   * @throws IOException if the snapshot cannot be written (the logs still hold everything)
   */
  @Override
  public void save() throws IOException {
    save(false);
  }

  private void save(boolean background) throws IOException {
    saveLock.lock();
    saveStats.started(background);
    boolean saved = false;
    keyspace.moveGate().closeForSnapshot();
    try {
      long next = Math.max(generation, log.generation()) + 1;
      Path retired = names.retired(log.generation());
      long[] rotatedAt = new long[1];
      List<Key> keys;
      try {
        keys =
            keyspace.keysAcross(
                () -> {
                  rotatedAt[0] = log.rotate(next, retired);
                  atRotation.run();
                  afterRotate.run();
                });
      } catch (IOException e) {
        failed(e);
        throw e;
      }
      long startLsn = rotatedAt[0];
      try (SnapshotFile.Writer writer =
          SnapshotFile.open(names.snapshot(), files, next, startLsn)) {
        Checkpoint.writeKeys(writer, keys, keyspace, log::lastLsn);
        try {
          // the snapshot may hold writes not yet in the file: they must be before it is kept
          log.flush(true);
        } catch (IOException e) {
          failed(e);
          throw e;
        }
        writer.commit();
      }
      generation = next;
      moversLogged = false;
      names.deleteRetiredBefore(next);
      synchronized (this) {
        refusal = null;
        handledFailure = null;
        context.writeRefusals().logFailure(this, null);
      }
      rewriteBaseBytes = Files.size(names.snapshot());
      saved = true;
    } finally {
      saveStats.ended(saved, background);
      keyspace.moveGate().open();
      saveLock.unlock();
    }
  }

  @Override
  public CompletableFuture<String> saveAsync(boolean background) {
    return saves.start(background);
  }

  /**
   * Sets code that each snapshot runs after it rotated the log and before it lists the keys (tests
   * use it to hold a snapshot at that moment).
   */
  public void afterRotate(Runnable hook) {
    afterRotate = hook;
  }

  /**
   * Sets what runs right after each snapshot rotated the log, before any key is listed: a replica
   * logs the stream mark in force there (see {@link StreamMark}).
   */
  public void atRotation(Runnable hook) {
    atRotation = hook;
  }

  /** Returns the last stream mark the recovered files held (null if none). */
  public StreamMark recoveredMark() {
    return recoveredMark;
  }

  @Override
  public boolean saving() {
    return saves.running();
  }

  @Override
  public SaveStats saveStats() {
    return saveStats;
  }

  /** Returns the current snapshot generation. */
  long generation() {
    return generation;
  }

  /** Returns the size of the active log in bytes. */
  public long logBytes() {
    return log.writtenBytes();
  }

  /** Returns the size of the last snapshot, in bytes (the base of the rewrite rule). */
  public long logBaseBytes() {
    return rewriteBaseBytes;
  }

  @Override
  public void close() throws IOException {
    syncer.shutdown();
    background.shutdown();
    try {
      background.awaitTermination(30, TimeUnit.SECONDS);
      syncer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    log.close();
  }
}
