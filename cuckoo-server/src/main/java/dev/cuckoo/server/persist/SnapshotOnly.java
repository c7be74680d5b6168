package dev.cuckoo.server.persist;

import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Durability by snapshots alone ({@code appendonly no}, Redis's RDB-only mode): SAVE, BGSAVE, the
 * save points and a shutdown write the snapshot file; the next start loads it. Writes made since
 * the last snapshot are lost if the process dies.
 *
 * <p><b>The snapshot</b> is the one {@link Persistence} writes (same file, same format), taken the
 * same way without stopping the world ({@link Checkpoint}): commands go on while it is written, and
 * it holds each key as it was when visited. Commands that move data between keys wait while it
 * runs, so a key is never missing from both its old and its new name. Every key carries record
 * number 0: no log follows it. It is written to a temporary file, forced and renamed over the old
 * one, so a failed write (a full disk, EIO) leaves the previous snapshot as it was.
 *
 * <p><b>Logs left by {@code appendonly yes}.</b> When the data directory also holds append-only
 * logs (the server ran with {@code appendonly yes} before), the start replays them after the
 * snapshot, as {@code appendonly yes} would, and warns: Redis would load the snapshot alone and
 * lose what only the logs held. They are kept until a snapshot holds what they held: each save
 * first renames the active log to its retired name, then writes the snapshot with a generation
 * above every log's, then deletes the retired logs. A crash in between leaves either the old
 * snapshot with every log (replayed again) or the new snapshot with logs older than it (removed at
 * the next start).
 */
public final class SnapshotOnly implements Snapshots, WriteLog {
  private static final System.Logger LOGGER = System.getLogger(SnapshotOnly.class.getName());

  private final PersistenceContext context;
  private final DataFiles names;
  private final Keyspace keyspace;
  private final FileChannels files;
  private final ExecutorService background;
  private final BackgroundSaves saves;
  private final ReentrantLock saveLock = new ReentrantLock();
  private long generation;

  private SnapshotOnly(PersistenceContext context, FileChannels files, long generation) {
    this.context = context;
    this.names = DataFiles.of(context.config());
    this.keyspace = context.keyspace();
    this.files = files;
    this.generation = generation;
    this.background =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "cuckoo-snapshot");
              t.setDaemon(true);
              return t;
            });
    this.saves = new BackgroundSaves(background, this::save);
  }

  /**
   * Loads the snapshot of the data directory into the keyspace, and the logs an earlier run with
   * {@code appendonly yes} left there (with a warning).
   *
   * @param commandsFor builds the command table over a keyspace (to replay the logs' records)
   * @param rules which keys a logged record changes and whether it moves data
   * @throws IOException if the files cannot be read, or are damaged and repair is not allowed
   */
  public static SnapshotOnly open(
      PersistenceContext context,
      FileChannels files,
      Function<Keyspace, RecordApplier> commandsFor,
      RecordRules rules)
      throws IOException {
    DataFiles names = DataFiles.of(context.config());
    Persistence.Recovered found = Persistence.load(context, commandsFor, rules);
    if (!found.needed.isEmpty()) {
      LOGGER.log(
          Level.WARNING,
          "appendonly is no, but {0} holds append-only logs ({1} and later) from a run with"
              + " appendonly yes: they were replayed after the snapshot so that no write kept on"
              + " disk is lost, and are removed once the next snapshot is saved (SAVE, BGSAVE, a"
              + " save point or the shutdown's). Writes from now on go to snapshots only.",
          names.dir(),
          found.needed.get(0).path.getFileName());
    }
    Persistence.removeObsolete(found);
    return new SnapshotOnly(
        context, files, Math.max(found.snapshot.generation(), Persistence.lastGeneration(found)));
  }

  /**
   * Starts snapshot-only durability over the keyspace as it is now, reading nothing (CONFIG SET
   * appendonly no): the next snapshot holds every key, and replaces the logs left in the directory.
   */
  public static SnapshotOnly over(PersistenceContext context, FileChannels files) {
    return new SnapshotOnly(context, files, 0);
  }

  /**
   * Writes a snapshot of every key (SAVE, a shutdown's save) on the calling thread.
   *
   * @throws IOException if it cannot be written; the previous snapshot is then intact
   */
  @Override
  public void save() throws IOException {
    save(false);
  }

  private void save(boolean background) throws IOException {
    saveLock.lock();
    SaveStats stats = context.saveStats();
    stats.started(background);
    boolean saved = false;
    keyspace.moveGate().closeForSnapshot();
    try {
      writeSnapshot();
      saved = true;
    } finally {
      stats.ended(saved, background);
      keyspace.moveGate().open();
      saveLock.unlock();
    }
  }

  /** Writes the snapshot; the caller holds the save lock and has closed the move gate. */
  private void writeSnapshot() throws IOException {
    long next = retireLog() + 1;
    List<Key> keys = keyspace.keysAcross(() -> {});
    try (SnapshotFile.Writer writer = SnapshotFile.open(names.snapshot(), files, next, 0)) {
      Checkpoint.writeKeys(writer, keys, keyspace, () -> 0);
      writer.commit();
    }
    generation = next;
    names.deleteRetiredBefore(next);
    LOGGER.log(Level.INFO, "DB saved on disk ({0} keys)", keys.size());
  }

  /**
   * DEBUG RELOAD: with every key locked (no write comes between), writes the snapshot (unless
   * {@code save} is false) and loads it into a new keyspace, which then replaces the live one
   * ({@code flush}) or is copied over it. Nothing changes in memory if the snapshot cannot be read
   * (Redis empties the database first).
   */
  @Override
  public String reload(boolean save, boolean flush, boolean merge, Runnable flushing) {
    saveLock.lock();
    SaveStats stats = context.saveStats();
    keyspace.moveGate().closeForSnapshot();
    keyspace.lockAll();
    try {
      if (save) {
        stats.started(false);
        boolean saved = false;
        try {
          writeSnapshot();
          saved = true;
        } catch (IOException | RuntimeException e) {
          LOGGER.log(Level.WARNING, "DEBUG RELOAD: could not save: " + e);
          return Reload.SAVE_ERROR;
        } finally {
          stats.ended(saved, false);
        }
      }
      Keyspace loaded = new Keyspace(keyspace.databases());
      loaded.loading(true);
      try {
        SnapshotFile.read(names.snapshot(), loaded, key -> true);
      } catch (IOException | RuntimeException e) {
        LOGGER.log(Level.WARNING, "DEBUG RELOAD: could not load " + names.snapshot() + ": " + e);
        return Reload.LOAD_ERROR;
      }
      return Reload.apply(keyspace, loaded, flush, merge, flushing);
    } finally {
      keyspace.unlockAll();
      keyspace.moveGate().open();
      saveLock.unlock();
    }
  }

  /**
   * Renames a log left by {@code appendonly yes} to its retired name, so that the snapshot about to
   * be written can make every log obsolete; returns the highest generation a snapshot or log in the
   * directory may hold.
   */
  private long retireLog() throws IOException {
    long highest = generation;
    if (names.hasLog()) {
      long logGeneration = LogReader.header(names.log()).generation();
      Files.move(names.log(), names.retired(logGeneration), StandardCopyOption.ATOMIC_MOVE);
      highest = Math.max(highest, logGeneration);
    }
    for (Map.Entry<Long, Path> retired : names.retiredLogs().entrySet()) {
      highest = Math.max(highest, retired.getKey());
    }
    return highest;
  }

  @Override
  public CompletableFuture<String> saveAsync(boolean background) {
    return saves.start(background);
  }

  @Override
  public boolean saving() {
    return saves.running();
  }

  /**
   * Returns Redis's MISCONF after a failed background save ({@link SaveStats#refusal}), or null.
   */
  @Override
  public String refusal() {
    return context.saveStats().refusal(context.stopWritesOnBgsaveError(), context.savePoints());
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

  /** Counts a write for the save points; records nothing (there is no log): returns 0. */
  @Override
  public long append(int db, byte[][] args) {
    context.saveStats().changed();
    return 0;
  }

  /** Acknowledges at once: without a log a write is kept until the next snapshot only. */
  @Override
  public boolean commit(long firstLsn, long lastLsn) {
    return true;
  }

  /** Acknowledges at once (see {@link #commit}). */
  @Override
  public boolean acknowledged(long lsn) {
    return true;
  }

  @Override
  public SaveStats saveStats() {
    return context.saveStats();
  }

  /** Waits for a running snapshot to end, then stops the background thread. */
  @Override
  public void close() {
    background.shutdown();
    try {
      background.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
