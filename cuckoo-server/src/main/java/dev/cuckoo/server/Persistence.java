package dev.cuckoo.server;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Durability: the snapshot file plus the append-only log of writes made since that snapshot.
 *
 * <p>Both files carry a generation number. SAVE writes snapshot generation g+1 (temp file, fsync,
 * rename) and then replaces the log with an empty one of generation g+1, all while every keyspace
 * lock is held. Recovery loads the snapshot (generation s) and replays the log only if its
 * generation is s; an older log is already contained in the snapshot (a crash between the two
 * renames) and is discarded.
 */
final class Persistence implements WriteLog, Closeable {
  /** Snapshot file name inside the data directory. */
  static final String SNAPSHOT = "dump.cuckoo";
  /** Log file name inside the data directory. */
  static final String LOG = "appendonly.log";

  private static final System.Logger LOGGER = System.getLogger(Persistence.class.getName());

  private final Path dir;
  private final Keyspace keyspace;
  private final ServerConfig.Fsync fsync;
  private final AppendLog log;
  private final ScheduledExecutorService background;
  private final AtomicBoolean saving = new AtomicBoolean();
  private final AtomicLong changes = new AtomicLong();
  private volatile long generation;
  private volatile long lastSaveSeconds;

  private Persistence(Path dir, Keyspace keyspace, ServerConfig.Fsync fsync, AppendLog log,
      long generation) {
    this.dir = dir;
    this.keyspace = keyspace;
    this.fsync = fsync;
    this.log = log;
    this.generation = generation;
    this.lastSaveSeconds = System.currentTimeMillis() / 1000;
    this.background = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "cuckoo-persistence");
      t.setDaemon(true);
      return t;
    });
    if (fsync == ServerConfig.Fsync.EVERYSEC) {
      background.scheduleWithFixedDelay(this::syncQuietly, 1, 1, TimeUnit.SECONDS);
    }
  }

  /**
   * Recovers the keyspace from the data directory and opens the log for appending.
   *
   * @param replay runs one logged command against the keyspace
   * @throws IOException if the files cannot be read, or the log is corrupt in the middle and
   *     repair is not allowed
   */
  static Persistence open(ServerConfig config, Keyspace keyspace, Consumer<byte[][]> replay)
      throws IOException {
    Path dir = config.dir();
    Files.createDirectories(dir);
    Path snapshot = dir.resolve(SNAPSHOT);
    long generation = 0;
    if (Files.exists(snapshot)) {
      SnapshotFile.Loaded loaded = SnapshotFile.read(snapshot, keyspace.entries());
      generation = loaded.generation();
      LOGGER.log(Level.INFO, "loaded {0} keys from {1} (generation {2})",
          loaded.keys(), snapshot, generation);
    }
    Path logPath = dir.resolve(LOG);
    AppendLog log;
    boolean oldLogFormat = false;
    if (!Files.exists(logPath)) {
      log = AppendLog.create(logPath, generation);
    } else {
      long logGeneration = LogReader.generationOf(logPath);
      if (logGeneration < generation) {
        LOGGER.log(Level.INFO, "{0} predates the snapshot; starting a new log", logPath);
        log = AppendLog.create(logPath, generation);
      } else if (logGeneration > generation) {
        throw new IOException(logPath + " continues snapshot generation " + logGeneration
            + " but " + snapshot + " has generation " + generation + "; the snapshot is missing"
            + " or older than the log");
      } else {
        LogReader.Result result = LogReader.read(logPath, config.repairLog(), replay);
        if (result.problem() != null) {
          LOGGER.log(Level.WARNING, "{0}: {1}; truncating {2} bytes at offset {3}", logPath,
              result.problem(), result.fileSize() - result.validEnd(), result.validEnd());
        }
        LOGGER.log(Level.INFO, "replayed {0} records from {1}", result.records(), logPath);
        log = AppendLog.openAt(logPath, result.validEnd());
        if (result.problem() != null) {
          log.flush(true);
        }
        oldLogFormat = result.version() == 1;
      }
    }
    Persistence persistence = new Persistence(dir, keyspace, config.fsync(), log, generation);
    if (oldLogFormat) {
      // records are only appended in the current format: fold the old log into a snapshot
      LOGGER.log(Level.INFO, "{0} is in log format version 1; saving a snapshot to start a"
          + " current-format log", logPath);
      try {
        persistence.save();
      } catch (IOException | RuntimeException e) {
        persistence.close();
        throw e;
      }
    }
    return persistence;
  }

  @Override
  public void append(byte[][] args) {
    log.append(args);
    changes.incrementAndGet();
  }

  /**
   * Makes the writes appended so far durable per the fsync policy; called before a batch of
   * replies that acknowledges writes is sent.
   */
  void commit() {
    log.flush(fsync == ServerConfig.Fsync.ALWAYS);
  }

  private void syncQuietly() {
    try {
      if (log.hasUnsynced()) {
        log.flush(true);
      }
    } catch (UncheckedIOException e) {
      LOGGER.log(Level.ERROR, "background fsync failed", e);
    }
  }

  /** Writes a snapshot and empties the log (SAVE). Blocks every command while it runs. */
  void save() throws IOException {
    keyspace.lockAll();
    try {
      long next = generation + 1;
      log.flush(true);
      SnapshotFile.write(dir.resolve(SNAPSHOT), next, keyspace.entries());
      log.rewrite(next);
      generation = next;
      changes.set(0);
      lastSaveSeconds = System.currentTimeMillis() / 1000;
    } finally {
      keyspace.unlockAll();
    }
  }

  /**
   * Starts a snapshot on the background thread (BGSAVE).
   *
   * @return false if a snapshot is already running
   */
  boolean saveInBackground() {
    if (!saving.compareAndSet(false, true)) {
      return false;
    }
    background.execute(() -> {
      try {
        save();
      } catch (IOException | RuntimeException e) {
        LOGGER.log(Level.ERROR, "background save failed", e);
      } finally {
        saving.set(false);
      }
    });
    return true;
  }

  /** Returns true while a background save runs. */
  boolean saving() {
    return saving.get();
  }

  /** Returns the Unix time of the last successful save (or of startup). */
  long lastSaveSeconds() {
    return lastSaveSeconds;
  }

  /** Returns the number of writes logged since the last save. */
  long changesSinceSave() {
    return changes.get();
  }

  /** Returns the current snapshot generation. */
  long generation() {
    return generation;
  }

  @Override
  public void close() throws IOException {
    background.shutdown();
    try {
      background.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    log.close();
  }
}
